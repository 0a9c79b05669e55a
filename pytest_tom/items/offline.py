"""Scoring items without a pytest run: an answerer applied to items, records as the
plugin makes them (for tests, benchmarks and rescoring scripts).

The answerer gets what a `python:` backend gets: a `ModelRequest` with the item's
first messages (vanilla method) and the item view. Scoring and the record shape
are the plugin's own, so `family.aggregate(records, settings)` gives the numbers a
run with the same answers would give.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from pytest_tom.backends.base import ModelReply, ModelRequest
from pytest_tom.core.model import ItemSpec
from pytest_tom.core.record import Record
from pytest_tom.core.settings import Settings
from pytest_tom.items.item import ItemEngine, build_record, converse, item_view
from pytest_tom.items.sample_requests import reply_parts

__all__ = ["item_view", "score_records"]


def score_records(items: Iterable[ItemSpec],
                  answer: Callable[[ModelRequest], str | ModelReply],
                  settings: Settings | None = None) -> list[Record]:
    """One record (`{"item", "outcome", "responses"}`) per item, scored in this process.

    Multi-call methods are followed to their end (the last response is scored); an
    exception of the answerer is an error outcome of its item, as in a run. An answerer
    may return a `ModelReply` (its thought and finish reason go into the record, and a
    reply cut off by its budget is a cut-off outcome, as in a run).
    """
    engine = ItemEngine(settings or Settings())
    out = []
    for spec in items:
        comp = converse(engine.conversation(spec), answer)
        outcome = (comp.error.outcome() if comp.error is not None
                   else engine.score_completion(spec, comp))
        out.append(build_record(spec, outcome, comp.responses, **reply_parts(comp)))
    return out
