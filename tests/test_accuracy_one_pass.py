"""The one-pass accuracy blocks (every count, per tag too) agree with the definitions
computed the plain way, on random records of every outcome kind."""

from __future__ import annotations

import random
from typing import Any

from pytest_tom.core.outcome import CUT_OFF, UNAVAILABLE, UNPARSEABLE
from pytest_tom.families.base import Settings
from pytest_tom.metrics.accuracy import (
    accuracy_block,
    core_metrics,
    goal_counts,
    sum_blocks,
)
from pytest_tom.results.aggregate import _aggregate_once


def random_records(n: int, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        roll = rng.random()
        if roll < 0.1:
            outcome: dict[str, Any] = {"correct": None, "error": UNAVAILABLE}
        elif roll < 0.2:
            outcome = {"correct": False, "error": UNPARSEABLE}
        elif roll < 0.3:
            outcome = {"correct": False, "error": "request_failed"}
        elif roll < 0.35:
            outcome = {"correct": None}  # measured, not judged
        elif roll < 0.42:
            outcome = {"correct": False, "error": CUT_OFF}  # the budget ran out
        else:
            outcome = {"correct": rng.random() < 0.6}
        tags = rng.sample(["a", "b", "c", "d"], rng.randint(0, 3))
        if tags and rng.random() < 0.1:
            tags.append(tags[0])  # a tag listed twice
        item = {"id": f"q{i}", "scenario": f"s{i // 5}", "tags": tags,
                "group": f"g{i // 3}" if rng.random() < 0.7 else None}
        out.append({"item": item, "outcome": outcome})
    return out


def plain_block(records: list[dict[str, Any]]) -> dict[str, Any]:
    skipped = [r for r in records if r["outcome"].get("error") == UNAVAILABLE]
    judged = [r for r in records if r not in skipped and r["outcome"].get("correct") is not None]
    right = [r for r in judged if r["outcome"]["correct"]]
    groups: dict[str, list[bool]] = {}
    for r in judged:
        groups.setdefault(r["item"]["group"] or r["item"]["scenario"], []).append(
            bool(r["outcome"]["correct"]))
    errors = [r for r in records
              if r["outcome"].get("error") not in (None, UNPARSEABLE, UNAVAILABLE, CUT_OFF)]
    cut = [r for r in judged if r["outcome"].get("error") == CUT_OFF]
    return {
        "items": len(records), "judged": len(judged), "correct": len(right),
        # a cut-off answer is in the denominator as not right, and never wrong
        "wrong": len(judged) - len(right) - len(cut), "errors": len(errors),
        "unparseable": sum(r["outcome"].get("error") == UNPARSEABLE for r in records),
        "cut_off": len(cut),
        "skipped": len(skipped),
        "turn": len(right) / len(judged) if judged else None,
        "goal": sum(all(v) for v in groups.values()) / len(groups) if groups else None,
        "groups": len(groups), "groups_correct": sum(all(v) for v in groups.values()),
    }


def test_blocks_and_tags_match_the_plain_definitions() -> None:
    for seed in range(5):
        records = random_records(400, seed)
        assert accuracy_block(records) == plain_block(records)
        metrics = core_metrics(records)
        for tag in "abcd":
            tagged = [r for r in records if tag in r["item"]["tags"]]
            if not tagged:
                assert f"tag.{tag}.items" not in metrics
                continue
            block = plain_block(tagged)
            for name in ("items", "turn", "goal"):
                assert metrics[f"tag.{tag}.{name}"] == block[name]
        assert goal_counts(records) == (plain_block(records)["groups_correct"],
                                        plain_block(records)["groups"])


def test_empty_records() -> None:
    assert accuracy_block([])["turn"] is None
    assert core_metrics([])["parse_failure_rate"] is None


def test_a_group_across_tag_lists_counts_per_tag_only_its_tagged_items() -> None:
    """Blocks are counted per list of tags and added up: a group whose items carry
    different tags is all right for a tag when the items with that tag are."""
    records = [
        {"item": {"id": "1", "scenario": "s", "group": "g", "tags": ["a"]},
         "outcome": {"correct": True}},
        {"item": {"id": "2", "scenario": "s", "group": "g", "tags": ["a", "b"]},
         "outcome": {"correct": False}},
        {"item": {"id": "3", "scenario": "s", "group": "h", "tags": ["b", "c", "c"]},
         "outcome": {"correct": True}},
        {"item": {"id": "4", "scenario": "s", "group": "g", "tags": ["c"]},
         "outcome": {"correct": True}},
    ]
    m = core_metrics(records)
    assert (m["groups"], m["groups_correct"]) == (2, 1)  # g has a wrong item, h has not
    assert (m["tag.a.items"], m["tag.a.goal"]) == (2, 0.0)  # g: item 2 wrong
    assert (m["tag.b.items"], m["tag.b.goal"]) == (2, 0.5)  # g wrong, h right
    assert (m["tag.c.items"], m["tag.c.goal"]) == (2, 1.0)  # h, and g's item 4 only



def test_run_totals_keep_each_suites_groups_apart() -> None:
    """The totals of a run: the suites' blocks added up, a group being (suite, group), so
    that the same group name in two suites is two groups, and a suite's items without a
    group are one group (its core metrics group those by scenario)."""
    records = []
    for seed, suite in enumerate(("s1", "s2", "s3")):
        for r in random_records(300, seed):  # the same group names in every suite
            r["item"].update(suite=suite, family="none", source={})
            if suite == "s1":  # every item grouped: the suite's core block is its share
                r["item"]["group"] = r["item"]["group"] or f"g{r['item']['id']}"
            records.append(r)
    result = _aggregate_once(records, Settings())
    by_pair = accuracy_block(records, key=lambda r: (r["item"]["suite"], r["item"]["group"]))
    assert result["totals"] == by_pair
    assert by_pair["groups"] > accuracy_block(records, key=lambda r: r["item"]["group"])["groups"]
    assert sum_blocks([result["suites"][s]["metrics"] for s in ("s1", "s2", "s3")]) != by_pair
    assert sum_blocks([accuracy_block(records)]) == accuracy_block(records)
