"""One typed view of an item record: the only reader of a record's keys.

A record stays a plain dict (`core/record.Record`: it crosses xdist and is written to
the JSON report and replay files unchanged); everything that reads one does so through
`RecordView`'s properties, so a field's key and its default for reports saved before it
existed are written in one place. `RecordView(rec)` holds the dict and copies nothing:
each property is one or two dict lookups (aggregation reads 20,000 records and more).

Defaults follow what the writers leave out: a record of a skipped item may lack the
request side (`requests` reads 0, `usage` None), a report saved before a field existed
lacks it (`thoughts`, `finish`, `samples`, `sweep`, `probe`, `endpoints`: None), an
item's `tags` and `meta` read as empty when absent. The item's identity (`suite`, `id`,
`kind`, `scenario`, `family`) are on every record: reading them from a record without
them is a KeyError, as before (their `_or_none` forms, and the item's other fields, read
a missing item as empty); the outcome's fields of a record
without an outcome read as absent (None, "", empty), its `status` as an error.

tests/test_report_model.py fails on a read of a record, item or outcome key by string
anywhere else in the package but the writers (items/item.py, items/sample_requests.py)
and the JSON boundary modules.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from pytest_tom.core.json_value import JSONObject
from pytest_tom.core.outcome import status
from pytest_tom.core.record import (
    ItemSummary,
    OutcomeDict,
    ProbeRecord,
    Record,
    Sample,
    SweepRecord,
)

_EMPTY: Mapping[str, Any] = {}


class RecordView:
    """Typed read access to one record (or one of its `samples`, which has the same
    `outcome`, `responses`, `thoughts` and `finish`). A selection's guarded record
    (`metrics/record_table.guarded`) reads through it too: it answers the same keys."""

    __slots__ = ("record",)

    def __init__(self, record: Record | Sample | Mapping[str, Any]) -> None:
        self.record: Any = record

    # the two parts, typed
    @property
    def item(self) -> ItemSummary:
        return self.record["item"]

    @property
    def outcome(self) -> OutcomeDict:
        return self.record["outcome"]

    @property
    def outcome_or_none(self) -> OutcomeDict | None:
        """The outcome, None when the record has none (a foreign or truncated report)."""
        return self.record.get("outcome")

    # the item
    @property
    def id(self) -> str:
        return self.record["item"]["id"]

    @property
    def suite(self) -> str:
        return self.record["item"]["suite"]

    @property
    def key(self) -> tuple[str, str]:
        """(suite, id): the item's name across runs."""
        item = self.record["item"]
        return item["suite"], item["id"]

    @property
    def family(self) -> str:
        return self.record["item"]["family"]

    @property
    def family_or_none(self) -> str | None:
        item = self.record.get("item")
        return (item.get("family") if item is not None else None)

    @property
    def line(self) -> int:
        """The item's line in its suite file (0: unknown)."""
        item = self.record.get("item")
        return (item.get("line") if item is not None else None) or 0

    @property
    def scenario(self) -> str:
        return self.record["item"]["scenario"]

    @property
    def kind(self) -> str:
        return self.record["item"]["kind"]

    @property
    def kind_or_none(self) -> str | None:
        item = self.record.get("item")
        return (item.get("kind") if item is not None else None)

    @property
    def question(self) -> str:
        item = self.record.get("item")
        return (item.get("question", "") if item is not None else "")

    @property
    def gold(self) -> Any:
        item = self.record.get("item")
        return (item.get("gold") if item is not None else None)

    @property
    def group(self) -> str:
        """The item's goal-accuracy group ("" when it has none: its scenario is)."""
        item = self.record.get("item")
        return (item.get("group") if item is not None else None) or ""

    @property
    def unit(self) -> str:
        """The unit goal accuracy groups by: the group, else the scenario."""
        item = self.record["item"]
        return item.get("group") or item["scenario"]

    @property
    def choices(self) -> list[str]:
        item = self.record.get("item")
        return (item.get("choices") if item is not None else None) or []

    @property
    def tags(self) -> list[str]:
        item = self.record.get("item")
        return (item.get("tags") if item is not None else None) or []

    @property
    def meta(self) -> Mapping[str, Any]:
        item = self.record.get("item")
        return (item.get("meta") if item is not None else None) or _EMPTY

    @property
    def meta_or_none(self) -> JSONObject | None:
        """The item's meta as written (None when absent; `{}` stays `{}`)."""
        item = self.record.get("item")
        return (item.get("meta") if item is not None else None)

    @property
    def source_file(self) -> str:
        item = self.record.get("item")
        return ((item.get("source") if item is not None else None) or _EMPTY).get("file", "")

    # the outcome
    @property
    def correct(self) -> bool | None:
        out = self.record.get("outcome")
        return (out.get("correct") if out is not None else None)

    @property
    def parsed(self) -> Any:
        out = self.record.get("outcome")
        return (out.get("parsed") if out is not None else None)

    @property
    def value(self) -> float | None:
        out = self.record.get("outcome")
        return (out.get("value") if out is not None else None)

    @property
    def error(self) -> str | None:
        out = self.record.get("outcome")
        return (out.get("error") if out is not None else None)

    @property
    def detail(self) -> str:
        out = self.record.get("outcome")
        return (out.get("detail") if out is not None else None) or ""

    @property
    def extra(self) -> Mapping[str, Any]:
        out = self.record.get("outcome")
        return (out.get("extra") if out is not None else None) or _EMPTY

    @property
    def status(self) -> str:
        """`core/outcome.status` of the outcome (an outcome-less record reads as an error)."""
        return status(self.record.get("outcome"))

    # the answers and the request side
    @property
    def responses(self) -> list[str]:
        return self.record.get("responses") or []

    @property
    def thoughts(self) -> list[str | None] | None:
        return self.record.get("thoughts")

    @property
    def has_thoughts(self) -> bool:
        """Is the key there (some reply showed a thought, even an empty one)?"""
        return "thoughts" in self.record

    @property
    def finish(self) -> list[str | None] | None:
        return self.record.get("finish")

    @property
    def messages(self) -> list[list[dict[str, str]]] | None:
        return self.record.get("messages")

    @property
    def usage(self) -> dict[str, int] | None:
        return self.record.get("usage")

    @property
    def cached_usage(self) -> dict[str, int] | None:
        return self.record.get("cached_usage")

    @property
    def requests(self) -> int:
        return int(self.record.get("requests") or 0)

    @property
    def retries(self) -> int:
        return int(self.record.get("retries") or 0)

    @property
    def cached(self) -> int:
        return int(self.record.get("cached") or 0)

    @property
    def shared(self) -> int:
        return int(self.record.get("shared") or 0)

    @property
    def model(self) -> str | None:
        return self.record.get("model")

    @property
    def endpoints(self) -> dict[str, dict[str, int]]:
        return self.record.get("endpoints") or {}

    @property
    def sweep(self) -> SweepRecord | None:
        return self.record.get("sweep")

    @property
    def sweep_setting(self) -> str | None:
        return (self.record.get("sweep") or _EMPTY).get("setting")

    @property
    def sweep_value(self) -> Any:
        return (self.record.get("sweep") or _EMPTY).get("value")

    @property
    def sweep_suite(self) -> str | None:
        """The suite of the file a swept item came from (its own `suite` names the value)."""
        return (self.record.get("sweep") or _EMPTY).get("suite")

    @property
    def sweep_index(self) -> int:
        return int((self.record.get("sweep") or _EMPTY).get("index", 0))

    @property
    def probe(self) -> ProbeRecord | None:
        return self.record.get("probe")

    @property
    def probe_kind(self) -> str:
        """The probe a copy was asked under ("shuffle", ...)."""
        return self.record["probe"]["probe"]

    @property
    def probe_label(self) -> str:
        return self.record["probe"]["label"]

    @property
    def probe_suite(self) -> str:
        return self.record["probe"]["suite"]

    @property
    def gold_position(self) -> int | None:
        return self.record["probe"].get("gold_position")

    @property
    def samples(self) -> list[Sample]:
        return self.record.get("samples") or []


def meta_of(rec: Record) -> Mapping[str, Any]:
    """The item's meta (empty when absent): `RecordView(rec).meta` without a view object (the
    selections of declared metrics read it for every facet)."""
    return rec["item"].get("meta") or _EMPTY


def key_of(rec: Record) -> tuple[str, str]:
    """(suite, id) of a record: the sort key of reports and the pairing key of compares."""
    item = rec["item"]
    return item["suite"], item["id"]


def suite_of(rec: Record) -> str:
    return rec["item"]["suite"]


def facet_rows(records: Iterable[Record], missing: Any
               ) -> Iterator[tuple[Record, Mapping[str, Any] | None, tuple[str, ...], Any,
                                   str | None, bool | None]]:
    """Each record with its meta or None, tags, kind or `missing`, error and correct (one
    flat tuple): what `metrics/record_table` groups every record of a run by, in one loop
    (no call per record)."""
    for rec in records:
        item, out = rec["item"], rec["outcome"]
        yield (rec, item.get("meta"), tuple(item.get("tags", ())), item.get("kind", missing),
               out.get("error"), out.get("correct"))


def verdicts(records: Iterable[Record]) -> Iterator[tuple[Record, str | None, bool | None]]:
    """Each record with its `verdict_of` (one flat tuple), in one loop (the tallies read
    every record)."""
    for rec in records:
        out = rec["outcome"]
        yield rec, out.get("error"), out.get("correct")


def by_suite(records: Iterable[Record]) -> dict[str, list[Record]]:
    """The records of each suite, in the order given (one loop, no call per record:
    aggregation and the intervals split every record of a run by suite)."""
    out: dict[str, list[Record]] = {}
    for rec in records:
        suite = rec["item"]["suite"]
        part = out.get(suite)
        if part is None:
            out[suite] = [rec]
        else:
            part.append(rec)
    return out


def by_tags(records: Iterable[Record]) -> dict[tuple[str, ...], list[Record]]:
    """The records of each list of tags (as a tuple), in the order given (one loop)."""
    out: dict[tuple[str, ...], list[Record]] = {}
    for rec in records:
        tags = tuple(rec["item"].get("tags") or ())
        part = out.get(tags)
        if part is None:
            out[tags] = [rec]
        else:
            part.append(rec)
    return out


def most_samples(records: Iterable[Record]) -> int:
    """The largest number of samples of any record (0: none has samples), in one loop."""
    most = 0
    for rec in records:
        samples = rec.get("samples")
        if samples and len(samples) > most:
            most = len(samples)
    return most


def unit_of(rec: Record) -> str:
    """The unit goal accuracy groups the record by: its group, else its scenario (called
    per record by aggregation: no view object)."""
    item = rec["item"]
    return item.get("group") or item["scenario"]


def verdict_of(rec: Record) -> tuple[str | None, bool | None]:
    """(error, correct) of the record's outcome (the per-record read of the tallies)."""
    out = rec["outcome"]
    return out.get("error"), out.get("correct")


# one field of every record of a run, without a view object: what aggregation's
# per-record loops read (the same keys and defaults as the view's properties)

def id_of(rec: Record) -> str:
    return rec["item"]["id"]


def group_of(rec: Record) -> str:
    return rec["item"].get("group") or ""


def tags_of(rec: Record) -> list[str]:
    return rec["item"].get("tags") or []


def samples_of(rec: Record) -> list[Sample]:
    return rec.get("samples") or []


def status_of(rec: Record) -> str:
    """`RecordView(rec).status`."""
    return status(rec.get("outcome"))


def scenario_of(rec: Record) -> str:
    return rec["item"]["scenario"]


def shows_reasoning(rec: Record) -> bool:
    """Does the record show any reasoning: a thought (even an empty one), or a positive
    reasoning token count in its usage or its cached usage."""
    if "thoughts" in rec:
        return True
    usage, cached = rec.get("usage"), rec.get("cached_usage")
    return bool((usage and usage.get("reasoning_tokens"))
                or (cached and cached.get("reasoning_tokens")))


# what the families' own per-record code reads (their selections run once per record of
# a facet, their tallies once per record of a suite: a view object and its property
# reads there cost about a tenth of a 100,000-record scoring); the same keys and
# defaults as the view's properties

def kind_of(rec: Record) -> str:
    """`RecordView(rec).kind`."""
    return rec["item"]["kind"]


def gold_of(rec: Record) -> Any:
    """`RecordView(rec).gold`."""
    item = rec.get("item")
    return item.get("gold") if item is not None else None


def error_of(rec: Record) -> str | None:
    """`RecordView(rec).error`."""
    out = rec.get("outcome")
    return out.get("error") if out is not None else None


def parsed_of(rec: Record) -> Any:
    """`RecordView(rec).parsed`."""
    out = rec.get("outcome")
    return out.get("parsed") if out is not None else None


def error_parsed_of(rec: Record) -> tuple[str | None, Any]:
    """(error, parsed) of the record's outcome (both None without one)."""
    out = rec.get("outcome")
    return (out.get("error"), out.get("parsed")) if out is not None else (None, None)


def extra_of(rec: Record) -> Mapping[str, Any]:
    """`RecordView(rec).extra`."""
    out = rec.get("outcome")
    return (out.get("extra") if out is not None else None) or _EMPTY


def meta_verdicts(records: Iterable[Record]
                  ) -> Iterator[tuple[Record, Mapping[str, Any], str, str | None, bool | None]]:
    """Each record with its meta (empty when absent), unit, error and correct (one flat
    tuple), in one loop: a family's tally of every record of a suite."""
    for rec in records:
        item, out = rec["item"], rec.get("outcome") or _EMPTY
        yield (rec, item.get("meta") or _EMPTY, item.get("group") or item["scenario"],
               out.get("error"), out.get("correct"))


def extra_verdicts(records: Iterable[Record]
                   ) -> Iterator[tuple[Record, Mapping[str, Any], str | None, bool | None]]:
    """Each record with its outcome's extra (empty when absent), error and correct (one
    flat tuple), in one loop."""
    for rec in records:
        out = rec.get("outcome") or _EMPTY
        yield rec, out.get("extra") or _EMPTY, out.get("error"), out.get("correct")


def answer_rows(records: Iterable[Record]
                ) -> Iterator[tuple[Record, str, Mapping[str, Any], str, str, str | None,
                                    bool | None, Any, Any, Mapping[str, Any]]]:
    """Each record with its kind, meta (empty when absent), scenario, status, error,
    correct, parsed, gold and extra (empty when absent), one flat tuple, in one loop: what
    a family's tally of every answer of a suite reads."""
    for rec in records:
        item, out = rec["item"], rec.get("outcome")
        state = status(out)  # an outcome-less record: an error
        if out is None:
            out = _EMPTY
        yield (rec, item["kind"], item.get("meta") or _EMPTY, item["scenario"], state,
               out.get("error"), out.get("correct"), out.get("parsed"), item.get("gold"),
               out.get("extra") or _EMPTY)
