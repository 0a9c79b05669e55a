"""One self-contained HTML file from one or more JSON reports (`--tom-html`, `pytest-tom
html`, `pytest-tom compare --html`).

The page is rendered by Jinja2 (autoescaped) from `templates/report.html.j2`; plots are
matplotlib SVG inlined as markup; the item browser is plain JavaScript over the items
embedded once as JSON (`<script type="application/json">`), showing one page of rows at
a time, so 10,000 items open and filter without a framework, a CDN or any network.

Item data are made small: message lines (a scenario's story repeats in each of its
questions' prompts) are stored once in a string table and referenced by index. The
item data are written a row at a time into the rendered page (`page_chunks`): the rows
are never all held at once, nor the whole page as one string.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypedDict

from pytest_tom.compare.comparison import Comparison
from pytest_tom.compare.runs import Run
from pytest_tom.core.outcome import status
from pytest_tom.core.record import Record
from pytest_tom.core.record_view import RecordView, key_of
from pytest_tom.families.base import MetricTable
from pytest_tom.report.atomic import write_atomic
from pytest_tom.report.html import filters
from pytest_tom.report.probe_table import not_applicable_lines, probe_tables
from pytest_tom.report.story import gold_text
from pytest_tom.report.sweep_table import paired_lines, sweep_tables
from pytest_tom.results.results import OUTCOME_COUNTS, Results, SuiteResult
from pytest_tom.results.run_report import RunReport

TEMPLATES = Path(__file__).parent / "templates"
RESPONSE_LIMIT = 20_000  # characters of one response kept in the page
# where the item data go in the rendered template (random: no report text can hold it)
ITEMS_MARK = f"tom-items-{uuid.uuid4().hex}"


# -- the item data the page's script reads (short keys: 10,000 items and more) -------------


class RunViewJSON(TypedDict, total=False):
    """One run's answer to an item (`run_view`)."""

    v: str  # verdict: core.outcome.status
    p: str  # parsed
    d: str  # detail
    e: str  # error
    r: list[str]  # responses, each cut to RESPONSE_LIMIT
    m: list[list[list[Any]]] | None  # messages per call: [role, [string-table indices]]
    t: list[str | None]  # thoughts, when some call showed one
    x: int | float  # the outcome's value, when a number
    xt: str  # the outcome's extra, as JSON


class ItemRowJSON(TypedDict):
    """One item of the page (`ItemTable.rows`)."""

    s: int  # its suite: index into the page's suites
    f: str  # family
    k: str  # kind
    id: str
    t: list[str]  # tags
    q: str  # question
    c: list[str]  # choices
    g: str  # gold, in words
    src: str  # file:line
    o: list[RunViewJSON | None]  # per run (None: not in that run)


# -- what the template reads (templates/report.html.j2) ----------------------------------


class RunSection(TypedDict):
    label: str
    model: str
    path: str
    report: RunReport
    results: Results
    usage: dict[str, int]  # requests, from cache, and each token count (`usage_of`)


class SuiteSection(TypedDict):
    name: str
    family: str
    per_run: list[SuiteResult | None]
    plots: list[str]  # SVG markup


class SweepSection(TypedDict):
    run: str
    base: str
    table: MetricTable
    pairs: list[str]
    plots: list[str]


class ProbeSection(TypedDict):
    run: str
    table: MetricTable | None  # None: the lines say which probes a family does not take
    notes: list[str]


class PageContext(TypedDict):
    title: str
    runs: list[RunSection]
    labels: list[str]
    suites: list[SuiteSection]
    sweeps: list[SweepSection]
    probes: list[ProbeSection]
    comparison: Comparison | None
    items_json: str
    item_count: int
    outcome_counts: tuple[tuple[str, str, bool], ...]


def verdict(rec: Record) -> str:
    """right | wrong | unparseable | cut_off | error | skipped | measured
    (`core.outcome.status`)."""
    return status(RecordView(rec).outcome_or_none or {})


def text_of(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def gold_of(item: RecordView) -> str:
    """The gold as a reader writes it: a `contains` question's words (`an answer containing
    crayon or crayons; not box`), not its JSON; other golds as stored."""
    gold = item.gold
    if item.kind_or_none == "contains" and isinstance(gold, dict):
        return gold_text("contains", gold, dict(item.meta))
    return text_of(gold)


class Strings:
    """A table of unique strings; `ref(text)` is the index of the text in it."""

    def __init__(self) -> None:
        self.items: list[str] = []
        self.index: dict[str, int] = {}

    def ref(self, text: str) -> int:
        i = self.index.get(text)
        if i is None:
            i = self.index[text] = len(self.items)
            self.items.append(text)
        return i


def lines_of(text: str, strings: Strings) -> list[int]:
    """A message as string-table indices of its lines: a scenario's story line, repeated in
    the prompt of each of its questions, is stored once."""
    return [strings.ref(line) for line in text.split("\n")]


def messages_of(rec: Record, strings: Strings) -> list[list[list[Any]]] | None:
    """`record["messages"]` (a list of calls, each a list of {role, content}) as
    [[role, [line indices]], ...] per call; None when the report does not keep them."""
    calls = RecordView(rec).messages
    if not isinstance(calls, list) or not calls:
        return None
    out = []
    for call in calls:
        if isinstance(call, dict):  # tolerate one call given as a flat message list entry
            call = [call]
        if not isinstance(call, list):
            continue
        out.append([[str(m.get("role", "?")), lines_of(text_of(m.get("content")), strings)]
                    for m in call if isinstance(m, dict)])
    return out


def run_view(rec: Record | None, strings: Strings) -> RunViewJSON | None:
    if rec is None:
        return None
    rv = RecordView(rec)
    value = rv.value
    view: RunViewJSON = {
        "v": verdict(rec),
        "p": text_of(rv.parsed),
        "d": text_of(rv.detail),
        "e": text_of(rv.error),
        "r": [text_of(x)[:RESPONSE_LIMIT] for x in rv.responses],
        "m": messages_of(rec, strings),
    }
    thoughts = rv.thoughts
    if thoughts and any(t is not None for t in thoughts):  # a reasoning model's, per call
        view["t"] = [None if t is None else text_of(t)[:RESPONSE_LIMIT] for t in thoughts]
    if isinstance(value, int | float) and not isinstance(value, bool):
        view["x"] = value
    if rv.extra:
        view["xt"] = text_of(rv.extra)
    return view


class ItemTable:
    """The items of the page, one row at a time: a row is built, turned into JSON and let
    go, so a page of 100,000 items never holds every row (or the whole payload) at once."""

    def __init__(self, runs: list[Run]):
        self.strings = Strings()
        self.per_run: list[dict[tuple[str, str], Record]] = []
        keys: dict[tuple[str, str], Record] = {}
        for run in runs:
            index = {key_of(r): r for r in run.report.records}
            self.per_run.append(index)
            for k, r in index.items():
                keys.setdefault(k, r)
        self.keys = keys
        self.suites = sorted({k[0] for k in keys})
        self.labels = [r.label for r in runs]

    def __len__(self) -> int:
        return len(self.keys)

    def rows(self) -> Iterator[ItemRowJSON]:
        suite_index = {s: i for i, s in enumerate(self.suites)}
        for key in sorted(self.keys):
            item = RecordView(self.keys[key])
            yield {
                "s": suite_index[key[0]],
                "f": item.family_or_none or "",
                "k": item.kind_or_none or "",
                "id": item.id,
                "t": list(item.tags),
                "q": text_of(item.question),
                "c": [text_of(c) for c in item.choices],
                "g": gold_of(item),
                "src": text_of(item.source_file).rsplit("/", 1)[-1]
                       + (f":{item.line}" if item.line else ""),
                "o": [run_view(idx.get(key), self.strings) for idx in self.per_run],
            }

    def payload_chunks(self) -> Iterator[str]:
        """The page's item data as JSON safe inside <script> (see `embed_json`), in pieces:
        the rows first, then the string table they filled (the page reads it by name)."""
        yield '{"runs":' + embed_json(self.labels) + ',"suites":' + embed_json(self.suites) \
            + ',"items":['
        first = True
        for row in self.rows():
            yield ("" if first else ",") + embed_json(row)
            first = False
        yield '],"strings":' + embed_json(self.strings.items) + "}"


def usage_of(run: Run) -> dict[str, int]:
    """Tokens and requests summed over the items."""
    totals: dict[str, int] = {}
    requests = cached = 0
    for rec in run.report.records:
        view = RecordView(rec)
        for k, v in (view.usage or {}).items():
            if isinstance(v, int | float) and not isinstance(v, bool):
                totals[k] = totals.get(k, 0) + int(v)
        requests += view.requests
        cached += view.cached
    return {"requests": requests, "from cache": cached, **totals}


def embed_json(data: Any) -> str:
    """JSON safe inside a <script> element: every `<` (only ever inside strings) as \\u003c,
    so no `</script>` or `<!--` can end or confuse the element."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str)
    return text.replace("<", "\\u003c")


def build_context(runs: list[Run], comparison: Comparison | None = None
                  ) -> tuple[PageContext, ItemTable]:
    """What the template reads, and the items (streamed in apart: `page_chunks`)."""
    from pytest_tom.report.html.plots import (  # noqa: PLC0415 matplotlib (html extra), heavy
        suite_plots,
        sweep_plots,
    )

    labels = [r.label for r in runs]
    results = [r.results for r in runs]
    names = list(dict.fromkeys(n for res in results for n in res.suite_names))
    suites: list[SuiteSection] = []
    for name in names:
        per_run = [res.suite(name) for res in results]
        first = next(d for d in per_run if d is not None)
        suites.append({
            "name": name,
            "family": first.family,
            "per_run": per_run,
            "plots": suite_plots(first.family, labels, per_run),
        })
    table = ItemTable(runs)
    sweeps: list[SweepSection] = []  # --tom-sweep: each run's values side by side, per suite of the file
    for label, res in zip(labels, results, strict=True):
        sweep = res.sweep
        if not sweep:
            continue
        for block, t in zip(sweep.suites, sweep_tables(sweep), strict=True):
            sweeps.append({"run": label, "base": block.name, "table": t,
                           "pairs": paired_lines(block),
                           "plots": sweep_plots(sweep.setting, block.rows)})
    probes: list[ProbeSection] = []  # --tom-probe: each run's probes beside the base, per suite of the files
    for label, res in zip(labels, results, strict=True):
        block = res.probes
        if block is None:
            continue
        for t, notes in probe_tables(block):
            probes.append({"run": label, "table": t, "notes": notes})
        if block.not_applicable:
            probes.append({"run": label, "table": None, "notes": not_applicable_lines(block)})
    return {
        "title": "pytest-tom report" + (": " + " vs ".join(labels) if labels else ""),
        "runs": [{"label": r.label, "model": r.model, "path": str(r.path), "report": r.report,
                  "results": res, "usage": usage_of(r)} for r, res in zip(runs, results,
                                                                           strict=True)],
        "labels": labels,
        "suites": suites,
        "sweeps": sweeps,
        "probes": probes,
        "comparison": comparison,
        "items_json": ITEMS_MARK,  # the rows are streamed in its place (`page_chunks`)
        "item_count": len(table),
        "outcome_counts": OUTCOME_COUNTS,
    }, table


def render_html(runs: list[Run], comparison: Comparison | None = None) -> str:
    return "".join(page_chunks(runs, comparison))


def page_chunks(runs: list[Run], comparison: Comparison | None = None) -> Iterator[str]:
    """The page in pieces: the template around the item data, the item data a row at a time."""
    import jinja2  # noqa: PLC0415 optional (html extra): only when a page is written

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)),
                             autoescape=jinja2.select_autoescape(["html", "j2"]),
                             trim_blocks=True, lstrip_blocks=True,
                             undefined=jinja2.StrictUndefined)
    env.filters.update(filters.FILTERS)
    template = env.get_template("report.html.j2")
    context, table = build_context(runs, comparison)
    page = template.render(**context,
                           css=(TEMPLATES / "report.css").read_text(encoding="utf-8"),
                           js=(TEMPLATES / "report.js").read_text(encoding="utf-8"))
    head, mark, tail = page.partition(ITEMS_MARK)
    assert mark, "the template lost its item data element"
    yield head
    yield from table.payload_chunks()
    yield tail


def write_html(path: str | Path, runs: list[Run], comparison: Comparison | None = None) -> None:
    """Render and write atomically (a reader never sees half a page)."""
    write_atomic(path, page_chunks(runs, comparison))


def write_report_html(path: str | Path, report: RunReport, json_path: str | None) -> None:
    """`--tom-html`, `pytest-tom merge --html`: the page of one run, from its report."""
    run = Run.of(json_path or "(this run; no --tom-report)", report)
    run.label = run.model
    write_html(path, [run])
