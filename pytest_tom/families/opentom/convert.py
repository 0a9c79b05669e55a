"""Convert OpenToM's split files (meta_data.json, location_*.json, multihop_*.json,
attitude.json) into an opentom suite.

    pytest-tom convert opentom DIR -o OUT [--long] [--limit N] [--suite NAME]

DIR holds the files as the authors' evaluation reads them; OUT is a directory
(the suite is written as `opentom.tom.yaml`, or `opentom-long.tom.yaml` with
`--long`) or a path ending in `.tom.yaml`. `--long` converts the 100 OpenToM-L
narratives of `meta_data_long.json` (the suite shows their long version).

Every question of the split files becomes one question of the suite, with its
genre, order and perspective taken from its split and position and checked
against its wording; the counts per split are printed and checked (23
questions per narrative). Nothing is dropped silently: a question that does not
fit the layout stops the conversion with the file, the narrative and the fix.
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import sys
from collections import Counter
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any
from typing import cast

from pytest_tom.families.kit import JSONObject
from pytest_tom.families.kit import SuiteDocument
from pytest_tom.families.kit import convert_kit
from pytest_tom.families.kit import normalise
from pytest_tom.families.opentom.labels import gold_label
from pytest_tom.families.opentom.schema import Cast
from pytest_tom.families.opentom.schema import OpentomDocument
from pytest_tom.families.opentom.schema import OpentomScenario
from pytest_tom.families.opentom.schema import Particulars
from pytest_tom.families.opentom.schema import PlaceAliases
from pytest_tom.families.opentom.schema import Preferences
from pytest_tom.families.opentom.schema import Question

# split file -> what each position of a narrative's list is: genre, order, perspective,
# container (mhop_fullness) or moment (narrator questions)
LAYOUT: dict[str, tuple[tuple[str, str | None, str, str | None], ...]] = {
    "location_cg_fo": (("loc_coarse", "first", "mover", None),
                       ("loc_coarse", "first", "observer", None)),
    "location_cg_so": (("loc_coarse", "second", "mover", None),
                       ("loc_coarse", "second", "observer", None)),
    "location_fg_fo_new": (("loc_fine", "first", "narrator", "end"),
                           ("loc_fine", "first", "narrator", "start"),
                           ("loc_fine", "first", "mover", None),
                           ("loc_fine", "first", "observer", None)),
    "location_fg_so_new": (("loc_fine", "second", "mover", None),
                           ("loc_fine", "second", "observer", None)),
    "multihop_fo": (("mhop_fullness", "first", "mover", "original"),
                    ("mhop_fullness", "first", "observer", "original"),
                    ("mhop_fullness", "first", "mover", "new"),
                    ("mhop_fullness", "first", "observer", "new"),
                    ("mhop_accessibility", "first", "mover", None),
                    ("mhop_accessibility", "first", "observer", None)),
    "multihop_so": (("mhop_fullness", "second", "mover", "original"),
                    ("mhop_fullness", "second", "observer", "original"),
                    ("mhop_fullness", "second", "mover", "new"),
                    ("mhop_fullness", "second", "observer", "new"),
                    ("mhop_accessibility", "second", "mover", None),
                    ("mhop_accessibility", "second", "observer", None)),
    "attitude": (("attitude", None, "observer", None),),
}
TYPES = {"location_cg_fo": "location-fo", "location_cg_so": "location-so",
         "location_fg_fo_new": "location-fo", "location_fg_so_new": "location-so",
         "multihop_fo": "multihop-fo", "multihop_so": "multihop-so", "attitude": "attitude"}
QUESTIONS_PER_NARRATIVE = sum(len(v) for v in LAYOUT.values())  # 23

_PERSPECTIVE = re.compile(r"^\s*(?:From (?:the )?(.+?)'s? perspective,|As (.+?),)", re.IGNORECASE)
_FULLNESS = re.compile(r"how does (?:(?:\S+) think )?(.+)'s fullness", re.IGNORECASE)


class ConvertError(Exception):
    """The input does not have the layout the converter knows; lists every problem found."""

    def __init__(self, problems: list[str]):
        shown = problems[:50]
        more = f"\n  ... and {len(problems) - 50} more" if len(problems) > 50 else ""
        super().__init__("cannot convert the OpenToM files:\n  " + "\n  ".join(shown) + more)
        self.problems = problems


@dataclass
class Conversion:
    """The converted suite document and what the conversion saw."""

    document: OpentomDocument
    narratives: int = 0
    questions: int = 0
    per_split: dict[str, int] = field(default_factory=dict)
    per_genre: Counter[str] = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)


def read_json(path: Path) -> Any:
    if not path.exists():
        raise ConvertError([f"{path}: missing; the OpenToM folder must hold meta_data.json"
                            f"{', meta_data_long.json' if 'long' in path.name else ''} and the "
                            f"split files {', '.join(f + '.json' for f in LAYOUT)}"])
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ConvertError([f"{path}: not valid JSON ({exc})"]) from None


def convert(folder: Path, *, long: bool = False, limit: int | None = None,
            suite: str | None = None) -> Conversion:
    """Read the OpenToM folder and build the suite document (raises ConvertError)."""
    meta_file = folder / ("meta_data_long.json" if long else "meta_data.json")
    meta = read_json(meta_file)
    splits = {name: read_json(folder / f"{name}.json") for name in LAYOUT}
    problems: list[str] = []
    if not isinstance(meta, dict):
        raise ConvertError([f"{meta_file}: expected an object of narratives keyed by id"])
    keys = list(meta)
    if limit is not None:
        keys = keys[:limit]
    for name, split in splits.items():
        if not isinstance(split, dict):
            problems.append(f"{name}.json: expected an object keyed by narrative id")
            continue
        missing = [k for k in keys if k not in split]
        if missing:
            problems.append(f"{name}.json: no questions for {len(missing)} narrative(s) of "
                            f"{meta_file.name}, e.g. {missing[0]!r}; use the files of one release")
    if problems:
        raise ConvertError(problems)
    conv = Conversion(document={"suite": "", "family": "opentom", "version": 1, "scenarios": []},
                      per_split=dict.fromkeys(LAYOUT, 0))  # its document is made at the end
    scenarios: list[OpentomScenario] = []
    for key in keys:
        sc = _scenario(key, meta[key], splits, long, conv, problems)
        if sc is not None:
            scenarios.append(sc)
    if problems:
        raise ConvertError(problems)
    conv.narratives = len(scenarios)
    conv.questions = sum(len(sc["questions"]) for sc in scenarios)
    name = suite or ("opentom-long" if long else "opentom")
    what = ("the 100 long narratives of OpenToM-L (shown in their long version)" if long
            else "the OpenToM narratives")
    head: SuiteDocument = {
        "suite": name,
        "family": "opentom",
        "version": 1,
        "description": (f"{what}, converted by `pytest-tom convert opentom` from the authors' "
                        f"split files ({conv.narratives} narratives, {conv.questions} questions). "
                        f"OpenToM (Xu et al., 2024) is licensed CC BY-NC 4.0."),
    }
    conv.document = ({**head, "defaults": {"narrative": "long"}, "scenarios": scenarios} if long
                     else {**head, "scenarios": scenarios})
    return conv


def _scenario(key: str, m: Any, splits: dict[str, JSONObject], long: bool, conv: Conversion,
              problems: list[str]) -> OpentomScenario | None:
    where = f"narrative {key!r}"
    try:
        info = m["plot_info"]
        mover, observer = str(info["mover"]), str(info["observer"])
        entity = str(info["eoi"])
        original, new = str(info["original_place"]), str(info["move_to_place"])
        narrative = str(m["narrative"])
        observed = m["observed"]
    except (KeyError, TypeError) as exc:
        problems.append(f"meta data, {where}: missing field {exc}; expected plot_info{{mover, eoi, "
                        f"original_place, move_to_place, observer}}, narrative, observed")
        return None
    if not isinstance(observed, bool):
        problems.append(f"meta data, {where}: 'observed' is {observed!r}, expected true or false")
        return None
    sc: Cast = {
        "id": str(key), "source": {"dataset": "OpenToM", "key": str(key)},
        "mover": mover, "observer": observer, "entity": entity,
        "original_place": original, "new_place": new, "observed": observed,
    }
    more: Particulars = {}  # the scenario's keys between its cast and its narrative
    if m.get("personality"):
        more["personality"] = str(m["personality"])
    prefs = m.get("preferences") or {}
    renamed = {"mover": "mover", "observer": "observer",
               "mover_observer": "mover_about_observer", "observer_mover": "observer_about_mover"}
    chosen = {renamed[k]: str(v) for k, v in prefs.items() if k in renamed and str(v).strip()}
    if chosen:
        more["preferences"] = cast(Preferences, chosen)  # keys renamed to Preferences' own
    if m.get("intention"):
        more["intention"] = str(m["intention"])
    aliases: dict[str, list[str]] = {}  # "original" / "new" -> other names of the place
    questions: list[Question] = []
    for split, layout in LAYOUT.items():
        entries = splits[split][key]
        if not isinstance(entries, list) or len(entries) != len(layout):
            count = len(entries) if isinstance(entries, list) else "no list of"
            problems.append(f"{split}.json, {where}: {count} questions, expected {len(layout)}")
            continue
        for index, (entry, shape) in enumerate(zip(entries, layout, strict=True)):
            q = _question(split, index, entry, shape, sc, aliases, conv, problems)
            if q is not None:
                questions.append(q)
                conv.per_split[split] += 1
                conv.per_genre[shape[0]] += 1
    if aliases:
        more["place_aliases"] = cast(PlaceAliases, aliases)
    if long:
        if not str(m.get("long_narrative", "")).strip():
            problems.append(f"meta_data_long.json, {where}: no 'long_narrative'")
            return None
        return {**sc, **more, "narrative": narrative,
                "long_narrative": str(m["long_narrative"]), "questions": questions}
    return {**sc, **more, "narrative": narrative, "questions": questions}


def _question(split: str, index: int, entry: Any, shape: tuple[str, str | None, str, str | None],
              sc: Cast, aliases: dict[str, list[str]], conv: Conversion,
              problems: list[str]) -> Question | None:
    genre, order, perspective, extra = shape
    where = f"{split}.json, narrative {sc['id']!r}, question {index + 1}"
    if not isinstance(entry, dict) or "question" not in entry or "answer" not in entry:
        problems.append(f"{where}: expected {{question, answer, type}}")
        return None
    text, answer = str(entry["question"]), entry["answer"]
    if entry.get("type") not in (None, TYPES[split]):
        problems.append(f"{where}: type {entry.get('type')!r}, expected {TYPES[split]!r}")
    m = _PERSPECTIVE.match(text)
    who = (m.group(1) or m.group(2)).strip() if m else None
    expected = ("narrator" if perspective == "narrator" else
                sc["mover"] if perspective == "mover" else sc["observer"])  # LAYOUT's three
    if who is None or who.lower() != expected.lower():
        problems.append(f"{where}: expected a question from {expected}'s perspective (the "
                        f"{perspective}), got {text!r}")
        return None
    q: Question = {"genre": genre}
    if order:
        q["order"] = order
    q["perspective"] = perspective
    if perspective == "narrator":
        moment = "start" if "beginning" in text.lower() else "end"
        if moment != extra:
            problems.append(f"{where}: expected the narrator's question about the {extra} of the "
                            f"story, got {text!r}")
            return None
        q = {"id": f"loc_fine-fo-narrator-{moment}", **q}
    if genre == "mhop_fullness" and extra is not None:  # LAYOUT names every one's container
        q["container"] = extra
        _check_container(where, text, extra, sc, conv, problems)
    places = [[sc["original_place"], *aliases.get("original", [])],
              [sc["new_place"], *aliases.get("new", [])]]
    known = gold_label(genre, answer, places) is not None
    if not known and (genre != "loc_fine" or not _alias(where, str(answer), sc, aliases, conv)):
        problems.append(f"{where}: answer {answer!r} is not an answer of a {genre} question")
        return None
    q["ask"] = text
    q["answer"] = answer
    q["source"] = {"split": split, "index": index}
    return q


def _check_container(where: str, text: str, which: str | None, sc: Cast,
                     conv: Conversion, problems: list[str]) -> None:
    """The container a fullness question names must not be the other place."""
    m = _FULLNESS.search(text)
    named = normalise(m.group(1)) if m else ""
    place = sc["original_place" if which == "original" else "new_place"]
    mine = normalise(place)
    other = normalise(sc["new_place" if which == "original" else "original_place"])
    if named == mine:
        return
    if named == other:
        problems.append(f"{where}: the question asks about the {'new' if which == 'original' else 'original'} "
                        f"place, but its position is that of the {which} place: {text!r}")
        return
    conv.notes.append(f"{where}: the container is worded {m.group(1) if m else '?'!r} for the "
                      f"{which} place {place!r} (kept, by its position)")


def _alias(where: str, answer: str, sc: Cast, aliases: dict[str, list[str]],
           conv: Conversion) -> bool:
    """A fine answer spelled unlike both places: keep it as an alias of the closest place."""
    a = normalise(answer)
    ratios = [difflib.SequenceMatcher(None, a, normalise(sc[p])).ratio()
              for p in ("original_place", "new_place")]
    best = max(range(2), key=lambda i: ratios[i])
    if ratios[best] < 0.75 or ratios[0] == ratios[1]:
        return False
    which = ("original", "new")[best]
    aliases.setdefault(which, [])
    if answer not in aliases[which]:
        aliases[which].append(answer)
    conv.notes.append(f"{where}: answer {answer!r} matches no place exactly; kept as an alias of "
                      f"the {which} place {sc[('original_place', 'new_place')[best]]!r}")
    return True


# -- writing ----------------------------------------------------------------------------

def output_path(out: Path, long: bool, suite: str | None) -> Path:
    if out.name.endswith(".tom.yaml"):
        return out
    return convert_kit.suite_file(out, suite or ("opentom-long" if long else "opentom"))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("input", type=Path, help="folder with meta_data.json and the split files")
    parser.add_argument("-o", "--output", type=Path, required=True,
                        help="output folder, or a file name ending in .tom.yaml")
    parser.add_argument("--long", action="store_true",
                        help="convert the 100 long narratives (meta_data_long.json), OpenToM-L")
    parser.add_argument("--limit", type=int, metavar="N",
                        help="only the first N narratives (a quick trial)")
    parser.add_argument("--suite", metavar="NAME", help="suite name (default opentom[-long])")


def run(args: argparse.Namespace) -> int:
    try:
        conv = convert(args.input, long=args.long, limit=args.limit, suite=args.suite)
    except ConvertError as exc:
        print(f"pytest-tom convert opentom: {exc}", file=sys.stderr)
        return 1
    path = convert_kit.write_suite(conv.document, output_path(args.output, args.long, args.suite))
    print(f"{path}: {conv.narratives} narratives, {conv.questions} questions")
    for split, count in conv.per_split.items():
        print(f"  {split + '.json':<24} {count:>6} questions")
    for note in conv.notes:
        print(f"  note: {note}")
    return 0
