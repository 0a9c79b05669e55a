"""Safe YAML loading that keeps the line and column of every value.

PyYAML's composer gives nodes with marks; we build plain Python values from
them ourselves (safe constructors only for scalars) and record, for every path
into the document, where its value and its key stand. Duplicate keys, which
PyYAML would silently collapse, are reported.
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
    """YAML that does not parse (or uses tags a safe loader refuses)."""

    def __init__(self, message: str, line: int, column: int):
        super().__init__(message)
        self.line = line
        self.column = column


_PLAIN_TAGS = {"tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"}


def _mark(node: yaml.Node) -> tuple[int, int]:
    return node.start_mark.line + 1, node.start_mark.column + 1


def load_located(text: str) -> Located:
    """Parse one YAML document safely, keeping positions. Raises YamlSyntaxError."""
    loader = _Loader(text)
    try:
        root = loader.get_single_node()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        raise YamlSyntaxError(f"YAML syntax error: {exc.problem or exc}", line, col) from None
    except yaml.YAMLError as exc:
        raise YamlSyntaxError(f"YAML error: {exc}", 1, 1) from None
    finally:
        loader.dispose()
    out = Located(data=None)
    if root is None:
        return out
    constructor = yaml.SafeLoader("")

    def build(node: yaml.Node, path: Path_) -> Any:
        out.value_pos[path] = _mark(node)
        if isinstance(node, yaml.MappingNode | yaml.SequenceNode) and node.tag not in _PLAIN_TAGS:
            raise YamlSyntaxError(
                f"unsupported YAML tag {node.tag!r}: suites are data, only plain YAML types are allowed",
                *_mark(node),
            )
        if isinstance(node, yaml.MappingNode):
            result: dict[Any, Any] = {}
            for key_node, value_node in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    raise YamlSyntaxError("merge keys (<<) are not supported in suites", *_mark(key_node))
                key = build_scalar(key_node)
                kpath = (*path, key)
                if key in result:
                    out.duplicate_keys.append((kpath, _mark(key_node)))
                out.key_pos[kpath] = _mark(key_node)
                result[key] = build(value_node, kpath)
            return result
        if isinstance(node, yaml.SequenceNode):
            return [build(child, (*path, i)) for i, child in enumerate(node.value)]
        return build_scalar(node)

    def build_scalar(node: yaml.Node) -> Any:
        if not isinstance(node, yaml.ScalarNode):
            raise YamlSyntaxError("a mapping key must be a plain value", *_mark(node))
        try:
            return constructor.construct_object(node, deep=True)
        except yaml.constructor.ConstructorError:
            raise YamlSyntaxError(
                f"unsupported YAML tag {node.tag!r}: suites are data, only plain YAML types are allowed",
                *_mark(node),
            ) from None

    out.data = build(root, ())
    return out
