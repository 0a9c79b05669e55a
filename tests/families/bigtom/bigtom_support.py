"""Python-backend answerers and independent calculations for the BigToM tests.

The answerers are loaded by the plugin as `python:<this file>:<name>`. The
"oracle" and "initial-state" answerers do not trust the family's gold: they
read the answer texts straight from the authors' CSV (row = the template's
`source.index`) or from the suite YAML, and apply the paper's rules written
out again here; the "first letter" answerer never looks at the options.
"""

from __future__ import annotations

import csv
import functools
import hashlib
import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import yaml

CSV_ENV = "BIGTOM_TEST_CSV"  # the authors' CSV, for answerers on converted suites
YAML_ENV = "BIGTOM_TEST_YAML"  # a suite file, for answerers on hand-written suites

INFERENCES = ("forward_belief", "forward_action", "backward_belief")
BELIEFS = ("true_belief", "false_belief", "true_control", "false_control")
VARIANTS = ("with_init", "no_init")
CONDITION_IDS = [f"{i}.{b}.{v}" for i in INFERENCES for v in VARIANTS for b in BELIEFS]
CONDITION_IDS.append("percept_to_belief")


# -- reading answers independently of the family --------------------------------------
@functools.cache
def _csv_rows(path: str) -> list[list[str]]:
    with open(path, encoding="utf-8", newline="") as fh:
        return [r for r in csv.reader(fh, delimiter=";") if r]


@functools.cache
def _yaml_templates(path: str) -> dict[str, Any]:
    doc = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    return {t["id"]: t for t in doc["scenarios"]}


def answers(item: Any) -> tuple[str, str]:
    """(new-state answer, initial-state answer) of the item's question, from the raw source.

    `item` is anything with `id`, `scenario` and `source` (an ItemView, or `as_item(record)`).
    """
    condition = item.id.split("::")[1]
    action = condition.startswith("forward_action")
    if os.environ.get(CSV_ENV):
        row = [c.strip() for c in _csv_rows(os.environ[CSV_ENV])[item.source["index"]]]
        return (row[10], row[13]) if action else (row[8], row[11])
    t = _yaml_templates(os.environ[YAML_ENV])[item.scenario]
    block = t["action_question" if action else "belief_question"]
    return block["aware"], block["not_aware"]


def right_text(item: Any) -> str:
    """The paper's rule: only the true-belief conditions have the new-state answer right."""
    new, initial = answers(item)
    return new if ".true_belief." in item.id else initial


def as_item(record: dict[str, Any]) -> Any:
    """The item of a JSON-report record, as an object like the answerers' ItemView."""
    return SimpleNamespace(**record["item"])


def letter_of(item: Any, text: str) -> str:
    """The letter under which `text` is shown (choices are `a) <text>`)."""
    hits = [c[0] for c in item.choices if c[3:].strip() == text.strip()]
    assert len(hits) == 1, (item.id, text, item.choices)
    return hits[0]


def reply(letter: str, item: Any) -> str:
    text = next(c[3:] for c in item.choices if c[0] == letter)
    return f"Answer:{letter}){text}"


# -- answerers --------------------------------------------------------------------------
def oracle(req: Any) -> str:
    return reply(letter_of(req.item, right_text(req.item)), req.item)


def initial_state(req: Any) -> str:
    return reply(letter_of(req.item, answers(req.item)[1]), req.item)


def first_letter(req: Any) -> str:
    return "Answer:a)"


def gold(req: Any) -> str:
    """Trusts the family's gold letter (for suites without a raw source at hand)."""
    return reply(req.item.meta["gold_letter"], req.item)


# -- the mixed answerer: what it does to an item depends only on the item id -----------
def behaviour(item_id: str) -> str:
    """right (55%), wrong (25%), unparseable, both letters, request failure (~7% each)."""
    h = int(hashlib.sha256(item_id.encode()).hexdigest(), 16) % 100
    if h < 55:
        return "right"
    if h < 80:
        return "wrong"
    if h < 87:
        return "unparseable"
    if h < 94:
        return "both"
    return "fail"


def mixed(req: Any) -> str:
    item = req.item
    what = behaviour(item.id)
    gold_letter = item.meta["gold_letter"]
    other = "b" if gold_letter == "a" else "a"
    if what == "right":
        return f"Thought: hmm.\n{reply(gold_letter, item)}"
    if what == "wrong":
        return reply(other, item)
    if what == "unparseable":
        return "Answer: I cannot tell from the story."
    if what == "both":
        return "Answer: a) or b), both could be true."
    raise RuntimeError("the answerer broke")


def expected_mixed(template_ids: list[str]) -> dict[str, float | None]:
    """Per-condition accuracy and joint scores of `mixed`, computed from item ids alone."""
    ok = {(t, c): behaviour(f"{t}::{c}") == "right" for t in template_ids for c in CONDITION_IDS}
    out: dict[str, float | None] = {}
    for c in CONDITION_IDS:
        out[c] = sum(ok[t, c] for t in template_ids) / len(template_ids)
    for i in INFERENCES:
        for v in VARIANTS:
            for name, a, d in (("tb_and_fb", "true_belief", "false_belief"),
                               ("tc_and_fc", "true_control", "false_control")):
                both = sum(ok[t, f"{i}.{a}.{v}"] and ok[t, f"{i}.{d}.{v}"] for t in template_ids)
                out[f"{i}.{name}.{v}"] = both / len(template_ids)
    return out


# -- the same path as a pytest run, in process (for the 5,000 converted items) ---------------
def run_in_process(path: Path, answerer: Any, method: str = "vanilla",
                   seed: int = 0) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Load the suite, ask `answerer`, score and aggregate: the plugin's steps without pytest.

    Returns the suite's aggregate (metrics, tables) and the records.
    """
    from pytest_tom.catalogue.load import load_suite
    from pytest_tom.families.base import Settings
    from pytest_tom.items.offline import score_records
    from pytest_tom.results.aggregate import aggregate

    settings = Settings(method=method, seed=seed)
    suite = load_suite(path, settings)
    records = score_records(suite.items, answerer, settings)
    return aggregate(records, settings)["suites"][suite.name], records
