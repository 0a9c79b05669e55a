"""FANToM: turn the authors' fantom_v1.json (a list of question sets) into YAML suites.

    pytest-tom convert fantom fantom_v1.json -o suites/fantom-upstream

Sets are grouped into conversations by `conv_id`, short contexts by `part_id`;
the upstream ids (set, part, conversation) are kept in each item's source so
results can be matched to upstream. Per-character yes/no answers are written out
only where they differ from what the aware/unaware lists imply; `no:long`
answers become `full_only` characters. Anything that cannot be represented is
reported (the set is left out and the exit status is 1), never dropped silently.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import TypedDict
from typing import cast

from pytest_tom.families.fantom.schema import Awareness
from pytest_tom.families.fantom.schema import Belief
from pytest_tom.families.fantom.schema import Conversation
from pytest_tom.families.fantom.schema import Fact
from pytest_tom.families.fantom.schema import FantomDocument
from pytest_tom.families.fantom.schema import FantomSet
from pytest_tom.families.fantom.schema import Missed
from pytest_tom.families.fantom.schema import YesNo
from pytest_tom.families.fantom.schema import YesNoKey
from pytest_tom.families.kit import JSONValue
from pytest_tom.families.kit import convert_kit

BINARY_NAME = re.compile(r"^\s*Does\s+(.+?)\s+know\b", re.IGNORECASE)
SAFE_ID = re.compile(r"[^A-Za-z0-9_.\-]+")


# The layout of a set of the authors' fantom_v1.json, as `convert_set` reads it; a set that
# differs raises KeyError or TypeError there and is reported, and left out.


class RawFact(TypedDict):
    question: str
    correct_answer: str


class RawBelief(TypedDict):
    question: str
    correct_answer: str
    wrong_answer: str
    tom_type: str  # first-order, second-order:cyclic, second-order:acyclic
    missed_info_accessibility: str


class RawList(TypedDict, total=False):
    correct_answer: list[str]  # the aware characters ...
    wrong_answer: list[str] | None  # ... and the unaware ones
    missed_info_accessibility: str


class RawBinary(TypedDict):
    question: str  # "Does <name> know ..."
    correct_answer: str  # yes, no, no:long
    missed_info_accessibility: str


class RawSet(TypedDict, total=False):
    set_id: JSONValue
    part_id: JSONValue
    conv_id: JSONValue
    joining_speaker: str
    missed_info: str
    full_context: str
    short_context: str
    factQA: RawFact
    beliefQAs: list[RawBelief]
    answerabilityQA_list: RawList
    infoAccessibilityQA_list: RawList
    answerabilityQAs_binary: list[RawBinary]
    infoAccessibilityQAs_binary: list[RawBinary]


class ConvertError(Exception):
    """One set that cannot be represented, with the reason."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("input", help="the authors' fantom_v1.json (a JSON list of sets)")
    parser.add_argument("-o", "--output", required=True, help="directory for the YAML suites")
    parser.add_argument("--name", default="fantom", help="suite name (default: fantom)")
    parser.add_argument(
        "--conversations-per-file",
        type=int,
        default=0,
        metavar="N",
        help="split into files of N conversations (default: one file)",
    )


def run(args: argparse.Namespace) -> int:
    path = Path(args.input)
    try:
        sets = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        print(f"pytest-tom convert fantom: cannot read {path}: {exc}", file=sys.stderr)
        return 2
    if not isinstance(sets, list):
        print(f"pytest-tom convert fantom: {path}: expected a JSON list of sets", file=sys.stderr)
        return 2
    conversations, problems = convert_sets(sets)
    out = Path(args.output)
    out.mkdir(parents=True, exist_ok=True)
    per = args.conversations_per_file or len(conversations) or 1
    chunks = [conversations[i : i + per] for i in range(0, len(conversations), per)]
    written = []
    for k, chunk in enumerate(chunks):
        name = args.name if len(chunks) == 1 else f"{args.name}-{k + 1:03d}"
        doc: FantomDocument = {
            "suite": name,
            "family": "fantom",
            "version": 1,
            "description": f"Converted from {path.name} by `pytest-tom convert fantom`; the "
            f"upstream set, part and conversation ids are kept in `source`.",
            "scenarios": chunk,
        }
        written.append(convert_kit.write_suite_in(out, name, doc))
    n_sets = sum(len(c["sets"]) for c in conversations)
    for target in written:
        print(f"wrote {target}")
    print(
        f"{len(sets)} sets read, {n_sets} converted in {len(conversations)} conversations, "
        f"{len(problems)} left out"
    )
    for msg in problems:
        print(f"  left out: {msg}", file=sys.stderr)
    return 1 if problems else 0


def convert_sets(sets: list[JSONValue]) -> tuple[list[Conversation], list[str]]:
    """YAML conversations (plain data) and the problems of the sets left out."""
    convs: dict[tuple[JSONValue, str], Conversation] = {}
    # each conversation's short contexts by part: its `contexts.short` while converting
    parts: dict[tuple[JSONValue, str], dict[str, str]] = {}
    problems: list[str] = []
    full_variants: dict[JSONValue, list[str]] = {}
    for i, item in enumerate(sets):
        where = f"set #{i} ({item.get('set_id', '?') if isinstance(item, dict) else '?'})"
        try:
            if not isinstance(item, dict):
                raise ConvertError("not a JSON object")
            raw = cast(RawSet, item)  # read as the release's layout (see RawSet)
            st = convert_set(raw)
            conv_id = raw.get("conv_id")
            full = str(raw["full_context"]).strip()
            variants = full_variants.setdefault(conv_id, [])
            if full not in variants:
                variants.append(full)
            key = (conv_id, full)
            if key not in convs:
                suffix = "" if len(variants) == 1 else f"-{chr(ord('a') + len(variants) - 1)}"
                parts[key] = {}
                convs[key] = {
                    "id": safe_id(f"conv-{conv_id}{suffix}"),
                    "characters": [],
                    "contexts": {"full": full, "short": parts[key]},
                    "sets": [],
                    "source": {"conv_id": conv_id},
                }
            conv = convs[key]
            part = _part_label(parts[key], str(raw.get("part_id", "")),
                               str(raw["short_context"]).strip())
            conv["sets"].append({"id": st["id"], "part": part, **st})  # the part after the id
            for name in [*st["aware"], *st.get("unaware", [])]:
                if name not in conv["characters"]:
                    conv["characters"].append(name)
        except (ConvertError, KeyError, TypeError) as exc:
            reason = f"missing field {exc}" if isinstance(exc, KeyError) else str(exc)
            problems.append(f"{where}: {reason}")
    out = []
    for key, conv in convs.items():
        shorts = parts[key]
        if len(shorts) == 1:
            conv["contexts"]["short"] = next(iter(shorts.values()))
        out.append(conv)
    return out, problems


def _part_label(shorts: dict[str, str], part_id: str, short: str) -> str:
    """The key of this short context in the conversation's parts `shorts` (upstream part id
    if unique), added there."""
    base = safe_id(part_id or "part")
    label, n = base, 1
    while label in shorts and shorts[label] != short:
        n += 1
        label = f"{base}.{n}"
    shorts[label] = short
    return label


def safe_id(text: str) -> str:
    s = SAFE_ID.sub("-", text).strip("-")
    return s if s and s[0].isalnum() else f"x{s}"


def convert_set(raw: RawSet) -> FantomSet:
    ans_list = raw["answerabilityQA_list"]
    info_list = raw["infoAccessibilityQA_list"]
    aware = [str(n) for n in ans_list["correct_answer"]]
    unaware = [str(n) for n in ans_list.get("wrong_answer") or []]
    if not aware:
        raise ConvertError("the answerability list names no aware character")
    accessibility = _one_accessibility(raw)
    set_id = safe_id(str(raw["set_id"]))
    missed: Missed = {}
    if raw.get("joining_speaker"):
        missed["missed_by"] = str(raw["joining_speaker"])
    if raw.get("missed_info"):
        missed["missed_info"] = str(raw["missed_info"])
    fact: Fact = {
        "question": str(raw["factQA"]["question"]),
        "answer": str(raw["factQA"]["correct_answer"]),
    }
    beliefs: list[Belief] = []
    for b in raw["beliefQAs"]:
        beliefs.append(
            {
                "question": str(b["question"]),
                "answer": str(b["correct_answer"]),
                "wrong_answer": str(b["wrong_answer"]),
                "order": str(b["tom_type"]),
                "accessibility": str(b["missed_info_accessibility"]),
            }
        )
    if not beliefs:
        raise ConvertError("no belief questions")
    more: Awareness = {}  # the set's keys after `aware`
    if unaware:
        more["unaware"] = unaware
    ia_aware = [str(n) for n in info_list["correct_answer"]]
    ia_unaware = [str(n) for n in info_list.get("wrong_answer") or []]
    if (sorted(ia_aware), sorted(ia_unaware)) != (sorted(aware), sorted(unaware)):
        more["infoaccess"] = {"aware": ia_aware, "unaware": ia_unaware}
    derived_access = "inaccessible" if unaware else "accessible"
    if accessibility != derived_access:
        more["accessibility"] = accessibility
    ans_golds = _binary(raw["answerabilityQAs_binary"])
    info_golds = _binary(raw["infoAccessibilityQAs_binary"])
    long_names = [
        n for golds in (ans_golds, info_golds) for n, g in golds.items() if g == "no:long"
    ]
    full_only = [n for n in dict.fromkeys(long_names) if n in unaware]
    if full_only:
        more["full_only"] = full_only
    yes_no: YesNo = {}
    keys: tuple[YesNoKey, YesNoKey] = ("answerability", "infoaccess")  # `yes_no`'s keys
    for key, golds, (a, u) in zip(
        keys, (ans_golds, info_golds), ((aware, unaware), (ia_aware, ia_unaware)), strict=True
    ):
        derived = {n: "yes" for n in a} | {n: "no:long" if n in full_only else "no" for n in u}
        if golds != derived or list(golds) != list(derived):
            yes_no[key] = golds
    if yes_no:
        more["yes_no"] = yes_no
    return {
        "id": set_id, **missed, "fact": fact, "beliefs": beliefs, "aware": aware, **more,
        "source": {
            "set_id": raw["set_id"],
            "part_id": raw.get("part_id"),
            "conv_id": raw.get("conv_id"),
        },
    }


def _binary(questions: list[RawBinary]) -> dict[str, str]:
    out: dict[str, str] = {}
    for q in questions:
        m = BINARY_NAME.match(str(q["question"]))
        if not m:
            raise ConvertError(
                f"cannot read the character of the yes/no question {q['question']!r}"
            )
        gold = str(q["correct_answer"]).strip().lower()
        if gold not in ("yes", "no", "no:long"):
            raise ConvertError(f"yes/no gold {q['correct_answer']!r} is not yes, no or no:long")
        out[m.group(1)] = gold
    return out


def _one_accessibility(raw: RawSet) -> str:
    """The accessibility of the set's list and yes/no questions (they must agree)."""
    found = Counter(
        str(q["missed_info_accessibility"])
        for q in [
            raw["answerabilityQA_list"],
            raw["infoAccessibilityQA_list"],
            *raw["answerabilityQAs_binary"],
            *raw["infoAccessibilityQAs_binary"],
        ]
    )
    if len(found) != 1:
        raise ConvertError(
            f"list and yes/no questions disagree on accessibility ({dict(found)}); "
            f"a set has one accessibility for them"
        )
    value = next(iter(found))
    if value not in ("inaccessible", "accessible"):
        raise ConvertError(f"unknown missed_info_accessibility {value!r}")
    return value
