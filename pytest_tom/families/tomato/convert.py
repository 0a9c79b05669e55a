"""ToMATO: a release file (`tomato.json`, `tomato_first.json`, `tomato_second.json` or
`tomato_fb.json`) -> one tomato suite.

    pytest-tom convert tomato FILE.json -o OUT [--suite NAME] [--limit N]

Each element of the file's JSON list becomes one question: `conversation`, `q`, `a0`..`a3`,
`a_idx` (the right option, 0-3), `mental_state`, `order`, `false_belief`, `big_five`, and
`q_id` as its id (`u_id`, the Sotopia agents and environment are kept in `source`). The
fields `a_idx`, `order` and `false_belief` are read as JSON numbers and booleans or as the
strings the full release is reported to hold (`"0"`, `"2"`, `"True"`). `a_str`, the right
option's text, must be the option `a_idx` names. A `q_id` given twice keeps both
questions, the second under `<q_id>-2` (said in a note). Every problem of the file is
reported (file:line of its element) and nothing is written when there is one.

`convert(path)` is the conversion as a function (what `pytest-tom fetch` runs through
`run`); `write(conversion, out)` writes the suite file.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any
from typing import Literal
from typing import TypedDict
from typing import cast

from pytest_tom.families.kit import ConvertError
from pytest_tom.families.kit import JSONObject
from pytest_tom.families.kit import JSONValue
from pytest_tom.families.kit import convert_kit

from .schema import LETTERS
from .schema import MENTAL_STATES
from .schema import ORDERS
from .schema import ToMATOScenario
from .schema import ToMATOSuite

LICENCE = "Meta Llama 3 Community License, evaluation use only (the upstream one)"


class _ReleaseQuestion(TypedDict):
    conversation: str
    q: str
    a0: str
    a1: str
    a2: str
    a3: str
    q_id: str
    a_idx: int | str  # 0-3
    order: int | str  # 1 or 2
    mental_state: str  # one of MENTAL_STATES


class ReleaseRow(_ReleaseQuestion, total=False):
    """An element of a release file: the fields read, typed as `question_of` checks them
    (a number or boolean also as the strings the full release is reported to hold; the
    Sotopia fields and `u_id` kept as written)."""

    false_belief: bool | str  # default false
    a_str: str  # the right option's text, when given
    big_five: str  # kept when it is a string
    u_id: JSONValue
    sotopia_agents: JSONValue
    sotopia_environment: JSONValue


Kept = Literal["u_id", "sotopia_agents", "sotopia_environment"]
KEPT: tuple[Kept, ...] = ("u_id", "sotopia_agents", "sotopia_environment")


@dataclass
class Conversion:
    suite: str
    source: str
    scenarios: list[ToMATOScenario] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def document(self) -> ToMATOSuite:
        return {"suite": self.suite, "family": "tomato", "version": 1,
                "description": (f"ToMATO, converted from the authors' {self.source}: "
                                f"{len(self.scenarios)} questions. Licence: {LICENCE}."),
                "scenarios": self.scenarios}


def default_suite(path: Path) -> str:
    """`tomato_fb.json` -> `tomato-fb`; the whole release `tomato.json` -> `tomato-all`."""
    name = path.stem.replace("_", "-").lower()
    return "tomato-all" if name == "tomato" else name


def elements(text: str, where: str) -> list[tuple[int, Any]]:
    """The elements of a JSON list with the line each starts on."""
    decoder = json.JSONDecoder()
    i = len(text) - len(text.lstrip())
    if not text[i:i + 1] == "[":
        raise ConvertError([f"{where}:1: not a JSON list of questions (the release's files "
                            f"are one list: [{{...}}, ...])"])
    i += 1
    out: list[tuple[int, Any]] = []
    while True:
        while i < len(text) and text[i] in " \t\r\n,":
            i += 1
        if i >= len(text):
            raise ConvertError([f"{where}: the list is not closed (a cut-off file?)"])
        if text[i] == "]":
            return out
        line = text.count("\n", 0, i) + 1
        try:
            value, i = decoder.raw_decode(text, i)
        except json.JSONDecodeError as exc:
            raise ConvertError([f"{where}:{exc.lineno}: not JSON ({exc.msg})"]) from None
        out.append((line, value))


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value.strip())
    return None


def _bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return None


def question_of(element: Any, where: str, problems: list[str]) -> ToMATOScenario | None:
    """One scenario from one element (None, with problems added, when it cannot be read)."""
    if not isinstance(element, dict):
        problems.append(f"{where}: not a JSON object (each question is one)")
        return None
    row = cast(ReleaseRow, element)  # its fields as read below, each checked
    before = len(problems)
    texts: dict[str, str] = {}
    for key in ("conversation", "q", "a0", "a1", "a2", "a3", "q_id"):
        value = row.get(key)
        if not isinstance(value, str) or not value.strip():
            problems.append(f"{where}: {key!r} is missing or not a non-empty string")
        else:
            texts[key] = value.strip()
    index = _int(row.get("a_idx"))
    if index is None or not 0 <= index <= 3:
        problems.append(f"{where}: a_idx {row.get('a_idx')!r} is not 0, 1, 2 or 3")
    order = _int(row.get("order"))
    if order not in ORDERS:
        problems.append(f"{where}: order {row.get('order')!r} is not 1 or 2")
    state = row.get("mental_state")
    if state not in MENTAL_STATES:
        problems.append(f"{where}: mental_state {state!r} is not one of {', '.join(MENTAL_STATES)}")
    fb = _bool(row.get("false_belief", False))
    if fb is None:
        problems.append(f"{where}: false_belief {row.get('false_belief')!r} is not true or false")
    if len(problems) > before or index is None or order is None or state is None or fb is None:
        return None
    options = [texts[f"a{i}"] for i in range(4)]
    a_str = row.get("a_str")
    if isinstance(a_str, str) and a_str.strip() != options[index]:
        problems.append(f"{where}: a_str {a_str.strip()[:60]!r} is not option a{index} (a_idx "
                        f"{index}): {options[index][:60]!r}")
        return None
    if len(set(options)) < 4:
        problems.append(f"{where}: two options read the same; a reply could not tell them apart")
        return None
    out: ToMATOScenario = {
        "id": texts["q_id"], "mental_state": state, "order": order, "false_belief": fb,
        "conversation": texts["conversation"], "question": texts["q"], "options": options,
        "answer": LETTERS[index],
    }
    if isinstance(row.get("big_five"), str):
        out["big_five"] = row["big_five"]
    source: JSONObject = {}  # the fields of the element it keeps (`KEPT`), as written
    for key in KEPT:
        if key in row:
            source[key] = row[key]
    if source:
        out["source"] = source
    return out


def convert(path: Path, suite: str | None = None, limit: int | None = None) -> Conversion:
    """The suite of one release file; raises ConvertError naming every problem."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConvertError([f"{path}: not UTF-8 text ({exc.reason}); save it as UTF-8"]) from None
    rows = elements(text, str(path))
    conv = Conversion(suite or default_suite(path), path.name)
    problems: list[str] = []
    seen: dict[str, int] = {}
    for line, row in rows[:limit] if limit else rows:
        where = f"{path}:{line}"
        sc = question_of(row, where, problems)
        if sc is None:
            continue
        qid = sc["id"]
        if qid in seen:  # kept, under a name of its own, and said
            n = 2
            while f"{qid}-{n}" in seen:
                n += 1
            sc["id"] = f"{qid}-{n}"
            conv.notes.append(f"{where}: q_id {qid!r} was given before (line {seen[qid]}): "
                              f"this question is {sc['id']!r}")
        seen[sc["id"]] = line
        conv.scenarios.append(sc)
    if not rows:
        problems.append(f"{path}: the list is empty")
    if problems:
        raise ConvertError(problems)
    return conv


def add_arguments(parser: argparse.ArgumentParser) -> None:
    convert_kit.add_input_output(parser, "a release file: tomato.json, tomato_first.json, "
                                         "tomato_second.json or tomato_fb.json")
    convert_kit.add_suite_limit(parser, "suite name (default from the file: tomato-fb, "
                                        "tomato-first ...)", "only the first N questions")


def run(args: argparse.Namespace) -> int:
    return convert_kit.run_converter(
        "pytest-tom convert tomato", args, lambda: convert(args.input, args.suite, args.limit),
        lambda conv: written(conv, Path(args.output)), input_last=True)


def written(conv: Conversion, out: Path) -> list[str]:
    """Write the suite into `out`; the lines `run` prints: the questions per mental state
    and order, then the notes."""
    path = convert_kit.write_suite_in(out, conv.suite, conv.document)
    cells = Counter((sc["mental_state"], sc["order"]) for sc in conv.scenarios)
    fb = sum(1 for sc in conv.scenarios if sc["false_belief"])
    return [f"{path}: suite {conv.suite}, {len(conv.scenarios)} questions ({fb} false belief)",
            *(f"  {state:<10} " + "  ".join(f"order {o}: {cells[(state, o)]:>4}" for o in ORDERS)
              for state in MENTAL_STATES),
            *(f"  note: {note}" for note in conv.notes)]
