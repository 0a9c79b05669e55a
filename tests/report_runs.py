"""Two saved JSON reports of every bundled suite, made once per test session by real runs
of the plugin (`pytest suites --tom-model=python:tests/demo_answerers.py:strong|weak`),
for the interval, compare and HTML tests.

Only the weak run answers FANToM's free responses (`belief_dist`): scoring them loads the
embedding model, 6-9 s of CPU in each process that does it. The tests that read ALL*, the
Dist. figures or their intervals read the weak report (the intervals, the terminal); the
comparison shows ALL* as `n/a` for the strong run, and its grouped FANToM figure is ALL."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from shared_artifacts import shared_artifact

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
_CACHE: dict[str, Path] = {}


#: the extra options of each demo run (the strong run leaves out the embedding scoring)
DEMO_RUNS: dict[str, tuple[str, ...]] = {"strong": ("-m", "not belief_dist"), "weak": ()}


def run_bundled(answerer: str, out: Path, *extra: str) -> Path:
    """The JSON report of the bundled suites answered by `demo_answerers.<answerer>`."""
    report = out / f"{answerer}.json"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        filter(None, [str(REPO), os.environ.get("PYTHONPATH", "")]))}
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "suites", "-q", "-p", "no:cacheprovider",
         "-p", "no:randomly", f"--tom-model=python:tests/demo_answerers.py:{answerer}",
         f"--tom-report={report}", f"--tom-cache-dir={out / 'cache'}", "--tom-cache=off",
         *extra],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=900)
    if not report.exists():
        raise AssertionError(f"no report from the {answerer} run:\n{proc.stdout[-3000:]}\n"
                             f"{proc.stderr[-3000:]}")
    (out / f"{answerer}.out").write_text(proc.stdout)
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
