"""What a wrong answer costs in report mode (`--tom-items=report`) against fail mode.

Runs the bundled suites (or the folder given) with an instant Python answerer
that is wrong on about two thirds of the items, once with `--tom-items=fail`
(a wrong answer fails its test) and once with `--tom-items=report` (a wrong
answer is an xfail), each in its own pytest process, and prints both wall
times, their ratio and the machine's load. Before the fix each xfail built a
full traceback (pytest asks the item for its failure text before it turns the
report into an xfail): 178 s instead of 12 s on the bundled suites.

    python benchmarks/xfail_cost.py [--suites suites] [--repeat 1]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

ANSWER = '''\
def answer(req):
    """Wrong on two items of three: always the first option, or a plain 'no'."""
    return "a)" if req.item.choices else "No."
'''


def run(mode: str, suites: Path, answerer: Path, cwd: Path) -> tuple[float, str]:
    cmd = [sys.executable, "-m", "pytest", str(suites), f"--tom-model=python:{answerer}:answer",
           f"--tom-items={mode}", "--tom-cache=off", "-q", "-p", "no:randomly",
           "-p", "no:cacheprovider", "--tb=no", "-rN"]
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    took = time.perf_counter() - start
    last = [ln for ln in proc.stdout.splitlines() if " in " in ln and ("passed" in ln or "failed" in ln)]
    return took, (last[-1].strip("= ") if last else proc.stdout[-300:])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--suites", default=str(REPO / "suites"))
    ap.add_argument("--repeat", type=int, default=1, help="runs per mode; the fastest counts")
    args = ap.parse_args()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} "
          f"on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as tmp:
        answerer = Path(tmp) / "wrong_answerer.py"
        answerer.write_text(ANSWER)
        best: dict[str, float] = {}
        for mode in ("fail", "report"):
            for _ in range(max(1, args.repeat)):
                took, line = run(mode, Path(args.suites).resolve(), answerer, Path(tmp))
                best[mode] = min(best.get(mode, took), took)
                print(f"--tom-items={mode:6s} {took:7.1f}s  {line}")
    print(f"report / fail: {best['report'] / best['fail']:.2f}x (fastest of {args.repeat})")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
