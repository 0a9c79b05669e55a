"""pytest's teardown-report lookup in the failure summary: quadratic in failures.

For each failed test, pytest's failure summary (`--tb` other than line/no) calls
`TerminalReporter._get_teardown_reports(node_id)`, which scans every passed report of
the run (`stats[""]`: each test's setup and teardown). F failures among N tests cost
F x 2N comparisons. This script builds real `pytest.TestReport` objects for N tests of
which half fail, then times, in the same process, pytest's own method against
pytest-tom's index (`pytest_tom.pytest_compat.TeardownIndex`), checks that both return
the same reports, and prints the times, their ratio and the load. Doubling N should
about quadruple pytest's time and double the index's: the reproducer for an upstream
report (plain pytest, no plugin: `--repro N` writes a test file with N tests, half
failing with a teardown fixture, and times `pytest -q` on it against `--tb=no`).

    python benchmarks/teardown_lookup.py [--sizes 1000,2000,4000] [--repro N]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from _pytest.terminal import TerminalReporter

from pytest_tom.pytest_compat import TeardownIndex


def reports(n: int) -> tuple[dict[str, list[pytest.TestReport]], list[pytest.TestReport]]:
    passed: list[pytest.TestReport] = []
    failed: list[pytest.TestReport] = []
    for i in range(n):
        nodeid = f"test_many.py::test_{i}"
        for when in ("setup", "call", "teardown"):
            bad = when == "call" and i % 2 == 0
            rep = pytest.TestReport(nodeid=nodeid, location=("test_many.py", i, f"test_{i}"),
                                    keywords={}, outcome="failed" if bad else "passed",
                                    longrepr="assert False" if bad else None, when=when,
                                    sections=[("Captured stdout teardown", "bye\n")]
                                    if when == "teardown" else [])
            (failed if bad else passed if when != "call" else []).append(rep)
    return {"": passed, "failed": failed}, failed


def key(rep: pytest.TestReport) -> object:
    return getattr(rep, "id", None) or rep.nodeid  # what this pytest passes to the lookup


def measure(n: int) -> tuple[float, float]:
    stats, failed = reports(n)
    reporter = SimpleNamespace(stats=stats)
    reporter.getreports = lambda name: TerminalReporter.getreports(reporter, name)

    def own(node_id: object) -> list[pytest.TestReport]:
        return TerminalReporter._get_teardown_reports(reporter, node_id)

    start = time.perf_counter()
    expected = [own(key(rep)) for rep in failed]
    scan = time.perf_counter() - start
    index = TeardownIndex(reporter, own)
    index.verified = TeardownIndex.VERIFY  # time the index alone
    start = time.perf_counter()
    got = [index(key(rep)) for rep in failed]
    indexed = time.perf_counter() - start
    assert [[id(r) for r in x] for x in got] == [[id(r) for r in x] for x in expected]
    return scan, indexed


REPRO = '''\
import pytest

@pytest.fixture
def noisy():
    yield
    print("teardown output")

@pytest.mark.parametrize("i", range({n}))
def test_many(noisy, i):
    assert i % 2
'''


def repro(n: int) -> None:
    """Plain pytest, no plugin: the summary's cost is the difference of --tb=short and no."""
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "test_many.py").write_text(REPRO.format(n=n), encoding="utf-8")
        times = {}
        for tb in ("no", "line", "short"):
            cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:tom",
                   "-p", "no:randomly", f"--tb={tb}", "test_many.py"]
            start = time.perf_counter()
            subprocess.run(cmd, cwd=tmp, capture_output=True, check=False)
            times[tb] = time.perf_counter() - start
        print(f"plain pytest {pytest.__version__}, {n} tests, {n // 2} failing: "
              + ", ".join(f"--tb={k} {v:.2f} s" for k, v in times.items()))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,2000,4000")
    ap.add_argument("--repro", type=int, default=0, metavar="N")
    args = ap.parse_args()
    print(f"pytest {pytest.__version__}, load {' '.join(map(str, os.getloadavg()))}")
    for n in map(int, args.sizes.split(",")):
        scan, indexed = measure(n)
        print(f"{n:6d} tests, {n // 2:5d} failing: pytest's lookup {scan:7.3f} s, "
              f"index {indexed:6.3f} s, ratio {scan / max(indexed, 1e-9):7.1f}")
    if args.repro:
        repro(args.repro)


if __name__ == "__main__":
    main()
