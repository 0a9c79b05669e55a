"""What gating costs at the end of a run: evaluating thresholds and a baseline
comparison (pairing + exact McNemar tests) on large synthetic runs.

    python benchmarks/gate_speed.py [ITEMS ...]

For each size (default 10,000 and 100,000 items in 20 suites, 5 tags), builds
records of a baseline and of a run where 3% of the items flipped either way,
aggregates both with the real aggregator, and prints the time to evaluate
`turn=0.5,*:goal=0.1` plus the baseline comparison (totals + every suite, and
a tag metric per suite), and the time of the slowest McNemar test alone.
"""

from __future__ import annotations

import random
import sys
import time
from typing import Any

from pytest_tom.core.outcome import Outcome
from pytest_tom.families.base import Settings
from pytest_tom.gates.evaluate import GateConfig, evaluate
from pytest_tom.gates.spec import GateOptions
from pytest_tom.metrics.mcnemar import mcnemar_exact
from pytest_tom.results.aggregate import aggregate
from pytest_tom.results.run_report import RunReport
from pytest_tom.suite import ItemSpec

SUITES = 20
TAGS = ("belief", "reality", "memory", "knowledge", "second_order")


def records(n: int, flip: float, seed: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    rng = random.Random(seed)
    base, now = [], []
    for i in range(n):
        suite = f"suite-{i % SUITES:02d}"
        spec = ItemSpec(id=f"s{i // 5:06d}::q{i % 5}", suite=suite, family="generic",
                        scenario=f"s{i // 5:06d}", kind="yes_no", question="?", gold="yes",
                        tags=[TAGS[i % len(TAGS)]])
        item = spec.summary()
        right = rng.random() < 0.8
        after = (not right) if rng.random() < flip else right
        for out, ok in ((base, right), (now, after)):
            out.append({"item": item, "outcome": Outcome(correct=ok, parsed="yes").to_dict(),
                        "responses": ["yes"], "usage": {}, "requests": 1, "retries": 0,
                        "seconds": 0.0})
    return base, now


def main(sizes: list[int]) -> None:
    for n in sizes:
        base, now = records(n, 0.03, seed=n)
        t0 = time.perf_counter()
        base_results = aggregate(base, Settings())
        results = aggregate(now, Settings())
        t_agg = time.perf_counter() - t0
        baseline = RunReport.build(base_results, base, {}, 0.0, 0.0)
        cfg = GateConfig.from_options(GateOptions(fail_under="turn=0.5,*:goal=0.1",
                                                  baseline="b.json",
                                                  max_drop="0.01,*:tag.belief.turn=0.02"),
                                      load=False)
        cfg.baseline = baseline
        t0 = time.perf_counter()
        report = evaluate(cfg, results, now)
        t_eval = time.perf_counter() - t0
        worst = max((r for r in report.results if r.kind == "baseline"),
                    key=lambda r: r.newly_wrong + r.newly_right)
        t0 = time.perf_counter()
        mcnemar_exact(worst.newly_wrong, worst.newly_right)
        t_test = time.perf_counter() - t0
        print(f"{n:>7} items: aggregate both runs {t_agg:.2f} s · evaluate {len(report.results)} "
              f"gates {t_eval:.2f} s · largest McNemar test ({worst.newly_wrong}+"
              f"{worst.newly_right} changed items) {1000 * t_test:.2f} ms · "
              f"{len(report.failed)} gates failed")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [10_000, 100_000])
