"""What other pytest plugins do to a tom run, said where the run can say it.

- pytest-rerunfailures: a tom item is scored on its first answer. A rerun asks the model
  nothing and gives the first attempt's verdict again (`items.TomItem.rerun`), so the
  scores, pytest's verdict, JUnit and the request counts agree; the header says so.
- pytest-timeout (and any fixture or plugin failing an item's test before it is scored):
  the item is an error outcome (`core.outcome.TEST_ERROR`, `run_loop.stopped_by_pytest`).
"""

from __future__ import annotations

import contextlib

import pytest


def reruns_asked(config: pytest.Config) -> int:
    """The reruns pytest-rerunfailures will make of a failed test (0: none, or the plugin
    is not installed): `--reruns`, `--force-reruns`, or its `reruns` ini key."""
    if not config.pluginmanager.hasplugin("rerunfailures"):
        return 0
    counts = [config.getoption("--reruns", None), config.getoption("--force-reruns", None)]
    with contextlib.suppress(ValueError):  # a version without the ini key
        counts.append(config.getini("reruns"))
    return max((int(c) for c in counts if c not in (None, "") and str(c).isdigit()), default=0)


def rerun_note(config: pytest.Config) -> str:
    """The header line when a rerun plugin is active: what a rerun of a tom item does."""
    reruns = reruns_asked(config)
    if not reruns:
        return ""
    return (f"tom: reruns (pytest-rerunfailures, {reruns}): a tom item is scored on its first "
            f"answer; a rerun asks the model nothing and gives the first verdict again "
            f"(a failed request is retried within the item: --tom-retries)")
