"""Aggregation of a large run's item records: the scores of every suite and the totals.

Scores every bundled suite (2,867 items, all five families) in process with a
seeded answerer that is right about two times in three, then copies the
records, each copy with its own ids, scenarios and groups (the families' own
groups too: FANToM's sets, parts and conversations), until there are N
(default 100,000), spread over the families as the bundled suites are. Then it
times `aggregate` (what the controller runs after the last item), in its two
parts: the scores (every family's own metrics and tables, per-tag accuracies,
totals) and the 95% intervals added to them (Wilson, and 1,000 seeded bootstrap
resamples per grouped metric), and, as the reference measured in the same run,
one sort of the records by suite and id (the least any aggregation does).
Target: under 1 s for 100,000 records.

    python benchmarks/aggregation.py [--n 100000] [--repeat 3] [--samples 1]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
TARGET = 1.0


def bundled_records(seed: int = 0) -> list[dict[str, Any]]:
    """Records of every bundled suite, answered by a seeded mostly-right answerer."""
    from pytest_tom.catalogue.load import load_suite
    from pytest_tom.families.base import Settings
    from pytest_tom.items.offline import score_records

    rng = random.Random(seed)
    settings = Settings(options={"fantom_context": "short"})

    def answer(request: Any) -> str:
        item = request.item
        if rng.random() < 0.33:  # wrong: another option, or a plain "no"
            return "b)" if item.choices else "no"
        if item.choices:
            letter = next((c.split(")")[0] for c in item.choices
                           if c.split(") ", 1)[-1] == str(item.gold)), "a")
            return f"{letter})"
        return str(item.gold)

    records: list[dict[str, Any]] = []
    for path in sorted((REPO / "suites").glob("*/*.tom.yaml")):
        records += score_records(load_suite(path, settings).items, answer, settings)
    return records


def scale(records: list[dict[str, Any]], n: int, samples: int) -> list[dict[str, Any]]:
    """`n` records: copies of `records` with distinct ids, scenarios and groups."""
    out: list[dict[str, Any]] = []
    copy = 0
    while len(out) < n:
        for rec in records:
            if len(out) >= n:
                break
            item = dict(rec["item"])
            suffix = f"~{copy}"
            item["id"] = f"{item['id']}{suffix}"
            item["scenario"] = f"{item['scenario']}{suffix}"
            if item.get("group"):
                item["group"] = f"{item['group']}{suffix}"
            meta = dict(item.get("meta") or {})
            for key in ("set", "part", "conversation", "stage"):  # the families' own groups
                if isinstance(meta.get(key), str):
                    meta[key] = f"{meta[key]}{suffix}"
            item["meta"] = meta
            new = {**rec, "item": item}
            if samples > 1:
                new["samples"] = [{"outcome": rec["outcome"], "responses": rec["responses"]}
                                  for _ in range(samples)]
            out.append(new)
        copy += 1
    return out


def best(fn: Any, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--samples", type=int, default=1)
    args = ap.parse_args()
    sys.path.insert(0, str(REPO))
    from pytest_tom.families.base import Settings
    from pytest_tom.results.aggregate import aggregate
    from pytest_tom.results.aggregate import scores as scores_of

    base = bundled_records()
    records = scale(base, args.n, args.samples)
    settings = Settings(options={"fantom_context": "short", "fantom_group": "set",
                                 "opentom_protocol": "pool"})
    reference = best(lambda: sorted(records, key=lambda r: (r["item"]["suite"], r["item"]["id"])),
                     args.repeat)
    scores = best(lambda: scores_of(records, settings), args.repeat)
    load_scores = os.getloadavg()[0]
    from pytest_tom.results.headline import add_intervals

    scored = scores_of(records, settings)
    # add_intervals sets each suite's intervals afresh: the same results serve every repeat
    intervals = best(lambda: add_intervals(scored, records, settings), args.repeat)
    load_intervals = os.getloadavg()[0]
    took = best(lambda: aggregate(records, settings), 1)
    result = aggregate(records, settings)
    load = os.getloadavg()[0]
    print(f"records {len(records)} ({len(base)} bundled items, copied) · samples {args.samples} · "
          f"suites {len(result.suites)} · best of {args.repeat}")
    print(f"sort by (suite, id), the reference   {reference:6.3f} s")
    print(f"scores (families, tags, totals)      {scores:6.3f} s  = {scores / reference:5.1f} × "
          f"reference  (load {load_scores:.2f})")
    print(f"95% intervals added to the scores    {intervals:6.3f} s  = "
          f"{intervals / reference:5.1f} × reference  (load {load_intervals:.2f})")
    print(f"aggregate: scores and 95% intervals  {took:6.3f} s  = {took / reference:5.1f} × "
          f"reference  (load {load:.2f})")
    print(f"target < {TARGET:g} s: scores {'met' if scores < TARGET else 'NOT met'}, "
          f"with intervals {'met' if took < TARGET else 'NOT met'}")
    return 0 if took < TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
