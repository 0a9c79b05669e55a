"""ToMi: turn a bAbI-style ToMi split (with its `.trace`) into a generic suite.

    pytest-tom convert tomi fb_all_test.txt -o suites/tomi

Each example of the split is a numbered story followed by one question line
(`N question<TAB>answer<TAB>supporting line`); the `.trace` file beside it has
one line per question whose last two fields are the question type
(`first_order_0_tom`, `second_order_1_no_tom`, `reality`, `memory` ...) and the
story type (`true_belief`, `false_belief`, `second_order_false_belief`).

Consecutive examples that tell the same story become one scenario with one
question per example. Questions are free answers scored by the generic
`contains` / `excludes` rule: the answer must name the right container and no
other container of the story. Underscores of the upstream text (`green_bucket`,
`TV_room`) become spaces unless `--keep-underscores` is given, so that a model
can answer in ordinary words. The question type and story type become tags and
`meta.tomi`, which gives the accuracy table per question type x story type in
the summary. Nothing is dropped silently: a question that cannot be converted
is reported and the exit status is 1.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path

from pytest_tom.families.generic.schema import GenericQuestion
from pytest_tom.families.generic.schema import GenericScenario
from pytest_tom.families.generic.schema import GenericSuite
from pytest_tom.families.kit import convert_kit

QUESTION_TYPE = re.compile(r"^(?:(?:first|second)_order_[01]_(?:tom|no_tom)|reality|memory)$")
STORY_TYPES = ("true_belief", "false_belief", "second_order_false_belief")
_LINE = re.compile(r"^(\d+) (.*)$")
_OBJECT = re.compile(r"\bthe (\S+?)(?: at the beginning| really)?\?\s*$")
_PLACE = re.compile(r"\b(?:is in|to) the (\S+?)\.\s*$")


class TomiError(Exception):
    """The input cannot be read as a ToMi split (with a line number)."""


@dataclass
class Question:
    index: int  # 1-based position of the question in the split (= the trace line)
    line: int  # line of the question in the input file
    story: list[str]
    first_line: int  # line where the story starts
    ask: str
    answer: str
    support: str
    question_type: str = ""
    story_type: str = ""
    trace: list[str] = field(default_factory=list)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    convert_kit.add_input_output(parser, "a ToMi split, e.g. fb_all_test.txt",
                                 "directory for the YAML suite")
    parser.add_argument("--trace", type=Path, metavar="PATH",
                        help="the trace file (default: the input with the suffix .trace)")
    convert_kit.add_suite_limit(parser, "suite name and file stem (default tomi)",
                                "convert only the first N stories (a slice for quick runs)",
                                "tomi")
    parser.add_argument("--keep-underscores", action="store_true",
                        help="keep the upstream underscores (green_bucket) instead of spaces")


def read_questions(text: str) -> list[Question]:
    """Every question of a bAbI-style file with the story lines before it."""
    out: list[Question] = []
    story: list[str] = []
    first = 1
    for lineno, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        m = _LINE.match(raw)
        if not m:
            raise TomiError(f"line {lineno}: expected '<number> <sentence>', got {raw[:60]!r}")
        number, body = int(m.group(1)), m.group(2)
        if number == 1:
            story, first = [], lineno
        if "\t" in body:
            parts = body.split("\t")
            if len(parts) != 3:
                raise TomiError(f"line {lineno}: a question line has 'question<TAB>answer<TAB>"
                                f"support', got {len(parts)} fields")
            ask, answer, support = (p.strip() for p in parts)
            out.append(Question(index=len(out) + 1, line=lineno, story=list(story),
                                first_line=first, ask=ask, answer=answer, support=support))
        else:
            story.append(body.strip())
    return out


def attach_trace(questions: list[Question], trace_text: str) -> None:
    lines = [ln for ln in trace_text.splitlines() if ln.strip()]
    if len(lines) != len(questions):
        raise TomiError(f"the trace has {len(lines)} lines but the split has {len(questions)} "
                        f"questions; give the trace that belongs to this split (--trace)")
    for q, line in zip(questions, lines, strict=True):
        fields = [f.strip() for f in line.split(",")]
        if len(fields) < 2 or not QUESTION_TYPE.match(fields[-2]) or not re.match(
                r"^[a-z_]+$", fields[-1]):
            raise TomiError(f"trace line {q.index}: expected '...,<question type>,<story type>', "
                            f"got {line[:80]!r}")
        q.trace, q.question_type, q.story_type = fields[:-2], fields[-2], fields[-1]


def places(q: Question) -> tuple[str | None, list[str]]:
    """The object asked about and every place the story puts it (in order, distinct)."""
    m = _OBJECT.search(q.ask)
    if not m:
        return None, []
    obj = m.group(1)
    found: list[str] = []
    for sentence in q.story:
        if f"the {obj} " not in sentence.lower():
            continue
        p = _PLACE.search(sentence)
        if p and p.group(1) not in found:
            found.append(p.group(1))
    return obj, found


def words(text: str, keep: bool) -> str:
    return text if keep else text.replace("_", " ")


def build_suite(questions: list[Question], name: str, source: str, keep: bool,
                limit: int | None) -> tuple[GenericSuite, list[str], Counter[tuple[str, str]]]:
    """The suite document, the problems (questions left out) and counts per type pair."""
    scenarios: list[GenericScenario] = []
    problems: list[str] = []
    counts: Counter[tuple[str, str]] = Counter()
    current: GenericScenario | None = None
    current_story: list[str] | None = None
    for q in questions:
        if q.story != current_story:
            if limit is not None and len(scenarios) >= limit:
                break
            current_story = q.story
            current = {
                "id": f"story-{len(scenarios) + 1:04d}",
                "context": "\n".join(words(s, keep) for s in q.story),
                "tags": [q.story_type],
                "source": {"upstream": "ToMi", "upstream_file": source,
                           "upstream_line": q.first_line},
                "questions": [],
            }
            scenarios.append(current)
        assert current is not None
        obj, found = places(q)
        if obj is None or q.answer not in found:
            where = f"question {q.index} (line {q.line}: {q.ask!r}, answer {q.answer!r})"
            problems.append(f"{where}: the answer is not a place the story puts "
                            f"{'the ' + obj if obj else 'the object'} ({found or 'none found'})")
            continue
        if q.story_type not in current["tags"]:
            current["tags"].append(q.story_type)
        qid = q.question_type
        taken = {x["id"] for x in current["questions"]}
        k = 2
        while qid in taken:
            qid, k = f"{q.question_type}-{k}", k + 1
        entry: GenericQuestion = {
            "id": qid, "ask": words(q.ask, keep), "contains": [words(q.answer, keep)],
        }
        wrong = [words(p, keep) for p in found if p != q.answer]
        if wrong:
            entry["excludes"] = wrong
        entry["tags"] = [q.question_type]
        entry["meta"] = {"tomi": {"question_type": q.question_type, "story_type": q.story_type,
                                  "question": q.index}}
        current["questions"].append(entry)
        counts[(q.question_type, q.story_type)] += 1
    scenarios = [s for s in scenarios if s["questions"]]
    n = sum(counts.values())
    doc: GenericSuite = {
        "suite": name, "family": "generic", "version": 1,
        "description": (f"Converted from ToMi {source} by `pytest-tom convert tomi`: {len(scenarios)} "
                        f"stories, {n} questions. Free answers: the right container must be named "
                        f"and no other container of the story. Tags and meta.tomi give the question "
                        f"type and story type from the .trace file."),
        "defaults": {"shuffle": False},
        "scenarios": scenarios,
    }
    return doc, problems, counts


def run(args: argparse.Namespace) -> int:
    src: Path = args.input
    trace: Path = args.trace or src.with_suffix(".trace")
    prog = "pytest-tom convert tomi"
    try:
        questions = read_questions(src.read_text(encoding="utf-8"))
        attach_trace(questions, trace.read_text(encoding="utf-8"))
    except OSError as exc:
        print(f"{prog}: cannot read {exc.filename}: {exc.strerror}"
              + ("; the .trace file must sit beside the split or be given with --trace"
                 if exc.filename == str(trace) else ""), file=sys.stderr)
        return 2
    except TomiError as exc:
        print(f"{prog}: {src}: {exc}", file=sys.stderr)
        return 2
    doc, problems, counts = build_suite(questions, args.suite, src.name, args.keep_underscores,
                                        args.limit)
    target = convert_kit.write_suite_in(args.output, args.suite, doc)
    print(f"wrote {target}: {len(doc['scenarios'])} stories, {sum(counts.values())} questions")
    for (qt, st), n in sorted(counts.items()):
        print(f"  {qt:<24} {st:<28} {n}")
    for msg in problems:
        print(f"  left out: {msg}", file=sys.stderr)
    return 1 if problems else 0
