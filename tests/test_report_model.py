"""The typed report model holds the keys: results and saved reports are read through
`results.results` and `results.run_report`, never by their JSON keys elsewhere in the
package, so a new figure or field is named in one place (docs/architecture.md).

The keys are every key the model declares (the TypedDicts of `results/results.py` and
`results/run_report.py`: the report, its settings, shard and selection, the results, each
suite, its reasoning, the sweep and the probes; and those of `metrics/accuracy.py`,
`metrics/intervals.py`, `metrics/table_json.py`: the core block, intervals, tables), taken from the
declarations, not listed here. A key the item record shares (`core/record.Record`, its
item `core/model.ItemSpec` and outcome `core/outcome.Outcome`: `value`, `model`,
`suite` ...) is the record's and is not checked here: records are their own model.

Checked: every module that handles results or reports (it imports from
`pytest_tom.results`, `.report` or `.compare`, or lives in one of those folders),
outside the three boundary modules. A read is a subscript with a string (`x["low"]`) or
`.get("low")`; writing a key (`out["low"] = ...`, a dict display) is the model's
writers' business; a read inside a record's part (`rec["sweep"].get("setting")`) or the
run's options (`options.get("items")`) belongs to those models."""

from __future__ import annotations

import ast
import typing
from dataclasses import fields

from conftest import REPO

from pytest_tom.core import record as record_model
from pytest_tom.core.model import ItemSpec
from pytest_tom.core.outcome import Outcome
from pytest_tom.core.settings import Settings
from pytest_tom.metrics import accuracy as counts_model
from pytest_tom.metrics import intervals as intervals_model
from pytest_tom.metrics import table_json as table_model
from pytest_tom.metrics.intervals import Interval, MetricInterval
from pytest_tom.results import results as results_model
from pytest_tom.results import run_report as report_model
from pytest_tom.results.aggregate import aggregate
from pytest_tom.results.results import Results, interval_of
from pytest_tom.results.run_report import RunReport
from pytest_tom.results.token_usage import EndpointUsage, usage_by_endpoint
from pytest_tom.suite import ItemSpec as SuiteItemSpec

PACKAGE = REPO / "pytest_tom"
# the modules that know the keys of results and reports (the JSON boundary)
MODEL = {"results/results.py", "results/run_report.py", "results/saved_report.py"}
ROOMS = ("results", "report", "compare")
SEES = ("pytest_tom.results", "pytest_tom.report", "pytest_tom.compare")


def declared_keys() -> set[str]:
    """Every key of the report's JSON model, from its TypedDicts (the core block, an
    interval and a table are declared where metrics/ writes them)."""
    out: set[str] = set()
    for module in (results_model, report_model, counts_model, intervals_model, table_model):
        for value in vars(module).values():
            if typing.is_typeddict(value) and value.__module__ == module.__name__:
                out |= set(value.__annotations__)
    return out


def record_keys() -> set[str]:
    """The keys of the item record, its item and its outcome (and, so that a key the
    report shares with the model objects is not the report's, the fields of those)."""
    return (record_model_keys(("Record", "ItemSummary", "OutcomeDict", "Sample"))
            | {f.name for f in fields(ItemSpec)} | {f.name for f in fields(Outcome)})


def record_model_keys(names: tuple[str, ...] | None = None) -> set[str]:
    """Every key a record, its item summary, outcome, samples, sweep and probe can hold,
    from the TypedDicts of core/record.py (`names`: of those TypedDicts only)."""
    out: set[str] = set()
    for name, value in vars(record_model).items():
        if (typing.is_typeddict(value) and value.__module__ == record_model.__name__
                and (names is None or name in names)):
            out |= set(value.__annotations__)
    return out


RECORD = record_keys()
KEYS = declared_keys() - RECORD


def _read(node: ast.AST) -> tuple[str, ast.expr] | None:
    """(key, what it is read from) of `x["key"]` or `x.get("key", ...)`; None otherwise."""
    if (isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load)
            and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)):
        return node.slice.value, node.value
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get" and node.args and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)):
        return node.args[0].value, node.func.value
    return None


def _other_model(receiver: ast.expr) -> bool:
    """Is the key read inside another model: a record's part (`rec["probe"]["label"]`,
    `(rec.get("sweep") or {}).get("index")`), or the run's options (`options.get(...)`,
    core/option_table)?"""
    if isinstance(receiver, ast.Name) and receiver.id == "options":
        return True
    return any((found := _read(node)) is not None and found[0] in RECORD
               for node in ast.walk(receiver))


def reads(source: str) -> list[tuple[int, str, str]]:
    """(line, key, text) of every read of a string key (`x["key"]`, `x.get("key", ...)`)
    outside another model."""
    out = []
    for node in ast.walk(ast.parse(source)):
        found = _read(node)
        if found is not None and not _other_model(found[1]):
            out.append((node.lineno, found[0], ast.unparse(node)))
    return out


def checked_modules() -> list[tuple[str, str]]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        text = path.read_text(encoding="utf-8")
        if rel not in MODEL and (rel.split("/")[0] in ROOMS or any(s in text for s in SEES)):
            out.append((rel, text))
    return out


def test_the_model_declares_every_key() -> None:
    """The declarations hold the keys of the figures, intervals, settings and blocks."""
    for key in ("suites", "totals_intervals", "intervals", "low", "high", "method", "resamples",
                "headline", "display", "tables", "caption", "shard_cut", "digest", "levels",
                "ci_low", "thought_mean_interval", "newly_wrong", "from", "by_position",
                "duration_seconds", "concurrency"):
        assert key in KEYS, key
    # the interval's own fields are keys of the model
    assert {f.name for f in fields(MetricInterval)} - {"value"} <= KEYS


def _json_form(node: ast.AST) -> bool:
    """Is `node` a read by key from a view's JSON form (`report.data["model"]`,
    `settings.data.get("seed")`) or from a report or results by name (`results["x"]`)?
    Flagged whatever the key, so that a key the record shares (`model`, `value`) is
    caught there too."""
    found = _read(node)
    if found is None:
        return False
    receiver = found[1]
    return ((isinstance(receiver, ast.Attribute) and receiver.attr == "data")
            or (isinstance(receiver, ast.Name) and receiver.id in ("report", "results")))


def test_results_are_read_through_the_model_only() -> None:
    found = [f"{rel}:{n}: {text}" for rel, source in checked_modules()
             for n, key, text in reads(source) if key in KEYS]
    found += [f"{rel}:{node.lineno}: {ast.unparse(node)}" for rel, source in checked_modules()
              for node in ast.walk(ast.parse(source)) if _json_form(node)]
    assert not found, ("results or reports read by key outside results/results.py, "
                       "results/run_report.py and results/saved_report.py (use their typed "
                       "accessors):\n" + "\n".join(found))


def test_the_guard_sees_a_lookup() -> None:
    keys = [(key, text) for _, key, text in reads(
        'x = results["suites"][name]\nblock.get("intervals") or {}\nrec["item"]["suite"]\n'
        'out["low"] = 1\niv.get("low", 0)\nrec["probe"]["label"]\noptions.get("items")\n')]
    assert sorted(k for k, _ in keys if k in KEYS) == ["intervals", "low", "suites"]
    tree = ast.parse('report.data.get("model")\nrun.report.data["model"]\nresults["value"]\n'
                     'rec["model"]\n')
    assert sum(_json_form(node) for node in ast.walk(tree)) == 3
    assert "item" not in KEYS and "suite" not in KEYS  # the record's
    assert "report/terminal.py" in dict(checked_modules())
    assert "results/results.py" not in dict(checked_modules())


def test_an_interval_reads_back_as_it_was_written() -> None:
    boot = MetricInterval.of(Interval(0.5, 0.25, 0.75, "bootstrap", 7, 1000, 42),
                             "goal accuracy", True)
    share = MetricInterval.of(Interval(0.5, 0.3, 0.7, "wilson", 10), "turn accuracy", False)
    amount = MetricInterval.of(Interval(12.0, 10.0, 15.0, "order statistics", 9), "median",
                               True, "amount")
    for iv in (boot, share, amount):
        data = iv.to_dict()
        assert interval_of(data) == iv
        assert interval_of(data).to_dict() == data and list(interval_of(data).to_dict()) == \
            list(data)
    assert "resamples" not in share.to_dict() and "display" not in share.to_dict()
    assert amount.to_dict()["display"] == "amount" and boot.to_dict()["seed"] == 42


def _records(k: int) -> list[dict]:
    out = []
    for i in range(6):
        spec = SuiteItemSpec(id=f"g{i // 2}::q{i}", suite="s", family="generic",
                             scenario=f"g{i // 2}", kind="yes_no", question="?", gold="yes")
        samples = [{"outcome": Outcome(correct=(i + s) % 3 != 0).to_dict(), "responses": ["x"]}
                   for s in range(k)]
        out.append({"item": spec.summary(), "outcome": samples[0]["outcome"], "responses": ["x"],
                    **({"samples": samples} if k > 1 else {})})
    return out


def test_sample_runs_keep_their_spread_in_the_report() -> None:
    results = aggregate(_records(3), Settings())
    assert isinstance(results, Results) and results.samples == 3
    suite = results.suite("s")
    assert suite is not None and suite.samples == 3 and "turn" in suite.spread
    assert not suite.intervals  # means over samples: the spread is shown instead
    report = RunReport.build(results, _records(3), {"model": "m"}, 0.0, 1.0)
    assert report.data["samples"] == 3 and report.results.totals_spread == results.totals_spread
    assert list(report.data)[-1] == "items"
    one = aggregate(_records(1), Settings())
    assert one.samples is None
    turn = one.suite("s").interval("turn")  # type: ignore[union-attr]
    assert isinstance(turn, MetricInterval) and turn.method == "wilson" and turn.n == 6
    assert one.total_interval("goal") is not None and one.totals_intervals["turn"] == turn


def test_endpoints_read_back_typed() -> None:
    records = _records(1)
    records[0]["endpoints"] = {"http://a": {"requests": 3, "failures": 1, "moved": 1}}
    records[1]["endpoints"] = {"http://b": {"requests": 2}, "http://a": {"requests": 1}}
    report = RunReport.build(aggregate(records, Settings()), records, {"model": "m"}, 0.0, 1.0)
    assert report.data["endpoints"][0] == {"endpoint": "http://a", "requests": 4,
                                           "failures": 1, "moved": 1}
    assert report.endpoints == usage_by_endpoint(records)
    assert report.endpoints["http://b"] == EndpointUsage(requests=2)


# --- the record's keys: read through core/record_view.RecordView only -------------------

# the modules that read a record's keys: the view, the model, the writers that build the
# dict, and the JSON boundary (the report reader checks a saved report's records)
RECORD_READERS = {"core/record.py", "core/record_view.py", "items/item.py",
                  "items/sample_requests.py", "results/saved_report.py"}
# where the package reads records
RECORD_ROOMS = ("metrics", "results", "report", "compare", "gates", "plugin", "families")
# modules of those rooms that read other data by the same keys, never a record: a suite
# file's or an upstream file's raw JSON (a family's schema, expansion and converter),
# the report's own JSON model (its keys `suite`, `family`, `value`, `samples` ... are the
# report's: the test above checks them)
NOT_RECORDS = ("/expand.py", "/schema.py", "/convert.py", "/scenes.py", "families/convert_kit.py",
               "results/results.py")
# single reads of a record key from something else, by module: (receiver, key) and why
OTHER_DATA = {
    ("gates/spec.py", "m", "value"): "a regex match of --tom-fail-under",
    ("families/opentom/metrics.py", "counts", "parsed"): "a Counter of the faithfulness pairs",
    ("families/opentom/metrics.py", "c", "parsed"): "a Counter of the faithfulness pairs",
    ("families/base.py", "owner", "tags"): "a metric's declared owner (a suite-file entry)",
    ("plugin/large_runs.py", "kwargs", "item"): "a pytest hook's keyword arguments (the test item)",
    ("families/hitom/headline.py", "m", "order"): "the item's meta (the family's own keys)",
    ("families/fantom/prompts.py", "d", "question"): "the item's data (the family's own keys)",
    ("families/mmtomqa/prompts.py", "s", "question"): "a scenario of the release's file",
    ("report/compact.py", "ours", "error"): "pytest's reports by outcome",
    ("results/run_report.py", "e", "requests"): "an entry of the report's endpoints",
}


def _family_meta(receiver: ast.expr) -> bool:
    """Is the read inside an item's `meta` or `data` (`view.meta["order"]`,
    `meta(r).get("order")`, `item.data["scenario"]`)? Their keys are the family's own
    (free-form data: `ItemSummary.meta`, `ItemSpec.data`), not the model's."""
    return any((isinstance(n, ast.Name) and n.id == "meta")
               or (isinstance(n, ast.Attribute) and n.attr in ("meta", "data"))
               for n in ast.walk(receiver))


def _receiver_name(receiver: ast.expr) -> str:
    return receiver.id if isinstance(receiver, ast.Name) else ast.unparse(receiver)


def record_reads(rel: str, source: str) -> list[str]:
    """`line: text` of every read of a record, item or outcome key by string in `source`."""
    keys = record_model_keys()
    out = []
    for node in ast.walk(ast.parse(source)):
        found = _read(node)
        if found is None or found[0] not in keys:
            continue
        if (rel, _receiver_name(found[1]), found[0]) in OTHER_DATA or _family_meta(found[1]):
            continue
        out.append(f"{rel}:{node.lineno}: {ast.unparse(node)}")
    return out


def record_checked_modules() -> list[tuple[str, str]]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if (rel.split("/")[0] in RECORD_ROOMS and rel not in RECORD_READERS
                and not any(rel.endswith(n) for n in NOT_RECORDS)):
            out.append((rel, path.read_text(encoding="utf-8")))
    return out


def test_records_are_read_through_the_view_only() -> None:
    found = [line for rel, source in record_checked_modules()
             for line in record_reads(rel, source)]
    assert not found, ("a record, item or outcome read by key outside core/record_view.py "
                       "(use RecordView's properties):\n" + "\n".join(found))


def test_the_record_guard_knows_every_key() -> None:
    keys = record_model_keys()
    # the declarations hold every field the writers write
    assert {f.name for f in fields(ItemSpec)} - {"data", "sweep", "probe"} <= keys
    assert {f.name for f in fields(Outcome)} <= keys
    assert {"item", "outcome", "responses", "thoughts", "finish", "usage", "samples",
            "sweep", "probe", "endpoints", "requests"} <= keys
    found = record_reads("x.py", 'rec["item"]["suite"]\nr.get("outcome") or {}\n'
                         'out.get("correct")\nitem.get("tags", ())\nrec["x"]\nm["value"]\n')
    assert sorted(line.split(": ", 1)[1] for line in found) == sorted([
        "rec['item']['suite']", "rec['item']", "r.get('outcome')", "out.get('correct')",
        "item.get('tags', ())", "m['value']"])
    assert record_reads("gates/spec.py", 'm["value"]\n') == []
    assert record_reads("x.py", 'view.meta["order"]\nmeta(r).get("tags")\n') == []
    checked = dict(record_checked_modules())
    assert "metrics/record_table.py" in checked and "core/record_view.py" not in checked
    assert "families/fantom/expand.py" not in checked
    # every exemption names a read that is there (none outlives its line)
    for rel, name, key in OTHER_DATA:
        source = (PACKAGE / rel).read_text(encoding="utf-8")
        assert any((f := _read(n)) is not None and f[0] == key and _receiver_name(f[1]) == name
                   for n in ast.walk(ast.parse(source))), (rel, name, key)
