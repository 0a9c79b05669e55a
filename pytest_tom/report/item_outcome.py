"""What one item's outcome shows outside the summary: JUnit XML properties and the
xfail reason of a wrong answer under `--tom-items report`.

Only the parsed answer is shown, shortened; never the full response, the
prompt, or anything of the backend's configuration.
"""

from __future__ import annotations

import json
from typing import Any

from pytest_tom.core.outcome import CUT_OFF, UNPARSEABLE, Outcome
from pytest_tom.core.printable import escape_controls
from pytest_tom.core.record import Record
from pytest_tom.core.record_view import RecordView
from pytest_tom.suite import ItemSpec

LIMIT = 200

def short(value: Any, limit: int = LIMIT) -> str:
    """A one-line text of at most `limit` characters for a parsed answer."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def junit_properties(record: Record) -> list[tuple[str, str]]:
    """`tom_kind`, `tom_correct` (true/false/none), `tom_parsed`, and `tom_error`/`tom_value`
    when set: the per-item properties of the JUnit XML report."""
    view = RecordView(record)
    correct = view.correct
    props = [("tom_suite", str(view.suite)), ("tom_kind", str(view.kind)),
             ("tom_correct", "none" if correct is None else str(bool(correct)).lower())]
    if view.parsed is not None:
        props.append(("tom_parsed", short(view.parsed)))
    if view.error:
        props.append(("tom_error", str(view.error)))
    value = view.value
    if isinstance(value, int | float) and not isinstance(value, bool):
        props.append(("tom_value", f"{value:.4g}"))
    return props


def xfail_reason(spec: ItemSpec, outcome: Outcome) -> str:
    """`wrong answer: 'a) the freezer' (expected 'b) the pantry')`, one line; a cut-off
    answer's reason names the budget and the option that raises it."""
    expected: Any = spec.gold
    if "gold_letter" in spec.meta:
        expected = f"{spec.meta['gold_letter']}) {spec.gold}"
    if outcome.error == UNPARSEABLE:
        head = f"unparseable answer ({outcome.detail})" if outcome.detail else "unparseable answer"
        return escape_controls(f"{head}; expected {short(expected, 80)}")
    if outcome.error == CUT_OFF:  # "cut off: the budget of 64 tokens ran out ...; raise ..."
        return escape_controls(short(outcome.detail or "cut off by the budget", 240))
    parsed = "nothing" if outcome.parsed is None else short(outcome.parsed, 120)
    detail = f" [{short(outcome.detail, 80)}]" if outcome.detail else ""
    return escape_controls(f"wrong answer: {parsed}{detail}; expected {short(expected, 80)}")
