"""`python:<module>:<callable>`: a Python function answers (sync or async).

The callable gets a :class:`ModelRequest` (messages, params, step, and `item`
with id, family, kind, question, choices as shown, gold, tags, source) and
returns the reply text (or a ModelReply). `<module>` may also be a path to a
.py file. A synchronous callable runs in a worker thread so that many items
can be in flight at once.
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import inspect
import sys
from pathlib import Path
from typing import Any

from pytest_tom.backends.base import Backend, BackendError, ModelReply, ModelRequest


class PythonBackend(Backend):
    name = "python"

    def __init__(self, target: str, fn: Any):
        self.model = target
        self.fn = fn

    async def acomplete(self, request: ModelRequest) -> ModelReply:
        try:
            if inspect.iscoroutinefunction(self.fn):
                out = await self.fn(request)
            else:
                out = await asyncio.to_thread(self.fn, request)
        except Exception as exc:  # the user's function failed: an error outcome, not a crash
            raise BackendError(f"{self.model} raised {type(exc).__name__}: {exc}") from exc
        if isinstance(out, ModelReply):
            return out
        if not isinstance(out, str):
            raise BackendError(f"{self.model} returned {type(out).__name__}, expected a str")
        return ModelReply(text=out)


def _import(module: str, rootdir: str | None) -> Any:
    if module.endswith(".py") or "/" in module:
        path = Path(module)
        if not path.is_absolute() and rootdir:
            path = Path(rootdir) / path
        spec = importlib.util.spec_from_file_location(path.stem, path)
        if spec is None or spec.loader is None or not path.exists():
            raise FileNotFoundError(f"no Python file at {path}")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name != module.split(".")[0] or not rootdir:
            raise
        for extra in (rootdir, str(Path.cwd())):
            if extra not in sys.path:
                sys.path.insert(0, extra)
        return importlib.import_module(module)


def create(rest: str, options: dict[str, Any]) -> Backend:
    from pytest_tom.backends import BackendSpecError

    module, sep, attr = rest.rpartition(":")
    if not sep or not module or not attr:
        raise BackendSpecError(f"--tom-model=python:{rest}: expected python:<module>:<callable>, "
                               f"e.g. python:my_answers:answer or python:tools/answer.py:answer")
    try:
        mod = _import(module, options.get("rootdir"))
    except (ImportError, FileNotFoundError) as exc:
        raise BackendSpecError(f"--tom-model=python:{rest}: cannot import {module!r}: {exc}") from exc
    fn = getattr(mod, attr, None)
    if not callable(fn):
        raise BackendSpecError(f"--tom-model=python:{rest}: {module!r} has no callable {attr!r}")
    return PythonBackend(rest, fn)
