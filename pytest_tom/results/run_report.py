"""The JSON report of a run as one typed, versioned model: `RunReport`.

A report (`--tom-report`, `--tom-save-baseline`, `pytest-tom merge -o`) holds the format
and its version, the run's status, model, settings (with the shard it was cut to, or the
parts it was merged from), package versions, times, the results (`results.results`:
suites, totals, their intervals and spreads), the requests per endpoint, and every item
record (`core.record.Record`). The live run and `pytest-tom merge` build it with
`RunReport.build`; `results.saved_report.read_saved_report` reads one back from a file;
merge, compare, gate, html and the baseline gate read it through the accessors here,
never by key.

The classes are views of the JSON form (`RunReport.data`): a report read back is written
again key for key, and a key a newer version adds is kept by an older reader.

Versions. `FORMAT` names the version this package writes. Adding an optional key (a
record field, a suite figure, a setting) keeps the version: older reports lack it and
readers take it with a default, or derive it from what the report holds (`settings.asked`,
`ReportSettings.asked`: what the model was asked, as fields, read from the older prose). A change of meaning or shape bumps `VERSION`, and
`upgrade` turns every older version this package still reads into the current one, so
no reader ever sees an old shape (a report of a newer version than this package knows
is refused with the way to upgrade).
"""

from __future__ import annotations

import platform
from collections.abc import Hashable, Mapping
from datetime import datetime, timezone
from importlib.metadata import PackageNotFoundError, version
from types import MappingProxyType
from typing import Any, TypedDict, cast

from pytest_tom import families
from pytest_tom.core.json_value import JSONObject
from pytest_tom.core.record import Record
from pytest_tom.core.record_view import key_of
from pytest_tom.core.registry import sys_path_state
from pytest_tom.core.settings import Settings
from pytest_tom.results.asked import AskedJSON, derived_block
from pytest_tom.results.asked import differences as asked_differences
from pytest_tom.results.results import (
    CountsJSON,
    IntervalJSON,
    ProbesJSON,
    Results,
    SuiteJSON,
    SweepJSON,
)
from pytest_tom.results.token_usage import EndpointUsage, usage_by_endpoint

FORMAT_NAME = "pytest-tom-report"
VERSION = 1
FORMAT = f"{FORMAT_NAME}/{VERSION}"
READS = (1,)  # the versions `upgrade` turns into the current one

STATUSES = ("complete", "interrupted", "incomplete")  # incomplete: merged with --partial

PACKAGES = ("pytest-tom", "pytest", "pyyaml", "tabulate", "openai", "pytest-xdist",
            "sentence-transformers", "torch", "xllamacpp")


# -- the JSON model (with results/results.py's: tests/test_report_model.py reads the keys
# from these declarations) ---------------------------------------------------------------


class ReportJSON(TypedDict, total=False):
    """A report (`RunReport`), in the order the writer puts its keys."""

    format: str
    status: str
    model: str
    settings: SettingsJSON
    versions: dict[str, str | None]
    started: str
    finished: str
    duration_seconds: float
    suites: dict[str, SuiteJSON]  # the results (`results.results.ResultsJSON`)
    totals: CountsJSON
    totals_intervals: dict[str, IntervalJSON]
    samples: int
    totals_spread: dict[str, float]
    sweep: SweepJSON
    probes: ProbesJSON
    endpoints: list[EndpointJSON]
    items: list[Record]  # the record model: core/record.py


class SettingsJSON(TypedDict, total=False):
    """A report's `settings` (`ReportSettings`; the live run's `RunContext.describe_settings`)."""

    model: str
    backend: Any  # the backend's identity, free-form (what its cache key holds)
    method: str
    seed: int
    temperature: float | None
    max_tokens: int | None
    answer_length: str
    asked: AskedJSON  # its fields: results/asked.py, passed through
    concurrency: int
    options: JSONObject  # family options away from their defaults: each family's values
    shard: ShardJSON
    request_fields: JSONObject  # free-form request fields, credentials redacted
    selection: SelectionJSON
    request_path: str
    merged: list[str]


class ShardJSON(TypedDict, total=False):
    """`settings.shard` (`ShardRecord`)."""

    index: int
    total: int
    source: str  # what set the shard (`items.shards.Shard.source`: the option or a CI variable)
    items: int
    units: int  # how many units (`Family.shard_unit`) this shard kept
    selection: ShardSelectionJSON
    merged: list[int]
    parts: list[str]


class ShardSelectionJSON(TypedDict, total=False):
    """What the shards were cut from (`items.shards.selection_record`); the options that
    chose it are informative keys beside these."""

    items: int
    units: int
    digest: str
    suites: dict[str, str]


class SelectionJSON(TypedDict, total=False):
    """`settings.selection` (`SelectionRecord`)."""

    deselected: int | None
    by: list[str]
    named: bool
    shard_cut: int


class EndpointJSON(TypedDict, total=False):
    """Requests of one endpoint (several endpoints of one model)."""

    endpoint: str
    requests: int
    failures: int
    moved: int


# the versions read last, with the sys.path state they were read under
_VERSIONS: list[tuple[tuple[tuple[str, Hashable], ...], dict[str, str | None]]] = []


def package_versions() -> dict[str, str | None]:
    """Python's version and those of `PACKAGES` (None: not installed). Read again whenever
    sys.path or the distributions in one of its folders changed (a package installed or
    upgraded meanwhile: `core.registry.sys_path_state`), else as read last: parsing ten distributions' metadata was about a tenth of a small
    run in a process that runs several (in-process pytester runs, `pytest.main` called
    in a loop)."""
    state = sys_path_state()
    if _VERSIONS and _VERSIONS[0][0] == state:
        return dict(_VERSIONS[0][1])
    out: dict[str, str | None] = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = None
    _VERSIONS[:] = [(state, out)]
    return dict(out)


def iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, tz=timezone.utc).isoformat(timespec="seconds")


def timestamp(text: Any) -> float | None:
    """The time an ISO text names (None when it is not one)."""
    try:
        return datetime.fromisoformat(str(text)).timestamp()
    except ValueError:
        return None


def format_version(data: Mapping[str, Any]) -> int | None:
    """The version of a report's `format` tag (None when it is not a pytest-tom report)."""
    name, _, number = str(data.get("format", "")).partition("/")
    if name != FORMAT_NAME or not number.isdigit():
        return None
    return int(number)


def upgrade(data: dict[str, Any]) -> ReportJSON:
    """A report of a version in `READS` (JSON as read, its format checked) in the shape of
    the current version: the typed model from here on. Version 1 is the current one; a
    version 2 adds its step here (and keeps 1's)."""
    return cast(ReportJSON, data)


class ShardRecord:
    """`settings.shard`: the shard a run was cut to (`--tom-shard K/N`: index, total, its
    items and units, the selection it was cut from), or in a merged report the shards it
    was merged from (`merged`, `parts`)."""

    __slots__ = ("data",)

    def __init__(self, data: ShardJSON):
        self.data = data

    @property
    def index(self) -> int | None:
        return self.data.get("index")

    @property
    def total(self) -> int:
        return int(self.data.get("total") or 1)

    @property
    def items(self) -> int | None:
        """The items of this shard (None when not recorded)."""
        value = self.data.get("items")
        return value if isinstance(value, int) else None

    @property
    def selection(self) -> ShardSelectionJSON:
        """What the shards were cut from: items, units, digest of the (suite, id) pairs,
        each suite's file digest, the selecting options (passed through to a merge)."""
        return self.data.get("selection") or {}

    @property
    def digest(self) -> str | None:
        """The digest of the (suite, id) pairs the shards were cut from."""
        return self.selection.get("digest")

    @property
    def suite_digests(self) -> dict[str, str] | None:
        """Each suite's digest of its files (its version)."""
        return self.selection.get("suites")

    @property
    def merged(self) -> list[int]:
        """The shard indices a merged report holds (empty for a shard's own report)."""
        return list(self.data.get("merged") or [])

    @classmethod
    def of_merge(cls, first: ShardRecord, indices: list[int], parts: list[str]) -> ShardRecord:
        return cls({"merged": sorted(indices), "total": first.data["total"],
                    "selection": first.data.get("selection", {}), "parts": parts})


class SelectionRecord:
    """`settings.selection`: how the items a run scored were selected, when not all of its
    suites' items ran (absent otherwise): the items deselected before any shard cut (`-k`,
    `-m`, `--lf`, `--tom-limit`), the options that selected them, whether items were named
    by node id, and the items a `--tom-shard` cut left to the other shards. The gates of a
    saved or merged report say from it that they judged a subset, as the live run did."""

    __slots__ = ("data",)

    def __init__(self, data: Mapping[str, Any]):
        self.data = dict(data)

    @property
    def deselected(self) -> int:
        return int(self.data.get("deselected") or 0)

    @property
    def counted(self) -> int | None:
        """The items deselected, None when they were not counted (a worker's count lost)."""
        value = self.data.get("deselected")
        return None if value is None else int(value)

    @property
    def by(self) -> list[str]:
        return [str(o) for o in self.data.get("by") or []]

    @property
    def named(self) -> bool:
        return bool(self.data.get("named"))

    @property
    def shard_cut(self) -> int:
        return int(self.data.get("shard_cut") or 0)


class ReportSettings:
    """A report's `settings`: what the run was asked for (never a secret). `to_settings`
    is the one way back to the `Settings` its items were scored with."""

    __slots__ = ("data",)

    def __init__(self, data: Mapping[str, Any] | None = None):
        # a report's settings, or the live run's description of them (`RunContext.
        # describe_settings`), which writes the same keys
        self.data = cast(SettingsJSON, dict(data or {}))

    @classmethod
    def of(cls, value: ReportSettings | Mapping[str, Any] | None) -> ReportSettings:
        """`value` as report settings (a live run describes its settings as a mapping)."""
        return value if isinstance(value, ReportSettings) else cls(value)

    @property
    def model(self) -> str:
        return str(self.data.get("model") or "")

    @property
    def backend(self) -> Any:  # free-form: each backend's identity
        """The backend's identity (what its cache key holds)."""
        return self.data.get("backend")

    @property
    def method(self) -> str:
        return str(self.data.get("method") or "vanilla")

    @property
    def seed(self) -> int:
        try:
            return int(self.data.get("seed") or 0)
        except (TypeError, ValueError):
            return 0

    @property
    def temperature(self) -> float | None:
        return self.data.get("temperature")

    @property
    def max_tokens(self) -> int | None:
        return self.data.get("max_tokens")

    @property
    def answer_length(self) -> str | None:
        """The answer length as it was sent, in words (`max_tokens` None: per family)."""
        return self.data.get("answer_length")

    @property
    def asked(self) -> AskedJSON:
        """What the model was asked, as fields (`results/asked.py`): the run's `asked`
        block, or for a report written before it, the block derived from what it holds."""
        block = self.data.get("asked")
        if isinstance(block, Mapping):
            return AskedJSON(**block)
        return derived_block(request_fields=self.data.get("request_fields"),
                             answer_length=self.data.get("answer_length"),
                             max_tokens=self.data.get("max_tokens"),
                             method=str(self.data.get("method") or ""),
                             family_names=families.BUILTIN)

    @property
    def concurrency(self) -> int | None:
        return self.data.get("concurrency")

    def scoring_differences(self, other: ReportSettings) -> list[tuple[str, Any, Any]]:
        """(setting, this value, the other's) of method, seed and temperature where this
        report has the setting and the other differs (lacking it: None)."""
        return [(key, self.data[key], other.data.get(key))
                for key in ("method", "seed", "temperature")
                if self.has(key) and self.data[key] != other.data.get(key)]

    def differences(self, other: ReportSettings) -> list[tuple[str, Any, Any]]:
        """(field, this value, the other's) of every setting that decides what the model
        was asked and differs between this report and `other`: method, seed, temperature,
        and each field of `asked` (`results/asked.differences`), named by its dotted path
        under the report (`settings.asked.thinking_tokens`)."""
        out = [(f"settings.{key}", self.data[key], other.data[key])
               for key in ("method", "seed", "temperature")
               if self.has(key) and other.has(key) and self.data[key] != other.data[key]]
        return out + asked_differences(self.asked, other.asked)

    @property
    def options(self) -> JSONObject:
        """Family options that differ from their defaults (they change figures)."""
        value = self.data.get("options")
        return dict(value) if isinstance(value, Mapping) else {}

    @property
    def shard(self) -> ShardRecord | None:
        value = self.data.get("shard")
        return ShardRecord(value) if isinstance(value, dict) else None

    @property
    def selection(self) -> SelectionRecord | None:
        value = self.data.get("selection")
        return SelectionRecord(value) if isinstance(value, Mapping) else None

    @property
    def merged(self) -> list[str]:
        """The reports merged into this one (runs without --tom-shard)."""
        return list(self.data.get("merged") or [])

    def has(self, key: str) -> bool:
        return key in self.data

    def to_settings(self) -> Settings:
        """The settings the run's items were scored with: method, seed and the family
        options it changed (what `pytest-tom merge` scores again with, and what `compare`
        defines the metrics with)."""
        return Settings(method=self.method, seed=self.seed,
                        options=MappingProxyType(self.options))

    def for_merge(self, paths: list[str], shard: ShardRecord | None) -> ReportSettings:
        """These settings for the report merged from the reports at `paths`: the merged
        shards instead of one shard, or the list of parts."""
        data = {k: v for k, v in self.data.items() if k not in ("shard", "selection")}
        if shard is not None:
            data["shard"] = shard.data
            selection = self.selection
            if selection is not None:  # the shards' common selection, before their cut
                kept = {**selection.data, "shard_cut": 0}
                if kept.get("deselected") or kept.get("named"):
                    data["selection"] = kept
        else:  # runs merged without --tom-shard: their selections are not one (-k a, -k b)
            data["merged"] = paths
        return ReportSettings(data)


class RunReport:
    """One run's report (see the module docstring); `data` is its JSON form."""

    __slots__ = ("data",)

    def __init__(self, data: ReportJSON):
        self.data = data

    @classmethod
    def build(cls, results: Results, records: list[Record],
              settings: ReportSettings | Mapping[str, Any], started: float, finished: float,
              status: str = "complete", versions: Mapping[str, Any] | None = None,
              endpoints: Mapping[str, EndpointUsage] | None = None) -> RunReport:
        """The report of a run (or a merge) from its results and records; `status` is
        "complete", "interrupted" (Ctrl-C, a crash: only the items scored before it; never
        a baseline) or "incomplete" (a merge with parts missing); `versions`: those of the
        runs (a merge), else this process's packages."""
        s = ReportSettings.of(settings)
        extra: ReportJSON = {}
        if results.samples:  # --tom-samples: the spread of the totals over samples
            extra = {"samples": results.samples, "totals_spread": results.totals_spread}
        if results.sweep is not None:  # --tom-sweep: the values side by side, paired tests
            extra["sweep"] = results.sweep.as_dict()
        if results.get("probes") is not None:  # --tom-probe: each probe beside the base
            extra["probes"] = results["probes"]
        if endpoints is None:  # several endpoints of one model: counts of each
            endpoints = usage_by_endpoint(records)
        if endpoints:
            extra["endpoints"] = [{"endpoint": k, "requests": v.requests, "failures": v.failures,
                                   "moved": v.moved} for k, v in endpoints.items()]
        return cls({
            "format": FORMAT,
            "status": status,
            "model": s.model,
            "settings": s.data,
            "versions": dict(versions) if versions is not None else package_versions(),
            "started": iso(started),
            "finished": iso(finished),
            "duration_seconds": round(finished - started, 3),
            "suites": results["suites"],
            "totals": results["totals"],
            "totals_intervals": results.get("totals_intervals") or {},
            **extra,
            "items": sorted(records, key=key_of),
        })

    @property
    def version(self) -> int | None:
        return format_version(self.data)

    @property
    def status(self) -> str:
        return str(self.data.get("status") or "complete")

    @property
    def complete(self) -> bool:
        return self.status == "complete"

    @property
    def model(self) -> str:
        """The model as the run named it (`--tom-model`, described)."""
        return str(self.data.get("model") or self.settings.model or "")

    @property
    def settings(self) -> ReportSettings:
        value = self.data.get("settings")
        return ReportSettings(value if isinstance(value, Mapping) else None)

    @property
    def versions(self) -> dict[str, str | None]:
        return dict(self.data.get("versions") or {})

    @property
    def started(self) -> str | None:
        return self.data.get("started")

    @property
    def finished(self) -> str | None:
        return self.data.get("finished")

    @property
    def duration_seconds(self) -> float | None:
        return self.data.get("duration_seconds")

    @property
    def results(self) -> Results:
        """Suites, totals, their intervals and spreads (shared with this report)."""
        return Results.of(self.data)

    @property
    def endpoints(self) -> dict[str, EndpointUsage]:
        """Requests, failures and moved retries per endpoint (several endpoints only)."""
        return {str(e.get("endpoint") or ""): EndpointUsage(
                    int(e.get("requests") or 0), int(e.get("failures") or 0),
                    int(e.get("moved") or 0))
                for e in self.data.get("endpoints") or []}

    @property
    def records(self) -> list[Record]:
        """Every item record, sorted by (suite, id)."""
        return self.data["items"]
