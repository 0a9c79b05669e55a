"""Backend registry: `--tom-model` specs like `openai:gpt-4o`, `python:mod:fn`,
`replay:file.jsonl`, `local[:model.gguf]`, `hf:model_dir`, plus entry points in the group
``pytest_tom.backends`` (name -> factory(spec, options) -> Backend). Specs no backend
names go to the `pytest_tom_backend` hook (`plugin/own_model.py`)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Any

from pytest_tom.backends.base import Backend, BackendError, ModelReply, ModelRequest, SamplingParams

ENTRY_POINT_GROUP = "pytest_tom.backends"
BUILTIN: dict[str, str] = {
    "openai": "pytest_tom.backends.openai_backend:create",
    "python": "pytest_tom.backends.python_backend:create",
    "replay": "pytest_tom.backends.replay:create",
    "local": "pytest_tom.backends.local:create",
    "hf": "pytest_tom.backends.hf:create",
}

__all__ = ["Backend", "BackendError", "ModelReply", "ModelRequest", "SamplingParams", "create_backend"]


class BackendSpecError(ValueError):
    """A --tom-model value that names no usable backend (a usage error)."""


def _factories() -> dict[str, str]:
    out = dict(BUILTIN)
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        out.setdefault(ep.name, ep.value)
    return out


def backend_kinds() -> list[str]:
    """The spec prefixes a backend answers (built in, then registered), `fixture` aside."""
    return list(_factories())


def create_backend(spec: str, options: dict[str, Any]) -> Backend:
    """Build the backend a `--tom-model` spec names. `options` holds base_url, rootdir, ..."""
    kind, _, rest = spec.partition(":")
    factories = _factories()
    if kind not in factories:
        raise BackendSpecError(
            f"--tom-model={spec!r}: unknown backend {kind!r}; use one of "
            + ", ".join(f"{k}:..." for k in factories)
            + " (e.g. openai:gpt-4o-mini, python:mymodule:answer, replay:responses.jsonl, local)"
            + "; or fixture:NAME, or answer the spec with a pytest_tom_backend hook in "
            "conftest.py (docs/own-model.md)"
        )
    module, _, attr = factories[kind].partition(":")
    factory: Callable[[str, dict[str, Any]], Backend] = getattr(importlib.import_module(module), attr)
    return factory(rest, options)
