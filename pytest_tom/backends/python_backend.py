"""`python:<module>:<callable>`: a Python function answers (sync or async).

The callable gets a :class:`ModelRequest` (messages, params, step, and `item`
with id, family, kind, question, choices as shown, gold, tags, source) and
returns the reply text (or a ModelReply). `<module>` may also be a path to a
.py file. A synchronous callable runs in a thread of its own so that many items
can be in flight at once.

The callable is the user's code, so nothing it does may stop the run: any
exception, `sys.exit()` and KeyboardInterrupt included, is an error outcome of
its item. A synchronous callable runs in a daemon thread: one that never
returns is abandoned at the deadline (`--tom-deadline`) and cannot keep the
process alive after the run. (An `async` callable that blocks the event loop
without awaiting cannot be abandoned: it must not block.)
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import importlib.util
import inspect
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pytest_tom.backends import BackendSpecError
from pytest_tom.backends.base import Backend, BackendError, ModelReply, ModelRequest


class PythonBackend(Backend):
    name = "python"

    def __init__(self, target: str, fn: Any):
        self.model = target
        self.fn = fn

    async def acomplete(self, request: ModelRequest) -> ModelReply:
        if inspect.iscoroutinefunction(self.fn):
            try:
                out = await self.fn(request)
            except asyncio.CancelledError:
                raise  # the runner gave up on this call (its deadline): not the user's error
            except BaseException as exc:  # SystemExit too: an error outcome, never a crash
                raise self._error(exc) from None
        else:
            out = await in_daemon_thread(self.fn, request, self._error)
        if isinstance(out, ModelReply):
            return out
        if not isinstance(out, str):
            raise BackendError(f"{self.model} returned {type(out).__name__}, expected a str")
        return ModelReply(text=out)


    def _error(self, exc: BaseException) -> BackendError:
        text = str(exc)
        return BackendError(f"{self.model} raised {type(exc).__name__}" + (f": {text}" if text else ""))


async def in_daemon_thread(fn: Callable[[Any], Any], arg: Any,
                           error: Callable[[BaseException], BackendError]) -> Any:
    """`fn(arg)` in a new daemon thread; its result, or `error(exc)` raised for whatever it
    raised (BaseException included). If the caller stops waiting, the thread is left to end
    on its own: being a daemon, it never holds up the interpreter's exit."""
    loop = asyncio.get_running_loop()
    fut: asyncio.Future[Any] = loop.create_future()

    def deliver(ok: bool, value: Any) -> None:
        if fut.done():  # cancelled meanwhile (deadline, end of the run)
            return
        if ok:
            fut.set_result(value)
        else:
            fut.set_exception(value)

    def work() -> None:
        try:
            ok, value = True, fn(arg)
        except BaseException as exc:  # the user's code: whatever it raised is reported
            ok, value = False, error(exc)
        with contextlib.suppress(RuntimeError):  # a closed loop: the run ended without it
            loop.call_soon_threadsafe(deliver, ok, value)

    threading.Thread(target=work, name="tom-answerer", daemon=True).start()
    return await fut


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
