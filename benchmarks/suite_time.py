"""How long the project's own test suite takes, against pytest's floor on the same machine.

    .venv/bin/python benchmarks/suite_time.py            # the README's test command, then the floor
    .venv/bin/python benchmarks/suite_time.py --floor-only

Runs the README's test command (`python -m pytest -n 2`, the whole suite) from the
checkout, then pytest's floor right after in the same virtualenv: plain pytest running
20,000 trivial parametrized tests in one process (as benchmarks/scale.py times it). Machines differ in speed; the ratio of the
two says how heavy the suite is wherever it is measured (issue 43's goal: the suite within
10 minutes on a 2-core machine, and within 30 times the floor). Prints each time, the
suite's test count, the load average before each, and the ratio.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FLOOR_TESTS = 20_000
FLOOR = """import pytest


@pytest.mark.parametrize("i", range({n}))
def test_trivial(i):
    assert i >= 0
"""


def timed(cmd: list[str], cwd: Path) -> tuple[float, str, int]:
    """Wall seconds, the last line printed, and the exit status of `cmd` (whose failed
    and errored tests are printed)."""
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    took = time.perf_counter() - start
    lines = [ln for ln in proc.stdout.splitlines() if ln.strip()]
    for line in lines:
        if line.startswith(("FAILED ", "ERROR ")):
            print(f"  {line}")
    return took, (lines[-1] if lines else proc.stderr[-300:]), proc.returncode


def floor() -> float:
    with tempfile.TemporaryDirectory() as folder:
        here = Path(folder)
        (here / "test_floor.py").write_text(FLOOR.format(n=FLOOR_TESTS))
        took, last, status = timed([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                    "-p", "no:randomly", "test_floor.py"], here)
    if status != 0:
        raise SystemExit(f"the floor run failed: {last}")
    return took


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--floor-only", action="store_true", help="time only pytest's floor")
    parser.add_argument("-n", default="2", help="xdist workers of the suite's run (default 2)")
    args = parser.parse_args()
    suite = None
    if not args.floor_only:
        load = os.getloadavg()[0]
        suite, last, status = timed([sys.executable, "-m", "pytest", "-n", args.n, "-q",
                                     "-p", "no:cacheprovider"], REPO)
        tests = re.search(r"(\d+) passed", last)
        print(f"suite:  {suite:7.1f} s  ({last.strip('= ')}; exit {status}; load {load:.2f})")
        if tests is None:
            print("(no passed count in the suite's last line)")
    load = os.getloadavg()[0]
    base = floor()
    print(f"floor:  {base:7.1f} s  ({FLOOR_TESTS:,} trivial tests in one process; load {load:.2f})")
    if suite is not None:
        print(f"ratio:  {suite / base:7.1f} x the floor ({suite / 60:.1f} minutes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
