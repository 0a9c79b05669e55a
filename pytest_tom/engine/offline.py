"""Scoring items without a pytest run: an answerer applied to items, records as the
plugin makes them (for tests, benchmarks and rescoring scripts).

The answerer gets what a `python:` backend gets: a `ModelRequest` with the item's
first messages (vanilla method) and the item view. Scoring and the record shape
are the plugin's own, so `family.aggregate(records, settings)` gives the numbers a
run with the same answers would give.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from pytest_tom import families
from pytest_tom.backends.base import ItemView, ModelRequest, SamplingParams
from pytest_tom.core.model import ItemSpec
from pytest_tom.core.outcome import REQUEST_FAILED, Outcome
from pytest_tom.families.base import ScoringContext, Settings, method_for


def item_view(spec: ItemSpec) -> ItemView:
    """What a Python backend sees of an item."""
    return ItemView(id=spec.id, suite=spec.suite, family=spec.family, kind=spec.kind,
                    question=spec.question, choices=spec.choices_shown, gold=spec.gold,
                    tags=list(spec.tags), source=dict(spec.source), meta=dict(spec.meta),
                    scenario=spec.scenario)


def score_records(items: Iterable[ItemSpec], answer: Callable[[ModelRequest], str],
                  settings: Settings | None = None) -> list[dict[str, Any]]:
    """One record (`{"item", "outcome", "responses"}`) per item, scored in this process.

    Multi-call methods are followed to their end (the last response is scored); an
    exception of the answerer is an error outcome of its item, as in a run.
    """
    settings = settings or Settings()
    ctx = ScoringContext(settings)
    out = []
    for spec in items:
        family = families.get(spec.family)
        view = item_view(spec)
        responses: list[str] = []
        outcome: Outcome | None = None
        method = method_for(family, settings.method)
        while (messages := family.conversation(spec, method, responses)) is not None:
            request = ModelRequest(messages=messages, params=SamplingParams(), item=view,
                                   step=len(responses))
            try:
                responses.append(answer(request))
            except Exception as exc:  # an error outcome, as the runner records it
                outcome = Outcome.failed(REQUEST_FAILED, str(exc))
                break
        if outcome is None:
            outcome = family.score(spec, responses[-1] if responses else "", ctx)
        out.append({"item": spec.summary(), "outcome": outcome.to_dict(),
                    "responses": responses})
    return out
