"""Collection of a generated 10,000-item suite: time and peak memory.

Generates a generic-family suite of N items (2,500 scenarios of 4 questions
with a story of a few sentences each), then runs `pytest --collect-only` on it
in a fresh process with the python backend (collection does not call the
model) and prints the collection time (from the start of the session to the
end of collection, measured by hooks of a conftest.py beside the suite), the
process's wall time and its peak memory (maximum resident set size, from the
kernel). Targets: collection ≤ 3 s and peak memory ≤ 300 MB. The fastest of
`--repeat` runs counts (the first may also compile pytest's rewritten .pyc).

    python benchmarks/collection.py [--n 10000] [--repeat 3]
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

MAX_SECONDS = 3.0
MAX_MB = 300.0

STORY = ("    context: |\n"
         "      {a} puts the {thing} in the {p1} and goes out to the garden. While {a} is away,\n"
         "      {b} takes the {thing} and puts it in the {p2}. {a} does not see this and\n"
         "      nobody tells {a}. Later {a} comes back and wants the {thing}.\n")


def suite(n: int) -> str:
    names = ["Amara", "Kwame", "Lena", "Tomas", "Ines", "Yusuf", "Mei", "Oskar"]
    things = ["honey", "ball", "key", "book", "scarf", "apple"]
    lines = ["suite: big", "family: generic", "version: 1", "scenarios:"]
    for s in range(0, n, 4):
        k = s // 4
        a, b = names[k % 8], names[(k + 3) % 8]
        thing = things[k % 6]
        lines.append(f"  - id: scenario-{k:05d}")
        lines.append(f"    tags: [{'first_order' if k % 2 else 'second_order'}]")
        lines.append(STORY.format(a=a, b=b, thing=thing, p1="cupboard", p2="drawer").rstrip("\n"))
        lines.append(f"    characters: [{a}, {b}]")
        lines.append("    questions:")
        qs = [
            (f"Where will {a} look for the {thing} first?", "choices: [the cupboard, the drawer]",
             "answer: the cupboard"),
            (f"Where is the {thing} now?", "choices: [the cupboard, the drawer]",
             "answer: the drawer"),
            (f"Does {a} know that the {thing} was moved?", 'yes_no: "no"', None),
            (f"Who knows where the {thing} is?", f"names: [{b}]", None),
        ]
        for qi, (ask, rule, extra) in enumerate(qs[: min(4, n - s)]):
            lines.append(f"      - id: q{qi}")
            lines.append(f"        ask: {ask}")
            lines.append(f"        {rule}")
            if extra:
                lines.append(f"        {extra}")
    return "\n".join(lines) + "\n"


TIMER = """\
import time

_t = {}


def pytest_sessionstart(session):
    _t["start"] = time.perf_counter()
    _t["cpu"] = time.process_time()


def pytest_collection_finish(session):
    print(f"\\ncollection took {time.perf_counter() - _t['start']:.3f} s"
          f" cpu {time.process_time() - _t['cpu']:.3f} s")
"""


def run_once(cmd: list[str], cwd: Path) -> tuple[float, float, float | None, str]:
    """(wall seconds, peak RSS in MB, collection seconds, output)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = proc.stdout.read().decode() if proc.stdout else ""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    peak_mb = usage.ru_maxrss / 1024  # kilobytes on Linux
    m = re.search(r"collection took ([\d.]+) s", out)
    return wall, peak_mb, float(m.group(1)) if m else None, out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=10000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="tom-collection-") as tmp:
        root = Path(tmp)
        text = suite(args.n)
        (root / "big.tom.yaml").write_text(text)
        (root / "answer.py").write_text("def answer(req):\n    return 'a)'\n")
        (root / "conftest.py").write_text(TIMER)
        cmd = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
               "big.tom.yaml", "--tom-model=python:answer:answer"]
        runs = [run_once(cmd, root) for _ in range(args.repeat)]
    best = min(runs, key=lambda r: r[2] if r[2] is not None else r[0])
    wall, peak, collect_s, out = best
    if collect_s is None:
        print(out[-3000:])
        print("FAILED: pytest did not report a collection")
        return 1
    n_found = re.search(r"(\d+) tests? collected", out).group(1)
    cpu = float(re.search(r"collection took [\d.]+ s cpu ([\d.]+) s", out).group(1))
    ok = collect_s <= MAX_SECONDS and peak <= MAX_MB
    print(f"suite                  {args.n} items, {len(text) / 1e6:.1f} MB of YAML")
    print(f"collected              {n_found} items")
    print(f"collection             {collect_s:.2f} s   (target ≤ {MAX_SECONDS:g} s)")
    print(f"collection CPU time    {cpu:.2f} s   (the same, without the waits of a busy machine)")
    print(f"whole process          {wall:.2f} s   (start-up included)")
    print(f"peak memory (max RSS)  {peak:.0f} MB   (target ≤ {MAX_MB:g} MB)")
    print(f"best of {args.repeat}; targets {'met' if ok else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
