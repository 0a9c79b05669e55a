"""Answerers for the OpenToM tests (the plugin imports them as `python:<this file>:<fn>`)
and an independent calculation of the figures they must produce.

The answerers read the gold from the request's item and answer in natural
wording, so they stand for a model that is right, or wrong / unparseable /
self-contradicting on a known, deterministic subset of the items. They follow
the method's protocol: a chain-of-thought answer reasons first and puts the
answer on its last line; the first SimToM call gets a perspective account.
"""

from __future__ import annotations

import re
import zlib
from collections import defaultdict
from pathlib import Path
from typing import Any

import yaml

UNPARSEABLE_TEXT = "I cannot tell that from the story."
FULLNESS = ["more full", "equally full", "less full"]
ACCESSIBILITY = ["more accessible", "equally accessible", "less accessible"]
ATTITUDES = ["positive", "neutral", "negative"]


# -- answers in words ---------------------------------------------------------------------

def natural(kind: str, gold: str) -> str:
    """A correct answer as a model might word it."""
    if kind == "loc_coarse":
        return ("Yes, as far as they can tell it is still where it was." if gold == "Yes"
                else "No, it has been moved somewhere else.")
    if kind == "loc_fine":
        return f"I believe it is in {gold} by then."
    if kind in ("mhop_fullness", "mhop_accessibility"):
        return f"It would be {gold} by the end."
    if kind == "attitude":
        return f"Their attitude would be {gold}."
    raise ValueError(kind)


def other_place(meta: dict[str, Any]) -> str:
    original, new = meta["places"]
    return original if meta["gold_label"] == "new" else new


def wrong(kind: str, gold: str, meta: dict[str, Any]) -> str:
    """A wrong answer (another label of the genre) in natural words."""
    if kind == "loc_coarse":
        return natural(kind, "No" if gold == "Yes" else "Yes")
    if kind == "loc_fine":
        return natural(kind, other_place(meta))
    labels = {"mhop_fullness": FULLNESS, "mhop_accessibility": ACCESSIBILITY,
              "attitude": ATTITUDES}[kind]
    return natural(kind, labels[(labels.index(gold) + 1) % len(labels)])


def bucket(item_id: str) -> int:
    """0: answered wrong, 1: unparseable, 2-4: right (the mixed answerer's subsets)."""
    return zlib.crc32(item_id.encode()) % 5


def mixed_text(item_id: str, kind: str, gold: str, meta: dict[str, Any]) -> str:
    b = bucket(item_id)
    if b == 0:
        return wrong(kind, gold, meta)
    if b == 1:
        return UNPARSEABLE_TEXT
    return natural(kind, gold)


# the self-contradicting answerer: which scenarios get which contradiction
def contradiction_of(scenario: str) -> str:
    return ("first", "second", "unparsed", "none")[zlib.crc32(scenario.encode()) % 4]


def contradict_text(item: Any) -> str:
    """Right everywhere, except: scenarios of kind `first` name the other place in the
    observer's first-order fine answer, `second` in the mover's second-order one
    (so the coarse and fine answers of that perspective contradict each other), and
    `unparsed` give an unparseable coarse answer for the observer's second order."""
    meta = item.meta
    how = contradiction_of(item.scenario)
    key = (item.kind, meta["order"], meta["role"])
    if how == "first" and key == ("loc_fine", "first", "observer"):
        return natural("loc_fine", other_place(meta))
    if how == "second" and key == ("loc_fine", "second", "mover"):
        return natural("loc_fine", other_place(meta))
    if how == "unparsed" and key == ("loc_coarse", "second", "observer"):
        return UNPARSEABLE_TEXT
    return natural(item.kind, item.gold)


# -- the protocol of each method ----------------------------------------------------------

def respond(req: Any, answer: str) -> str:
    prompt = req.prompt
    if "Which events of this story does" in prompt:
        return "They saw everything that happened in the room while they were there."
    if "Reason step by step" in prompt:
        return f"Let me think about who saw what.\nThe story describes the move.\n\n{answer}"
    return answer


def right(req: Any) -> str:
    return respond(req, natural(req.item.kind, req.item.gold))


def mixed(req: Any) -> str:
    it = req.item
    return respond(req, mixed_text(it.id, it.kind, it.gold, it.meta))


def contradict(req: Any) -> str:
    return respond(req, contradict_text(req.item))


def cot_first_line(req: Any) -> str:
    """Chain of thought with the answer on the FIRST line only: unparseable by the rule."""
    return f"{natural(req.item.kind, req.item.gold)}\nThat is what I think, all things considered."


# -- an independent calculation from the raw YAML -----------------------------------------

def plain(text: str) -> str:
    """Place names as labels: lower case, letters and digits only, no a/an/the."""
    words = re.sub(r"[^a-z0-9]+", " ", str(text).lower()).split()
    return " ".join(w for w in words if w not in ("a", "an", "the"))


def question_rows(path: Path) -> list[dict[str, Any]]:
    """One row per question of a suite file: id, scenario, genre, order, role, gold label,
    the gold and the other place (fine questions), computed without the plugin."""
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    rows = []
    for sc in doc["scenarios"]:
        for q in sc["questions"]:
            genre = q["genre"]
            order = q.get("order")
            role = q.get("perspective", "observer")
            if "id" in q:
                qid = q["id"]
            elif genre == "attitude":
                qid = "attitude"
            else:
                qid = "-".join([genre, {"first": "fo", "second": "so"}[order], role]
                               + ([q["container"]] if "container" in q else []))
            answer = q["answer"]
            if isinstance(answer, bool):
                answer = "Yes" if answer else "No"
            row = {"id": f"{sc['id']}::{qid}", "scenario": sc["id"], "genre": genre,
                   "order": order, "role": role, "gold": str(answer), "label": str(answer)}
            if genre == "loc_fine":
                original, new = sc["original_place"], sc["new_place"]
                is_new = plain(answer) == plain(new)
                row["label"] = "new" if is_new else "original"
                row["places"] = [original, new]
                row["other_label"] = "original" if is_new else "new"
            rows.append(row)
    return rows


def row_keys(row: dict[str, Any]) -> list[str]:
    if row["genre"] == "attitude":
        return ["attitude"]
    if row["role"] == "narrator":  # in Loc_f (F) as upstream, and on its own row
        return ["loc_fine.first", "loc_fine.narrator"]
    keys = [f"{row['genre']}.{row['order']}"]
    if row["genre"].startswith("mhop_"):
        keys.append(f"mhop.{row['order']}")
    return keys


def mixed_prediction(row: dict[str, Any]) -> str | None:
    b = bucket(row["id"])
    if b == 1:
        return None
    if b == 0:
        if row["genre"] == "loc_coarse":
            return "No" if row["label"] == "Yes" else "Yes"
        if row["genre"] == "loc_fine":
            return row["other_label"]
        labels = {"mhop_fullness": FULLNESS, "mhop_accessibility": ACCESSIBILITY,
                  "attitude": ATTITUDES}[row["genre"]]
        return labels[(labels.index(row["label"]) + 1) % len(labels)]
    return row["label"]


def expected_macro_f1(pairs: list[tuple[str, str | None]]) -> float:
    """Macro F1 written out plainly: for each label named as gold or as a prediction,
    precision and recall from the pairs; a None prediction is the class "unparsed"."""
    pairs = [(g, "unparsed" if p is None else p) for g, p in pairs]
    labels = {g for g, _ in pairs} | {p for _, p in pairs}
    total = 0.0
    for label in labels:
        predicted_as = [g for g, p in pairs if p == label]
        gold_is = [p for g, p in pairs if g == label]
        precision = (sum(1 for g in predicted_as if g == label) / len(predicted_as)
                     if predicted_as else 0.0)
        recall = sum(1 for p in gold_is if p == label) / len(gold_is) if gold_is else 0.0
        total += 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return total / len(labels)


def expected_mixed_figures(path: Path) -> dict[str, float]:
    groups: dict[str, list[tuple[str, str | None]]] = defaultdict(list)
    unparsed: dict[str, int] = defaultdict(int)
    for row in question_rows(path):
        pred = mixed_prediction(row)
        for key in row_keys(row):
            groups[key].append((row["label"], pred))
            unparsed[key] += pred is None
    out = {}
    for key, pairs in groups.items():
        out[f"f1.{key}"] = expected_macro_f1(pairs)
        out[f"accuracy.{key}"] = sum(1 for g, p in pairs if g == p) / len(pairs)
        out[f"parse_failure.{key}"] = unparsed[key] / len(pairs)
    return out
