"""One item's life without pytest: its conversation, request keys, samples, scoring and
record. `items.TomItem` (the pytest item) and `offline.score_records` both use it, so
a run and an in-process scoring follow the same steps and build the same record."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from pytest_tom import families
from pytest_tom.backends.base import ItemView, ModelRequest, SamplingParams
from pytest_tom.core.model import ItemSpec
from pytest_tom.core.outcome import REQUEST_FAILED, Outcome
from pytest_tom.core.record import Record
from pytest_tom.core.settings import Settings
from pytest_tom.engine.answer_length import default_max_tokens
from pytest_tom.families.base import ScoringContext, method_for

NextRequest = Callable[[list[str]], ModelRequest | None]


def item_view(spec: ItemSpec) -> ItemView:
    """What a Python backend sees of an item."""
    return ItemView(id=spec.id, suite=spec.suite, family=spec.family, kind=spec.kind,
                    question=spec.question, choices=spec.choices_shown, gold=spec.gold,
                    tags=list(spec.tags), source=dict(spec.source), meta=dict(spec.meta),
                    scenario=spec.scenario)


def request_key(spec: ItemSpec, sample: int = 0, asked: str = "") -> str:
    """The runner's key of one sample of an item; `asked`: a hash of its first messages
    (`ItemEngine.request_key`), so that two items never share an answer unless they ask
    the same (two files of one suite with one id would otherwise get one answer)."""
    key = f"{spec.suite}::{spec.id}" + (f"@{asked}" if asked else "")
    return f"{key}#{sample}" if sample else key


def sample_params(params: SamplingParams, sample: int) -> SamplingParams:
    """Sample s > 0 sends seed + s (when a seed is set), so samples differ."""
    if sample and params.seed is not None:
        return replace(params, seed=params.seed + sample)
    return params


class ItemEngine:
    """The steps of an item that need the family and the settings, not pytest."""

    def __init__(self, settings: Settings, params: SamplingParams | None = None,
                 scoring: ScoringContext | None = None, family_max_tokens: bool = False):
        self.settings = settings
        self.params = params or SamplingParams()
        self.scoring = scoring or ScoringContext(settings)
        # no --tom-max-tokens and a backend that asks: each call gets the family's default
        # answer length (engine/answer_length.py)
        self.family_max_tokens = family_max_tokens
        self._asked: dict[int, str] = {}  # id(spec) -> hash of its first messages

    def request_key(self, spec: ItemSpec, sample: int = 0) -> str:
        """The runner's key of one sample of `spec`: its id and what it asks first."""
        asked = self._asked.get(id(spec))
        if asked is None:
            first = self.conversation(spec)([])
            blob = json.dumps(first.messages if first else None, sort_keys=True,
                              ensure_ascii=False, default=str)
            asked = self._asked[id(spec)] = hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]
        return request_key(spec, sample, asked)

    def unavailable(self, spec: ItemSpec) -> str | None:
        return families.get(spec.family).unavailable(spec, self.settings)

    def conversation(self, spec: ItemSpec, sample: int = 0) -> NextRequest:
        """The next request given the responses so far (None when the item is done)."""
        family = families.get(spec.family)
        view = item_view(spec)
        method = method_for(family, self.settings.method)
        params = sample_params(self.params, sample)
        per_call = params.max_tokens is None and self.family_max_tokens

        def next_request(responses: list[str]) -> ModelRequest | None:
            messages = family.conversation(spec, method, responses)
            if messages is None:
                return None
            step = len(responses)
            call_params = params
            if per_call:  # no --tom-max-tokens: the family's default answer length
                call_params = replace(params, max_tokens=default_max_tokens(family, method, step))
            return ModelRequest(messages=messages, params=call_params, item=view, step=step)

        return next_request

    def score(self, spec: ItemSpec, final: str) -> Outcome:
        return families.get(spec.family).score(spec, final, self.scoring)

    def score_samples(self, spec: ItemSpec, completions: list[Any],
                      first: Outcome | None = None) -> list[Outcome]:
        """An outcome per completion: its score, or the error of its request."""
        out = []
        for s, comp in enumerate(completions):
            if s == 0 and first is not None:
                out.append(first)
            elif comp.error:
                out.append(Outcome.failed(comp.error_kind or REQUEST_FAILED, comp.error))
            else:
                out.append(self.score(spec, comp.final))
        return out


def converse(next_request: NextRequest, ask: Callable[[ModelRequest], str]
             ) -> tuple[list[str], str | None]:
    """Follow a conversation synchronously: the responses, and the error that ended it."""
    responses: list[str] = []
    while (request := next_request(responses)) is not None:
        try:
            responses.append(ask(request))
        except Exception as exc:  # an error outcome, as the runner records it
            return responses, str(exc)
    return responses, None


def build_record(spec: ItemSpec, outcome: Outcome, responses: list[str],
                 **calls: Any) -> Record:
    """The plain-data record of an item (what aggregation, reports and replays read);
    `calls`: the request side (seconds, usage, requests ...) when a runner made them."""
    return Record(item=spec.summary(), outcome=outcome.to_dict(),  # type: ignore[typeddict-item]
                  responses=list(responses), **calls)
