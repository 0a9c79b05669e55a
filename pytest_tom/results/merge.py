"""Putting the reports of the parts of one run back together (`pytest-tom merge`).

A report is enough to finish a run: its item records and settings give every figure.
This module checks that the parts belong to one run and holds their records; the
command (`commands/merge.py`) scores them with `results/aggregate.py` and writes them
with the report writers, like the end of a live run.

Parts belong to one run when they share the model, the settings that shape items and
scores (backend, method, seed, temperature, max_tokens, family options), and, for
shards, the selection they were cut from (its item digest) and the suite versions (each
suite's file digest). They must not overlap (a shard given twice, or an item in two
parts). Shards of one selection are complete when every index 1..N is there, each part
is a complete run with every item of its shard; otherwise the merge is refused unless
`partial`, which marks the report "incomplete" (a baseline refuses it, as it refuses an
interrupted run).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pytest_tom.core.record import Record
from pytest_tom.core.record_view import key_of
from pytest_tom.results.run_report import ReportSettings, RunReport, ShardRecord, timestamp

# settings that must agree between parts (concurrency, the shard itself, may differ)
COMPARED_SETTINGS: tuple[tuple[str, Callable[[ReportSettings], Any]], ...] = (
    ("backend", lambda s: s.backend), ("method", lambda s: s.method), ("seed", lambda s: s.seed),
    ("temperature", lambda s: s.temperature), ("max_tokens", lambda s: s.max_tokens),
    ("options", lambda s: s.options))


class MergeError(ValueError):
    """Parts that do not make one run, in one line naming the files."""


@dataclass
class Part:
    path: str
    report: RunReport

    @property
    def shard(self) -> ShardRecord | None:
        return self.report.settings.shard

    @property
    def records(self) -> list[Record]:
        return self.report.records


@dataclass
class Merged:
    """The records of the parts, the settings of the merged report, its status and what
    it lacks (with `partial`)."""

    records: list[Record]
    settings: ReportSettings
    status: str
    started: float
    finished: float
    versions: dict[str, str | None]  # package versions (`RunReport.versions`)
    missing: list[str] = field(default_factory=list)


def _names(parts: list[Part]) -> str:
    return ", ".join(p.path for p in parts)


def _same(parts: list[Part], what: str, value: Callable[[Part], Any]) -> None:
    """Refuse when the parts differ in `value(part)`, naming which files hold what."""
    seen: dict[str, list[Part]] = {}
    for p in parts:
        seen.setdefault(repr(value(p)), []).append(p)
    if len(seen) > 1:
        groups = "; ".join(f"{v} in {_names(ps)}" for v, ps in seen.items())
        raise MergeError(f"the parts differ in {what}: {groups}; merge the reports of one run")


def _shard(p: Part) -> ShardRecord:
    assert p.shard is not None
    return p.shard


def merge_parts(parts: list[Part], partial: bool = False) -> Merged:
    """The records of `parts` as one run (MergeError when they are not one)."""
    if not parts:
        raise MergeError("no reports given")
    _same(parts, "model", lambda p: p.report.model)
    for key, setting in COMPARED_SETTINGS:
        _same(parts, f"settings.{key}", lambda p, s=setting: s(p.report.settings))
    shards = [p for p in parts if p.shard is not None]
    if shards and len(shards) != len(parts):
        raise MergeError(f"{_names(shards)} are shards (--tom-shard) but "
                         f"{_names([p for p in parts if p.shard is None])} are not; merge the "
                         f"shards of one selection, or reports of runs without --tom-shard")
    missing: list[str] = []
    if shards:
        _same(parts, "the shard count (--tom-shard K/N)", lambda p: _shard(p).total)
        _same(parts, "the suite versions (suite files changed between the jobs)",
              lambda p: _shard(p).suite_digests)
        _same(parts, "the selection they were cut from (suites, -k, -m, --tom-limit)",
              lambda p: _shard(p).digest)
        by_index: dict[int, Part] = {}
        for p in parts:
            k = _shard(p).index
            if k in by_index:
                raise MergeError(f"{by_index[k].path} and {p.path} overlap: both are shard "
                                 f"{k}/{_shard(p).total}; give each shard once")
            by_index[k] = p
        total = _shard(parts[0]).total
        absent = [k for k in range(1, total + 1) if k not in by_index]
        if absent:
            missing.append(f"shard{'s' if len(absent) > 1 else ''} "
                           f"{', '.join(map(str, absent))} of {total} missing "
                           f"({len(by_index)} of {total} given)")
        for p in parts:
            have, want = len(p.records), _shard(p).items
            if want is not None and have < want:
                missing.append(f"{p.path} holds {have} of the {want} items of shard "
                               f"{_shard(p).index}/{total}")
    for p in parts:
        if not p.report.complete:
            missing.append(f"{p.path} is the report of an {p.report.status} run")
    if missing and not partial:
        raise MergeError("; ".join(missing) + ": give every part of the run, or --partial to "
                         "merge what is there into a report marked incomplete")
    owner: dict[tuple[str, str], str] = {}
    records: list[Record] = []
    for p in parts:
        for rec in p.records:
            key = key_of(rec)
            if key in owner:
                twice = sum(1 for r in p.records
                            if owner.get(key_of(r), p.path) != p.path)
                raise MergeError(f"{owner[key]} and {p.path} overlap: both hold item {key[1]} "
                                 f"of suite {key[0]} ({twice} shared item(s) in all); merge "
                                 f"disjoint parts (the shards of one selection)")
            owner[key] = p.path
        records.extend(p.records)
    merged_shard = (ShardRecord.of_merge(_shard(parts[0]), [_shard(p).index for p in parts],
                                         [p.path for p in parts]) if shards else None)
    settings = parts[0].report.settings.for_merge([p.path for p in parts], merged_shard)
    starts = [t for t in (timestamp(p.report.started) for p in parts) if t is not None]
    ends = [t for t in (timestamp(p.report.finished) for p in parts) if t is not None]
    return Merged(records=records, settings=settings,
                  status="incomplete" if missing else "complete",
                  started=min(starts, default=0.0), finished=max(ends, default=0.0),
                  versions=parts[0].report.versions, missing=missing)
