"""Two saved JSON reports of every bundled suite, made once per test session by real runs
of the plugin (`pytest suites --tom-model=python:tests/demo_answerers.py:strong|weak`, in
the process that builds them), for the interval, compare and HTML tests.

Only the weak run answers FANToM's free responses (`belief_dist`): scoring them needs the
embedding model (6-9 s of CPU to load, in a process that has not) and embeds each answer,
and the strong run needs none of it. The tests that read ALL*, the
Dist. figures or their intervals read the weak report (the intervals, the terminal); the
comparison shows ALL* as `n/a` for the strong run, and its grouped FANToM figure is ALL."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from in_process_run import run_here
from shared_artifacts import shared_artifact

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
_CACHE: dict[str, Path] = {}


#: the extra options of each demo run (the strong run leaves out the embedding scoring)
DEMO_RUNS: dict[str, tuple[str, ...]] = {"strong": ("-m", "not belief_dist"), "weak": ()}


def run_bundled(answerer: str, out: Path, *extra: str) -> Path:
    """The JSON report of the bundled suites answered by `demo_answerers.<answerer>`, run
    in this process (`in_process_run`: FANToM's embedding model is the one this process
    loaded, not a new load); its terminal output is kept beside it (`<answerer>.out`)."""
    report = out / f"{answerer}.json"
    run = run_here(["suites", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                    f"--tom-model=python:tests/demo_answerers.py:{answerer}",
                    f"--tom-report={report}", f"--tom-cache-dir={out / 'cache'}",
                    "--tom-cache=off", *extra], cwd=REPO)
    if not report.exists():
        raise AssertionError(f"no report from the {answerer} run:\n{run.stdout[-3000:]}\n"
                             f"{run.stderr[-3000:]}")
    (out / f"{answerer}.out").write_text(run.stdout)
    return report


@pytest.fixture(scope="session")
def demo_reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """{"strong": path, "weak": path}: saved reports of two stand-in models, made once per
    test session (not once per xdist worker); tests read them and never change them. The
    strong report has no belief_dist item (see the module's docstring)."""
    if not _CACHE:
        def build(out: Path) -> None:
            for name, extra in DEMO_RUNS.items():
                run_bundled(name, out, *extra)

        out = shared_artifact(tmp_path_factory, "demo-reports", build)
        _CACHE.update({name: out / f"{name}.json" for name in ("strong", "weak")})
    return dict(_CACHE)


def load(path: Path) -> dict[str, Any]:
    return json.loads(Path(path).read_text(encoding="utf-8"))
