"""ToMBench: the release's 20 task files (`data/*.jsonl`) -> one tombench suite, a file per task.

    pytest-tom convert tombench DATA_DIR -o OUT [--language en|zh] [--suite NAME] [--limit N]

DATA_DIR is the release's `data/` folder (or the folder holding it). Each row becomes one
question: the story, question and options of the chosen language (English by default:
`STORY`, `QUESTION`, `OPTION-A`..`OPTION-D`; Chinese: `故事`, `问题`, `选项A`..`选项D`), the
right letter (`答案\\nANSWER`) and the ABILITY field as written; the task (the file name) is
the file's default.
A two-option row has no C and D (the release writes NaN there). An option written with
its own letter in front (`A. 继续做晚餐。`, `A: ...`) loses that prefix, since the prompt letters the
options itself; an answer written otherwise than as a plain letter (`"A. "`) is read as
its letter and kept as written for the authors' reading. The files share one suite name
(`tombench`, `tombench-zh`), so the run reports one table over all tasks.

`convert(data_dir, language)` is the conversion as a function of the local files (what
`pytest-tom fetch` calls); `write(conversion, out)` writes the suite files. Every problem
of every file is reported (file:line) and nothing is written when there is one.
"""

from __future__ import annotations

import argparse
import json
import math
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any
from typing import Final
from typing import TypedDict
from typing import cast

from pytest_tom.families.kit import ConvertError
from pytest_tom.families.kit import JSONObject
from pytest_tom.families.kit import convert_kit

from .catalogue import TASK_BY_NAME
from .catalogue import TASKS
from .catalogue import parse_ability_field
from .schema import TomBenchScenario
from .schema import TomBenchSuite

FIELDS = {
    "en": ("STORY", "QUESTION", ("OPTION-A", "OPTION-B", "OPTION-C", "OPTION-D")),
    "zh": ("故事", "问题", ("选项A", "选项B", "选项C", "选项D")),
}
ANSWER: Final = "答案\nANSWER"
ABILITY: Final = "能力\nABILITY"
INDEX: Final = "序号\nINDEX"
LETTERS = "ABCD"
_PREFIX = re.compile(r"^\s*([A-D])\s*[.．、:：]\s*")
_ANSWER = re.compile(r"^\s*([A-D])\s*[.．、]?\s*$")

# A row of a task file: the fields read (of the chosen language), typed as `question_of`
# checks them; a row that breaks them is a problem of its line. The story and question
# are read as text, an option absent as None or NaN (a two-option row), the index kept
# only when it is a number.
ReleaseRow = TypedDict("ReleaseRow", {
    "STORY": str, "QUESTION": str, "故事": str, "问题": str,
    "OPTION-A": "str | float | None", "OPTION-B": "str | float | None",
    "OPTION-C": "str | float | None", "OPTION-D": "str | float | None",
    "选项A": "str | float | None", "选项B": "str | float | None",
    "选项C": "str | float | None", "选项D": "str | float | None",
    "答案\nANSWER": str,  # a letter A-D, maybe with a stop after it ("A. ")
    "能力\nABILITY": str,  # 'Dimension: ability', one or more
    "序号\nINDEX": int,
}, total=False)


@dataclass
class Conversion:
    """The suite documents, one per task file (file stem -> document), and what was read."""

    suite: str
    language: str
    documents: dict[str, TomBenchSuite] = field(default_factory=dict)
    per_task: dict[str, int] = field(default_factory=dict)
    prefixes: int = 0  # options that lost their own letter in front
    notes: list[str] = field(default_factory=list)

    @property
    def questions(self) -> int:
        return sum(self.per_task.values())


def data_folder(path: Path) -> Path:
    """The folder holding the task files: `path`, or its `data/` sub-folder."""
    if not any(path.glob("*.jsonl")) and (path / "data").is_dir():
        return path / "data"
    return path


def file_slug(task: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", task.lower()).strip("-")


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _text(value: Any) -> str | None:
    if _missing(value):
        return None
    return str(value).strip()


def question_of(row: ReleaseRow, task: str, language: str, number: int, where: str,
                problems: list[str], conv: Conversion) -> TomBenchScenario | None:
    """One scenario from one row (None, with problems added, when it cannot be read)."""
    story_key, question_key, option_keys = FIELDS[language]
    before = len(problems)
    story, question = _text(row.get(story_key)), _text(row.get(question_key))
    for key, value in ((story_key, story), (question_key, question)):
        if not value:
            problems.append(f"{where}: {key!r} is missing or empty")
    options: list[str] = []
    gap = False
    for letter, key in zip(LETTERS, option_keys, strict=True):
        text = _text(row.get(key))
        if text is None:
            continue
        if len(options) != LETTERS.index(letter):
            problems.append(f"{where}: {key!r} is given but an option before it is missing")
            gap = True
            break
        m = _PREFIX.match(text)
        if m and m.group(1) == letter:
            text = text[m.end():].strip()
            conv.prefixes += 1
        if not text:
            problems.append(f"{where}: {key!r} is empty")
        options.append(text)
    if len(options) < 2 and not gap:
        problems.append(f"{where}: needs at least options A and B ({', '.join(option_keys[:2])})")
    raw_answer = row.get(ANSWER)
    m = _ANSWER.match(raw_answer) if isinstance(raw_answer, str) else None
    if m is None:
        problems.append(f"{where}: the answer {raw_answer!r} ({ANSWER!r}) is not a letter A-D")
    elif LETTERS.index(m.group(1)) >= len(options) >= 2:
        problems.append(f"{where}: the answer {m.group(1)} names no option (the row has "
                        f"{len(options)})")
    ability = row.get(ABILITY)
    if not isinstance(ability, str):
        problems.append(f"{where}: the ability {ability!r} ({ABILITY!r}) is not text")
    else:
        problems += [f"{where}: {p}" for p in parse_ability_field(ability)[1]]
    if len(problems) > before or m is None or not story or not question \
            or not isinstance(ability, str):
        return None
    answer, released = m.group(1), m.string  # the letter, and the answer as written
    out: TomBenchScenario = {
        "id": f"{file_slug(task)}-{number:03d}", "ability": ability,
        "story": story, "question": question, "options": options, "answer": answer,
    }
    if released != answer:
        out["answer_as_released"] = released
        conv.notes.append(f"{where}: the answer is written {released!r}: read as {answer} "
                          f"(kept as answer_as_released for the authors' reading)")
    # where the question comes from: <task>.jsonl, its line, the row's own index if a number
    source: JSONObject = {"file": f"{task}.jsonl", "line": number}
    if isinstance(row.get(INDEX), int):
        source["index"] = row[INDEX]
    out["source"] = source
    return out


def convert(data_dir: Path, language: str = "en", suite: str | None = None,
            limit: int | None = None) -> Conversion:
    """The suite documents for the task files in `data_dir` (or its `data/`); raises
    ConvertError naming every problem."""
    if language not in FIELDS:
        raise ConvertError([f"language {language!r}: use en or zh"])
    folder = data_folder(Path(data_dir))
    conv = Conversion(suite or ("tombench" if language == "en" else f"tombench-{language}"),
                      language)
    files = sorted(folder.glob("*.jsonl"))
    if not files:
        raise ConvertError([f"{folder}: no .jsonl task files (give the release's data/ folder)"])
    problems: list[str] = []
    found: dict[str, Path] = {}
    for path in files:
        if path.stem not in TASK_BY_NAME:
            problems.append(f"{path}: not a ToMBench task file (the task files are named "
                            f"after the tasks: {', '.join(t.name + '.jsonl' for t in TASKS[:3])} ...)")
        else:
            found[path.stem] = path
    for task in TASKS:  # in the catalogue's order: the paper's tasks first
        path = found.get(task.name)
        if path is None:
            continue
        scenarios = read_task(path, task.name, language, limit, problems, conv)
        conv.per_task[task.name] = len(scenarios)
        conv.documents[task.name] = {
            "suite": conv.suite, "family": "tombench", "version": 1,
            "description": (f"ToMBench {task.name} ({'English' if language == 'en' else 'Chinese'}), "
                            f"converted from the authors' {path.name}: {len(scenarios)} "
                            f"questions. Licence: MIT (the upstream one)."),
            "defaults": {"language": language, "task": task.name},
            "scenarios": scenarios,
        }
    if problems:
        raise ConvertError(problems)
    missing = [t.name for t in TASKS if t.name not in found]
    if missing:
        conv.notes.append(f"{len(missing)} of the 20 task files are not in {folder}: "
                          f"{', '.join(missing)}")
    return conv


def read_task(path: Path, task: str, language: str, limit: int | None, problems: list[str],
              conv: Conversion) -> list[TomBenchScenario]:
    """The scenarios of one task file (problems added for the rows that cannot be read)."""
    try:
        lines = path.read_text(encoding="utf-8-sig").splitlines()
    except UnicodeDecodeError as exc:
        problems.append(f"{path}: not UTF-8 text ({exc.reason}); save it as UTF-8")
        return []
    out = []
    number = 0
    for line_no, line in enumerate(lines, 1):
        if not line.strip():
            continue
        number += 1
        if limit is not None and number > limit:
            break
        where = f"{path}:{line_no}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(f"{where}: not a JSON object ({exc.msg}); one row per line")
            continue
        if not isinstance(row, dict):
            problems.append(f"{where}: not a JSON object; one row per line")
            continue
        sc = question_of(cast(ReleaseRow, row), task, language, line_no, where, problems, conv)
        if sc is not None:
            out.append(sc)
    if not out and not problems:
        problems.append(f"{path}: no rows")
    return out


def write(conv: Conversion, out: Path) -> list[Path]:
    """Write one suite file per task into the folder `out`; the paths written."""
    out.mkdir(parents=True, exist_ok=True)
    prefix = "" if conv.suite == "tombench" else f"{conv.suite}-"
    return [convert_kit.write_suite_in(out, f"{prefix}{file_slug(task)}", doc)
            for task, doc in conv.documents.items()]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    convert_kit.add_input_output(parser, "the release's data/ folder (20 .jsonl files)",
                                 "folder for the suite files (created if missing)")
    parser.add_argument("--language", choices=tuple(FIELDS), default="en",
                        help="the language of the questions (default en)")
    convert_kit.add_suite_limit(parser, "suite name (default tombench, or tombench-zh)",
                                "only the first N questions of each task (a quick trial)")


def run(args: argparse.Namespace) -> int:
    return convert_kit.run_converter(
        "pytest-tom convert tombench", args,
        lambda: convert(args.input, args.language, args.suite, args.limit),
        lambda conv: summary(conv, args.output, write(conv, Path(args.output))),
        folder=True, input_last=True)


def summary(conv: Conversion, output: Path, paths: list[Path]) -> Iterator[str]:
    """What `run` prints: the task files with their questions, then the notes."""
    options = Counter(len(sc["options"]) for doc in conv.documents.values()
                      for sc in doc["scenarios"])
    yield (f"{output}: suite {conv.suite} ({conv.language}), {len(paths)} task files, "
           f"{conv.questions} questions ({options[4]} with four options, {options[2]} with two)")
    for path, (task, count) in zip(paths, conv.per_task.items(), strict=True):
        yield f"  {path.name:<40} {count:>5}  {task}"
    if conv.prefixes:
        yield (f"  note: {conv.prefixes} options were written with their own letter in front "
               f"('A. ...'); the letter was taken off")
    yield from (f"  note: {note}" for note in conv.notes)
