"""One item's life without pytest: its conversation, request keys, samples, scoring and
record. `items.TomItem` (the pytest item) and `offline.score_records` both use it, so
a run and an in-process scoring follow the same steps and build the same record."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypedDict

from pytest_tom import families
from pytest_tom.asking.answer_length import default_max_tokens
from pytest_tom.asking.completion import CallError, Completion, cut_off_call
from pytest_tom.backends.base import ItemView, ModelReply, ModelRequest, SamplingParams
from pytest_tom.core.model import ItemSpec
from pytest_tom.core.outcome import CUT_OFF, Outcome
from pytest_tom.core.record import Record, Sample
from pytest_tom.core.settings import Settings
from pytest_tom.families.base import Message, ScoringContext, method_for, single_call
from pytest_tom.items.probe_scoring import probe_record, score_open_ended

if TYPE_CHECKING:
    from typing_extensions import Unpack  # typing's own from Python 3.11 on

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


# the JSON of an item's first messages, hashed into its runner key: the output of
# `json.dumps(..., sort_keys=True, ensure_ascii=False, default=str)` with one encoder made
# once instead of one per item
_ASKED_JSON = json.JSONEncoder(sort_keys=True, ensure_ascii=False, default=str)


def _first_once(first: ModelRequest | None, conversation: NextRequest) -> NextRequest:
    """`conversation`, whose first call (no responses yet) returns `first`, already built:
    the same request it would build (a family's conversation is a pure function of the
    responses), handed out once (the request object is the runner's to annotate)."""
    ready = [first]

    def next_request(responses: list[str]) -> ModelRequest | None:
        if not responses and ready:
            return ready.pop()
        return conversation(responses)

    return next_request


def family_params(params: SamplingParams, overrides: Mapping[str, Any] | None) -> SamplingParams:
    """The run's params with a family protocol's decoding (`Family.sampling`): its
    temperature and seed, and its other fields (`top_p` ...) in the request body."""
    if not overrides:
        return params
    extra = {k: v for k, v in overrides.items() if k not in ("temperature", "seed")}
    fields = dict(params.fields)
    fields.update((k, json.dumps(v, sort_keys=True)) for k, v in extra.items())
    return replace(params, temperature=float(overrides.get("temperature", params.temperature)),
                   seed=overrides.get("seed", params.seed), fields=tuple(sorted(fields.items())))


def sample_params(params: SamplingParams, sample: int) -> SamplingParams:
    """Sample s > 0 sends seed + s (when a seed is set), so samples differ."""
    if sample and params.seed is not None:
        return replace(params, seed=params.seed + sample)
    return params


class ItemEngine:
    """The steps of an item that need the family and the settings, not pytest."""

    def __init__(self, settings: Settings, params: SamplingParams | None = None,
                 scoring: ScoringContext | None = None, family_max_tokens: bool = False,
                 thinking_tokens: int | None = None,
                 variants: Mapping[str, tuple[SamplingParams, int | None]] | None = None):
        self.settings = settings
        self.params = params or SamplingParams()
        self.scoring = scoring or ScoringContext(settings)
        # no --tom-max-tokens and a backend that asks: each call gets the family's default
        # answer length (asking/answer_length.py)
        self.family_max_tokens = family_max_tokens
        # --tom-thinking-tokens: room for a thought on top of each call's answer length
        # (the family's: for every backend, then, even one with a default of its own)
        self.thinking_tokens = thinking_tokens or None
        # --tom-sweep: per value label, the params and the thought's room its requests are
        # built with (core/sweep.value_options); an item of a value asks with them
        self.variants = dict(variants or {})
        self._asked: dict[int, str] = {}  # id(spec) -> hash of its first messages

    def request_key(self, spec: ItemSpec, sample: int = 0) -> str:
        """The runner's key of one sample of `spec`: its id and what it asks first."""
        asked = self._asked.get(id(spec))
        if asked is None:
            asked = self._remember(spec, self.conversation(spec)([]))
        return request_key(spec, sample, asked)

    def known_key(self, spec: ItemSpec, sample: int = 0) -> str | None:
        """`request_key` when what `spec` asks first was hashed already, else None (then
        `submission` builds the key and the conversation together)."""
        asked = self._asked.get(id(spec))
        return None if asked is None else request_key(spec, sample, asked)

    def submission(self, spec: ItemSpec, sample: int = 0) -> tuple[str, NextRequest]:
        """The runner's key of one sample of `spec` and its conversation. The first request
        of sample 0, built to hash it into the key, is the one the conversation then sends
        (once): an item's first request is built once, not once for the key and again in
        the runner."""
        conversation = self.conversation(spec, sample)
        if sample or id(spec) in self._asked:
            return self.request_key(spec, sample), conversation
        first = conversation([])
        return request_key(spec, 0, self._remember(spec, first)), _first_once(first, conversation)

    def _remember(self, spec: ItemSpec, first: ModelRequest | None) -> str:
        blob = _ASKED_JSON.encode(first.messages if first else None)
        asked = self._asked[id(spec)] = hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]
        return asked

    def unavailable(self, spec: ItemSpec) -> str | None:
        return families.get(spec.family).unavailable(spec, self.settings)

    def conversation(self, spec: ItemSpec, sample: int = 0) -> NextRequest:
        """The next request given the responses so far (None when the item is done)."""
        family = families.get(spec.family)
        view = item_view(spec)
        method = method_for(family, self.settings.method)
        base, room = self.params_of(spec)
        params = sample_params(family_params(base, family.sampling(spec, self.settings)), sample)
        thinking = room or 0
        per_call = params.max_tokens is None and (self.family_max_tokens or bool(thinking))

        def next_request(responses: list[str]) -> ModelRequest | None:
            messages = _messages(family, spec, method, responses)
            if messages is None:
                return None
            step = len(responses)
            call_params = params
            if per_call:  # no --tom-max-tokens: the family's default answer length
                call_params = replace(params, max_tokens=default_max_tokens(family, method, step)
                                      + thinking)
            return ModelRequest(messages=messages, params=call_params, item=view, step=step)

        return next_request

    def params_of(self, spec: ItemSpec) -> tuple[SamplingParams, int | None]:
        """The params and the thought's room `spec`'s requests start from: the run's, or
        its sweep value's."""
        if spec.sweep is not None and spec.sweep.label in self.variants:
            return self.variants[spec.sweep.label]
        return self.params, self.thinking_tokens

    def budget(self, spec: ItemSpec, responses: list[str], call: int, sample: int = 0
               ) -> int | None:
        """The max_tokens call `call` of `spec`'s conversation was sent with (None: none was
        sent, the answerer chose its own length)."""
        request = self.conversation(spec, sample)(list(responses[:call]))
        return request.params.max_tokens if request is not None else None

    def raise_with(self, spec: ItemSpec | None = None) -> str:
        """The option that raises the budget of this run's calls (of `spec`'s sweep value:
        a larger value of the sweep when it sweeps the budget)."""
        if spec is not None and spec.sweep is not None and spec.sweep.setting in (
                "thinking-tokens", "max-tokens"):
            return f"a larger value of --tom-sweep {spec.sweep.setting} (now {spec.sweep.value})"
        if self.params.max_tokens is not None:
            return "--tom-max-tokens"
        if self.thinking_tokens:
            return "--tom-thinking-tokens (or --tom-max-tokens)"
        return "--tom-thinking-tokens=N for a thought (or --tom-max-tokens)"

    def score_completion(self, spec: ItemSpec, comp: Completion, sample: int = 0) -> Outcome:
        """The outcome of a finished conversation (`comp`: its replies):
        cut off when the budget ran out (`cut_off_call`), else the family's score of the
        last answer. Only the answer is scored, never the thought."""
        cut = cut_off_call(comp.replies)
        if cut is not None:
            return self.cut_off(spec, comp.responses, cut, sample)
        return self.score(spec, comp.final)

    def cut_off(self, spec: ItemSpec, responses: list[str], call: int, sample: int = 0
                ) -> Outcome:
        """The outcome of an item whose call `call` ran out of budget: never right, never
        wrong (counted apart, in the denominators as not right); the detail names the
        budget, where it ran out and the option that raises it."""
        budget = self.budget(spec, responses, call, sample)
        answer = responses[call] if call < len(responses) else ""
        where = "inside the thought" if not answer.strip() else "inside the answer"
        sent = (f"the budget of {budget} tokens" if budget is not None
                else "the answerer's own budget (no max_tokens was sent)")
        calls = f" (call {call + 1} of {len(responses)})" if len(responses) > 1 else ""
        return Outcome(correct=False, error=CUT_OFF,
                       detail=f"cut off: {sent} ran out {where}{calls}; raise it with "
                              f"{self.raise_with(spec)}",
                       extra={"budget": budget, "in_thought": not answer.strip()})

    def score(self, spec: ItemSpec, final: str) -> Outcome:
        if spec.probe is not None and spec.probe.probe == "no-options":
            return score_open_ended(families.get(spec.family), spec, final)
        return families.get(spec.family).score(spec, final, self.scoring)

    def score_samples(self, spec: ItemSpec, completions: list[Completion],
                      first: Outcome | None = None) -> list[Outcome]:
        """An outcome per completion: its score, or the error of its request."""
        out = []
        for s, comp in enumerate(completions):
            if s == 0 and first is not None:
                out.append(first)
            elif comp.error is not None:
                out.append(comp.error.outcome())
            else:
                out.append(self.score_completion(spec, comp, s))
        return out


def _messages(family: Any, spec: ItemSpec, method: str, responses: list[str]
              ) -> list[Message] | None:
    """The family's messages for `spec`, or (a no-story or no-options probe's copy) the
    one request its family declares for the probe (`Family.probe_messages`)."""
    if spec.probe is not None and spec.probe.probe in ("no-story", "no-options"):
        return single_call(family.probe_messages(spec, spec.probe.probe, method), responses)
    return family.conversation(spec, method, responses)


def converse(next_request: NextRequest, ask: Callable[[ModelRequest], str | ModelReply]
             ) -> Completion:
    """Follow a conversation synchronously: its completion (the replies: answer, thought,
    finish reason, usage), or the error that ended it (a failed request, its message the
    exception's). A reply cut off inside its thought ends the conversation, as in the
    runner; an answerer may return the text alone."""
    comp = Completion()
    replies = comp.replies
    while (request := next_request([r.text for r in replies])) is not None:
        try:
            out = ask(request)
        except Exception as exc:  # an error outcome, as the runner records it
            comp.error = CallError(str(exc))
            break
        reply = out if isinstance(out, ModelReply) else ModelReply(text=str(out))
        replies.append(reply)
        if reply.cut_in_thought:
            break
    return comp


class ReplyParts(TypedDict, total=False):
    """`sample_requests.reply_parts`: the `thoughts` and `finish` of a record or of one of its
    samples (`core.record.Record`, `Sample`)."""

    thoughts: list[str | None]
    finish: list[str | None]


class RequestFields(ReplyParts, total=False):
    """`sample_requests.call_fields`: the request side of a record (declared as in
    `core.record.Record`)."""

    usage: dict[str, int]
    cached_usage: dict[str, int]
    requests: int
    retries: int
    cached: int
    shared: int
    model: str | None
    endpoints: dict[str, dict[str, int]]
    samples: list[Sample]


class CallFields(RequestFields, total=False):
    """The keys of a record a runner fills (`build_record`'s `calls`): the request side, and
    what the item's pytest item adds, the messages sent and the seconds taken."""

    messages: list[list[Message]]
    seconds: float


def build_record(spec: ItemSpec, outcome: Outcome, responses: list[str],
                 **calls: Unpack[CallFields]) -> Record:
    """The plain-data record of an item (what aggregation, reports and replays read);
    `calls`: the request side (seconds, usage, requests ...) when a runner made them."""
    record = Record(item=spec.summary(), outcome=outcome.to_dict(),
                    responses=list(responses), **calls)
    if spec.probe is not None:  # --tom-probe: the probe it was asked under
        record["probe"] = probe_record(spec.probe)
    if spec.sweep is not None:  # --tom-sweep: the value it was asked with
        record["sweep"] = {"setting": spec.sweep.setting, "value": spec.sweep.value,
                           "suite": spec.sweep.suite, "index": spec.sweep.index}
    return record
