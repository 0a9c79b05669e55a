"""Hi-ToM: the authors' `Hi-ToM_data.json` (1,200 questions) -> one Hi-ToM suite file.

    pytest-tom convert hitom Hi-ToM_data.json -o DIR [--suite NAME] [--limit N]
                             [--prompts PATH ...]

The release is `{"data": [row, ...]}`, one row per question: `prompting_type` (VP / CoTP),
`deception` (true: the Tell stories), `story_length` (1-3 chapters), `question_order`
(0-4), `sample_id` (the row's index), `story` (numbered lines), `question`, `choices` (one
string, `"A. x, B. y, ..."`) and `answer` (the right option's text). The rows of one story
(same prompting, deception, length and story text: five, one per order) become one
scenario with five questions, named `<vp|cotp>-<no_tell|tell>-len<L>-s<NN>` where NN counts
the stories of that setting in file order (the release's `sample_<NN>` folders); each
question keeps its row's `sample_id`.

Two marks of the release's making are removed from the story text, and counted in the
converter's output: the VP rows' stories begin with their instruction line (found by its
place: the lines before the first numbered story line; the prompt adds an instruction of
its own), and six stories end with a `***` separator line. Where the same question
of the same story has a different answer in the VP and the CoTP half (138 rows of the
release), both answers are kept as released; the question's `source` names the other
half's answer (docs/families/hitom.md).

The items are asked in pytest-tom's own wording (`prompts.OWN`); with `--prompts PATH`
(the user's copy of the authors' prompt files, `prompt_files`) the suite's
`defaults.prompt` holds the authors' instruction lines and note, and the items are asked
in those.

Every problem of the file is reported (file:line) and nothing is written when there is
one. `convert` and `write` are what `pytest-tom fetch` calls: local file in, suites out.
"""

from __future__ import annotations

import argparse
import json
import re
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any
from typing import TypedDict
from typing import cast

from pytest_tom.families.kit import ConvertError
from pytest_tom.families.kit import JSONValue
from pytest_tom.families.kit import convert_kit

from .expand import DECEPTION
from .prompt_files import read_prompts
from .prompts import OPTION_LETTERS
from .prompts import VP
from .schema import LENGTHS
from .schema import ORDERS
from .schema import HiToMDefaults
from .schema import HiToMQuestion
from .schema import HiToMScenario
from .schema import HiToMSuite

NAME = "hitom"
UPSTREAM = "Hi-ToM_data.json"
FIELDS = ("prompting_type", "deception", "story_length", "question_order", "story",
          "question", "choices", "answer")
STYLE = {"VP": "vp", "CoTP": "cotp"}
_OPTION = re.compile(r"([A-Z])\. (.+?)(?=, [A-Z]\. |$)")
_SEPARATOR = re.compile(r"\n\s*\*{3,}\s*$")
_NUMBERED = re.compile(r"^\d+ ")  # a story line: `12 Ann exited the hall.`


class _ReleaseQuestion(TypedDict):
    prompting_type: str  # VP or CoTP
    deception: bool
    story_length: int  # 1-3
    question_order: int  # 0-4
    story: str  # non-empty, numbered lines
    question: str
    choices: str  # "A. x, B. y, ..."
    answer: str  # one of the choices


class ReleaseRow(_ReleaseQuestion, total=False):
    """An element of the release's `data` list: the fields read, typed as `_row_problems`
    checks them (`sample_id` is kept as written)."""

    sample_id: JSONValue


class _Prompted(TypedDict, total=False):
    defaults: HiToMDefaults


@dataclass
class Converted:
    """A converted suite document and what the conversion changed or noticed."""

    document: HiToMSuite
    notes: list[str] = field(default_factory=list)

    @property
    def items(self) -> int:
        return sum(len(s["questions"]) for s in self.document["scenarios"])


def add_arguments(parser: argparse.ArgumentParser) -> None:
    convert_kit.add_input_output(parser, f"the authors' {UPSTREAM} ({{\"data\": [...]}})")
    convert_kit.add_suite_limit(parser, f"suite name and file stem (default {NAME})",
                                "convert only the first N stories", NAME)
    parser.add_argument("--prompts", action="append", type=Path, metavar="PATH",
                        help="your copy of the authors' prompt files (the folder "
                             "Hi-ToM_prompts/, or one VP and one CoTP file; repeatable): "
                             "their instruction lines and note replace pytest-tom's own "
                             "wording in the suite")


def rows_with_lines(path: Path) -> list[tuple[int, Any]]:
    """(line, row) for each element of the file's `data` list; ConvertError when the file
    is not that JSON."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConvertError([f"{path}: not UTF-8 text ({exc.reason}); save it as UTF-8"]) from None
    try:
        whole = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConvertError([f"{path}:{exc.lineno}: not valid JSON ({exc.msg}, column "
                            f"{exc.colno}); is this the authors' {UPSTREAM}?"]) from None
    if not isinstance(whole, dict) or not isinstance(whole.get("data"), list):
        raise ConvertError([f"{path}:1: expected {{\"data\": [...]}} (the authors' {UPSTREAM}), "
                            f"got {type(whole).__name__}"])
    # the rows again, decoded one by one from the text, for their line numbers
    decoder = json.JSONDecoder()
    start = re.search(r'"data"\s*:\s*\[', text)
    pos = start.end() if start else 0
    lines: list[int] = []
    for _ in whole["data"]:
        pos = re.compile(r"[\s,]*").match(text, pos).end()  # type: ignore[union-attr]
        lines.append(text.count("\n", 0, pos) + 1)
        _, pos = decoder.raw_decode(text, pos)
    return list(zip(lines, whole["data"], strict=True))


def parse_choices(text: str) -> list[str] | None:
    """`"A. blue_drawer, B. green_crate"` -> the option texts (None: not lettered A, B, ...)."""
    found = _OPTION.findall(text.strip())
    if not found or "".join(letter for letter, _ in found) != OPTION_LETTERS[:len(found)]:
        return None
    if ", ".join(f"{letter}. {t}" for letter, t in found) != text.strip():
        return None
    return [t.strip() for _, t in found]


def clean_story(story: str) -> tuple[str, list[str], str | None]:
    """The story lines without the release's marks; the marks removed; the instruction
    line removed (the lines before the first numbered line: the VP rows carry theirs),
    if any."""
    removed = []
    lines = story.strip("\n").split("\n")
    first = next((i for i, line in enumerate(lines) if _NUMBERED.match(line.strip())), 0)
    instruction = None
    if first:
        instruction = "\n".join(line.strip() for line in lines[:first]).strip()
        removed.append("instruction")
    text = "\n".join(lines[first:]).strip("\n")
    if _SEPARATOR.search(text):
        text = _SEPARATOR.sub("", text)
        removed.append("separator")
    return text.strip(), removed, instruction


def _row_problems(row: Any) -> list[str]:
    if not isinstance(row, dict):
        return [f"expected an object with {', '.join(FIELDS)}, got {type(row).__name__}"]
    missing = [f for f in FIELDS if f not in row]
    if missing:
        return [f"missing field(s) {', '.join(missing)}"]
    out = []
    if row["prompting_type"] not in STYLE:
        out.append(f"prompting_type {row['prompting_type']!r} is not VP or CoTP")
    if not isinstance(row["deception"], bool):
        out.append(f"deception {row['deception']!r} is not true or false")
    if row["story_length"] not in LENGTHS or isinstance(row["story_length"], bool):
        out.append(f"story_length {row['story_length']!r} is not 1, 2 or 3")
    if row["question_order"] not in ORDERS or isinstance(row["question_order"], bool):
        out.append(f"question_order {row['question_order']!r} is not 0-4")
    for name in ("story", "question", "choices", "answer"):
        if not isinstance(row[name], str) or not row[name].strip():
            out.append(f"{name} is not a non-empty string")
    if out:
        return out
    choices = parse_choices(row["choices"])
    if choices is None:
        return [f"choices {row['choices'][:60]!r}... is not 'A. x, B. y, ...'"]
    if len(set(choices)) != len(choices):
        return ["choices repeat an option"]
    if row["answer"].strip() not in choices:
        return [f"answer {row['answer']!r} is not one of the choices"]
    return []


def convert(path: Path, suite: str = NAME, limit: int | None = None,
            prompts: list[Path] | None = None) -> Converted:
    """The suite document (plain data ready for YAML) for the file at `path`; with
    `prompts`, the authors' wording read from their prompt files in `defaults.prompt`."""
    rows = rows_with_lines(path)
    problems: list[str] = []
    stories: dict[tuple[str, bool, int, str], HiToMScenario] = {}
    first_line: dict[tuple[str, bool, int, str], dict[int, int]] = {}
    counts = {"instruction": 0, "separator": 0}
    vp_lines: set[str] = set()  # the instruction lines the VP rows carry
    for line, row in rows:
        bad = _row_problems(row)
        if bad:
            problems += [f"{path}:{line}: {p}" for p in bad]
            continue
        row = cast(ReleaseRow, row)  # as _row_problems has found it
        style = STYLE[row["prompting_type"]]
        text, removed, instruction = clean_story(row["story"])
        if instruction is not None and style == VP:
            vp_lines.add(instruction)
        for mark in removed:
            counts[mark] += 1
        setting = (style, row["deception"], row["story_length"])
        key = (*setting, text)
        choices = parse_choices(row["choices"]) or []
        if key not in stories:
            number = 1 + sum(1 for k in stories if k[:3] == setting)
            stories[key] = {
                "id": f"{style}-{DECEPTION[row['deception']]}-len{row['story_length']}-s{number:02d}",
                "source": {"upstream": UPSTREAM, "sample": number},
                "prompting": row["prompting_type"],
                "deception": row["deception"],
                "story_length": row["story_length"],
                "story": text,
                "choices": choices,
                "questions": [],
            }
            first_line[key] = {}
        story = stories[key]
        order = row["question_order"]
        if choices != story["choices"]:
            problems.append(f"{path}:{line}: the choices differ from those of the same story's "
                            f"other questions (line {next(iter(first_line[key].values()))})")
            continue
        if order in first_line[key]:
            problems.append(f"{path}:{line}: order {order} of this story was asked already on "
                            f"line {first_line[key][order]}; one question per order and story")
            continue
        first_line[key][order] = line
        question: HiToMQuestion = {"order": order, "ask": row["question"].strip(),
                                   "answer": row["answer"].strip()}
        if "sample_id" in row:
            question["source"] = {"sample_id": row["sample_id"]}
        story["questions"].append(question)
    if problems:
        raise ConvertError(problems)
    if not stories:
        raise ConvertError([f"{path}:1: no rows in `data`"])
    authors = None
    if prompts:
        read = read_prompts(prompts, next(iter(vp_lines)) if len(vp_lines) == 1 else None)
        if isinstance(read, list):
            raise ConvertError(read)
        authors = read
    scenarios = list(stories.values())
    for s in scenarios:
        s["questions"].sort(key=lambda q: q["order"])
    differ = _note_other_half(scenarios)
    if limit is not None:
        scenarios = scenarios[:limit]
    notes = []
    if counts["instruction"]:
        notes.append(f"{counts['instruction']} rows' stories began with an instruction line "
                     f"(before the numbered lines): removed (the prompt has its own)")
    if counts["separator"]:
        notes.append(f"{counts['separator']} rows' stories ended with a '***' line: removed")
    if differ:
        notes.append(f"{differ // 2} questions have one answer in their VP row and another in "
                     f"their CoTP row (same story, same question): both kept as released (each "
                     f"question's source names the other answer; see docs/families/hitom.md)")
    wording = "pytest-tom's own wording of the two prompting styles and the note"
    if authors is not None:
        wording = (f"the authors' instruction lines and note, read from {authors.files} of "
                   f"their prompt files")
        notes.append(f"prompts: {wording} (defaults.prompt)")
    items = sum(len(s["questions"]) for s in scenarios)
    prompted: _Prompted = ({"defaults": {"prompt": authors.defaults()}} if authors is not None
                           else {})
    document: HiToMSuite = {
        "suite": suite,
        "family": NAME,
        "version": 1,
        "description": (f"Converted from the Hi-ToM authors' {path.name} ({len(scenarios)} "
                        f"stories, {items} questions), asked in {wording}. Licence: "
                        f"Apache-2.0 (the upstream one)."),
        **prompted,
        "scenarios": scenarios,
    }
    return Converted(document, notes)


def _note_other_half(scenarios: list[HiToMScenario]) -> int:
    """Mark each question whose copy in the other prompting style's half (same story,
    deception, length and order) has another answer; return how many were marked."""
    by_key = {(s["prompting"], s["deception"], s["story_length"], s["story"]): s
              for s in scenarios}
    marked = 0
    for s in scenarios:
        other = "CoTP" if s["prompting"] == "VP" else "VP"
        twin = by_key.get((other, s["deception"], s["story_length"], s["story"]))
        if twin is None:
            continue
        answers = {q["order"]: q["answer"] for q in twin["questions"]}
        for q in s["questions"]:
            theirs = answers.get(q["order"])
            if theirs is not None and theirs != q["answer"]:
                q["source"] = {**q.get("source", {}), f"{STYLE[other]}_answer": theirs}
                marked += 1
    return marked


def write(path: Path, out_dir: Path, suite: str = NAME, limit: int | None = None,
          prompts: list[Path] | None = None) -> tuple[list[Path], Converted]:
    """Convert the file at `path` into `out_dir` (created); the files written."""
    converted = convert(path, suite, limit, prompts)
    return [convert_kit.write_suite_in(out_dir, suite, converted.document)], converted


def run(args: argparse.Namespace) -> int:
    def written(result: tuple[list[Path], Converted]) -> list[str]:
        files, converted = result
        return [*(f"note: {note}" for note in converted.notes),
                f"{files[0]}: {len(converted.document['scenarios'])} stories -> "
                f"{converted.items} items"]

    return convert_kit.run_converter(
        f"pytest-tom convert {NAME}", args,
        lambda: write(Path(args.input), Path(args.output), args.suite, args.limit, args.prompts),
        written)
