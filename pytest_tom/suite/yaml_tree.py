"""Safe YAML loading that keeps the line and column of every value.

We build plain Python values straight from the parser's events (libyaml when
available), with PyYAML's safe constructors for scalars only, and record, for
every path into the document, where its value and its key stand. Duplicate
keys, which PyYAML would silently collapse, are reported.

Building from events rather than from PyYAML's composed node graph is what
keeps hostile files harmless, each refused at its line and column:

- nesting deeper than `MAX_DEPTH` (a file of 100,000 `[` would overflow the C
  stack of libyaml's recursive composer and kill the process);
- aliases that expand to more than `MAX_ALIAS_VALUES` values in all (a
  "billion laughs" file is a few hundred bytes and would expand to 10^9);
- an alias to the collection that contains it (an infinite value).

An alias is expanded into a copy of its anchor's value (with the anchor's
positions), as if written out, so no two places of the data share an object.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml

try:  # libyaml is ~10x faster for large generated suites
    _Loader: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on the PyYAML build
    _Loader = yaml.SafeLoader

Path_ = tuple[Any, ...]

MAX_DEPTH = 64  # levels of nested mappings and lists; suites use fewer than 10
MAX_ALIAS_VALUES = 100_000  # values that aliases may add to a document, in all


@dataclass
class Located:
    """A document as plain data plus the position (line, column) of each path."""

    data: Any
    value_pos: dict[Path_, tuple[int, int]] = field(default_factory=dict)
    key_pos: dict[Path_, tuple[int, int]] = field(default_factory=dict)
    duplicate_keys: list[tuple[Path_, tuple[int, int]]] = field(default_factory=list)

    def pos(self, path: Path_, key: bool = False) -> tuple[int, int]:
        """Best position for a path: its key (if asked), its value, or the nearest parent."""
        p = tuple(path)
        if key and p in self.key_pos:
            return self.key_pos[p]
        while p:
            if p in self.value_pos:
                return self.value_pos[p]
            p = p[:-1]
        return self.value_pos.get((), (1, 1))


class YamlSyntaxError(Exception):
    """YAML that does not parse, uses tags a safe loader refuses, or is hostile."""

    def __init__(self, message: str, line: int, column: int):
        super().__init__(message)
        self.line = line
        self.column = column


_STR = "tag:yaml.org,2002:str"
_MERGE = "tag:yaml.org,2002:merge"
_MAP_TAGS = {None, "!", "tag:yaml.org,2002:map"}
_SEQ_TAGS = {None, "!", "tag:yaml.org,2002:seq"}
_SCALAR_TAGS = {f"tag:yaml.org,2002:{t}"
                for t in ("null", "bool", "int", "float", "str", "timestamp", "binary")}
_KEY = object()  # a mapping frame waiting for its next key


def _mark(mark: Any) -> tuple[int, int]:
    return mark.line + 1, mark.column + 1


def load_located(text: str) -> Located:
    """Parse one YAML document safely, keeping positions. Raises YamlSyntaxError."""
    try:
        return _load(text, _Loader)
    except _TooDeepForLibyaml:
        # libyaml (PyYAML 6.0.4 and later) refuses flow collections nested 1,000 deep while
        # it scans ahead, before the events that would reach MAX_DEPTH are built; the
        # pure-Python parser has no such limit, so the project's own check says where
        return _load(text, yaml.SafeLoader)


class _TooDeepForLibyaml(Exception):
    pass


def _load(text: str, loader_class: Any) -> Located:
    loader = loader_class(text)
    try:
        return _Builder(loader).run()
    except yaml.MarkedYAMLError as exc:
        if loader_class is not yaml.SafeLoader and "nesting depth" in str(exc.problem):
            raise _TooDeepForLibyaml() from None
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        raise YamlSyntaxError(f"YAML syntax error: {exc.problem or exc}", line, col) from None
    except yaml.YAMLError as exc:
        raise YamlSyntaxError(f"YAML error: {exc}", 1, 1) from None
    finally:
        loader.dispose()


class _Frame:
    """An open mapping or list: its value, path, the key waiting for a value (mappings),
    its anchor and, while anchored, the positions recorded inside it."""

    __slots__ = ("value", "path", "key", "key_pos", "anchor", "record", "height")

    def __init__(self, value: Any, path: Path_, anchor: str | None):
        self.value = value
        self.path = path
        self.key: Any = _KEY
        self.key_pos: tuple[int, int] = (1, 1)
        self.anchor = anchor
        # positions inside an anchored collection, relative to it: (suffix, pos, is_key)
        self.record: list[tuple[Path_, tuple[int, int], bool]] | None = [] if anchor else None
        self.height = 1  # levels of nesting it holds (itself included)


class _Builder:
    def __init__(self, loader: Any):
        self.loader = loader
        self.out = Located(data=None)
        self.stack: list[_Frame] = []
        self.recording: list[_Frame] = []  # open anchored frames
        # anchor -> (value, height, positions relative to it)
        self.anchors: dict[str, tuple[Any, int, list[tuple[Path_, tuple[int, int], bool]]]] = {}
        self.expanded = 0
        self.constructor = yaml.SafeLoader("")
        self.documents = 0

    # -- positions ---------------------------------------------------------------------
    def _record(self, path: Path_, pos: tuple[int, int], is_key: bool) -> None:
        (self.out.key_pos if is_key else self.out.value_pos)[path] = pos
        for frame in self.recording:
            frame.record.append((path[len(frame.path):], pos, is_key))  # type: ignore[union-attr]

    # -- the event loop ----------------------------------------------------------------
    def run(self) -> Located:
        get_event = self.loader.get_event
        scalar, alias = yaml.ScalarEvent, yaml.AliasEvent
        map_start, seq_start = yaml.MappingStartEvent, yaml.SequenceStartEvent
        map_end, seq_end = yaml.MappingEndEvent, yaml.SequenceEndEvent
        while True:
            event = get_event()
            if event is None:
                return self.out
            cls = event.__class__
            if cls is scalar:
                self._scalar(event)
            elif cls is map_start or cls is seq_start:
                self._open(event, cls is map_start)
            elif cls is map_end or cls is seq_end:
                self._close()
            elif cls is alias:
                self._alias(event)
            elif cls is yaml.DocumentStartEvent:
                self.documents += 1
                if self.documents > 1:
                    raise YamlSyntaxError("a suite file holds one YAML document: remove the "
                                          "second '---' and what follows, or make it a "
                                          "file of its own", *_mark(event.start_mark))

    def _where(self, event: Any) -> tuple[Path_, bool]:
        """The path the next value goes to, and whether it is a mapping key."""
        if not self.stack:
            return (), False
        top = self.stack[-1]
        if isinstance(top.value, dict):
            if top.key is _KEY:
                return top.path, True
            return (*top.path, top.key), False
        return (*top.path, len(top.value)), False

    def _place(self, value: Any, path: Path_, pos: tuple[int, int]) -> None:
        """Put a finished value where it belongs (the root, a list, a mapping's key)."""
        if not self.stack:
            self.out.data = value
            return
        top = self.stack[-1]
        if isinstance(top.value, list):
            top.value.append(value)
        else:
            top.value[top.key] = value
            top.key = _KEY

    def _key(self, key: Any, pos: tuple[int, int]) -> None:
        top = self.stack[-1]
        kpath = (*top.path, key)
        if key in top.value:
            self.out.duplicate_keys.append((kpath, pos))
        top.key, top.key_pos = key, pos
        self._record(kpath, pos, True)

    def _scalar(self, event: Any) -> None:
        pos = _mark(event.start_mark)
        tag = event.tag
        if tag is None or tag == "!":
            tag = self.loader.resolve(yaml.ScalarNode, event.value, event.implicit)
        if tag == _STR:
            value: Any = event.value
        elif tag in _SCALAR_TAGS:
            node = yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark,
                                   style=event.style)
            value = self.constructor.yaml_constructors[tag](self.constructor, node)
        elif tag == _MERGE:
            raise YamlSyntaxError("merge keys (<<) are not supported in suites", *pos)
        else:
            raise YamlSyntaxError(f"unsupported YAML tag {tag!r}: suites are data, only plain "
                                  f"YAML types are allowed", *pos)
        path, is_key = self._where(event)
        if is_key:
            self._key(value, pos)
            if event.anchor:
                self.anchors[event.anchor] = (value, 0, [((), pos, False)])
            return
        self._record(path, pos, False)
        if event.anchor:
            self.anchors[event.anchor] = (value, 0, [((), pos, False)])
        self._place(value, path, pos)

    def _open(self, event: Any, mapping: bool) -> None:
        pos = _mark(event.start_mark)
        if event.tag not in (_MAP_TAGS if mapping else _SEQ_TAGS):
            raise YamlSyntaxError(f"unsupported YAML tag {event.tag!r}: suites are data, only "
                                  f"plain YAML types are allowed", *pos)
        path, is_key = self._where(event)
        if is_key:
            raise YamlSyntaxError("a mapping key must be a plain value", *pos)
        if len(self.stack) >= MAX_DEPTH:
            raise YamlSyntaxError(f"nested more than {MAX_DEPTH} levels deep: suites are "
                                  f"never that deep; is this file generated by mistake?", *pos)
        self._record(path, pos, False)
        frame = _Frame({} if mapping else [], path, event.anchor)
        if frame.anchor:
            frame.record.append(((), pos, False))  # type: ignore[union-attr]
            self.recording.append(frame)
        self.stack.append(frame)

    def _close(self) -> None:
        frame = self.stack.pop()
        if frame.anchor:
            self.recording.remove(frame)
            self.anchors[frame.anchor] = (frame.value, frame.height, frame.record or [])
        if self.stack:
            parent = self.stack[-1]
            parent.height = max(parent.height, frame.height + 1)
        self._place(frame.value, frame.path, (1, 1))

    def _alias(self, event: Any) -> None:
        pos = _mark(event.start_mark)
        name = event.anchor
        if name not in self.anchors:
            if any(f.anchor == name for f in self.stack):
                raise YamlSyntaxError(f"alias *{name} refers to a collection that contains it "
                                      f"(an infinite value)", *pos)
            raise YamlSyntaxError(f"alias *{name} has no anchor &{name} before it", *pos)
        value, height, positions = self.anchors[name]
        self.expanded += len(positions)
        if self.expanded > MAX_ALIAS_VALUES:
            raise YamlSyntaxError(f"aliases expand to more than {MAX_ALIAS_VALUES:,} values "
                                  f"(an alias bomb?): write the data out, or use fewer "
                                  f"aliases", *pos)
        if len(self.stack) + height > MAX_DEPTH:
            raise YamlSyntaxError(f"alias *{name} makes the data nested more than {MAX_DEPTH} "
                                  f"levels deep", *pos)
        path, is_key = self._where(event)
        if is_key:
            if height:
                raise YamlSyntaxError("a mapping key must be a plain value", *pos)
            self._key(value, pos)
            return
        for suffix, p, k in positions:
            self._record((*path, *suffix), p, k)
        if self.stack:
            top = self.stack[-1]
            top.height = max(top.height, height + 1)
        self._place(_copy(value), path, pos)


def _copy(value: Any) -> Any:
    """A copy of plain data (dicts and lists; scalars are immutable or left shared)."""
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value
