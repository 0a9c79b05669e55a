"""The type of data that is JSON (or YAML read safely) and nothing more precise.

Where the shape of a dict is known, it is a TypedDict or a dataclass of its own (core/record.py,
results/run_report.py, each family's schema.py). These aliases are for the places where it is not
known by design: an upstream benchmark file before a converter has checked it, a suite's free-form
`meta`, a backend's free-form request fields, a family's own option values. Unlike `Any`, a
`JSONValue` says what a reader may find there: a reader narrows it (`isinstance`) before use.

The alias is recursive. For type checkers it is written with string forward references; at run
time the reference carries its module, so that `typing.get_type_hints` resolves a TypedDict
that uses `JSONObject` from any module (tests/test_report_model.py reads core/record.py's this
way) without that module importing `JSONValue` too.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, ForwardRef, TypeAlias

if TYPE_CHECKING:
    JSONScalar: TypeAlias = "str | int | float | bool | None"
    JSONValue: TypeAlias = "JSONScalar | list[JSONValue] | dict[str, JSONValue]"
    JSONObject: TypeAlias = "dict[str, JSONValue]"
else:
    _VALUE = ForwardRef("JSONValue", module=__name__)
    JSONScalar = str | int | float | bool | None
    JSONValue = JSONScalar | list[_VALUE] | dict[str, _VALUE]
    JSONObject = dict[str, JSONValue]

__all__ = ["JSONObject", "JSONScalar", "JSONValue"]
