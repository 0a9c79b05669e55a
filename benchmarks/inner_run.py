"""The fixed cost of one small pytest-tom run, in process and as a process of its own.

A small run: the generated numbers suite (generic family, 8 items in 2 scenarios) answered
by a `python:` answerer, with `--tom-report`; beside it, the same number of trivial plain
pytest tests (the floor pytest itself sets). Two figures for each checkout given:

- **in process**: `pytest.main` called again and again in one process, after a first run
  that imported everything (as a pytester `runpytest` in this project's tests, or a tool
  that calls `pytest.main` in a loop); the time of one run, the least and the median of
  `--runs`. What the plugin does in every run (options, registry, suite loading, the
  request phase, aggregation, the report) and nothing it imports.
- **a process**: `python -m pytest ...` started afresh (a subprocess run); its CPU time
  (user + system, from the kernel, so the other processes of a busy machine disturb it
  less than the wall time), the least and the median of `--repeat`. Imports included:
  those of the entry point (every pytest process) and of an active run. Also the run
  under `-n 2`: the controller and its two workers, their CPU summed.

Each checkout is measured with its own PYTHONPATH, its bytecode compiled first (as an
installed pytest-tom has it: `installed_bytecode.py`); with several checkouts the
measurements alternate (A, B, A, B ...) so that a load that comes and goes touches both.
Prints figures, asserts nothing.

    python benchmarks/inner_run.py [CHECKOUT ...] [--runs 40] [--repeat 8]

Without CHECKOUT: this one. To compare with main: `git archive main | tar -x -C /tmp/base`
and give `/tmp/base .`.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
sys.path.insert(0, str(REPO / "tests"))

from installed_bytecode import compile_checkout  # noqa: E402
from runner_support import numbers_suite  # noqa: E402

ITEMS = 8
ANSWER = "def answer(req):\n    return 'Yes.'\n"
PLAIN = ("import pytest\n\n\n@pytest.mark.parametrize('i', range({n}))\n"
         "def test_number(i):\n    assert i >= 0\n")
TOM = ["numbers.tom.yaml", "--tom-model=python:answer:answer", "--tom-report=r.json"]
COMMON = ["-q", "-p", "no:cacheprovider", "-p", "no:randomly"]

# the child of the in-process figure: runs pytest.main in a loop, prints the times as JSON
IN_PROCESS = """
import contextlib, io, json, sys, time
import pytest
args, runs = json.loads(sys.argv[1]), int(sys.argv[2])
def once():
    with contextlib.redirect_stdout(io.StringIO()):
        start = time.perf_counter()
        code = pytest.main(list(args))
        took = time.perf_counter() - start
    if code not in (0, 1):  # 1: the answerer's wrong answers fail their items
        sys.exit(f"the run ended with exit status {code}")
    return took
once()  # imports everything
print(json.dumps([once() for _ in range(runs)]))
"""


def env_for(checkout: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(checkout)
    env.pop("PYTEST_ADDOPTS", None)
    return env


def in_process(checkout: Path, folder: Path, args: list[str], runs: int) -> list[float]:
    out = subprocess.run([sys.executable, "-c", IN_PROCESS, json.dumps(args), str(runs)],
                         cwd=folder, env=env_for(checkout), capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def process_cpu(checkout: Path, folder: Path, args: list[str]) -> float:
    """CPU seconds (user + system) of one `python -m pytest` process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run([sys.executable, "-m", "pytest", *args], cwd=folder,
                          env=env_for(checkout), capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(args)} ended with exit status {proc.returncode}:\n"
                         f"{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("checkouts", nargs="*", type=Path, default=[REPO])
    ap.add_argument("--runs", type=int, default=40, help="in-process runs per checkout")
    ap.add_argument("--repeat", type=int, default=8, help="processes per checkout and kind")
    args = ap.parse_args()
    checkouts = [c.resolve() for c in args.checkouts]
    for checkout in checkouts:
        print(f"{checkout}: {compile_checkout(checkout)}")
    kinds = {"tom": COMMON + TOM, "plain": COMMON + ["test_plain.py"]}
    xdist = {"tom -n 2": COMMON + TOM + ["-n", "2"], "plain -n 2": COMMON + ["test_plain.py", "-n", "2"]}
    with tempfile.TemporaryDirectory(prefix="tom-inner-run-") as tmp:
        folder = Path(tmp)
        (folder / "numbers.tom.yaml").write_text(numbers_suite(ITEMS))
        (folder / "answer.py").write_text(ANSWER)
        (folder / "test_plain.py").write_text(PLAIN.format(n=ITEMS))
        (folder / "pytest.ini").write_text("[pytest]\n")
        inner: dict[tuple[Path, str], list[float]] = {}
        cpu: dict[tuple[Path, str], list[float]] = {}
        for _ in range(2):  # two halves, alternating checkouts within each
            for checkout in checkouts:
                for kind, run_args in kinds.items():
                    inner.setdefault((checkout, kind), []).extend(
                        in_process(checkout, folder, run_args, args.runs // 2))
        for _ in range(args.repeat):
            for checkout in checkouts:
                for kind, run_args in {**kinds, **xdist}.items():
                    cpu.setdefault((checkout, kind), []).append(
                        process_cpu(checkout, folder, run_args))
    load = os.getloadavg()
    print(f"{ITEMS} items; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} "
          f"(2 CPUs on the development machine)")
    print(f"{'checkout':40} {'kind':10} {'in process: least':>18} {'median':>8} "
          f"{'a process, CPU: least':>22} {'median':>8}")
    for checkout in checkouts:
        for kind in {**kinds, **xdist}:
            procs = cpu[(checkout, kind)]
            runs = inner.get((checkout, kind))
            inside = (f"{1000 * min(runs):15.1f} ms {1000 * statistics.median(runs):5.1f} ms"
                      if runs else f"{'-':>18} {'-':>8}")
            print(f"{str(checkout)[-40:]:40} {kind:10} {inside} {1000 * min(procs):19.0f} ms "
                  f"{1000 * statistics.median(procs):5.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
