"""Every option twice: `--tom-x` on the command line and `tom_x` in the ini file.

The command line wins over the ini file, the ini file over the default. Each
feature keeps its options in its own section of `OPTIONS` below.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest


def _bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() in ("1", "true", "yes", "on")


@dataclass(frozen=True)
class Opt:
    name: str  # "model" -> --tom-model and ini key tom_model
    help: str
    default: Any = None
    convert: Callable[[Any], Any] = str
    choices: tuple[str, ...] | None = None
    metavar: str | None = None
    flag: bool = False  # a switch (store_true)

    @property
    def flag_name(self) -> str:
        return "--tom-" + self.name.replace("_", "-")

    @property
    def dest(self) -> str:
        return "tom_" + self.name


OPTIONS: list[Opt] = [
    # -- core -------------------------------------------------------------------------
    Opt("model", "backend spec: openai:<model>, python:<module>:<callable>, replay:<file.jsonl>, "
        "local[:<file.gguf>], or a registered backend. Without it the plugin is inert.",
        metavar="SPEC"),
    Opt("base_url", "OpenAI-compatible endpoint (default: $OPENAI_BASE_URL or api.openai.com)",
        metavar="URL"),
    Opt("files", "space-separated glob patterns of suite files to collect (default: *.tom.yaml)",
        default="*.tom.yaml", metavar="PATTERNS"),
    Opt("method", "prompting method: vanilla, cot, simtom, 1shot, 1shot-cot (as the family offers)",
        default="vanilla", metavar="METHOD"),
    Opt("seed", "seed for option shuffling and sampling (default 0)", default=0, convert=int,
        metavar="N"),
    Opt("temperature", "sampling temperature (default 0)", default=0.0, convert=float, metavar="T"),
    Opt("max_tokens", "maximum tokens per completion (default: the backend's)", convert=int,
        metavar="N"),
    Opt("report", "write the JSON report (every item, every metric) to PATH", metavar="PATH"),
    Opt("record", "write every response as a replay file (JSONL) to PATH", metavar="PATH"),
    Opt("timeout", "seconds before one request is abandoned (default 120)", default=120.0,
        convert=float, metavar="S"),
    # -- runner ----------------------------------------------------------------------
    Opt("concurrency", "requests in flight at most (default 16)", default=16, convert=int,
        metavar="N"),
    Opt("retries", "retries of a failed request: 429, 5xx, timeouts (default 5)", default=5,
        convert=int, metavar="N"),
    # -- fantom ----------------------------------------------------------------------
    # -- opentom ---------------------------------------------------------------------
    # -- bigtom ----------------------------------------------------------------------
    # -- robustness ------------------------------------------------------------------
    # -- local model -----------------------------------------------------------------
    # -- gating ----------------------------------------------------------------------
]


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("tom", "pytest-tom: Theory-of-Mind suites")
    for opt in OPTIONS:
        kwargs: dict[str, Any] = {"dest": opt.dest, "help": opt.help}
        if opt.flag:
            kwargs["action"] = "store_true"
            kwargs["default"] = None
        else:
            kwargs["default"] = None
            kwargs["metavar"] = opt.metavar
            if opt.choices:
                kwargs["choices"] = opt.choices
        group.addoption(opt.flag_name, **kwargs)
        parser.addini(opt.dest, f"{opt.help} [ini form of {opt.flag_name}]",
                      type="bool" if opt.flag else "string", default=None)


def read_options(config: pytest.Config) -> dict[str, Any]:
    """Resolved values of every option: command line, else ini, else default (converted)."""
    out: dict[str, Any] = {}
    for opt in OPTIONS:
        value = config.getoption(opt.dest, None)
        if value is None:
            value = config.getini(opt.dest)
            if value == "" or value == []:
                value = None
        if value is None:
            out[opt.name] = opt.default
            continue
        try:
            value = _bool(value) if opt.flag else opt.convert(value)
        except (TypeError, ValueError):
            raise pytest.UsageError(f"{opt.flag_name} / {opt.dest}: {value!r} is not valid") from None
        if opt.choices and value not in opt.choices:
            raise pytest.UsageError(f"{opt.flag_name}: {value!r} is not one of {', '.join(opt.choices)}")
        out[opt.name] = value
    return out
