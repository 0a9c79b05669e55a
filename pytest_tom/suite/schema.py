"""A small declarative schema for suite files.

Each family declares the shape of its scenarios with these classes; validation
walks the data, records every problem with its position, and never stops at the
first one. Semantic checks (an answer among its choices, unique ids) are done by
the families with :class:`Checker`.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from pytest_tom.core.json_value import JSONObject
from pytest_tom.suite.errors import Problem
from pytest_tom.suite.yaml_tree import Located, Path_

S = TypeVar("S", bound="Mapping[str, object]")  # a family's scenario TypedDict

if TYPE_CHECKING:  # a generic TypedDict needs Python 3.11 at run time; type checkers only
    from typing import Generic

    from typing_extensions import ReadOnly, TypedDict

    class _Scenarios(TypedDict, Generic[S], total=False):
        """What `checked_scenarios` reads of a family's document (a `SuiteDocument`):
        read-only, so that a document whose `scenarios` is required is one too."""

        scenarios: ReadOnly[list[S]]

IDENT = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
ITEM_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")


class Checker:
    """Collects problems for one file, turning data paths into file positions."""

    def __init__(self, path: str, located: Located):
        self.path = path
        self.located = located
        self.problems: list[Problem] = []

    def error(self, path: Path_, message: str, key: bool = False) -> None:
        line, col = self.located.pos(path, key=key)
        self.problems.append(Problem(self.path, line, col, message))

    def at(self, path: Path_) -> tuple[int, int]:
        return self.located.pos(path)


def describe(path: Path_) -> str:
    """`scenarios[3].questions[0].answer` for a data path."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "the document"


def type_name(value: Any) -> str:
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


class Node:
    """Base of schema nodes; `check` reports problems, returns True when the value is usable."""

    expected = "a value"

    def check(self, value: Any, path: Path_, ck: Checker) -> bool:
        raise NotImplementedError


@dataclass
class Str(Node):
    nonempty: bool = True
    pattern: re.Pattern[str] | None = None
    pattern_hint: str = ""
    expected: str = "a string"

    def check(self, value: Any, path: Path_, ck: Checker) -> bool:
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            ck.error(path, f"{describe(path)}: expected {self.expected}, got {type_name(value)}")
            return False
        if not isinstance(value, str):
            ck.error(path, f"{describe(path)}: expected {self.expected}, got {type_name(value)} "
                     f"({value!r}); quote it if it is meant as text")
            return False
        if self.nonempty and not value.strip():
            ck.error(path, f"{describe(path)}: must not be empty")
            return False
        if self.pattern is not None and not self.pattern.match(value):
            ck.error(path, f"{describe(path)}: {value!r} is not valid; {self.pattern_hint}")
            return False
        return True


@dataclass
class Text(Str):
    """A string where numbers are accepted and read as text (answers like 3 or 2.5)."""

    def check(self, value: Any, path: Path_, ck: Checker) -> bool:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return True
        return super().check(value, path, ck)


@dataclass
class Int(Node):
    minimum: int | None = None
    expected: str = "a whole number"

    def check(self, value: Any, path: Path_, ck: Checker) -> bool:
        if isinstance(value, bool) or not isinstance(value, int):
            ck.error(path, f"{describe(path)}: expected {self.expected}, got {type_name(value)}")
            return False
        if self.minimum is not None and value < self.minimum:
            ck.error(path, f"{describe(path)}: must be at least {self.minimum}, got {value}")
            return False
        return True


@dataclass
class Bool(Node):
    expected: str = "true or false"

    def check(self, value: Any, path: Path_, ck: Checker) -> bool:
        if not isinstance(value, bool):
            ck.error(path, f"{describe(path)}: expected {self.expected}, got {type_name(value)}")
            return False
        return True


@dataclass
class Enum(Node):
    values: tuple[str, ...] = ()

    def check(self, value: Any, path: Path_, ck: Checker) -> bool:
        if isinstance(value, bool):  # YAML 1.1 reads yes/no as booleans
            value = "yes" if value else "no"
        if not isinstance(value, str) or value not in self.values:
            hint = did_you_mean(str(value), self.values)
            ck.error(path, f"{describe(path)}: expected one of {', '.join(self.values)}, "
                     f"got {value!r}{hint}")
            return False
        return True


@dataclass
class ListOf(Node):
    item: Node = field(default_factory=Str)
    min_len: int = 0
    max_len: int | None = None
    unique: bool = False

    def check(self, value: Any, path: Path_, ck: Checker) -> bool:
        if not isinstance(value, list):
            ck.error(path, f"{describe(path)}: expected a list, got {type_name(value)}")
            return False
        ok = True
        if len(value) < self.min_len:
            ck.error(path, f"{describe(path)}: needs at least {self.min_len} entr"
                     f"{'y' if self.min_len == 1 else 'ies'}, got {len(value)}")
            ok = False
        if self.max_len is not None and len(value) > self.max_len:
            ck.error(path, f"{describe(path)}: at most {self.max_len} entries, got {len(value)}")
            ok = False
        seen: dict[str, int] = {}
        for i, v in enumerate(value):
            ok = self.item.check(v, (*path, i), ck) and ok
            if self.unique and isinstance(v, str | int | float):
                k = str(v).strip().lower()
                if k in seen:
                    ck.error((*path, i), f"{describe((*path, i))}: {v!r} repeats entry {seen[k]}")
                    ok = False
                seen.setdefault(k, i)
        return ok


@dataclass
class Any_(Node):
    def check(self, value: Any, path: Path_, ck: Checker) -> bool:
        return True


@dataclass
class Field:
    node: Node
    required: bool = False
    doc: str = ""


@dataclass
class Obj(Node):
    """A mapping with known keys; unknown keys are errors with a did-you-mean."""

    fields: dict[str, Field] = field(default_factory=dict)
    what: str = "mapping"
    # a check beyond the keys, of the mapping as read (its keys checked, not yet its values)
    extra: Callable[[JSONObject, Path_, Checker], None] | None = None

    def check(self, value: Any, path: Path_, ck: Checker) -> bool:
        if not isinstance(value, dict):
            ck.error(path, f"{describe(path)}: expected a {self.what} (key: value lines), "
                     f"got {type_name(value)}")
            return False
        ok = True
        for key in value:
            if key not in self.fields:
                hint = did_you_mean(str(key), self.fields)
                allowed = ", ".join(self.fields)
                ck.error((*path, key), f"{describe((*path, key))}: unknown key {key!r} in a "
                         f"{self.what}{hint} (allowed: {allowed})", key=True)
                ok = False
        for name, f in self.fields.items():
            if name not in value:
                if f.required:
                    ck.error(path, f"{describe(path)}: missing required key {name!r}"
                             + (f" ({f.doc})" if f.doc else ""))
                    ok = False
                continue
            ok = f.node.check(value[name], (*path, name), ck) and ok
        if ok and self.extra is not None:
            self.extra(value, path, ck)
        return ok


def did_you_mean(word: str, options: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, list(options), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def check_unique_ids(entries: list[Any], path: Path_, ck: Checker, what: str,
                     key: str = "id") -> None:
    """Report every entry whose id repeats an earlier one, naming the first line."""
    first: dict[str, int] = {}
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict) or not isinstance(entry.get(key), str):
            continue
        ident = entry[key]
        if ident in first:
            line = ck.at((*path, first[ident], key))[0]
            ck.error((*path, i, key), f"duplicate {what} id {ident!r} (first used on line {line}); "
                     f"ids must be unique")
        else:
            first[ident] = i



def checked_scenarios(data: _Scenarios[S], ck: Checker,
                      what: str) -> Iterator[tuple[Path_, S]]:
    """A document's scenarios for a family's `check`, each with its path `("scenarios", i)`:
    repeated ids are reported first (`what`: "story", "question" ...), and an entry that is
    no mapping is passed over (the schema has reported it). `data`: the family's document
    (its TypedDict, whose `scenarios` are its scenario TypedDict `S`), as read: `check` also
    meets documents the schema found faults in, so the list and each entry are checked here."""
    listed = data.get("scenarios")
    scenarios = list(listed) if isinstance(listed, list) else []
    check_unique_ids(scenarios, ("scenarios",), ck, what)
    for i, scenario in enumerate(scenarios):
        if isinstance(scenario, dict):
            yield ("scenarios", i), scenario

ID_HINT = "use letters, digits, _, - and ."
TAG_HINT = "a tag is an identifier: a letter, then letters, digits or _"
ID = Str(pattern=ITEM_ID, pattern_hint=ID_HINT)  # scenario, question, suite ids
TAG = Str(pattern=IDENT, pattern_hint=TAG_HINT)  # tags become pytest markers
