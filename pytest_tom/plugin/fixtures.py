"""`tom_model`: the configured model offered to users' own tests as a plain object."""

from __future__ import annotations

import itertools
from dataclasses import replace
from typing import Any

import pytest

from pytest_tom.asking.completion import Completion
from pytest_tom.backends.base import Message, ModelRequest
from pytest_tom.plugin.context import CONTEXT_KEY, RunContext
from pytest_tom.plugin.request_phase import REQUESTS_KEY, RequestPhase


class ModelHandle:
    """Ask the configured model something from a test: `tom_model.ask("...") -> str`.

    Calls go through the same runner as the suites (concurrency, retries).
    """

    _counter = itertools.count()

    def __init__(self, ctx: RunContext, requests: RequestPhase):
        self._ctx = ctx
        self._requests = requests
        self.name: str = ctx.backend.describe()

    def complete(self, messages: list[Message], **params: Any) -> Completion:
        """One call with these chat messages; returns the Completion (text or error)."""
        base = self._ctx.params
        sampling = replace(base, **params) if params else base
        request = ModelRequest(messages=list(messages), params=sampling)
        key = f"__fixture__::{next(self._counter)}"
        return self._requests.runner.result(key, lambda rs: None if rs else request)

    def ask(self, prompt: str, system: str | None = None, **params: Any) -> str:
        """The reply text to one user prompt; raises RuntimeError when the call failed."""
        messages: list[Message] = [{"role": "system", "content": system}] if system else []
        messages.append({"role": "user", "content": prompt})
        comp = self.complete(messages, **params)
        if comp.error is not None:
            raise RuntimeError(f"{self.name}: {comp.error.message}")
        return comp.final

    def __repr__(self) -> str:
        return f"<tom_model {self.name}>"


def model_handle(config: pytest.Config) -> ModelHandle:
    """The `tom_model` fixture's value (a skip when this process has no run: an xdist
    worker whose run could not start)."""
    ctx = config.stash.get(CONTEXT_KEY, None)
    requests = config.stash.get(REQUESTS_KEY, None)
    if ctx is None or requests is None:
        pytest.skip("no model configured: pass --tom-model (or set tom_model in the ini file)")
    return ModelHandle(ctx, requests)
