"""Backend registry: `--tom-model` specs like `openai:gpt-4o`, `python:mod:fn`,
`replay:file.jsonl`, `local[:model.gguf]`, `hf:model_dir`, plus entry points in the group
``pytest_tom.backends`` (name -> factory(spec, options: BackendOptions) -> Backend): one
`core.registry.Registry`, as the families are. Specs no backend names go to the
`pytest_tom_backend` hook (`plugin/own_model.py`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pytest_tom.backends.base import (
    Backend,
    BackendAbilities,
    BackendError,
    ModelReply,
    ModelRequest,
    SamplingParams,
)
from pytest_tom.core.registry import Registry, RegistryError, UnknownName

if TYPE_CHECKING:  # imported by the factories themselves; this module stays light
    from pytest_tom.backends.options import BackendOptions

ENTRY_POINT_GROUP = "pytest_tom.backends"
BUILTIN: dict[str, str] = {
    "openai": "pytest_tom.backends.openai_api.openai_backend:create",
    "python": "pytest_tom.backends.python_backend:create",
    "replay": "pytest_tom.backends.replay:create",
    "local": "pytest_tom.backends.local:create",
    "hf": "pytest_tom.backends.hf:create",
}

__all__ = ["Backend", "BackendAbilities", "BackendError", "ModelReply", "ModelRequest",
           "SamplingParams", "create_backend"]


class BackendSpecError(ValueError):
    """A --tom-model value that names no usable backend (a usage error)."""


REGISTRY = Registry(
    "backend", "backends", ENTRY_POINT_GROUP, BUILTIN,
    hint=" (e.g. openai:gpt-4o-mini, python:mymodule:answer, replay:responses.jsonl, local); "
         "or fixture:NAME, or answer the spec with a pytest_tom_backend hook in conftest.py "
         "(docs/own-model.md)")


def backend_kinds() -> list[str]:
    """The spec prefixes a backend answers (built in, then registered), `fixture` aside."""
    return list(REGISTRY.targets())


def create_backend(spec: str, options: BackendOptions) -> Backend:
    """Build the backend a `--tom-model` spec names, with the run's `BackendOptions`."""
    kind, _, rest = spec.partition(":")
    try:
        factory: Callable[[str, BackendOptions], Backend] = REGISTRY.load(kind)
    except UnknownName as exc:
        raise BackendSpecError(f"--tom-model={spec!r}: {exc}") from None
    except RegistryError as exc:  # an installed backend that does not load: which package
        raise BackendSpecError(f"--tom-model={spec!r}: {exc}") from exc
    return factory(rest, options)
