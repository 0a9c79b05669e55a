"""Writing converted suites as YAML: safe dumper, keys in written order, multi-line
strings as `|` blocks so stories stay readable in the file."""

from __future__ import annotations

from collections.abc import Mapping

import yaml


class _Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
    pass


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def dump_suite(document: Mapping[str, object]) -> str:
    """The YAML text of a suite document (plain data only; read, never changed)."""
    return yaml.dump(document, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)
