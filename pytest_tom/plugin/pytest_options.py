"""Every option twice: `--tom-x` on the command line and `tom_x` in the ini file.

The command line wins over the ini file, the ini file over the default. The
options are declared once, as fields of `core.options.TomOptions` (and, for a
family, in its `options.py`); this module registers them with pytest and reads
them once into a frozen `TomOptions`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TypedDict

import pytest

from pytest_tom import families
from pytest_tom.core.option_table import Opt, TomOptions, build_options, core_table

# a value as pytest gives it: a flag's bool, a repeated option's list, an ini line's text
RawValue = str | bool | list[str] | None


class AddOption(TypedDict, total=False):
    """The keyword arguments of `parser.addoption` for one option."""

    dest: str
    help: str
    action: str
    default: None  # None: not given (then the ini file, then the declared default)
    metavar: str | None
    choices: tuple[str, ...]


def table() -> list[Opt]:
    """Every option: the core table, then what the families declare."""
    return [*core_table(), *families.declared_options()]


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("tom", "pytest-tom: Theory-of-Mind suites")
    for opt in table():
        kwargs: AddOption = {"dest": opt.dest, "help": opt.help}
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


def ini_path(config: pytest.Config, value: str) -> str:
    """A path from the ini file, relative to the rootdir as pytest's own `cache_dir` is,
    written relative to the current folder (unchanged when pytest runs in the rootdir)."""
    path = Path(value).expanduser()
    if path.is_absolute():
        return value
    full = config.rootpath / path
    try:
        return os.path.relpath(full, config.invocation_params.dir)
    except ValueError:  # another drive (Windows)
        return str(full)


def option_source(config: pytest.Config, opt: Opt | str) -> str:
    """Where an option's value came from: "the command line", "the ini file NAME", or ""
    (its default)."""
    dest = opt if isinstance(opt, str) else opt.dest
    if config.getoption(dest, None) is not None:
        return "the command line"
    value = config.getini(dest)
    if value not in ("", [], None):
        return f"the ini file {config.inipath.name if config.inipath else ''}".rstrip()
    return ""


def read_options(config: pytest.Config) -> TomOptions:
    """Resolved values of every option: command line, else ini, else default (converted).
    A path from the ini file is relative to the rootdir (`ini_path`)."""
    raw: dict[str, RawValue] = {}
    for opt in table():
        value = config.getoption(opt.dest, None)
        if value is None:
            value = config.getini(opt.dest)
            if value == "" or value == []:
                value = None
            elif opt.path and isinstance(value, str):
                value = ini_path(config, value)
        raw[opt.name] = value
    try:
        return build_options(raw, families.declared_options())
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None
