"""How long the BigToM family takes on the authors' 200 templates (5,000 items).

    python benchmarks/bigtom_speed.py [path/to/bigtom.csv]

Prints the time to convert the CSV, to load and expand the suite, to answer,
score and aggregate all items in process (always "a)"), and to run the items
through pytest with a Python answerer (always right; always "a)" with
`--tb=no`, i.e. 2,500 failures). The tests use these figures to decide which
baseline checks run through pytester and which in process.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

REPO = Path(__file__).resolve().parents[1]
DEFAULT_CSV = REPO.parent / "shared" / "data" / "bigtom" / "bigtom.csv"

ANSWERERS = '''
def right(req):
    letter = req.item.meta["gold_letter"]
    return f"Answer:{letter})"

def first(req):
    return "Answer:a)"
'''


def timed(label: str, fn: Callable[..., T], *args: Any) -> T:
    start = time.perf_counter()
    out = fn(*args)
    print(f"{label:<58} {time.perf_counter() - start:7.2f} s")
    return out


def main() -> int:
    csv_path = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_CSV
    if not csv_path.exists():
        print(f"no BigToM CSV at {csv_path}; pass its path", file=sys.stderr)
        return 2
    from pytest_tom import families
    from pytest_tom.catalogue.load import load_suite
    from pytest_tom.cli import main as cli
    from pytest_tom.families.base import ScoringContext, Settings
    from pytest_tom.results.aggregate import aggregate

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        timed("convert bigtom.csv (200 templates)", cli,
              ["convert", "bigtom", str(csv_path), "-o", str(out)])
        suite_path = out / "bigtom.tom.yaml"
        settings = Settings()
        suite = timed("load + expand (5,000 items)", load_suite, suite_path, settings)
        family = families.get("bigtom")
        ctx = ScoringContext(settings)

        def score_all() -> list[dict]:
            records = []
            for spec in suite.items:
                family.conversation(spec, "vanilla", [])
                outcome = family.score(spec, "Answer:a)", ctx)
                records.append({"item": spec.summary(), "outcome": outcome.to_dict()})
            return records

        records = timed("prompts + scoring in process (5,000 items)", score_all)
        timed("aggregate (core + BigToM metrics and tables)", aggregate, records, settings)
        (out / "answerers.py").write_text(ANSWERERS, encoding="utf-8")
        for name, extra in (("right", []), ("first", ["--tb=no"])):
            cmd = [sys.executable, "-m", "pytest", str(suite_path), "-q", "-p", "no:cacheprovider",
                   f"--tom-model=python:{out / 'answerers.py'}:{name}", *extra]
            label = f"pytest run, 5,000 items, answerer {name!r} {' '.join(extra)}"
            done = timed(label, lambda c=cmd: subprocess.run(c, cwd=tmp, capture_output=True,
                                                             text=True))
            print(f"{'':<4}{done.stdout.strip().splitlines()[-1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
