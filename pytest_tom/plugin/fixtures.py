"""`tom_model`: the configured model offered to users' own tests as a plain object."""

from __future__ import annotations

import itertools
from dataclasses import replace
from typing import Any

from pytest_tom.backends.base import Message, ModelRequest
from pytest_tom.engine.runner import Completion


class ModelHandle:
    """Ask the configured model something from a test: `tom_model.ask("...") -> str`.

    Calls go through the same runner as the suites (concurrency, retries).
    """

    _counter = itertools.count()

    def __init__(self, session: Any):
        self._session = session
        self.name: str = session.backend.describe()

    def complete(self, messages: list[Message], **params: Any) -> Completion:
        """One call with these chat messages; returns the Completion (text or error)."""
        sampling = replace(self._session.params, **params) if params else self._session.params
        request = ModelRequest(messages=list(messages), params=sampling)
        key = f"__fixture__::{next(self._counter)}"
        return self._session.runner.result(key, lambda rs: None if rs else request)

    def ask(self, prompt: str, system: str | None = None, **params: Any) -> str:
        """The reply text to one user prompt; raises RuntimeError when the call failed."""
        messages: list[Message] = [{"role": "system", "content": system}] if system else []
        messages.append({"role": "user", "content": prompt})
        comp = self.complete(messages, **params)
        if comp.error:
            raise RuntimeError(f"{self.name}: {comp.error}")
        return comp.final

    def __repr__(self) -> str:
        return f"<tom_model {self.name}>"
