"""MMToM-QA: the authors' `questions.json` (600 text-only questions, JSON Lines) -> one
MMToM-QA suite file.

    pytest-tom convert mmtomqa questions.json -o DIR [--suite NAME] [--limit N]

Each line is one question: `question` (the apartment, the person's actions, the question
and its two options in one text), `answer` (`a` / `b`), `question_type` (1.1-1.3 belief,
2.1-2.4 goal inference), `episode`, `start_time`, `end_time`, `test` and `answer_list`.
The text is split into its parts (`apartment`, one line per room; `person`; `actions`;
`question`; `options`), which `mmtomqa.prompts` puts back together exactly; a text that
does not split that way is a problem of its line. A question is named `q<line>` and keeps
its line (`upstream_line`), start and end time as its `source`; `test` (every text-only
question of the release reads the whole scene and every action) and `answer_list` are not
used.

Every problem of the file is reported (file:line) and nothing is written when there is
one. `convert` and `write` are what `pytest-tom fetch` calls: local file in, suites out.
"""

from __future__ import annotations

import argparse
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from typing import TypedDict
from typing import cast

from pytest_tom.families.kit import ConvertError
from pytest_tom.families.kit import JSONObject
from pytest_tom.families.kit import JSONValue
from pytest_tom.families.kit import convert_kit

from .prompts import question_text
from .question_types import BY_CODE
from .question_types import code_of
from .schema import MMToMQAScenario
from .schema import MMToMQASuite
from .schema import QuestionParts

NAME = "mmtomqa"
UPSTREAM = "questions.json"
FIELDS = ("question", "answer", "question_type")
_QUESTION = re.compile(
    r"What's inside the apartment: (?P<apartment>.*?)\n"
    r"Actions taken by (?P<person>[^:\n]+): (?P<actions>[^\n]*?) \n"
    r"Question: (?P<question>.*?) \(a\) (?P<a>.*?) \(b\) (?P<b>.*?) "
    r"Please respond with either a or b\.", re.DOTALL)


class _ReleaseQuestion(TypedDict):
    question: str  # the whole text: apartment, actions, question, options
    answer: str  # a or b
    question_type: int | float | str  # one of BY_CODE (1.1 ... 2.4), not a boolean


class ReleaseRow(_ReleaseQuestion, total=False):
    """A line of `questions.json`: the fields read, typed as `_scenario` checks them (the
    times are kept as written, unread)."""

    episode: int  # kept when it is an integer
    start_time: JSONValue
    end_time: JSONValue


class _Episode(TypedDict, total=False):
    episode: int


@dataclass
class Converted:
    document: MMToMQASuite

    @property
    def items(self) -> int:
        return len(self.document["scenarios"])


def add_arguments(parser: argparse.ArgumentParser) -> None:
    convert_kit.add_input_output(parser, f"the authors' {UPSTREAM} (one JSON object per line)")
    convert_kit.add_suite_limit(parser, f"suite name and file stem (default {NAME})",
                                "convert only the first N questions", NAME)


def split_question(text: str) -> QuestionParts | None:
    """The parts of a release question text (None: not the release's layout, or a text the
    parts would not give back exactly)."""
    m = _QUESTION.fullmatch(text)
    if m is None:
        return None
    parts: QuestionParts = {
        "apartment": "\n".join(line.rstrip(" ") for line in m["apartment"].split("\n")),
        "person": m["person"], "actions": m["actions"], "question": m["question"],
        "options": [m["a"], m["b"]],
    }
    return parts if question_text(parts) == text else None


def _scenario(row: Any, line: int) -> tuple[MMToMQAScenario | None, list[str]]:
    if not isinstance(row, dict):
        return None, [f"expected a JSON object, got {type(row).__name__}"]
    missing = [f for f in FIELDS if f not in row]
    if missing:
        return None, [f"missing field(s) {', '.join(missing)}"]
    release = cast(ReleaseRow, row)  # its fields as read below, each checked
    problems = []
    code = code_of(release["question_type"])
    if code not in BY_CODE or isinstance(release["question_type"], bool):
        problems.append(f"question_type {release['question_type']!r} is not one of "
                        f"{', '.join(BY_CODE)}")
    if release["answer"] not in ("a", "b"):
        problems.append(f"answer {release['answer']!r} is not 'a' or 'b'")
    parts = split_question(release["question"]) if isinstance(release["question"], str) else None
    if parts is None:
        problems.append("question is not laid out as the release's: \"What's inside the "
                        "apartment: ...\\nActions taken by NAME: ... \\nQuestion: ... (a) ... "
                        "(b) ... Please respond with either a or b.\"")
    if problems:
        return None, problems
    assert parts is not None
    # where the question comes from; the row's times as written, when it has them
    source: JSONObject = {"upstream": UPSTREAM, "upstream_line": line}
    if "start_time" in release:
        source["start_time"] = release["start_time"]
    if "end_time" in release:
        source["end_time"] = release["end_time"]
    episode = release.get("episode")
    numbered: _Episode = ({"episode": episode} if isinstance(episode, int)
                          and not isinstance(episode, bool) else {})
    scenario: MMToMQAScenario = {"id": f"q{line:03d}", **numbered, "type": code, **parts,
                                 "answer": release["answer"], "source": source}
    return scenario, []


def convert(path: Path, suite: str = NAME, limit: int | None = None) -> Converted:
    """The suite document (plain data ready for YAML) for the file at `path`."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConvertError([f"{path}: not UTF-8 text ({exc.reason}); save it as UTF-8"]) from None
    problems: list[str] = []
    scenarios: list[MMToMQAScenario] = []
    for line, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            row = json.loads(raw)
        except json.JSONDecodeError as exc:
            problems.append(f"{path}:{line}: not a JSON object ({exc.msg}, column {exc.colno}); "
                            f"the file has one question per line")
            continue
        scenario, bad = _scenario(row, line)
        problems += [f"{path}:{line}: {p}" for p in bad]
        if scenario is not None:
            scenarios.append(scenario)
    if problems:
        raise ConvertError(problems)
    if not scenarios:
        raise ConvertError([f"{path}:1: no questions found (the file is empty)"])
    if limit is not None:
        scenarios = scenarios[:limit]
    document: MMToMQASuite = {
        "suite": suite,
        "family": NAME,
        "version": 1,
        "description": (f"Converted from the MMToM-QA authors' {path.name} ({len(scenarios)} "
                        f"text-only questions). Licence: MIT (the upstream one)."),
        "scenarios": scenarios,
    }
    return Converted(document)


def write(path: Path, out_dir: Path, suite: str = NAME, limit: int | None = None
          ) -> tuple[list[Path], Converted]:
    """Convert the file at `path` into `out_dir` (created); the files written."""
    converted = convert(path, suite, limit)
    return [convert_kit.write_suite_in(out_dir, suite, converted.document)], converted


def run(args: argparse.Namespace) -> int:
    def written(result: tuple[list[Path], Converted]) -> list[str]:
        files, converted = result
        return [f"{files[0]}: {converted.items} questions -> {converted.items} items"]

    return convert_kit.run_converter(
        f"pytest-tom convert {NAME}", args,
        lambda: write(Path(args.input), Path(args.output), args.suite, args.limit), written)
