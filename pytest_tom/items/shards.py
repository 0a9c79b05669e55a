"""`--tom-shard K/N`: one of N disjoint parts of a selection, in whole groups.

A CI job matrix runs N jobs; each runs the same selection (the same suites, `-k`, `-m`,
`--tom-limit`) and keeps its own part. The cut depends only on the selection: the units
(each suite's groups, through `Family.shard_unit`: FANToM sets, or parts or conversations
under `--tom-fantom-group`; BigToM templates; OpenToM narratives; robustness sceneries;
a generic suite's groups) are sorted by item count, largest first (ties by a hash of
suite and unit id), and each goes to the shard with the fewest items so far (ties: the
lowest index). Every job computes the same assignment without talking to the others, no
shard is more than one unit above the mean, and a unit's items are never split, so each
shard's own report has whole groups and the merged records are those of one whole run.

The report of a shard records the shard and a description of the selection it was cut
from (`selection_record`): the number of items and units, a digest of its item ids and
one of each suite file, so that `pytest-tom merge` refuses parts cut from different
selections or suite versions and knows when a shard is missing.

Under `--tom-sweep` a unit is named by the suite of its file (`SweepPoint.suite`), not the
value's suite: every value of a unit goes to the same shard, so each shard's report holds
whole (item, value) families and its paired tests between values pair all their items.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

# CI systems that start N parallel copies of a job and tell each its position:
# (name, index variable, total variable, index of the first job)
CI_VARIABLES: tuple[tuple[str, str, str, int], ...] = (
    ("GitLab CI", "CI_NODE_INDEX", "CI_NODE_TOTAL", 1),
    ("CircleCI", "CIRCLE_NODE_INDEX", "CIRCLE_NODE_TOTAL", 0),
    ("Buildkite", "BUILDKITE_PARALLEL_JOB", "BUILDKITE_PARALLEL_JOB_COUNT", 0),
    ("Azure Pipelines", "SYSTEM_JOBPOSITIONINPHASE", "SYSTEM_TOTALJOBSINPHASE", 1),
)


class ShardError(ValueError):
    """A shard that cannot be resolved (a CI variable that is not a position)."""


@dataclass(frozen=True)
class Shard:
    """Shard `index` of `total` (1-based), and where that came from (for the header)."""

    index: int
    total: int
    source: str

    @property
    def label(self) -> str:
        return f"{self.index}/{self.total}"


def resolve_shard(value: str | None, environ: Mapping[str, str]) -> Shard | None:
    """The shard `--tom-shard` asks for (`K/N`, checked by the option table, or `auto`);
    None without the option. `auto` without any CI variables is the whole selection (1/1)."""
    if not value:
        return None
    if value != "auto":
        k, _, n = value.partition("/")
        return Shard(int(k), int(n), f"--tom-shard {value}")
    for name, index_var, total_var, first in CI_VARIABLES:
        raw_index, raw_total = environ.get(index_var), environ.get(total_var)
        if raw_index is None or raw_total is None:
            continue
        where = f"{name} {index_var}={raw_index}, {total_var}={raw_total}"
        try:
            index, total = int(raw_index) - first + 1, int(raw_total)
        except ValueError:
            raise ShardError(f"--tom-shard auto: {where} are not whole numbers; set "
                             f"--tom-shard K/N instead") from None
        if not 1 <= index <= total:
            raise ShardError(f"--tom-shard auto: {where} is no position among the jobs; set "
                             f"--tom-shard K/N instead")
        return Shard(index, total, where)
    known = ", ".join(f"{name} {i}/{t}" for name, i, t, _ in CI_VARIABLES)
    return Shard(1, 1, f"--tom-shard auto: no CI shard variables ({known}): the whole selection")


def _rank(suite: str, unit: str) -> str:
    return hashlib.sha256(f"{suite}\0{unit}".encode()).hexdigest()


Unit = tuple[str, str]  # (suite, unit id)


def assign(sizes: Mapping[Unit, int], total: int) -> dict[Unit, int]:
    """Unit -> shard (1-based): largest units first, each to the least loaded shard."""
    loads = [0] * total
    out: dict[Unit, int] = {}
    for unit in sorted(sizes, key=lambda u: (-sizes[u], _rank(*u))):
        k = min(range(total), key=lambda i: (loads[i], i))
        loads[k] += sizes[unit]
        out[unit] = k + 1
    return out


def _digest(lines: Iterable[str]) -> str:
    h = hashlib.sha256()
    for line in lines:
        h.update(line.encode("utf-8", "surrogatepass"))
        h.update(b"\n")
    return h.hexdigest()


def file_digest(path: str) -> str:
    """sha256 of a suite file's bytes ("" when it cannot be read)."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return ""


class CutOptions(TypedDict, total=False):
    """The options that chose what a shard was cut from (`-k`, `-m`, `--tom-limit`)."""

    keyword: str
    markexpr: str
    limit: int | None


class ShardCut(TypedDict, total=False):
    """`selection_record`: what a shard was cut from (the report's `settings.shard.selection`,
    `results.run_report.ShardSelectionJSON`), and the options that chose it, when given."""

    items: int
    units: int
    digest: str
    suites: dict[str, str]  # suite -> digest of its files
    keyword: str
    markexpr: str
    limit: int | None


def selection_record(keys: list[tuple[str, str]], units: int, files: Mapping[str, set[str]],
                     how: CutOptions) -> ShardCut:
    """What a shard was cut from: the item count, the unit count, a digest of the
    (suite, id) pairs, a digest of each suite's files (its version: a suite split over
    several files has one digest of them all), and the options that chose it (`-k`, `-m`,
    `--tom-limit`; informative: the digests are what merge compares)."""
    cut: ShardCut = {
        "items": len(keys),
        "units": units,
        "digest": _digest(f"{s}\0{i}" for s, i in sorted(keys)),
        "suites": {name: _digest(sorted(file_digest(p) for p in paths))
                   for name, paths in sorted(files.items())},
    }
    if how.get("keyword"):
        cut["keyword"] = how["keyword"]
    if how.get("markexpr"):
        cut["markexpr"] = how["markexpr"]
    if how.get("limit"):
        cut["limit"] = how["limit"]
    return cut
