"""The option table: every `--tom-*` option declared once, read once into a frozen object.

An option is a field of `TomOptions` declared with `opt(...)`: its name gives
`--tom-<name>` on the command line and `tom_<name>` in the ini file, its
metadata the help, default, converter and choices. Adding an option is adding
one field here (or, for a family, one `Opt` in `families/<name>/options.py`);
`pytest_tom.plugin.pytest_options` registers and reads them all, and the code reads
`tom.options.<name>` instead of looking strings up.

No pytest here: the table is plain data, so the engine and the families can
read the values without knowing where they came from.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import MISSING, dataclass, field, fields
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from pytest_tom.core.json_value import JSONValue
from pytest_tom.core.secrets import RedactedUrl, url_list

if TYPE_CHECKING:  # the inert plugin loads this table in every pytest run: keep it light
    from pytest_tom.core.probe import Probes
    from pytest_tom.core.sweep import Sweep


def parse_sweep(text: str) -> Sweep:
    """`--tom-sweep` read (core/sweep.py, imported when the option is given)."""
    from pytest_tom.core.sweep import parse_sweep as parse  # noqa: PLC0415 only when given

    return parse(text)


def parse_probes(text: str) -> Probes:
    """`--tom-probe` read (core/probe.py, imported when the option is given)."""
    from pytest_tom.core.probe import parse_probes as parse  # noqa: PLC0415 only when given

    return parse(text)

_META = "tom_option"


def to_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() in ("1", "true", "yes", "on")


def shard_text(value: Any) -> str:
    """`K/N` with 1 <= K <= N, or `auto` (checked here, resolved by `items.shards`)."""
    text = str(value).strip().lower()
    if text == "auto":
        return text
    k, sep, n = text.partition("/")
    if not (sep and k.isdigit() and n.isdigit() and 1 <= int(k) <= int(n)):
        raise ValueError(f"--tom-shard {value!r}: expected K/N with 1 <= K <= N (e.g. 2/4), "
                         f"or auto")
    return f"{int(k)}/{int(n)}"


def spec_list(value: Any) -> str:
    """Comma-separated entries, from one value or from an option given several times
    (`--tom-fail-under=turn=0.5 --tom-fail-under=goal=0.1` is `turn=0.5,goal=0.1`): the
    values accumulate, in the order given, as pytest users expect of a repeatable option."""
    if isinstance(value, (list, tuple)):
        return ",".join(str(v).strip().strip(",") for v in value if str(v).strip(" ,"))
    return str(value)


def think_tags_text(value: Any) -> str:
    """`OPEN,CLOSE` (two non-empty tags) or `off`, as given; read by `backends.reply_parts`."""
    text = str(value).strip()
    if text.lower() in ("off", "none", ""):
        return "off"
    open_, sep, close = text.partition(",")
    if not (sep and open_.strip() and close.strip() and "," not in close):
        raise ValueError(f"--tom-think-tags {value!r}: expected OPEN,CLOSE (e.g. "
                         f"<think>,</think> or [THINK],[/THINK]), or off")
    return f"{open_.strip()},{close.strip()}"


def field_list(value: Any) -> tuple[tuple[str, str], ...]:
    """`NAME=JSON` entries (the option given several times, or lines of the ini key) as
    (name, canonical JSON) pairs in the order given; a name given twice keeps its last value. A value that
    is not JSON is taken as a string (`reasoning_effort=high`)."""
    # the option given several times is a list; the ini key, one entry per line
    entries = value if isinstance(value, (list, tuple)) else str(value).splitlines()
    out: dict[str, str] = {}
    for entry in entries:
        text = str(entry).strip()
        if not text:
            continue
        name, sep, raw = text.partition("=")
        name = name.strip()
        if not sep or not name or not name.replace("_", "").replace("-", "").isalnum():
            raise ValueError(f"--tom-request-field {text!r}: expected NAME=JSON, e.g. "
                             f"chat_template_kwargs='{{\"enable_thinking\": false}}'")
        try:
            parsed = json.loads(raw)
        except ValueError:
            parsed = raw.strip()
        out.pop(name, None)
        out[name] = json.dumps(parsed, sort_keys=True, ensure_ascii=False)
    return tuple(out.items())


@dataclass(frozen=True)
class Opt:
    """One option: `--tom-<name>` and the ini key `tom_<name>`."""

    name: str  # "model" -> --tom-model and ini key tom_model
    help: str
    default: Any = None
    convert: Callable[[Any], Any] = str
    choices: tuple[str, ...] | None = None
    metavar: str | None = None
    flag: bool = False  # a switch (store_true)
    repeat: bool = False  # may be given several times (the values are a list)
    # a file the run writes or reads: from the ini file, relative to the rootdir (as
    # pytest's cache_dir); on the command line, relative to the current folder
    path: bool = False

    @property
    def flag_name(self) -> str:
        return "--tom-" + self.name.replace("_", "-")

    @property
    def dest(self) -> str:
        return "tom_" + self.name

    def parse(self, value: Any) -> Any:
        """The raw command-line or ini value, converted and checked (ValueError if bad)."""
        try:
            out = to_bool(value) if self.flag else self.convert(value)
        except (TypeError, ValueError) as exc:
            if str(exc).startswith(self.flag_name):  # a converter that says what it expects
                raise ValueError(str(exc)) from None
            raise ValueError(f"{self.flag_name} / {self.dest}: {value!r} is not valid") from None
        if self.choices and out not in self.choices:
            raise ValueError(f"{self.flag_name}: {out!r} is not one of {', '.join(self.choices)}")
        return out


def opt(help: str, default: Any = None, convert: Callable[[Any], Any] = str,
        choices: tuple[str, ...] | None = None, metavar: str | None = None,
        flag: bool = False, repeat: bool = False, path: bool = False) -> Any:
    """A `TomOptions` field declaring its option (the name comes from the field)."""
    return field(default=default, metadata={_META: Opt("", help, default, convert, choices,
                                                       metavar, flag, repeat, path)})


@dataclass(frozen=True)
class TomOptions:
    """Resolved values of every option (command line, else ini file, else default)."""

    # -- core -------------------------------------------------------------------------
    model: str | None = opt(
        "backend spec: openai:<model>, python:<module or file.py>:<name>, replay:<file.jsonl>, "
        "local[:<file.gguf>], hf:<model dir>, fixture:<session fixture>, a spec your "
        "pytest_tom_backend hook answers, or a registered backend. Without it the plugin is "
        "inert.",
        metavar="SPEC")
    base_url: tuple[RedactedUrl, ...] = opt(
        "OpenAI-compatible endpoint (default: $OPENAI_BASE_URL or api.openai.com); several "
        "replicas of one model: separate the URLs with spaces or repeat the option",
        default=(), convert=url_list, metavar="URL", repeat=True)  # may hold credentials:
    # each URL's repr shows it redacted
    files: str = opt("space-separated glob patterns of suite files to collect (default: *.tom.yaml)",
                     default="*.tom.yaml", metavar="PATTERNS")
    suite: str | None = opt(
        "run bundled suites by name, from any folder, together with any paths given: fantom, "
        "opentom, bigtom, robustness, generic, comma-separated, or bundled for all; and the "
        "benchmarks `pytest-tom fetch` fetched (hitom-full ...) (`pytest-tom suites` lists "
        "them)", metavar="NAMES")
    fetch_dir: str | None = opt(
        "the folder `pytest-tom fetch --dir` filled, where --tom-suite finds fetched names "
        "(default: $PYTEST_TOM_FETCH_DIR, else the per-user cache folder, as pytest-tom fetch)",
        metavar="DIR")
    method: str = opt("prompting method: vanilla, cot, simtom, 1shot, 1shot-cot (as the family "
                      "offers)", default="vanilla", metavar="METHOD")
    seed: int = opt("seed for option shuffling and sampling (default 0)", default=0, convert=int,
                    metavar="N")
    temperature: float = opt("sampling temperature (default 0)", default=0.0, convert=float,
                             metavar="T")
    max_tokens: int | None = opt(
        "maximum tokens per completion (default: each family's answer length, plus the "
        "--tom-thinking-tokens room; a python: answerer gets none unless it declares "
        "family_max_tokens; the header says which)", convert=int, metavar="N")
    # -- reasoning models (docs/reasoning-models.md) ------------------------------------
    thinking_tokens: int | None = opt(
        "a budget for reasoning models: tokens for the thought, added to each call's answer "
        "length when --tom-max-tokens is not given (default: none, the answer length alone; "
        "4096 with --tom-thinking=on)", convert=int, metavar="N")
    thinking: str | None = opt(
        "ask the chat template to think (on) or not (off), where it supports it: servers get "
        "chat_template_kwargs {\"enable_thinking\": true|false}, hf: the template's argument "
        "(default: nothing is sent; the model's own default)", choices=("on", "off"),
        metavar="on|off")
    think_tags: str = opt(
        "the tags around a thought in a reply's text, OPEN,CLOSE (default <think>,</think>); "
        "off: never split the text (a thought only from the server's reasoning field)",
        default="<think>,</think>", convert=think_tags_text, metavar="OPEN,CLOSE|off")
    reasoning_effort: str | None = opt(
        "sent as the request's reasoning_effort (OpenAI's o-series and gpt-oss: low, medium, "
        "high; as the server accepts)", metavar="EFFORT")
    request_field: tuple[tuple[str, str], ...] = opt(
        "a server-specific field sent with every request, NAME=JSON, e.g. "
        "chat_template_kwargs='{\"enable_thinking\": false}' or top_k=20; may be given "
        "several times; part of the cache key; values under names like key, token, secret, "
        "password are redacted wherever they are shown", default=(), convert=field_list,
        metavar="NAME=JSON", repeat=True)
    sweep: Sweep | None = opt(
        "run every selected item once per value of one setting, NAME=V1,V2,...: "
        "thinking-tokens, reasoning-effort, thinking (off/on), max-tokens, temperature, or a "
        "--tom-request-field name (JSON values); each (item, value) is its own test, "
        "`...::q1[thinking-tokens=1024]`, its suite `<suite>[thinking-tokens=1024]`; the "
        "reports add a table per value and paired tests between adjacent values; the early "
        "stop is off (a small value is asked on purpose) (docs/reasoning-models.md)",
        convert=parse_sweep, metavar="NAME=V1,V2,...")
    probe: Probes | None = opt(
        "shortcut probes, each item asked again beside itself: no-story (the question and "
        "options without the story), no-options (asked open-ended, the reply read against "
        "the options' texts), shuffle (the options in --tom-probe-orders seeded orders); "
        "each copy is its own test, `...::q1[probe=no-story]`, its suite "
        "`<suite>[probe=no-story]`; the reports add each probe's accuracy beside the base "
        "with a paired test; not with --tom-sweep (docs/reasoning-models.md)",
        convert=parse_probes, metavar="no-story,no-options,shuffle")
    probe_orders: int = opt(
        "the number of seeded option orders of --tom-probe shuffle (default 4)", default=4,
        convert=int, metavar="K")
    early_stop: str = opt(
        "on: stop a suite, with one line naming it, when most of its first answers were cut "
        "off by its budget (a reasoning model given too few tokens; the other suites run on); "
        "off: run to the end at the budget given (default on)", default="on", choices=("on", "off"), metavar="on|off")
    report: str | None = opt("write the JSON report (every item, every metric) to PATH",
                             metavar="PATH", path=True)
    record: str | None = opt("write every response as a replay file (JSONL) to PATH",
                             metavar="PATH", path=True)
    limit: int | None = opt("about N items per suite for smoke runs: whole scenarios chosen by "
                            "the seed, at least one per suite (so a suite may keep more than "
                            "N); the rest is deselected", convert=int, metavar="N")
    shard: str | None = opt(
        "run one shard of the selection, K/N (1 <= K <= N): whole groups (scenarios, sets, "
        "templates, sceneries, narratives) balanced by item count, the same cut in every job; "
        "auto reads the CI's variables (GitLab CI_NODE_INDEX/CI_NODE_TOTAL, CircleCI, "
        "Buildkite, Azure Pipelines; none: the whole selection); merge the reports with "
        "`pytest-tom merge`", convert=shard_text, metavar="K/N|auto")
    timeout: float = opt("seconds before one request is abandoned (default 120)", default=120.0,
                         convert=float, metavar="S")
    connect_timeout: float = opt(
        "seconds a connection of the openai backend may take to be made: the connect, and on "
        "Linux the server's machine acknowledging the request; one not made in time is retried "
        "on a fresh connection, apart from --tom-timeout (default 5)", default=5.0,
        convert=float, metavar="S")
    transport: str = opt("HTTP transport of the openai backend: auto (aiohttp when installed, "
                         "with the openai[aiohttp] extra; else httpx), aiohttp or httpx "
                         "(default auto)", default="auto", choices=("auto", "aiohttp", "httpx"),
                         metavar="auto|aiohttp|httpx")
    openai_transport: str = opt(
        "how the openai backend makes its requests: worker (pytest-tom posts the JSON from a "
        "child process: the HTTP work on another core), sdk (through the openai client, over "
        "--tom-transport), auto (worker when aiohttp is installed and the base URL holds no "
        "user:password or query, else sdk; $PYTEST_TOM_OPENAI_TRANSPORT may set it) "
        "(default auto)",
        default="auto", choices=("auto", "worker", "sdk"), metavar="auto|worker|sdk")
    # -- runner ----------------------------------------------------------------------
    concurrency: int = opt("requests in flight at most (default 16)", default=16, convert=int,
                           metavar="N")
    retries: int = opt("retries of a failed request: 429, 5xx, timeouts (default 5)", default=5,
                       convert=int, metavar="N")
    deadline: float = opt("seconds one model call may take in all, retries and waits included "
                          "(default 600)", default=600.0, convert=float, metavar="S")
    backoff: float = opt("first retry delay in seconds, doubled each retry, with jitter; a "
                         "Retry-After header wins (default 0.5)", default=0.5, convert=float,
                         metavar="S")
    cache: str = opt("response cache: on (read and write), read (never write), write (never read: "
                     "refresh), off (default on)", default="on",
                     choices=("on", "read", "write", "off"), metavar="MODE")
    cache_dir: str = opt("folder of the response cache, relative to the project: the rootdir, "
                         "or the invocation folder when the paths given put the rootdir "
                         "outside it (default .tom_cache)", default=".tom_cache", metavar="DIR")
    cache_clear: bool = opt("empty the response cache before the run", default=False, flag=True)
    requests_first: bool = opt(
        "ask for every answer before the first item runs, with a live line of the requests "
        "(default: the items run while the answers arrive, pytest's progress shows the run; "
        "-x and xdist ask a window ahead either way)", default=False, flag=True)
    samples: int = opt("answers per item (each its own cache key; use with --tom-temperature > 0): "
                       "metrics report the mean and the spread over samples (default 1)",
                       default=1, convert=int, metavar="K")
    prices: str | None = opt("USD per million tokens for the cost in the usage summary: IN/OUT "
                             "for every model, or MODEL=IN/OUT,MODEL=IN/OUT", metavar="PRICES")
    # -- local model -----------------------------------------------------------------
    threads: int | None = opt(
        "prompt-evaluation threads of the local model (--tom-model=local; tokens are generated "
        "on one thread so that answers never depend on it); default: the usable cores the "
        "machine leaves idle (cores minus load average), divided among the xdist workers, at "
        "least 1", convert=int, metavar="N")
    local_ctx: int = opt("context window of the local model in tokens (default 8192); longer "
                         "prompts are error outcomes", default=8192, convert=int, metavar="N")
    # -- in-process models (python:, the pytest_tom_backend hook, fixture:, hf:) -----------
    batch_size: int | None = opt(
        "requests handed over at once to a backend that answers batches (answer_batch, hf:); "
        "default: the backend's preference (hf: 8); 1 turns batching off", convert=int,
        metavar="N")
    hf_device: str | None = opt("device of the hf: model: cpu, cuda, cuda:1, mps ... (default: "
                                "cuda when available, else cpu)", metavar="DEVICE")
    hf_dtype: str | None = opt("weights' dtype of the hf: model: auto (the checkpoint's own), "
                               "float32, bfloat16, float16 (default float32 on cpu, else auto)",
                               choices=("auto", "float32", "bfloat16", "float16"),
                        metavar="auto|float32|bfloat16|float16")
    # -- gating ----------------------------------------------------------------------
    fail_under: str | None = opt(
        "thresholds on metrics of the JSON report, comma-separated: turn=0.7 (totals), "
        "<suite>:goal=0.5, *:turn=0.6 (every suite), fantom.all_star=0.05 (every suite of a "
        "family), errors<=0 (a ceiling); given several times, every threshold applies; see "
        "docs/gating.md", convert=spec_list, metavar="SPECS", repeat=True)
    baseline: str | None = opt(
        "compare with a previous JSON report (--tom-report / --tom-save-baseline): fail on "
        "significant drops of turn and goal accuracy", metavar="REPORT.json", path=True)
    max_drop: str | None = opt(
        "allowed drop against the baseline: a default and/or per-metric values, e.g. "
        "0.02,goal=0.05,fantom.all_star=0.1 (default 0); given several times, the values "
        "add up (one default at most)", convert=spec_list, metavar="SPECS", repeat=True)
    alpha: float = opt("significance level of the exact McNemar test on the shared items "
                       "(default 0.05; 1 turns the test off)", default=0.05, convert=float,
                       metavar="P")
    save_baseline: str | None = opt("write this run's JSON report to PATH (the next run's "
                                    "--tom-baseline)", metavar="PATH", path=True)
    items: str | None = opt(
        "report: a wrong answer is an expected failure (xfail) and only the gates set the exit "
        "status; fail: a wrong answer fails its test (default: report when a gate is configured "
        "or --tom-save-baseline is given, else fail)", choices=("report", "fail"), metavar="MODE")
    item_capture: str = opt(
        "auto: a suite item's set-up, call and tear-down run without pytest's per-test output "
        "and log capture where only pytest-tom's own code runs in them (what they print goes "
        "to the terminal; the first set-up and last tear-down in a suite file keep pytest's "
        "capture); pytest: pytest's capture for every phase (default auto)",
        default="auto", choices=("auto", "pytest"), metavar="auto|pytest")
    html: str | None = opt("write one self-contained HTML report (plots, paper tables, every item's "
                           "transcript; needs the html extra) to PATH", metavar="PATH", path=True)
    markdown: str | None = opt("write a Markdown summary (gates, scores, changed items) to PATH, "
                               "e.g. for $GITHUB_STEP_SUMMARY", metavar="PATH", path=True)
    # -- the options the families declare (families/<name>/options.py), by name -----------
    family: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    def get(self, name: str, default: Any = None) -> Any:
        """A value by option name, core or family (for code that takes a name as data)."""
        if name in self.family:
            return self.family[name]
        value = getattr(self, name, None) if name != "family" else None
        return default if value is None else value

    def as_dict(self) -> dict[str, Any]:
        """Every value by option name, family options included (the families read them by
        name: `Settings.options`; a backend gets its own typed, `BackendOptions`). Each
        value is of its field's type (a `Sweep`, a tuple of URLs ...), not JSON."""
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "family"}
        out.update(self.family)
        return out


def declared_default(name: str) -> Any:
    """The default the table declares for option `name` (`BackendOptions` and the backends
    take theirs from here, so that each default is set once)."""
    return TomOptions.__dataclass_fields__[name].default


def core_table() -> list[Opt]:
    """The options of `TomOptions`, in declaration order, named after their fields."""
    out = []
    for f in fields(TomOptions):
        o = f.metadata.get(_META)
        if o is not None:
            default = None if f.default is MISSING else f.default
            out.append(Opt(f.name, o.help, default, o.convert, o.choices, o.metavar, o.flag,
                           o.repeat, o.path))
    return out


def build_options(values: Mapping[str, Any], family_table: list[Opt] | tuple[Opt, ...] = ()
                  ) -> TomOptions:
    """`TomOptions` from raw values by option name (None or missing: the default).

    ValueError names the option and the bad value."""
    core: dict[str, Any] = {}  # TomOptions' keyword arguments, each typed as its field
    for o in core_table():
        raw = values.get(o.name)
        core[o.name] = o.default if raw is None else o.parse(raw)
    fam: dict[str, JSONValue] = {}  # the families' option values: numbers, words, flags
    for o in family_table:
        raw = values.get(o.name)
        fam[o.name] = o.default if raw is None else o.parse(raw)
    options = TomOptions(**core, family=MappingProxyType(fam))
    problems = number_problems(options)
    if problems:  # every impossible number of the command line at once
        raise ValueError("; ".join(problems))
    return options


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


# counts that must be at least this much (None: not given, the default applies); what a
# user gives is refused here; RetryPolicy, Runner and the local backend guard again only
# for callers that bypass the table, and families' option_problems check what it cannot
# (docs/architecture.md, "Options")
AT_LEAST: tuple[tuple[str, int], ...] = (
    ("concurrency", 1), ("retries", 0), ("samples", 1), ("limit", 1), ("batch_size", 1),
    ("threads", 1), ("local_ctx", 1), ("thinking_tokens", 1),
)


def number_problems(options: TomOptions) -> list[str]:
    """Numbers that would make a run wait forever, never wait, or send nonsense: a timeout
    of 0 or NaN (which once became 120 s unnoticed), a negative or infinite temperature,
    max_tokens of 0, no request in flight, a negative number of retries ... A usage error
    before anything runs. Where the numbers a user gives are refused (`Opt.parse` refuses
    the rest)."""
    problems = []
    for name, least in AT_LEAST:
        value = getattr(options, name)
        if value is not None and value < least:
            more = "at least 1" if least == 1 else f"{least} or more"
            problems.append(f"--tom-{name.replace('_', '-')} must be {more}, not {value!r}")
    for name, what in (("timeout", "one attempt"), ("connect_timeout", "a connection"),
                       ("deadline", "one call, retries included")):
        value = getattr(options, name)
        if not (_finite(value) and value > 0):
            problems.append(f"--tom-{name.replace('_', '-')} {value!r}: the seconds {what} "
                            f"may take must be a positive number")
    if not (_finite(options.backoff) and options.backoff >= 0):
        problems.append(f"--tom-backoff {options.backoff!r}: must be 0 or more seconds")
    if not (_finite(options.temperature) and options.temperature >= 0):
        problems.append(f"--tom-temperature {options.temperature!r}: must be a finite number, "
                        f"0 or more")
    if options.max_tokens is not None and options.max_tokens < 1:
        problems.append(f"--tom-max-tokens {options.max_tokens!r}: must be at least 1 (leave it "
                        f"out for each family's answer length)")
    # the sweep's and the probes' clashes, read where they are defined; those modules load
    # only when one of their options is given (an inactive run reads this table too)
    if options.sweep is not None or options.probe is not None or options.probe_orders < 2:
        from pytest_tom.core.probe import probe_problems  # noqa: PLC0415 only when given
        from pytest_tom.core.sweep import sweep_problems  # noqa: PLC0415 only when given

        problems.extend(sweep_problems(options))
        problems.extend(probe_problems(options))
    return problems


def choice_problems(options: Mapping[str, Any], declared: Iterable[Opt]) -> list[str]:
    """One text per option of `declared` offering choices whose value in `options` (its
    default where not given) is none of them: `--tom-tomato-reading: one of correct,
    authors`. For settings built without the option table, which checks them itself."""
    return [f"{opt.flag_name}: one of {', '.join(opt.choices)}" for opt in declared
            if opt.choices and options.get(opt.name, opt.default) is not None
            and options.get(opt.name, opt.default) not in opt.choices]
