"""How long the robustness family and the ToMi converter take.

    python benchmarks/robustness_tomi_speed.py [path/to/fb_all_test.txt]

Prints the time to load and expand the 7 bundled robustness stages (1,088
scenes), to score and aggregate them in process, to run them through pytest
with a Python answerer that is always right, and for ToMi (when the split is
available): the conversion, loading the 5,994-item suite, scoring and
aggregating it in process, and running it through pytest.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")
REPO = Path(__file__).resolve().parents[1]
DEFAULT_TOMI = REPO.parent / "shared" / "data" / "tomi" / "fb_all_test.txt"
ANSWERERS = '''
import json
def robustness(req):
    gold = {k: (v[0] if isinstance(v, list) else v) for k, v in req.item.gold.items()}
    return "===BEGIN JSON===\\n" + json.dumps({"final": gold}) + "\\n===END JSON==="
def tomi(req):
    return " ".join(req.item.gold["contains"])
'''


def timed(label: str, fn: Callable[[], T]) -> T:
    start = time.perf_counter()
    out = fn()
    print(f"{label:<52} {time.perf_counter() - start:8.2f} s")
    return out


def in_process(items: list[Any], family_name: str, answer: Callable[[Any], str]) -> dict[str, Any]:
    """The suite's metrics as a run reports them (the family's, its declared ones, the
    core turn and goal), scored and aggregated in process with its 95% intervals."""
    from pytest_tom.families.base import Settings
    from pytest_tom.items.offline import score_records
    from pytest_tom.results.aggregate import aggregate

    records = score_records(items, answer)
    suite = aggregate(records, Settings()).suite(records[0]["item"]["suite"])
    assert suite is not None and suite.family == family_name, suite
    return suite.metrics


def pytest_run(target: Path, answerer: str, tmp: Path) -> None:
    code = subprocess.run([sys.executable, "-m", "pytest", str(target), "-q", "--tb=no",
                           "-p", "no:cacheprovider", f"--tom-model=python:{tmp / 'ans.py'}:{answerer}"],
                          cwd=tmp, capture_output=True, text=True)
    print("   " + (code.stdout.strip().splitlines() or ["(no output)"])[-1])


def main() -> None:
    from pytest_tom.catalogue.load import load_suite

    tmp = Path(tempfile.mkdtemp(prefix="tom-bench-"))
    (tmp / "ans.py").write_text(ANSWERERS, encoding="utf-8")
    stages = sorted((REPO / "suites" / "robustness").glob("*.tom.yaml"))
    items = timed("robustness: load + expand 7 stages", lambda: [
        it for p in stages for it in load_suite(p).items])
    print(f"   {len(items)} scenes")

    def answer(req: Any) -> str:
        gold = {k: (v[0] if isinstance(v, list) else v) for k, v in req.item.gold.items()}
        return "===BEGIN JSON===\n" + json.dumps({"final": gold}) + "\n===END JSON==="

    m = timed("robustness: score + aggregate in process", lambda: in_process(
        items, "robustness", answer))
    print(f"   turn {m['turn']}, goal {m['goal']}")
    timed("robustness: pytest run (python answerer, right)", lambda: pytest_run(
        REPO / "suites" / "robustness", "robustness", tmp))

    src = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_TOMI
    if src.exists():
        tomi_figures(src, tmp)
    else:
        print(f"ToMi split not found at {src}: skipped")
    shutil.rmtree(tmp, ignore_errors=True)


def tomi_figures(src: Path, tmp: Path) -> None:
    from pytest_tom.catalogue.load import load_suite
    from pytest_tom.cli import main as cli

    out = tmp / "tomi"
    timed("tomi: convert fb_all_test", lambda: cli(["convert", "tomi", str(src), "-o", str(out)]))
    tomi = timed("tomi: load + expand the converted suite", lambda: load_suite(
        out / "tomi.tom.yaml").items)
    print(f"   {len(tomi)} items")
    m = timed("tomi: score + aggregate in process", lambda: in_process(
        tomi, "generic", lambda req: " ".join(req.item.gold["contains"])))
    print(f"   accuracy {m['tomi.all.all.turn']}")
    timed("tomi: pytest run (python answerer, right)", lambda: pytest_run(out, "tomi", tmp))


if __name__ == "__main__":
    main()
