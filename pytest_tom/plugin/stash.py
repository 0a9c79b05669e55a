"""Whether a run is active in this process, for the inert entry point.

A module of its own, importing nothing of the plugin, so that the entry point can answer
the `tom_model` fixture without importing the active run (and through it the families
and PyYAML). The run's own objects are kept under the keys of the modules that own them
(`context.CONTEXT_KEY`, `request_phase.REQUESTS_KEY`, `items.SUITES_KEY` ...).
"""

from __future__ import annotations

import pytest

ACTIVE_KEY = pytest.StashKey[bool]()


def is_active(config: pytest.Config) -> bool:
    """True once `activate.activate` has set the run up in this process."""
    return config.stash.get(ACTIVE_KEY, False)
