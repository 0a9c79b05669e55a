"""`python:<module>:<name>` and `python:<path/to/file.py>:<name>`: your own Python code answers.

`<name>` is an answerer (`backends/base.py`, docs/own-model.md): a function of the
request (sync or async), or an object with `answer(request)` and optionally
`answer_batch`, `identity()`, `thread_safe`, `batch_size`. This module only finds the
object; `in_process.InProcessBackend` runs it like every other in-process model.

The callable gets a :class:`ModelRequest` (messages, params, step, and `item`
with id, family, kind, question, choices as shown, gold, tags, source) and
returns the reply text (or a ModelReply).

A file is imported with its own directory on `sys.path` (a `tom_answer.py` beside a
`mymodel/` package can `import mymodel`), under its own name in `sys.modules`. A module
name is looked up on `sys.path`, then in the rootdir and the current directory.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Any

from pytest_tom.backends import BackendSpecError
from pytest_tom.backends.base import Backend
from pytest_tom.backends.in_process import AnswererError, InProcessBackend
from pytest_tom.backends.options import BackendOptions


class ImportProblem(Exception):
    """The module or file could not be imported; the message says what and where."""


def _on_path(folder: Path) -> None:
    entry = str(folder)
    if entry not in sys.path:
        sys.path.insert(0, entry)


def _import_file(path: Path, spec_text: str) -> Any:
    if not path.is_file():
        raise ImportProblem(f"no Python file at {path}")
    _on_path(path.parent)  # the file's own modules and packages, as `python file.py` would
    name = path.stem
    module_spec = importlib.util.spec_from_file_location(name, path)
    if module_spec is None or module_spec.loader is None:
        raise ImportProblem(f"{path} cannot be imported as a Python module")
    mod = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = mod  # dataclasses, pickling and `import name` elsewhere find it
    try:
        module_spec.loader.exec_module(mod)
    except ModuleNotFoundError as exc:
        sys.modules.pop(name, None)
        raise ImportProblem(
            f"importing {path} failed: No module named {exc.name!r} (its folder {path.parent} "
            f"is on sys.path; install {exc.name!r} into this environment, or put it beside "
            f"the file)") from exc
    except BaseException as exc:
        sys.modules.pop(name, None)
        raise ImportProblem(f"importing {path} raised {type(exc).__name__}: {exc}") from exc
    return mod


def _import_module(module: str, rootdir: str | None) -> Any:
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name != module.split(".")[0]:
            raise ImportProblem(f"importing {module!r} failed: No module named {exc.name!r} "
                                f"(install it into this environment)") from exc
    searched = [str(p) for p in (Path(rootdir) if rootdir else None, Path.cwd()) if p]
    for extra in searched:
        _on_path(Path(extra))
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        raise ImportProblem(
            f"No module named {exc.name!r} (looked on sys.path, in the rootdir and the current "
            f"directory: {', '.join(dict.fromkeys(searched))}; for a file give its path, e.g. "
            f"python:path/to/{module.replace('.', '/')}.py:NAME)") from exc
    except BaseException as exc:
        raise ImportProblem(f"importing {module!r} raised {type(exc).__name__}: {exc}") from exc


def load_target(module: str, rootdir: str | None) -> Any:
    """The module a `python:` spec names (a dotted name or a path to a .py file)."""
    if module.endswith(".py") or "/" in module or "\\" in module:
        path = Path(module).expanduser()
        if not path.is_absolute():
            candidates = [Path.cwd() / path] + ([Path(rootdir) / path] if rootdir else [])
            path = next((c for c in candidates if c.exists()), candidates[-1])
        return _import_file(path.resolve(), module)
    return _import_module(module, rootdir)


def create(rest: str, options: BackendOptions) -> Backend:
    module, sep, attr = rest.rpartition(":")
    if not sep or not module or not attr:
        raise BackendSpecError(f"--tom-model=python:{rest}: expected python:<module>:<callable>, "
                               f"e.g. python:my_answers:answer or python:tools/answer.py:answer")
    try:
        mod = load_target(module, options.rootdir)
    except ImportProblem as exc:
        raise BackendSpecError(f"--tom-model=python:{rest}: cannot import {module!r}: {exc}") from None
    target = getattr(mod, attr, None)  # the name the spec gives, in its module
    if target is None:
        raise BackendSpecError(f"--tom-model=python:{rest}: {module!r} has no callable {attr!r}")
    # whether it is an answerer is the adapter's to say (AnswererError below)
    try:
        return InProcessBackend(target, name="python", label=rest,
                                batch_size=options.batch_size)
    except AnswererError as exc:
        raise BackendSpecError(f"--tom-model=python:{rest}: {exc}") from None
