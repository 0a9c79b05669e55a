"""The failure text of an item: what the model was asked, what it answered, and why
that is wrong (or why there is no answer).

Compact by default: the prompt (the last user message, where the context, the
question and the options are) is trimmed to its first and last lines, the
answer to a few hundred characters. With `-v` every call is shown whole: each
message with its role, then the answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_tom.core.outcome import CUT_OFF, ERROR, UNPARSEABLE, status
from pytest_tom.core.printable import escape_controls

HEAD, TAIL = 3, 3  # prompt lines shown before and after the cut
ANSWER_CHARS = 600
THOUGHT_CHARS = 300  # a thought's tail shown without -v (where it ended matters most)


def quoted(text: str, indent: str = "    | ") -> list[str]:
    return [f"{indent}{line}".rstrip() for line in text.splitlines() or [""]]


def trimmed_prompt(text: str, head: int = HEAD, tail: int = TAIL) -> list[str]:
    lines = text.splitlines()
    if len(lines) <= head + tail + 1:
        return quoted(text)
    cut = len(lines) - head - tail
    return [*quoted("\n".join(lines[:head])), f"    | ... {cut} more lines (-v shows all) ...",
            *quoted("\n".join(lines[-tail:]))]


def expected_text(spec: Any) -> str:
    return gold_text(spec.kind, spec.gold, spec.meta)


def gold_text(kind: str, gold: Any, meta: Mapping[str, object]) -> str:
    """The expected answer in words: `b) the van`, `contains crayon or crayons; not box`."""
    if "gold_letter" in meta:
        return f"{meta['gold_letter']}) {gold}"
    if kind == "contains" and isinstance(gold, dict):
        def words(entries: list[Any]) -> str:
            return ", ".join(" or ".join(e) if isinstance(e, list) else str(e) for e in entries)
        text = f"an answer containing {words(gold.get('contains', []))}"
        return text + (f"; not {words(gold['excludes'])}" if gold.get("excludes") else "")
    return str(gold)


def failure_text(spec: Any, outcome: Any, comp: Any, calls: list[list[dict[str, str]]],
                 verbose: bool = False) -> str:
    """The whole story of a wrong, unparseable, cut-off or errored item."""
    request_error = outcome is not None and status(outcome) == ERROR
    if request_error:
        head = f"request failed ({outcome.error}): {outcome.detail} [{spec.suite} · {spec.kind}]"
    elif outcome is not None and status(outcome) == CUT_OFF:
        head = f"cut off [{spec.suite} · {spec.kind}]"
    else:
        what = "unparseable answer" if outcome and status(outcome) == UNPARSEABLE else "wrong answer"
        head = f"{what} [{spec.suite} · {spec.kind}]"
    lines = [head]
    if verbose and calls:
        for n, call in enumerate(calls, 1):
            lines.append(f"  call {n} of {len(calls)}:")
            for m in call:
                lines.append(f"   {m['role']}:")
                lines += quoted(m["content"], "    | ")
    elif calls:
        prompt = ""
        for m in reversed(calls[-1]):
            if m.get("role") == "user":
                prompt = m.get("content", "")
                break
        more = f", call {len(calls)} of {len(calls)}" if len(calls) > 1 else ""
        lines.append(f"  asked (the last user message{more}):")
        lines += trimmed_prompt(prompt)
    lines.append(f"  question: {spec.question}")
    if spec.choices:
        lines.append(f"  choices:  {'  '.join(spec.choices_shown)}")
    lines.append(f"  expected: {expected_text(spec)}")
    if not request_error and comp is not None and comp.replies:
        lines += thought_lines(comp, verbose)
        raw = comp.final
        if not verbose and len(raw) > ANSWER_CHARS:
            raw = raw[:ANSWER_CHARS] + f" ... ({len(comp.final)} characters; -v shows all)"
        lines.append(f"  answer:   {raw!r}" if "\n" not in raw or not verbose else "  answer:")
        if "\n" in raw and verbose:
            lines += quoted(raw)
        lines.append(f"  parsed:   {outcome.parsed!r}" if outcome is not None else "  parsed:   -")
        lines.append(f"  why:      {why(spec, outcome)}")
    return escape_controls("\n".join(lines))  # suite text, answers, server messages: no ANSI


def thought_lines(comp: Any, verbose: bool) -> list[str]:
    """The thought before the scored answer (a reasoning model's): whole with -v, else its
    length and its last characters; nothing when the reply showed none."""
    thought = comp.replies[-1].thought if comp.replies else None
    if thought is None:
        return []
    if verbose:
        return [f"  thought ({len(thought)} characters, not scored):", *quoted(thought)]
    tail = thought[-THOUGHT_CHARS:]
    cut = f"...{tail!r}" if len(thought) > THOUGHT_CHARS else repr(tail)
    return [f"  thought:  {len(thought)} characters, not scored, ending {cut} (-v shows all)"]


def why(spec: Any, outcome: Any) -> str:
    """Why the answer was judged wrong, in words."""
    if outcome is None:
        return "not scored"
    if status(outcome) == UNPARSEABLE:
        return f"the answer could not be read ({outcome.detail or 'no answer found'}); counted as wrong"
    if status(outcome) == CUT_OFF:
        return f"{outcome.detail}; not scored, counted apart (never as wrong)"
    if outcome.detail:
        return str(outcome.detail)
    if outcome.parsed is None:
        return f"no answer found; expected {expected_text(spec)}"
    return f"{outcome.parsed!r} is not the expected {expected_text(spec)!r}"
