"""Every option twice: `--tom-x` on the command line and `tom_x` in the ini file.

The command line wins over the ini file, the ini file over the default. The
options are declared once, as fields of `core.options.TomOptions` (and, for a
family, in its `options.py`); this module registers them with pytest and reads
them once into a frozen `TomOptions`.
"""

from __future__ import annotations

from typing import Any

import pytest

from pytest_tom import families
from pytest_tom.core.option_table import Opt, TomOptions, build_options, core_table


def table() -> list[Opt]:
    """Every option: the core table, then what the families declare."""
    return [*core_table(), *families.declared_options()]


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("tom", "pytest-tom: Theory-of-Mind suites")
    for opt in table():
        kwargs: dict[str, Any] = {"dest": opt.dest, "help": opt.help}
        if opt.flag:
            kwargs["action"] = "store_true"
            kwargs["default"] = None
        else:
            kwargs["default"] = None
            kwargs["metavar"] = opt.metavar
            if opt.repeat:
                kwargs["action"] = "append"
            if opt.choices:
                kwargs["choices"] = opt.choices
        group.addoption(opt.flag_name, **kwargs)
        parser.addini(opt.dest, f"{opt.help} [ini form of {opt.flag_name}]",
                      type="bool" if opt.flag else "string", default=None)


def read_options(config: pytest.Config) -> TomOptions:
    """Resolved values of every option: command line, else ini, else default (converted)."""
    raw: dict[str, Any] = {}
    for opt in table():
        value = config.getoption(opt.dest, None)
        if value is None:
            value = config.getini(opt.dest)
            if value == "" or value == []:
                value = None
        raw[opt.name] = value
    try:
        return build_options(raw, families.declared_options())
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None
