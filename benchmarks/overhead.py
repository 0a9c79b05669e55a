"""Per-item overhead of pytest-tom against plain pytest.

Runs 2,000 benchmark items answered by an instant Python backend, then 2,000
trivial parametrized plain pytest tests, each as its own pytest process, and
prints the wall times and their ratio. Target: at most 2 ×. Each side runs
`--repeat` times (default 3) and the fastest run counts, so a busy machine
disturbs the figure less. Both runs print their normal terminal output (to a
pipe) and every test passes on both sides (a failing plain test pays for its
assertion traceback, which would flatter the ratio).

    python benchmarks/overhead.py [--n 2000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from runner_support import numbers_suite  # noqa: E402

TARGET = 2.0

ANSWER = '''\
import re

def answer(req):
    i = int(re.search(r"number (\\d+) even", req.prompt).group(1))
    return "Yes." if i % 2 == 0 else "No."
'''

PLAIN = '''\
import pytest

@pytest.mark.parametrize("i", range({n}))
def test_number(i):
    answer = "Yes." if i % 2 == 0 else "No."
    assert answer == ("No." if i % 2 else "Yes.")
'''


def best_of(cmd: list[str], cwd: Path, repeat: int) -> tuple[float, str]:
    times = []
    out = ""
    for _ in range(repeat):
        start = time.perf_counter()
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
        times.append(time.perf_counter() - start)
        out = proc.stdout
    return min(times), out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    base = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider"]
    with tempfile.TemporaryDirectory(prefix="tom-overhead-") as tmp:
        root = Path(tmp)
        (root / "numbers.tom.yaml").write_text(numbers_suite(args.n))
        (root / "answer.py").write_text(ANSWER)
        (root / "test_plain.py").write_text(PLAIN.format(n=args.n))
        tom_time, tom_out = best_of(base + ["numbers.tom.yaml", "--tom-model=python:answer:answer"],
                                    root, args.repeat)
        plain_time, plain_out = best_of(base + ["test_plain.py"], root, args.repeat)
    tom_line = tom_out.strip().splitlines()[-1]
    plain_line = plain_out.strip().splitlines()[-1]
    ratio = tom_time / plain_time
    print(f"items                       {args.n}")
    print(f"pytest-tom, instant backend {tom_time:.2f} s   ({tom_line.strip('= ')})")
    print(f"plain parametrized tests    {plain_time:.2f} s   ({plain_line.strip('= ')})")
    print(f"ratio                       {ratio:.2f} ×   (target ≤ {TARGET} ×: "
          f"{'met' if ratio <= TARGET else 'NOT met'})")
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
