"""One registry kind for what pytest-tom finds by name: backends (`--tom-model=openai:...`)
and families (`family: fantom`).

A registry maps names to *targets*, import paths written `module:attribute` (or `module`
alone, whose attribute the registry's `pick` finds), that are imported only when a name is
loaded. Names come from the package itself (a table, or one folder per plug-in unit:
`folder_targets`) and then from other installed packages through an entry-point group; a
built-in name wins over an entry point of the same name. Asking for a name nobody
registered raises `UnknownName`, which lists the names that exist; a target that cannot be
loaded raises `BrokenTarget`, which says which package registered it.
"""

from __future__ import annotations

import difflib
import importlib
import os
import sys
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # importlib.metadata is imported at the first lookup (`group_entry_points`):
    # openai:'s request process imports this module (through pytest_tom.backends) and
    # never looks a name up; the import was about an eighth of its start, which the
    # first request of a run waits for (issue 47)
    from importlib.metadata import EntryPoint


class RegistryError(LookupError):
    """A name a registry cannot give: unknown, or its target cannot be loaded."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class UnknownName(RegistryError, KeyError):
    """No package registered the name (a KeyError too, for `except KeyError` callers)."""

    def __init__(self, message: str, name: str, known: list[str]):
        super().__init__(message)
        self.name = name
        self.known = known


class BrokenTarget(RegistryError):
    """The name is registered but its target does not import (its cause is chained)."""


@dataclass(frozen=True)
class Entry:
    """One registered name: its target and who registered it."""

    name: str
    target: str
    package: str  # the distribution that registered it: "pytest-tom" for a built-in
    entry_point: str = ""  # `name = target` in `group`, for one from another package

    def origin(self) -> str:
        if not self.entry_point:
            return f"built into {self.package} ({self.target})"
        return f"registered by the package {self.package} ({self.entry_point})"


def folder_targets(directory: Path, package: str, module: str) -> dict[str, str]:
    """`name -> package.name.module` for every folder `name/` of `directory` that holds
    `module.py`: a plug-in unit is found by its folder, with no line elsewhere. Sorted by
    name; nothing is imported."""
    return {sub.name: f"{package}.{sub.name}.{module}"
            for sub in sorted(directory.iterdir())
            if sub.is_dir() and (sub / f"{module}.py").is_file() and sub.name.isidentifier()}


# group -> (the sys.path state, the group's entry points read then)
_READ: dict[str, tuple[tuple[tuple[str, Hashable], ...], tuple[EntryPoint, ...]]] = {}


def entry_points(group: str) -> Any:
    """`importlib.metadata.entry_points(group=group)`, the module imported here, at the
    first lookup (see the imports above)."""
    from importlib.metadata import entry_points as read  # noqa: PLC0415 the request process never reads one

    return read(group=group)


def group_entry_points(group: str) -> tuple[EntryPoint, ...]:
    """The entry points of `group`, read again whenever sys.path or the distributions in
    one of its folders changed (a package installed during the process is found,
    `sys_path_state`), else as read last: reading
    every installed distribution's metadata took a run's start-up about 20 ms per lookup,
    and a run looks its families up a dozen times before collection."""
    paths = sys_path_state()
    last = _READ.get(group)
    if last is not None and last[0] == paths:
        return last[1]
    found = tuple(entry_points(group=group))
    _READ[group] = (paths, found)
    return found


# a sys.path entry -> (its modification time, its distributions' state then)
_FOLDERS: dict[str, tuple[float, tuple[tuple[str, int], ...]]] = {}
DISTRIBUTION_SUFFIXES = (".dist-info", ".egg-info")


def sys_path_state() -> tuple[tuple[str, Hashable], ...]:
    """sys.path with the distributions each entry holds: what the installed distributions'
    metadata depends on, so a reader of it reads again only when this changed.

    A folder's state is the name and modification time of each `.dist-info` (`.egg-info`)
    in it: installing, removing or upgrading a package changes it, a run writing its
    report into a folder on sys.path (the current folder, a pytester run's folder) does
    not. The folder is listed again only when its own modification time changed, so an
    unchanged sys.path costs a stat per entry. Another entry (a zip file): its own time."""
    return tuple((entry, _state_of(entry)) for entry in sys.path)


def _state_of(entry: str) -> Hashable:
    mtime = _mtime(entry)
    known = _FOLDERS.get(entry)
    if known is not None and known[0] == mtime:
        return known[1]
    try:
        with os.scandir(entry or ".") as found:
            state = tuple(sorted((e.name, e.stat().st_mtime_ns) for e in found
                                 if e.name.endswith(DISTRIBUTION_SUFFIXES)))
    except OSError:  # missing, or not a folder
        return mtime
    _FOLDERS[entry] = (mtime, state)
    return state


def _mtime(path: str) -> float:
    try:
        return os.stat(path or ".").st_mtime
    except OSError:
        return -1.0


class Registry:
    """Names -> lazily imported targets, built-ins first, then the entry-point `group`.

    `builtin` is read at every lookup (a table may be changed, e.g. in a test); entry points
    are looked up at every lookup too, so a package installed on sys.path during the
    process is found (`group_entry_points`). `pick(module, name)` gives the object of a
    target written as a module alone."""

    def __init__(self, kind: str, plural: str, group: str, builtin: Mapping[str, str], *,
                 pick: Callable[[ModuleType, str], Any] | None = None, hint: str = ""):
        self.kind = kind
        self.plural = plural
        self.group = group
        self.builtin = builtin
        self.pick = pick
        self.hint = hint  # appended to the unknown-name message (how else to name one)

    def entries(self) -> dict[str, Entry]:
        """Every registered name with its target and origin, built-ins first."""
        out = {name: Entry(name, target, "pytest-tom") for name, target in self.builtin.items()}
        for ep in group_entry_points(self.group):
            if ep.name not in out:
                out[ep.name] = Entry(ep.name, ep.value, _distribution(ep),
                                     f"entry point {ep.name} = {ep.value} in {self.group}")
        return out

    def targets(self) -> dict[str, str]:
        """Name -> target, built-ins first, nothing imported."""
        return {name: entry.target for name, entry in self.entries().items()}

    def unknown(self, name: str, known: list[str] | None = None) -> UnknownName:
        """The error for `name` when nobody registered it: the closest name, and every name
        that exists (built-ins first, in their order)."""
        known = list(self.entries()) if known is None else known
        close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
        near = f" (did you mean {close[0]!r}?)" if close else ""
        message = (f"unknown {self.kind} {name!r}{near}; installed {self.plural}: "
                   f"{', '.join(known) or 'none'}{self.hint}")
        return UnknownName(message, name, known)

    def load(self, name: str) -> Any:
        """The object `name` is registered for, its target imported now. A built-in name
        is looked up without reading the entry points (which never override one): reading
        every installed distribution's entry points cost a run's start-up about 0.1 s for
        the families a run looks up one by one."""
        target = self.builtin.get(name)
        if target is not None:
            entry = Entry(name, target, "pytest-tom")
        else:
            entries = self.entries()
            if name not in entries:
                raise self.unknown(name, list(entries))
            entry = entries[name]
        module_name, _, attribute = entry.target.partition(":")
        try:
            module = importlib.import_module(module_name.strip())
            if attribute:
                found: Any = module
                for part in attribute.strip().split("."):
                    found = getattr(found, part)
                return found
            if self.pick is None:
                raise TypeError("the target names a module; write it as module:attribute")
            return self.pick(module, name)
        except Exception as exc:
            raise BrokenTarget(f"{self.kind} {name!r}, {entry.origin()}, cannot be loaded: "
                               f"{type(exc).__name__}: {exc}") from exc


def _distribution(ep: EntryPoint) -> str:
    """`name version` of the distribution that declares `ep` ("an unknown package" when the
    metadata does not say)."""
    dist = getattr(ep, "dist", None)
    if dist is None:
        return "an unknown package"
    return f"{dist.metadata['Name'] or dist.name} {dist.version}"
