"""What a backend is: something that turns chat messages into a reply text.

Backends know requests and responses only, never scoring or pytest. Every
backend is asynchronous (`acomplete`) so that the runner can keep many
requests in flight; a synchronous model is run in a worker thread.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pytest_tom.core.secrets import RedactedUrl, Secret, redact_url  # noqa: F401 - re-exported

Message = dict[str, str]


@dataclass(frozen=True)
class SamplingParams:
    temperature: float = 0.0
    max_tokens: int | None = None
    seed: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"temperature": self.temperature, "max_tokens": self.max_tokens, "seed": self.seed}


@dataclass
class ModelRequest:
    """One model call. `item` is the benchmark item (plain view) the call is for."""

    messages: list[Message]
    params: SamplingParams
    item: Any = None  # pytest_tom.backends.base.ItemView for items; None for free calls
    step: int = 0  # 0 for the first call of an item, 1 for a chain-of-thought follow-up ...

    @property
    def prompt(self) -> str:
        """The content of the last user message (what most simple callables want)."""
        for m in reversed(self.messages):
            if m.get("role") == "user":
                return m.get("content", "")
        return ""


@dataclass
class ModelReply:
    text: str
    usage: dict[str, int] | None = None  # prompt_tokens, completion_tokens, total_tokens
    model: str | None = None


class BackendError(Exception):
    """A model call that failed. `retryable` marks failures worth trying again."""

    def __init__(self, message: str, *, kind: str = "request_failed", retryable: bool = False,
                 status: int | None = None, retry_after: float | None = None,
                 timed_out: bool = False):
        super().__init__(message)
        self.kind = kind
        self.retryable = retryable
        self.status = status
        self.retry_after = retry_after
        self.timed_out = timed_out  # no answer in time: often a very long answer


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
    source: dict[str, Any]
    meta: dict[str, Any] = field(default_factory=dict)
    scenario: str = ""


class Backend:
    """Base class. Subclasses set `name` and implement `acomplete`."""

    name: str = "backend"
    model: str = ""
    # True: the backend has no answer length of its own (a server generates until it stops);
    # requests without --tom-max-tokens then carry the family's default (answer_length.py)
    family_max_tokens: bool = False

    async def acomplete(self, request: ModelRequest) -> ModelReply:
        raise NotImplementedError

    def identity(self) -> dict[str, Any]:
        """What identifies the model for caching and reports: never a secret."""
        return {"backend": self.name, "model": self.model}

    def describe(self) -> str:
        return f"{self.name}:{self.model}" if self.model else self.name

    async def aclose(self) -> None:
        """Release connections; called once at the end of the session."""
