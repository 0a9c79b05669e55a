"""JSON answers with a top-level `final` object (the robustness classes' answer format).

The model is asked to write its answer as JSON between ``===BEGIN JSON===`` and
``===END JSON===``, with one top-level entry ``final`` that maps each asked
object to the answer (a place, a content, or "unknown")::

    ===BEGIN JSON===
    {"final": {"tin": "biscuits"}}
    ===END JSON===

Extraction is tolerant of what models do around the JSON, and strict about
the JSON itself:

- with the markers, the text between the *last* BEGIN marker and the next END
  marker (or the end of the text when END is missing) is read; earlier marked
  blocks are tried when the last one holds no `final` (a model that echoes the
  markers in its reasoning);
- code fences (```` ```json ... ``` ````) inside or instead of the markers are unwrapped;
- with no markers, the last JSON object of the text that has a `final` entry
  is used (surrounding prose, code fences or not);
- JSON that does not decode (a missing brace, a trailing comma, single quotes)
  is not repaired: the answer is unparseable, i.e. wrong and counted.

Correctness (`judge`) compares normalised text (lower case, punctuation and
articles dropped, spaces collapsed) as whole words: a right answer must be
contained in the answer and no wrong answer may be. When a wrong answer is
part of a right one ("soap" inside "lavender soap") the occurrences of the
right answer are set aside before looking for the wrong one, so "lavender soap"
is right when "soap" is wrong, and "soap" stays wrong when "lavender soap" is right.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_tom.scoring.text import normalise

BEGIN = "===BEGIN JSON==="
END = "===END JSON==="

_BEGIN_RE = re.compile(r"=+\s*BEGIN[ _]JSON\s*=+", re.IGNORECASE)
_END_RE = re.compile(r"=+\s*END[ _]JSON\s*=+", re.IGNORECASE)
_FENCE_RE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n?(.*?)```", re.DOTALL)
_DECODER = json.JSONDecoder()


@dataclass
class Extraction:
    """The `final` value found in a response, or why none was found."""

    final: Any = None
    found: bool = False
    where: str = ""  # "markers", "fence" or "text"
    error: str = ""  # why nothing usable was found


@dataclass
class Judgement:
    correct: bool
    right_found: list[str] = field(default_factory=list)
    wrong_found: list[str] = field(default_factory=list)


@dataclass
class FinalScore:
    """The verdict on a whole response: every asked object judged."""

    correct: bool
    unparseable: bool
    parsed: dict[str, str] = field(default_factory=dict)  # object -> the answer text read
    detail: str = ""


def _final_of(obj: Any) -> tuple[bool, Any]:
    """The `final` entry of a decoded object (key matched loosely, searched depth first)."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            if isinstance(k, str) and k.strip().lower() == "final":
                return True, v
        for v in obj.values():
            ok, found = _final_of(v)
            if ok:
                return True, found
    elif isinstance(obj, list):
        for v in obj:
            ok, found = _final_of(v)
            if ok:
                return True, found
    return False, None


def _objects(text: str) -> list[Any]:
    """Every top-level JSON object that decodes in `text`, in order (sub-objects skipped)."""
    out: list[Any] = []
    i = text.find("{")
    while i >= 0:
        try:
            obj, end = _DECODER.raw_decode(text, i)
        except ValueError:
            i = text.find("{", i + 1)
            continue
        out.append(obj)
        i = text.find("{", end)
    return out


def _unfence(text: str) -> str:
    """The inside of the last code fence in `text`, else the text."""
    fences = _FENCE_RE.findall(text)
    return fences[-1] if fences else text


def _from_block(block: str) -> tuple[bool, Any, str]:
    """Read `final` from a marked block or fence: the block's first JSON object decides."""
    inner = _unfence(block).strip()
    start = inner.find("{")
    if start < 0:
        return False, None, "no JSON object"
    try:
        obj, _ = _DECODER.raw_decode(inner, start)
    except ValueError as exc:
        return False, None, f"broken JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
    ok, final = _final_of(obj)
    return (True, final, "") if ok else (False, None, "the JSON has no 'final' entry")


def _marked_blocks(text: str) -> list[str]:
    """The texts after each BEGIN marker up to the next END marker (or the end)."""
    blocks = []
    for m in _BEGIN_RE.finditer(text):
        rest = text[m.end():]
        end = _END_RE.search(rest)
        blocks.append(rest[:end.start()] if end else rest)
    return blocks


def extract_final(text: str) -> Extraction:
    """Find the `final` value of a response (see the module docstring for the order)."""
    if not text or not text.strip():
        return Extraction(error="empty response")
    blocks = _marked_blocks(text)
    if blocks:
        first_error = ""
        for block in reversed(blocks):
            ok, final, error = _from_block(block)
            if ok:
                return Extraction(final=final, found=True, where="markers")
            first_error = first_error or error
        return Extraction(error=f"between the JSON markers: {first_error}")
    fences = _FENCE_RE.findall(text)
    for fence in reversed(fences):
        ok, final, _error = _from_block(fence)
        if ok:
            return Extraction(final=final, found=True, where="fence")
    for obj in reversed(_objects(text)):
        ok, final = _final_of(obj)
        if ok:
            return Extraction(final=final, found=True, where="text")
    if fences or "{" in text:
        return Extraction(error="no JSON object with a 'final' entry decodes (broken or missing)")
    return Extraction(error="no JSON in the answer")


def flatten(value: Any) -> str:
    """All the words of a value: strings as they are, containers recursively, nulls empty."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, Mapping):
        return " ".join(flatten(v) for v in value.values())
    if isinstance(value, Sequence):
        return " ".join(flatten(v) for v in value)
    return str(value)


def answer_for(final: Any, key: str, asked: int = 1) -> str | None:
    """The answer given for object `key` in a `final` value, or None when it is missing.

    Keys match after normalisation ("The tin" = "tin"); a key that contains the
    asked object's words ("metal tin") matches when it is the only such key.
    When a single object is asked and `final` holds a single entry (or is a
    plain value), that entry is the answer whatever its key.
    """
    if isinstance(final, Mapping):
        want = normalise(key)
        for k, v in final.items():
            if normalise(str(k)) == want:
                return flatten(v)
        loose = [v for k, v in final.items() if f" {want} " in f" {normalise(str(k))} "]
        if len(loose) == 1:
            return flatten(loose[0])
        if asked == 1 and len(final) == 1:
            return flatten(next(iter(final.values())))
        return None
    if asked == 1 and final is not None:
        return flatten(final)
    return None


def _contains(text: str, phrase: str) -> bool:
    return bool(phrase) and f" {phrase} " in f" {text} "


def judge(answer: str, right: Sequence[str], wrong: Sequence[str] = ()) -> Judgement:
    """Whole-word inclusion of a right answer and absence of every wrong one, normalised."""
    text = normalise(answer)
    rights = [r for r in (normalise(x) for x in right) if r]
    found_right = [r for r in rights if _contains(text, r)]
    found_wrong = []
    for w in (normalise(x) for x in wrong):
        if not w:
            continue
        masked = f" {text} "
        for r in rights:
            if r != w and _contains(r, w):
                masked = masked.replace(f" {r} ", " | ")
        if _contains(masked.strip(), w):
            found_wrong.append(w)
    return Judgement(correct=bool(found_right) and not found_wrong,
                     right_found=found_right, wrong_found=found_wrong)


def _as_list(value: str | Sequence[str]) -> list[str]:
    return [value] if isinstance(value, str) else [str(v) for v in value]


def score_final(response: str, right: Mapping[str, str | Sequence[str]],
                wrong: Mapping[str, str | Sequence[str]] | None = None) -> FinalScore:
    """Judge a whole response: every asked object (the keys of `right`) must be answered right.

    `right` maps each object to its right answer (or acceptable alternatives),
    `wrong` to the answers that must not appear. A response without a usable
    `final`, or without an entry for an asked object, is unparseable.
    """
    wrong = wrong or {}
    ex = extract_final(response)
    if not ex.found:
        return FinalScore(correct=False, unparseable=True, detail=ex.error)
    parsed: dict[str, str] = {}
    problems: list[str] = []
    for key, gold in right.items():
        got = answer_for(ex.final, key, asked=len(right))
        if got is None:
            return FinalScore(correct=False, unparseable=True, parsed=parsed,
                              detail=f"'final' has no entry for {key!r}")
        parsed[key] = got
        j = judge(got, _as_list(gold), _as_list(wrong.get(key, ())))
        if not j.right_found:
            problems.append(f"{key}: right answer missing")
        if j.wrong_found:
            problems.append(f"{key}: names {', '.join(repr(w) for w in j.wrong_found)}")
    return FinalScore(correct=not problems, unparseable=False, parsed=parsed,
                      detail="; ".join(problems))


def instruction(keys: Sequence[str]) -> str:
    """How to write the answer, naming the objects to report."""
    names = ", ".join(f'"{k}"' for k in keys)
    one = len(keys) == 1
    return (f"Write your answer as JSON between a line {BEGIN} and a line {END}. The JSON object "
            f"has a single top-level entry \"final\"; inside it, give {'the entry' if one else 'one entry each'} "
            f"{names} with the answer as {'its' if one else 'their'} value (a place, a content, "
            f"or \"unknown\").")
