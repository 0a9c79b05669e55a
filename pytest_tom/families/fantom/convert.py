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
from typing import Any

from pytest_tom.families.kit import convert_kit

BINARY_NAME = re.compile(r"^\s*Does\s+(.+?)\s+know\b", re.IGNORECASE)
SAFE_ID = re.compile(r"[^A-Za-z0-9_.\-]+")


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
        doc = {
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


def convert_sets(sets: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    """YAML conversations (plain data) and the problems of the sets left out."""
    convs: dict[tuple[Any, str], dict[str, Any]] = {}
    problems: list[str] = []
    full_variants: dict[Any, list[str]] = {}
    for i, raw in enumerate(sets):
        where = f"set #{i} ({raw.get('set_id', '?') if isinstance(raw, dict) else '?'})"
        try:
            if not isinstance(raw, dict):
                raise ConvertError("not a JSON object")
            st = convert_set(raw)
            conv_id = raw.get("conv_id")
            full = str(raw["full_context"]).strip()
            variants = full_variants.setdefault(conv_id, [])
            if full not in variants:
                variants.append(full)
            key = (conv_id, full)
            if key not in convs:
                suffix = "" if len(variants) == 1 else f"-{chr(ord('a') + len(variants) - 1)}"
                convs[key] = {
                    "id": safe_id(f"conv-{conv_id}{suffix}"),
                    "characters": [],
                    "contexts": {"full": full, "short": {}},
                    "sets": [],
                    "source": {"conv_id": conv_id},
                }
            conv = convs[key]
            part = _part_label(conv, str(raw.get("part_id", "")), str(raw["short_context"]).strip())
            conv["sets"].append({"id": st.pop("id"), "part": part, **st})
            for name in [*st["aware"], *st.get("unaware", [])]:
                if name not in conv["characters"]:
                    conv["characters"].append(name)
        except (ConvertError, KeyError, TypeError) as exc:
            reason = f"missing field {exc}" if isinstance(exc, KeyError) else str(exc)
            problems.append(f"{where}: {reason}")
    out = []
    for conv in convs.values():
        shorts = conv["contexts"]["short"]
        if len(shorts) == 1:
            conv["contexts"]["short"] = next(iter(shorts.values()))
        out.append(conv)
    return out, problems


def _part_label(conv: dict[str, Any], part_id: str, short: str) -> str:
    """The key of this short context in the conversation's parts (upstream part id if unique)."""
    shorts = conv["contexts"]["short"]
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


def convert_set(raw: dict[str, Any]) -> dict[str, Any]:
    ans_list = raw["answerabilityQA_list"]
    info_list = raw["infoAccessibilityQA_list"]
    aware = [str(n) for n in ans_list["correct_answer"]]
    unaware = [str(n) for n in ans_list.get("wrong_answer") or []]
    if not aware:
        raise ConvertError("the answerability list names no aware character")
    accessibility = _one_accessibility(raw)
    st: dict[str, Any] = {"id": safe_id(str(raw["set_id"]))}
    if raw.get("joining_speaker"):
        st["missed_by"] = str(raw["joining_speaker"])
    if raw.get("missed_info"):
        st["missed_info"] = str(raw["missed_info"])
    st["fact"] = {
        "question": str(raw["factQA"]["question"]),
        "answer": str(raw["factQA"]["correct_answer"]),
    }
    beliefs = []
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
    st["beliefs"] = beliefs
    st["aware"] = aware
    if unaware:
        st["unaware"] = unaware
    ia_aware = [str(n) for n in info_list["correct_answer"]]
    ia_unaware = [str(n) for n in info_list.get("wrong_answer") or []]
    if (sorted(ia_aware), sorted(ia_unaware)) != (sorted(aware), sorted(unaware)):
        st["infoaccess"] = {"aware": ia_aware, "unaware": ia_unaware}
    derived_access = "inaccessible" if unaware else "accessible"
    if accessibility != derived_access:
        st["accessibility"] = accessibility
    ans_golds = _binary(raw["answerabilityQAs_binary"])
    info_golds = _binary(raw["infoAccessibilityQAs_binary"])
    long_names = [
        n for golds in (ans_golds, info_golds) for n, g in golds.items() if g == "no:long"
    ]
    full_only = [n for n in dict.fromkeys(long_names) if n in unaware]
    if full_only:
        st["full_only"] = full_only
    yes_no = {}
    for key, golds, (a, u) in (
        ("answerability", ans_golds, (aware, unaware)),
        ("infoaccess", info_golds, (ia_aware, ia_unaware)),
    ):
        derived = {n: "yes" for n in a} | {n: "no:long" if n in full_only else "no" for n in u}
        if golds != derived or list(golds) != list(derived):
            yes_no[key] = golds
    if yes_no:
        st["yes_no"] = yes_no
    st["source"] = {
        "set_id": raw["set_id"],
        "part_id": raw.get("part_id"),
        "conv_id": raw.get("conv_id"),
    }
    return st


def _binary(questions: list[dict[str, Any]]) -> dict[str, str]:
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


def _one_accessibility(raw: dict[str, Any]) -> str:
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
