"""Naive baselines of OpenToM on the converted data, next to the paper's (Table 2).

Converts the authors' split files (default `<repo>/../shared/data/opentom`),
loads the suite, answers every question with a majority-label answerer (the
most frequent gold answer of the question's genre and order) and a seeded
random answerer (a uniform draw among the gold answers of that genre and
order: Yes/No, the three fullness phrases, ...; for Loc_fine the class original
/ new, answered by naming that place of the narrative), scores the answers with
the family's own rule and prints the macro-F1 table, plus the time each step
took and the machine's load.

    python benchmarks/opentom_baselines.py [OPENTOM_DIR] [--seed N] [--samples]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

from pytest_tom.catalogue.load import load_suite
from pytest_tom.families.base import ScoringContext, Settings
from pytest_tom.families.opentom.convert import convert
from pytest_tom.families.opentom.family import OpenTomFamily
from pytest_tom.families.opentom.headline import TABLE2_ROWS
from pytest_tom.results.aggregate import family_result
from pytest_tom.suite.yaml_out import dump_suite as dump

REPO = Path(__file__).resolve().parents[1]
PAPER = {  # Table 2 of the paper: (random, majority); its Loc_f figures imply places as
    # labels, not the original / new classes of its evaluator, so they are not comparable
    "loc_coarse.first": (0.491, 0.416), "loc_coarse.second": (0.467, 0.381),
    "loc_fine.first": (0.000, 0.003), "loc_fine.second": (0.000, 0.002),
    "mhop.first": (0.345, 0.182), "mhop.second": (0.323, 0.219), "attitude": (0.328, 0.174),
}


def answer_key(item) -> tuple[str, str | None, bool]:
    return item.kind, item.meta["order"], item.meta["role"] == "narrator"


def label_of(item) -> str:
    return item.meta["gold_label"] if item.kind == "loc_fine" else str(item.gold)


def worded(item, label: str) -> str:
    """The answer text for a label: Loc_fine names that place of the narrative."""
    if item.kind == "loc_fine":
        return item.meta["places"][0 if label == "original" else 1]
    return label


def answerers(items, seed: int):
    pools: dict[tuple, Counter] = defaultdict(Counter)
    for it in items:
        pools[answer_key(it)][label_of(it)] += 1
    majority = {k: c.most_common(1)[0][0] for k, c in pools.items()}
    choices = {k: sorted(c) for k, c in pools.items()}
    rng = random.Random(seed)
    return {
        "majority": lambda it: worded(it, majority[answer_key(it)]),
        "random": lambda it: worded(it, rng.choice(choices[answer_key(it)])),
    }


def records_for(items, summaries, family, answer, ctx):
    out = []
    for it, summary in zip(items, summaries, strict=True):
        text = answer(it)
        out.append({"item": summary, "outcome": family.score(it, text, ctx).to_dict(),
                    "responses": [text]})
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", nargs="?", type=Path, default=REPO.parent / "shared" / "data" / "opentom")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--samples", action="store_true", help="also the paper's 5×50 protocol")
    args = ap.parse_args(argv)
    if not (args.folder / "meta_data.json").exists():
        print(f"no OpenToM data at {args.folder}", file=sys.stderr)
        return 2
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    t0 = time.perf_counter()
    conv = convert(args.folder)
    t1 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "opentom.tom.yaml"
        path.write_text(dump(conv.document), encoding="utf-8")
        t2 = time.perf_counter()
        settings = Settings(seed=args.seed, options={
            "opentom_protocol": "samples" if args.samples else "pool",
            "opentom_samples": 5, "opentom_sample_size": 50})
        suite = load_suite(path, settings)
    t3 = time.perf_counter()
    family = OpenTomFamily()
    ctx = ScoringContext(settings)
    print(f"converted {conv.narratives} narratives, {conv.questions} questions "
          f"(convert {t1 - t0:.2f} s, write {t2 - t1:.2f} s, load {t3 - t2:.2f} s)")
    t = time.perf_counter()
    summaries = [it.summary() for it in suite.items]
    print(f"item summaries (what travels on reports): {time.perf_counter() - t:.2f} s")
    results = {}
    for name, answer in answerers(suite.items, args.seed).items():
        t = time.perf_counter()
        recs = records_for(suite.items, summaries, family, answer, ctx)
        results[name] = family_result("opentom", recs, settings).metrics
        print(f"{name}: scored and aggregated {len(recs)} answers in {time.perf_counter() - t:.2f} s")
    print()
    head = f"{'question':<28}{'random':>9}{'paper':>8}{'majority':>10}{'paper':>8}"
    if args.samples:
        head += f"{'random 5×50':>18}{'majority 5×50':>18}"
    print(head)
    for key, label in TABLE2_ROWS:
        ran, maj = results["random"][f"f1.{key}"], results["majority"][f"f1.{key}"]
        pr, pm = PAPER.get(key, (None, None))
        line = (f"{label:<28}{ran:>9.3f}{'' if pr is None else f'{pr:.3f}':>8}"
                f"{maj:>10.3f}{'' if pm is None else f'{pm:.3f}':>8}")
        if args.samples:
            for name in ("random", "majority"):
                m, s = results[name][f"f1_mean.{key}"], results[name][f"f1_std.{key}"]
                line += f"{f'{m:.3f} ± {s:.3f}':>18}"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
