"""The hook pytest-tom adds to pytest (registered by the entry point's `pytest_addhooks`)."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.hookspec(firstresult=True)
def pytest_tom_backend(config: pytest.Config, spec: str) -> Any:
    """The model for `--tom-model=SPEC`, or None when SPEC is not yours.

    Implement it in a `conftest.py` (or a plugin) to hand pytest-tom a model your
    repository already has. It is asked for every spec that names no built-in or
    registered backend (not `openai:`, `python:`, `local`, `hf:`, `replay:`,
    `fixture:` ...), once per process that makes model calls: once in a plain run, once
    in each xdist worker, never on the xdist controller, never per item or per thread.

    Return an answerer (`pytest_tom.backends.base.Answerer`): a function of the request,
    or an object with `answer(request) -> str` (or `async def answer`), optionally
    `answer_batch(requests) -> list[str]`, `identity() -> str`, `thread_safe = True`,
    `batch_size`; or a `pytest_tom.api.Backend`. Mark your implementation
    `@pytest.hookimpl(optionalhook=True)` so that the conftest also loads when the
    plugin is disabled (`-p no:tom`). See docs/own-model.md.
    """
