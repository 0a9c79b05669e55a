"""What a backend is: something that turns chat messages into a reply text.

Backends know requests and responses only, never scoring or pytest. Every
backend is asynchronous (`acomplete`) so that the runner can keep many
requests in flight; a synchronous model is run in a worker thread.

Two ways to be a backend:

* a `Backend` subclass (`openai`, `local`, `replay`, entry points): it implements
  `acomplete` and declares what it can do in `abilities` (`BackendAbilities`);
* an object following the `Answerer` protocol below (the `python:` spec, the
  `pytest_tom_backend` hook, `--tom-model=fixture:NAME`, `hf:`): the runner sees it
  through `backends/in_process.py`, which adds the threading, batching and identity
  rules. Both go through the same runner (cache, retries, deadline, progress, usage).

The runner and the plugin read a backend's `abilities` once, when the runner is made,
and never probe the object for attributes: the answerer adapter (`in_process.py`) is
the one place that reads optional attributes of an object pytest-tom did not make.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field, replace
from typing import Any, Generic, Protocol, TypedDict, TypeVar, runtime_checkable

from pytest_tom.core.json_value import JSONObject
from pytest_tom.core.message import Message
from pytest_tom.core.secrets import RedactedUrl, Secret, redact_url  # noqa: F401 - re-exported


class _SamplingKeys(TypedDict):
    temperature: float
    max_tokens: int | None
    seed: int | None


class SamplingDict(_SamplingKeys, total=False):
    """`SamplingParams.to_dict()`: the sampling part of a call's cache key
    (`asking/cache.request_key`); `fields` only when there are request fields."""

    fields: JSONObject


class ChatBody(TypedDict, total=False):
    """A chat-completions request body as `openai:` and `local:` build it. The request fields
    (`SamplingParams.request_fields`) are merged in after these keys: free-form by design
    (the server reads them by name, and one may set a key declared here), so they are the
    one part of a body this declaration does not name."""

    model: str
    messages: list[Message]
    temperature: float
    max_tokens: int
    seed: int
    top_k: int  # llama.cpp: greedy
    cache_prompt: bool  # llama.cpp


class BackendIdentity(TypedDict, total=False):
    """`Backend.identity()`: what identifies the model for the cache key and the report's
    `settings.backend`; never a secret. The keys the built-in backends write; a backend of
    one's own may write others (they are part of its cache key all the same)."""

    backend: str
    model: str
    base_url: str | None  # openai: (redacted)
    think_tags: str  # openai:, local: when not the default tags
    bytes: int  # local: the GGUF file's size
    runtime: str  # local: llama.cpp's build
    default_max_tokens: int  # local: the length of a call that carries none
    identity: str  # an answerer's own identity() (python:, hf:, fixture:)


@dataclass(frozen=True)
class SamplingParams:
    """What a request carries besides its messages. `fields`: server-specific request fields
    (`--tom-request-field`, `--tom-reasoning-effort`, `--tom-thinking`) as (name, canonical
    JSON) pairs, sent in the body of a chat-completions request; part of the cache key (in
    `to_dict` only when there are any, so the keys of plain runs stay as they were)."""

    temperature: float = 0.0
    max_tokens: int | None = None
    seed: int | None = None
    fields: tuple[tuple[str, str], ...] = ()

    def to_dict(self) -> SamplingDict:
        out: SamplingDict = {"temperature": self.temperature, "max_tokens": self.max_tokens,
                             "seed": self.seed}
        if self.fields:
            out["fields"] = self.request_fields()
        return out

    def request_fields(self) -> JSONObject:
        """The extra fields of the request body, by name (values as JSON gives them)."""
        return {name: json.loads(value) for name, value in self.fields}


@dataclass
class ModelRequest:
    """One model call. `item` is the benchmark item (plain view) the call is for."""

    messages: list[Message]
    params: SamplingParams
    item: Any = None  # pytest_tom.backends.base.ItemView for items; None for free calls
    step: int = 0  # 0 for the first call of an item, 1 for a chain-of-thought follow-up ...
    # endpoints of a pool (backends/openai_api/endpoint_pool.py) where this request already failed: the
    # runner retries the same request object, and the retry goes elsewhere while it can
    failed_at: set[int] = field(default_factory=set, compare=False, repr=False)
    # the endpoint (redacted) of the attempt under way, set by a pool: an attempt the
    # runner's deadline cuts off ends with no reply and no error of the backend's own, and
    # is still counted at its endpoint in the item's record
    asked_at: str | None = field(default=None, compare=False, repr=False)

    @property
    def prompt(self) -> str:
        """The content of the last user message (what most simple callables want)."""
        for m in reversed(self.messages):
            if m.get("role") == "user":
                return m.get("content", "")
        return ""


# a reply's finish reason when the budget (max_tokens) ran out before the model stopped
LENGTH = "length"
STOP = "stop"
_FINISH = {"length": LENGTH, "max_tokens": LENGTH, "max_new_tokens": LENGTH,
           "max_length": LENGTH, "max_output_tokens": LENGTH,
           "stop": STOP, "eos": STOP, "eos_token": STOP, "end_turn": STOP,
           "stop_sequence": STOP}


def finish_reason(raw: Any) -> str | None:
    """A server's finish reason, normalised: "stop" (the model ended its answer), "length"
    (the budget ran out first: OpenAI's and vLLM's "length", Anthropic's "max_tokens" ...),
    any other as the server says it ("content_filter", "tool_calls" ...); None when unknown."""
    if not isinstance(raw, str) or not raw:
        return None
    return _FINISH.get(raw.lower(), raw)


@dataclass
class ModelReply:
    """One model call's reply.

    `text` is the answer: what the model said after its thought, and the only part that is
    scored. `thought` is the reasoning before it (a reasoning field of the server, or a
    `<think>...</think>` split off the content), kept apart, never scored; None when the
    reply showed none. `finish_reason` is normalised (`finish_reason()`): "length" means
    the budget ran out, inside the thought when `text` is empty. `usage` holds the
    server's token counts (prompt_tokens, completion_tokens, total_tokens) and
    `reasoning_tokens` where they are known (counted by the server, or by an in-process
    model's own tokenizer); a backend that does not know them leaves the key out.

    One shape from the backend to the record: the runner keeps the reply as it came
    (`asking/completion.Completion.replies`); it is written as plain values only at the
    request process's pipe (`to_wire`/`from_wire`) and the cache's row (`cache.reply_row`).
    """

    text: str
    usage: dict[str, int] | None = None
    model: str | None = None
    endpoint: str | None = None  # the endpoint that answered (redacted), when there are several
    thought: str | None = None
    finish_reason: str | None = None

    @property
    def cut_off(self) -> bool:
        """The budget ran out before the model ended its reply."""
        return self.finish_reason == LENGTH

    @property
    def cut_in_thought(self) -> bool:
        """The budget ran out inside the thought: no answer was begun."""
        return self.finish_reason == LENGTH and not self.text.strip()

    # The one pair that writes and reads a reply on the request process's pipe
    # (backends/openai_api/post_worker.py, `marshal` frames: plain values only). `endpoint` is not
    # sent: the parent's endpoint pool sets it.
    def to_wire(self) -> ReplyWire:
        return (self.text, self.usage, self.model, self.thought, self.finish_reason)

    @classmethod
    def from_wire(cls, wire: ReplyWire) -> ModelReply:
        text, usage, model, thought, finish = wire
        return cls(text=text, usage=usage, model=model, thought=thought, finish_reason=finish)


# a `ModelReply` as plain values: (text, usage, model, thought, finish_reason)
ReplyWire = tuple[str, "dict[str, int] | None", "str | None", "str | None", "str | None"]
# a `BackendError` as plain values: (message, kind, retryable, status, retry_after,
# timed_out, connect)
ErrorWire = tuple[str, str, bool, "int | None", "float | None", bool, bool]


def retryable_status(status: int) -> bool:
    """An HTTP status worth asking again: a timeout, a conflict, too early, rate-limited
    (408, 409, 425, 429) or any server error (5xx). One rule for both request paths."""
    return status in (408, 409, 425, 429) or status >= 500


class BackendError(Exception):
    """A model call that failed. `retryable` marks failures worth trying again."""

    def __init__(self, message: str, *, kind: str = "request_failed", retryable: bool = False,
                 status: int | None = None, retry_after: float | None = None,
                 timed_out: bool = False, endpoint: str | None = None, connect: bool = False):
        super().__init__(message)
        self.kind = kind
        self.retryable = retryable
        self.status = status
        self.retry_after = retry_after
        self.timed_out = timed_out  # no answer in time: often a very long answer
        self.endpoint = endpoint  # the endpoint that failed (redacted), when there are several
        # the connection was not made in time (backends/openai_api/connect.py): retried on a fresh one
        self.connect = connect

    # The one pair that writes and reads an error on the request process's pipe (as
    # `ModelReply.to_wire`); `endpoint` is not sent: the parent's endpoint pool sets it.
    def to_wire(self) -> ErrorWire:
        return (str(self), self.kind, self.retryable, self.status, self.retry_after,
                self.timed_out, self.connect)

    @classmethod
    def from_wire(cls, wire: ErrorWire) -> BackendError:
        message, kind, retryable, status, retry_after, timed_out, connect = wire
        return cls(message, kind=kind, retryable=retryable, status=status,
                   retry_after=retry_after, timed_out=timed_out, connect=connect)

    def named(self, label: str, retry_after: float | None) -> BackendError:
        """This error as the endpoint `label` of a pool gives it: its message prefixed with
        the label, `endpoint` set, the pool's `retry_after`; every other field kept."""
        return BackendError(f"{label}: {self}", kind=self.kind, retryable=self.retryable,
                          status=self.status, retry_after=retry_after,
                          timed_out=self.timed_out, endpoint=label, connect=self.connect)


@dataclass
class ItemView:
    """What a Python backend sees of an item (read-only plain data)."""

    id: str
    suite: str
    family: str
    kind: str
    question: str
    choices: list[str]  # as shown, with letters: "a) the box"
    gold: Any
    tags: list[str]
    # copies of the item's (`ItemSpec`): plain JSON each family declares for itself, so
    # typed as any dict here: a backend narrows what it reads (`isinstance`)
    source: dict[str, object]  # free-form: file, line, upstream id ...
    meta: dict[str, object] = field(default_factory=dict)  # free-form, as the family wrote it
    scenario: str = ""


@runtime_checkable
class Answerer(Protocol):
    """The protocol of an in-process model (docs/own-model.md).

    Required: ``answer(request) -> str`` (or a `ModelReply`, for token counts), a plain
    or an ``async`` method; a plain function of the request is an answerer too.

    Optional, read once when the backend is made:

    * ``answer_batch(requests) -> list[str]`` (plain or async): the runner then hands
      over up to ``--tom-batch-size`` requests at once (default: ``batch_size``);
    * ``batch_size: int``: the batch the object prefers (default 1: no batching);
    * ``identity() -> str``: the model's name and revision or fingerprint. Declaring it
      says the answers depend on the messages and sampling parameters alone, so they
      are cached (keyed by the identity) like `openai:`'s; without it nothing is cached;
    * ``thread_safe: bool``: a synchronous answerer runs in ONE worker thread (never
      entered twice at once) unless it declares ``thread_safe = True``; an async one
      runs on the runner's event loop and must not block it.
    * ``family_max_tokens: bool``: requests without --tom-max-tokens carry the
      families' answer lengths (asking/answer_length.py) instead of None.
    """

    def answer(self, request: ModelRequest) -> Any: ...


@dataclass(frozen=True)
class BackendAbilities:
    """What a backend can do, as far as the runner and the plugin need to know: declared
    once by the backend (`Backend.abilities`), read once when the runner is made. Every
    field's default is what a plain backend gets."""

    # the answer depends only on `identity()`, the messages, the sampling parameters and
    # the sample index, so the runner may cache it and share identical calls. A backend
    # that reads the item (python answerers without identity(), replay) or may change
    # between runs says False
    cacheable: bool = False
    # the answers come from a server over the network: the run opens its connections a
    # few at a time (the runner's ramp, or the backend's own gate: `opens_connections`),
    # and when its first requests all fail the same way and nothing answered, the run
    # stops early (asking/early_stop.py)
    server: bool = False
    # opens its new connections itself, each shown taken by the server before the next
    # (openai:, both paths: backends/openai_api/connection_gate.py): the runner starts
    # such a server's run at the whole concurrency instead of ramping it up
    opens_connections: bool = False
    # how many servers answer (an endpoint pool's replicas): the early stop waits until
    # each has failed before it calls the server unreachable
    endpoints: int = 1
    # the answers were recorded (a replay): asking costs nothing, so a run whose first
    # answers are mostly cut off is not stopped early (asking/early_stop.CutOffAnswers)
    recorded: bool = False
    # no answer length of its own (a model generates until it stops): requests without
    # --tom-max-tokens carry the family's default (asking/answer_length.py)
    family_max_tokens: bool = False
    # a warm-up of its own (`Backend.warm`: openai:'s request process), started while the
    # run is still collecting; a subclass that overrides `warm` gets True by itself
    warms: bool = False
    # calls are answered one at a time (one worker thread of a model that is not
    # thread-safe): the runner keeps one in flight, so that each call's deadline runs
    # from its own start
    one_at_a_time: bool = False
    # requests handed over together (an answerer's `answer_batch`), at most this many;
    # None: one by one. The runner keeps two batches in flight: one running, one filling
    batch_size: int | None = None
    # an in-process answerer (docs/own-model.md): cacheable only when it declares
    # identity() (the header says so when it does not)
    answerer: bool = False

    def in_flight(self, asked: int) -> int:
        """How many calls the runner keeps in flight, given `--tom-concurrency` (`asked`)."""
        if self.batch_size is not None:
            return max(asked, 2 * self.batch_size)
        return 1 if self.one_at_a_time else asked


# what a subclass once declared as attributes (or a method) of its own, now read from
# `BackendAbilities` alone
_FLAT = ("cacheable", "server", "recorded", "family_max_tokens", "in_flight")


class Backend:
    """Base class. Subclasses set `name`, implement `acomplete` and, when they can do more
    than a plain backend, declare `abilities`."""

    name: str = "backend"
    model: str = ""
    # what the runner and the plugin may rely on (read once, when the runner is made); a
    # subclass sets its own at class level, or in `__init__` when it depends on the instance
    abilities: BackendAbilities = BackendAbilities()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        flat = [name for name in _FLAT if name in vars(cls)]
        if flat:  # read nowhere any more: refused rather than silently ignored
            said = ", ".join(flat)
            fields_ = ", ".join(f"{n}=..." for n in flat if n != "in_flight")
            raise TypeError(
                f"{cls.__module__}.{cls.__qualname__} declares {said}: a backend declares what "
                f"it can do in one object, e.g. abilities = BackendAbilities({fields_ or '...'})"
                f" (pytest_tom.backends.base; docs/backends.md, \"Your own backend\")")
        declared = cls.abilities  # a property (set per instance) is left as it is
        if cls.warm is not Backend.warm and isinstance(declared, BackendAbilities) \
                and not declared.warms:
            cls.abilities = replace(declared, warms=True)

    async def acomplete(self, request: ModelRequest) -> ModelReply:
        raise NotImplementedError

    async def warm(self) -> None:
        """Get ready for the first request while the run still prepares its requests (the
        runner calls it once, on its loop, at the first conversation submitted): `openai:`
        starts its request process. Must not raise; the first request finds any problem."""

    def identity(self) -> BackendIdentity:
        """What identifies the model for caching and reports: never a secret."""
        return {"backend": self.name, "model": self.model}

    def describe(self) -> str:
        return f"{self.name}:{self.model}" if self.model else self.name

    def details(self) -> str:
        """More for the run's header, after `describe()` (how calls run, the revision)."""
        return ""

    def request_path(self) -> str | None:
        """How the requests are made, for the report's settings (`openai:`'s direct POST or
        its client and transport); None for a backend with one way only."""
        return None

    async def aclose(self) -> None:
        """Release connections; called once at the end of the session."""


K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class PerProcess(Generic[K, V]):
    """One value per key for the whole process, made on first use under a lock: an
    in-process model is loaded once per process (once per xdist worker), never per item
    or per thread, however many backends or threads ask for it."""

    def __init__(self, make: Callable[[K], V]) -> None:
        self._make = make
        self._values: dict[K, V] = {}
        self._lock = threading.Lock()

    def get(self, key: K) -> V:
        with self._lock:
            value = self._values.get(key)
            if value is None:
                value = self._values[key] = self._make(key)
            return value
