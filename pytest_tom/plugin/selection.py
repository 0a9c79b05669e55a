"""The selections of the plugin beyond `-k` and `-m`.

`--tom-limit N`: a seeded subset of at most N items per suite, in whole groups.

For smoke runs (the embedded model answers about one item a second): whole
groups (scenarios, sets, templates, sceneries) are taken in an order fixed by
`--tom-seed` and the group's name, until the next group would pass N items; a
suite always keeps at least one group, so goal accuracy stays meaningful. The
choice depends only on the seed and the ids, so every xdist worker makes the
same one. The other items are deselected, as `-k` would.

`--tom-shard K/N` (after `--tom-limit`): this job's whole units of the selection
(`items/shards.py`).

`Selection` is the bookkeeping of collection and selection in a run (a hook object of
every process): it applies both, counts the items deselected (the gates warn that they
judged a subset), keeps the suite files that failed to load (they must not stop the
others) and the shard record (under xdist the workers cut, and hand theirs over).
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from pytest_tom import families
from pytest_tom.core.settings import Settings
from pytest_tom.items.shards import CutOptions, Shard, Unit, assign, selection_record
from pytest_tom.plugin.context import RunContext
from pytest_tom.pytest_compat import send_to_controller, sent_by_worker
from pytest_tom.results.run_report import SelectionJSON, ShardJSON

SHARD_OUTPUT = "tom_shard"  # a worker's shard record, handed to the controller
COUNTS_OUTPUT = "tom_deselected"  # a worker's counts of deselected items, to the controller


def _rank(seed: int, suite: str, group: str) -> str:
    return hashlib.sha256(f"{seed}:{suite}:{group}".encode()).hexdigest()


def limit_items(items: list[Any], limit: int, seed: int) -> tuple[list[Any], list[Any]]:
    """(kept, deselected) among TomItems (anything with `.spec`); other items are kept."""
    groups: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for item in items:
        spec = getattr(item, "spec", None)
        if spec is not None:
            groups[spec.suite][spec.group] += 1
    # a sweep's values of one suite (`bigtom[thinking-tokens=16]` ...) rank its groups by
    # the file's suite, so every value keeps the same scenarios (paired across values)
    specs = [s for s in (getattr(item, "spec", None) for item in items) if s is not None]
    base = {spec.suite: spec.base_suite for spec in specs}
    chosen: set[tuple[str, str]] = set()
    for suite, sizes in groups.items():
        total = 0
        for group in sorted(sizes, key=lambda g: _rank(seed, base[suite], g)):
            if total and total + sizes[group] > limit:
                break
            chosen.add((suite, group))
            total += sizes[group]
    kept, dropped = [], []
    for item in items:
        spec = getattr(item, "spec", None)
        (kept if spec is None or (spec.suite, spec.group) in chosen else dropped).append(item)
    return kept, dropped


def shard_items(items: list[pytest.Item], shard: Shard, settings: Settings,
                how: CutOptions) -> tuple[list[pytest.Item], list[pytest.Item], ShardJSON]:
    """(kept, deselected, record) for `--tom-shard`: the TomItems of the whole units
    `items.shards.assign` gives this shard; other items are kept in every shard. The
    record (for the report) names the shard and the selection it was cut from."""
    unit_of: dict[int, Unit] = {}
    sizes: dict[Unit, int] = defaultdict(int)
    files: dict[str, set[str]] = defaultdict(set)
    keys: list[tuple[str, str]] = []
    for n, item in enumerate(items):
        spec = getattr(item, "spec", None)
        if spec is None:
            continue
        # a sweep's values of one unit go to one shard (its suite's name without the value)
        unit = (spec.base_suite, families.get(spec.family).shard_unit(spec, settings))
        unit_of[n] = unit
        sizes[unit] += 1
        keys.append((spec.suite, spec.id))
        files[spec.suite].add(str(spec.source.get("file", "")))
    owner = assign(sizes, shard.total)
    kept, dropped = [], []
    for n, item in enumerate(items):
        unit = unit_of.get(n)
        (kept if unit is None or owner[unit] == shard.index else dropped).append(item)
    mine = [u for u in sizes if owner[u] == shard.index]
    record: ShardJSON = {"index": shard.index, "total": shard.total, "source": shard.source,
                         "items": sum(sizes[u] for u in mine), "units": len(mine),
                         "selection": selection_record(keys, len(sizes), files, how)}
    return kept, dropped, record


class Selection:
    """What collection and selection did in this run (see the module docstring)."""

    def __init__(self, ctx: RunContext):
        self.ctx = ctx
        self.deselected = 0  # items of the suites deselected (-k, -m, --lf, --tom-limit ...)
        self.shard_cut = 0  # of them, those --tom-shard left to the other shards
        self.counted = False  # the counts are known here (under xdist: once a worker said)
        self.broken_suites: list[str] = []  # node ids of suite files that failed to load
        # this shard and the selection it was cut from; under xdist the workers cut, and
        # the controller takes theirs when they finish
        self.shard_record: ShardJSON | None = None

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config: pytest.Config,
                                      items: list[pytest.Item]) -> None:
        ctx = self.ctx
        if ctx.options.limit:
            kept, dropped = limit_items(items, ctx.options.limit, ctx.settings.seed)
            if dropped:
                config.hook.pytest_deselected(items=dropped)
                items[:] = kept
        if ctx.shard is not None:  # after -k, -m and --tom-limit: a cut of that selection
            how: CutOptions = {"keyword": config.getoption("-k"),
                               "markexpr": config.getoption("-m"), "limit": ctx.options.limit}
            kept, dropped, self.shard_record = shard_items(items, ctx.shard, ctx.settings, how)
            if dropped:
                config.hook.pytest_deselected(items=dropped)
                self.shard_cut += sum(1 for i in dropped if hasattr(i, "spec"))
                items[:] = kept
        self.counted = True

    def selecting(self, config: pytest.Config) -> list[str]:
        """The options that select among the suites' items (before any shard cut)."""
        return [name for name, on in (("-k", config.getoption("-k", "")),
                                      ("-m", config.getoption("-m", "")),
                                      ("--lf", config.getoption("--lf", False)),
                                      ("--tom-limit", self.ctx.options.limit)) if on]

    def record(self, config: pytest.Config) -> SelectionJSON | None:
        """How the items that ran were selected, for the report's `settings.selection`
        (`results.run_report.SelectionRecord`), or None when every item of the suites ran.
        Counted where the items were collected (under xdist on the workers, which hand their
        counts over: `pytest_testnodedown`); the controller alone knows only the options."""
        named = any("::" in str(a) for a in config.args)
        by = self.selecting(config)
        before_cut = self.deselected - self.shard_cut
        if self.counted and not before_cut:
            by = []  # -k or --tom-limit that deselected nothing: no subset
        if not (before_cut or by or named or self.shard_cut):
            return None
        return {"deselected": before_cut if self.counted else None, "by": by, "named": named,
                "shard_cut": self.shard_cut}

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        """Count deselected items of the suites (the gates warn that they judged a subset)."""
        self.deselected += sum(1 for i in items if hasattr(i, "spec"))

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        """Suite files that failed to load (their errors must not stop the other suites)."""
        if (report.failed and report.nodeid
                and self.ctx.is_suite_file(Path(report.nodeid.split("::")[0]))):
            self.broken_suites.append(report.nodeid)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """xdist, on the controller: the shard the workers cut (each cuts the same)."""
        record = sent_by_worker(node, SHARD_OUTPUT)
        if record is not None and self.shard_record is None:
            self.shard_record = record
        counts = sent_by_worker(node, COUNTS_OUTPUT)
        if counts is not None and not self.counted:  # every worker deselects the same
            self.deselected, self.shard_cut = int(counts[0]), int(counts[1])
            self.counted = True

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """xdist, on a worker: its shard record and counts to the controller
        (`pytest_testnodedown`)."""
        if self.ctx.is_worker and self.shard_record is not None:
            send_to_controller(session.config, SHARD_OUTPUT, self.shard_record)
        if self.ctx.is_worker and self.counted:
            send_to_controller(session.config, COUNTS_OUTPUT, [self.deselected, self.shard_cut])
