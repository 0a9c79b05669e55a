"""SimpleToM: the release's three question files -> one simpletom suite.

    pytest-tom convert simpletom FOLDER -o OUT [--suite NAME] [--limit N] [--expect N]

FOLDER holds the dataset's files as published (`allenai/SimpleToM`):
`mental-state-qa/test.jsonl`, `behavior-qa/test.jsonl` and `judgment-qa/test.jsonl`, one
JSON row per line: `id` (`<story>_<scenario>_sev<k>_<aware|action|judge>`), `story`,
`question`, `scenario_name`, `choices` (`{"text": [...], "label": ["A", "B"]}`),
`answerKey`. The three rows of one story (its id without the kind) become one scenario
with its `aware`, `action` and `judge` questions; the story text must be the same in the
three. `--expect N` checks that N stories came out (the release has 1,147: what
`pytest-tom fetch simpletom-full` checks, as its files cannot be pinned by hash). Every
problem is reported (file:line) and nothing is written when there is one.

Checked on a sample in the release's row layout only (no copy of the real files reached
this project): check it against a real copy before trusting it.
"""

from __future__ import annotations

import argparse
import json
import re
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import TypedDict

from pytest_tom.families.kit import ConvertError
from pytest_tom.families.kit import convert_kit

from .schema import KINDS
from .schema import LETTERS
from .schema import SimpleTomQuestion
from .schema import SimpleTomScenario
from .schema import SimpleTomSuite

FILES = {"aware": "mental-state-qa/test.jsonl", "action": "behavior-qa/test.jsonl",
         "judge": "judgment-qa/test.jsonl"}
LICENCE = "ODC-BY (the upstream one)"
_ID = re.compile(r"^(?P<story>.+)_(?P<kind>aware|action|judge)$")
_SEVERITY = re.compile(r"_sev(\d+)$")


class ReleaseChoices(TypedDict):
    text: list[str]  # 2-4 non-empty texts
    label: list[str]  # "A", "B" ... as many as texts


class _ReleaseQuestion(TypedDict):
    id: str  # <story>_<scenario>_sev<k>_<aware|action|judge>
    story: str
    question: str
    choices: ReleaseChoices
    answerKey: str  # one of the labels


class ReleaseRow(_ReleaseQuestion, total=False):
    """A row of a release question file: the fields read, typed as `read_rows` (the id)
    and `question_of` (the rest) check them; a row that breaks them is a problem."""

    scenario_name: str  # kept when it is a string


class _Category(TypedDict, total=False):
    scenario_name: str
    severity: int


@dataclass
class Conversion:
    suite: str
    scenarios: list[SimpleTomScenario] = field(default_factory=list)

    @property
    def document(self) -> SimpleTomSuite:
        return {"suite": self.suite, "family": "simpletom", "version": 1,
                "description": (f"SimpleToM, converted from the release's question files: "
                                f"{len(self.scenarios)} stories, 3 questions each. Licence: "
                                f"{LICENCE}."),
                "scenarios": self.scenarios}


def question_of(row: ReleaseRow, where: str, problems: list[str]) -> SimpleTomQuestion | None:
    before = len(problems)
    for key in ("story", "question"):
        if not isinstance(row.get(key), str) or not row[key].strip():
            problems.append(f"{where}: {key!r} is missing or empty")
    choices = row.get("choices")
    texts = choices.get("text") if isinstance(choices, dict) else None
    labels = choices.get("label") if isinstance(choices, dict) else None
    if not (isinstance(texts, list) and isinstance(labels, list) and 2 <= len(texts) <= 4
            and len(labels) == len(texts) and all(isinstance(t, str) and t.strip() for t in texts)):
        problems.append(f"{where}: 'choices' is not {{\"text\": [2-4 texts], \"label\": "
                        f"[as many labels]}}")
    elif labels != list(LETTERS[:len(texts)]):
        problems.append(f"{where}: the labels {labels} are not {list(LETTERS[:len(texts)])}")
    answer = row.get("answerKey")
    if len(problems) == before and answer not in labels:
        problems.append(f"{where}: answerKey {answer!r} is not one of the labels {labels}")
    if len(problems) > before:
        return None
    return {"question": row["question"].strip(), "options": [t.strip() for t in texts],
            "answer": answer}


def read_rows(path: Path, kind: str, limit: int | None, problems: list[str]
              ) -> dict[str, tuple[str, ReleaseRow]]:
    """story id -> (where, row) for the rows of one kind."""
    out: dict[str, tuple[str, ReleaseRow]] = {}
    try:
        lines = path.read_text(encoding="utf-8-sig").splitlines()
    except UnicodeDecodeError as exc:
        problems.append(f"{path}: not UTF-8 text ({exc.reason}); save it as UTF-8")
        return out
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        if limit is not None and len(out) >= limit:
            break
        where = f"{path}:{number}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(f"{where}: not a JSON object ({exc.msg}); one row per line")
            continue
        m = _ID.match(str(row.get("id", ""))) if isinstance(row, dict) else None
        if m is None:
            problems.append(f"{where}: the id {row.get('id') if isinstance(row, dict) else row!r} "
                            f"is not <story>_<scenario>_sev<k>_<aware|action|judge>")
            continue
        if m.group("kind") != kind:
            problems.append(f"{where}: the id {row['id']!r} is a {m.group('kind')} question, in "
                            f"the {kind} file")
            continue
        story = m.group("story")
        if story in out:
            problems.append(f"{where}: the story {story!r} is asked twice here (first at "
                            f"{out[story][0]})")
            continue
        out[story] = (where, row)
    return out


def convert(folder: Path, suite: str = "simpletom-full", limit: int | None = None,
            expect: int | None = None) -> Conversion:
    folder = Path(folder)
    problems: list[str] = []
    by_kind: dict[str, dict[str, tuple[str, ReleaseRow]]] = {}
    for kind, name in FILES.items():
        path = folder / name
        if not path.is_file():
            problems.append(f"{path}: missing (the folder holds the release's {', '.join(FILES.values())})")
            continue
        by_kind[kind] = read_rows(path, kind, limit, problems)
    if problems:
        raise ConvertError(problems)
    conv = Conversion(suite)
    stories = list(by_kind["aware"])
    for story in stories:
        parts = {kind: by_kind[kind].get(story) for kind in KINDS}
        missing = [k for k, v in parts.items() if v is None]
        if missing:
            where = parts["aware"][0]  # type: ignore[index]
            problems.append(f"{where}: the story {story!r} has no {', '.join(missing)} question "
                            f"(in {', '.join(FILES[k] for k in missing)})")
            continue
        scenario = scenario_of(story, parts, problems)  # type: ignore[arg-type]
        if scenario is not None:
            conv.scenarios.append(scenario)
    for kind in ("action", "judge"):
        for story, (where, _) in by_kind[kind].items():
            if story not in by_kind["aware"]:
                problems.append(f"{where}: the story {story!r} has no aware question (in "
                                f"{FILES['aware']})")
    if not problems and expect is not None and len(conv.scenarios) != expect:
        problems.append(f"{folder}: {len(conv.scenarios)} stories, not the {expect} expected "
                        f"(another revision of the dataset?)")
    if problems:
        raise ConvertError(problems)
    return conv


def scenario_of(story: str, parts: dict[str, tuple[str, ReleaseRow]],
                problems: list[str]) -> SimpleTomScenario | None:
    before = len(problems)
    questions = {kind: question_of(row, where, problems) for kind, (where, row) in parts.items()}
    aware, action, judge = questions["aware"], questions["action"], questions["judge"]
    if aware is None or action is None or judge is None:
        return None
    where, first = parts["aware"]
    text = first["story"].strip()
    for kind in ("action", "judge"):
        other_where, row = parts[kind]
        if row["story"].strip() != text:
            problems.append(f"{other_where}: the story of {row['id']!r} differs from the one "
                            f"at {where}")
    if len(problems) > before:
        return None
    category: _Category = {}
    if isinstance(first.get("scenario_name"), str):
        category["scenario_name"] = first["scenario_name"]
    severity = _SEVERITY.search(story)
    if severity:
        category["severity"] = int(severity.group(1))
    return {"id": story, "story": text, **category, "aware": aware, "action": action,
            "judge": judge, "source": {"ids": [parts[k][1]["id"] for k in KINDS]}}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    convert_kit.add_input_output(parser, "the folder holding mental-state-qa/, behavior-qa/ "
                                         "and judgment-qa/")
    convert_kit.add_suite_limit(parser, "suite name (default simpletom-full)",
                                "only the first N stories", "simpletom-full")
    parser.add_argument("--expect", type=int, metavar="N",
                        help="fail unless exactly N stories come out (the release: 1147)")


def run(args: argparse.Namespace) -> int:
    def written(conv: Conversion) -> list[str]:
        path = convert_kit.write_suite_in(Path(args.output), conv.suite, conv.document)
        return [f"{path}: suite {conv.suite}, "
                f"{len(conv.scenarios)} stories, {3 * len(conv.scenarios)} questions"]

    return convert_kit.run_converter(
        "pytest-tom convert simpletom", args,
        lambda: convert(args.input, args.suite, args.limit, args.expect), written,
        folder=True, input_last=True)
