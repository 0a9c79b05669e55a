"""BigToM: the authors' `bigtom.csv` (200 causal templates) -> one BigToM suite file.

    pytest-tom convert bigtom bigtom.csv -o DIR [--suite NAME] [--limit N]

The CSV has no header, `;` separators and 19 columns per template: 0 the
story (five sentences: context, desire, percept, initial belief, causal
event), 1-2 the aware / not-aware percepts of the event, 3-4 the actions given
the new / initial state, 5 the belief question, 6 the desire question, 7 the
action question, 8-10 the belief / desire / action answers when aware, 11-13
the same when not aware, 14 the random event, 15-16 its aware / not-aware
percepts, 17-18 the authors' bookkeeping. The desire question and answers
(6, 9, 12) and the bookkeeping columns are not used by the 25 conditions and
are not written. Each template keeps its row index (0-based) as
`source: {upstream: bigtom.csv, index: N}`; its id is `t<index>-<agent name>`.

Every problem of the file is reported (file:line) and nothing is written when
there is one. The 25 conditions are composed at collection, not here.
"""

from __future__ import annotations

import argparse
import csv
import io
import re
from pathlib import Path

from pytest_tom.families.bigtom.schema import BigtomDocument
from pytest_tom.families.bigtom.schema import Template
from pytest_tom.families.kit import ConvertError
from pytest_tom.families.kit import convert_kit

COLUMNS = 19
STORY_SENTENCES = ("context", "desire", "percept", "initial_belief", "causal event")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'])")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    convert_kit.add_input_output(parser, "the authors' bigtom.csv (';'-separated, no header)")
    convert_kit.add_suite_limit(parser, "suite name and file stem (default bigtom)",
                                "convert only the first N templates", "bigtom")


def split_story(story: str) -> list[str]:
    """The sentences of the story column (a sentence ends with . ! or ? before a capital)."""
    return [s.strip() for s in _SENTENCE_END.split(story.strip()) if s.strip()]


def _agent(context: str) -> str:
    word = re.match(r"[A-Za-z]+", context)
    return word.group(0).lower() if word else ""


def template_of(row: list[str], index: int) -> Template:
    """One suite template from one CSV row (already checked by `read_rows`)."""
    cells = [c.strip() for c in row]
    context, desire, percept, initial_belief, event = split_story(cells[0])
    agent = _agent(context)
    return {
        "id": f"t{index:03d}" + (f"-{agent}" if agent else ""),
        "source": {"upstream": "bigtom.csv", "index": index},
        "context": context,
        "desire": desire,
        "percept": percept,
        "initial_belief": initial_belief,
        "causal_event": {"event": event, "aware": cells[1], "not_aware": cells[2]},
        "random_event": {"event": cells[14], "aware": cells[15], "not_aware": cells[16]},
        "action": {"new_state": cells[3], "initial_state": cells[4]},
        "belief_question": {"ask": cells[5], "aware": cells[8], "not_aware": cells[11]},
        "action_question": {"ask": cells[7], "aware": cells[10], "not_aware": cells[13]},
    }


def read_rows(path: Path) -> list[list[str]]:
    """The rows of the CSV; raises ConvertError naming every bad line."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConvertError([f"{path}: not UTF-8 text ({exc.reason}); save it as UTF-8"]) from None
    problems: list[str] = []
    rows: list[list[str]] = []
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=";")
    for row in reader:
        line = reader.line_num
        if not any(c.strip() for c in row):
            continue
        if len(row) != COLUMNS:
            problems.append(f"{path}:{line}: expected {COLUMNS} ';'-separated columns, got "
                            f"{len(row)}; is this the authors' bigtom.csv (no header row)?")
            continue
        sentences = split_story(row[0])
        if len(sentences) != len(STORY_SENTENCES):
            problems.append(f"{path}:{line}: the story (column 1) should have 5 sentences "
                            f"({', '.join(STORY_SENTENCES)}), found {len(sentences)}: "
                            f"{sentences!r}; fix the sentence ends in the file")
        used = (1, 2, 3, 4, 5, 7, 8, 10, 11, 13, 14, 15, 16)
        empty = [i + 1 for i in used if not row[i].strip()]
        if empty:
            problems.append(f"{path}:{line}: empty column(s) {empty} (1-based); every template "
                            f"variable needs its sentence")
        rows.append(row)
    if problems:
        raise ConvertError(problems)
    if not rows:
        raise ConvertError([f"{path}: no templates found (the file is empty)"])
    return rows


def convert(path: Path, suite: str = "bigtom", limit: int | None = None) -> BigtomDocument:
    """The suite document (a plain dict ready for YAML) for the CSV at `path`."""
    rows = read_rows(path)
    if limit is not None:
        rows = rows[:limit]
    return {
        "suite": suite,
        "family": "bigtom",
        "version": 1,
        "description": (f"Converted from the BigToM authors' {path.name} "
                        f"({len(rows)} causal templates, 25 conditions each). Licence: MIT "
                        f"(the upstream one)."),
        "scenarios": [template_of(r, i) for i, r in enumerate(rows)],
    }


def run(args: argparse.Namespace) -> int:
    def written(doc: BigtomDocument) -> list[str]:
        out = convert_kit.write_suite_in(Path(args.output), args.suite, doc)
        n = len(doc["scenarios"])
        return [f"{out}: {n} templates -> {25 * n} items (25 conditions each)"]

    return convert_kit.run_converter("pytest-tom convert bigtom", args,
                                     lambda: convert(Path(args.input), args.suite, args.limit),
                                     written)
