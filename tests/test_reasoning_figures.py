"""How long the model reasoned, per suite (issue 32 point 5), on records of the bundled
suites scored in process and given thoughts and reasoning token counts as a thinking
model's records carry them (`thoughts`, `usage.reasoning_tokens`). Every figure is
computed here again from the records, by its plain definition: the mean and median
reasoning length, the turn accuracy of each quartile of reasoning length with its
Wilson interval, the mean on each declared accuracy's items; a plain run shows none of
it. The real runs (a loopback chat server that thinks) are in
tests/test_reasoning_runs.py."""

from __future__ import annotations

import copy
import json
import math
import random
import statistics
from collections import Counter, defaultdict
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pytest_tom.catalogue.load import load_suite
from pytest_tom.compare.paired import compare_runs
from pytest_tom.compare.runs import load_runs
from pytest_tom.core.settings import Settings
from pytest_tom.items.offline import score_records
from pytest_tom.metrics.accuracy import group_key
from pytest_tom.metrics.declare import (
    MEDIAN,
    REASONING,
    DeclarationError,
    Metric,
    mean_of,
)
from pytest_tom.metrics.intervals import Summaries, bootstrap, derive_seed, median_interval
from pytest_tom.metrics.record_table import RecordTable, UndeclaredRead, reasoning_of
from pytest_tom.report.compare_text import render_text
from pytest_tom.report.html.build import render_html
from pytest_tom.report.json_report import write_report
from pytest_tom.report.terminal import WIDTH, reasoning_lines
from pytest_tom.results.aggregate import aggregate
from pytest_tom.results.run_report import RunReport

REPO = Path(__file__).resolve().parents[1]
BIGTOM = REPO / "suites" / "bigtom" / "everyday-causal-templates.tom.yaml"
FANTOM = REPO / "suites" / "fantom" / "smalltalk.tom.yaml"
GENERIC = REPO / "suites" / "generic" / "classic-false-belief.tom.yaml"
SETTINGS = Settings()


def scored(path: Path, seed: int = 0, wrong: float = 0.35) -> list[dict[str, Any]]:
    """The suite's records, answered by a seeded answerer right about two times in three
    (a fresh copy each call: tests change them)."""
    return copy.deepcopy(_scored(path, seed, wrong))


@cache
def _scored(path: Path, seed: int, wrong: float) -> list[dict[str, Any]]:
    """Scored once per process: FANToM's free answers load the embedding model and every
    suite is scored by the family's own code, the same records each time."""
    rng = random.Random(seed)

    def answer(request: Any) -> str:
        item = request.item
        if rng.random() < wrong:
            return "b)" if item.choices else "no"
        if item.choices:
            return next((c.split(")")[0] + ")" for c in item.choices
                         if c.split(") ", 1)[-1] == str(item.gold)), "a)")
        return str(item.gold)

    return score_records(load_suite(path, SETTINGS).items, answer, SETTINGS)


def four_characters_a_token(n: int) -> str:
    return "w" * (4 * n)


def think(records: list[dict[str, Any]], length: Any, seed: int = 1,
          tokens: bool = True, thought: Callable[[int], str] = four_characters_a_token,
          ) -> list[dict[str, Any]]:
    """The records as a thinking model's: each reply a thought of `length(record, rng)`
    tokens (`thought(n)`: four characters each), counted in `usage` (and, for every third
    record, part of it in `cached_usage`, as a call answered by the response cache)."""
    rng = random.Random(seed)
    out = []
    for i, rec in enumerate(records):
        n = int(length(rec, rng))
        rec = {**rec, "thoughts": [thought(n)]}
        if tokens:
            if i % 3 == 0 and n:
                rec["usage"] = {"completion_tokens": n + 3, "reasoning_tokens": n - n // 2}
                rec["cached_usage"] = {"completion_tokens": 1, "reasoning_tokens": n // 2}
            else:
                rec["usage"] = {"completion_tokens": n + 3, "reasoning_tokens": n}
        out.append(rec)
    return out


def belief(rec: dict[str, Any]) -> str:
    return str(rec["item"]["meta"].get("belief_condition"))


def longer_on_false_belief(rec: dict[str, Any], rng: random.Random) -> int:
    """BigToM: 100 tokens on true-belief items, 230 on false-belief ones, others between."""
    base = {"true_belief": 100, "false_belief": 230}.get(belief(rec), 150)
    return base + rng.randint(-40, 40) * (belief(rec) not in ("true_belief", "false_belief"))


def spread(rec: dict[str, Any], rng: random.Random) -> int:
    return rng.randint(0, 2000)


# -- independent definitions -----------------------------------------------------------
def judged(rec: dict[str, Any]) -> bool:
    out = rec["outcome"]
    return out.get("error") != "unavailable" and out.get("correct") is not None


def right(rec: dict[str, Any]) -> bool:
    return judged(rec) and rec["outcome"]["correct"] is True


def tokens_of(rec: dict[str, Any]) -> int:
    return sum((rec.get(k) or {}).get("reasoning_tokens", 0) for k in ("usage", "cached_usage"))


def wilson(k: int, n: int) -> tuple[float, float]:
    z = 1.959963984540054
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (0.0 if k == 0 else centre - half), (1.0 if k == n else centre + half)


def quartiles(lengths: list[float]) -> list[float]:
    """The inverted-CDF quartiles: the smallest length with at least q of them at or below."""
    s = sorted(lengths)
    return [s[max(0, math.ceil(q * len(s)) - 1)] for q in (0.25, 0.5, 0.75)]


def median_bounds(values: list[float]) -> tuple[float, float] | None:
    """The order-statistic interval of the median, from the binomial distribution."""
    n = len(values)
    s = sorted(values)
    cdf, rank = 0.0, 0
    for i in range(n + 1):
        cdf += math.comb(n, i) / 2 ** n
        if cdf > 0.025:
            break
        rank = i + 1
    return None if rank < 1 else (s[rank - 1], s[n - rank])


# -- one suite's figures ---------------------------------------------------------------
def test_mean_median_and_quartile_accuracy_of_a_thinking_run() -> None:
    records = think(scored(BIGTOM), spread)
    suite = aggregate(records, SETTINGS).suite("bigtom-everyday")
    assert suite is not None
    lengths = [float(tokens_of(r)) for r in records]
    assert suite.metric("reasoning.mean") == pytest.approx(statistics.fmean(lengths))
    assert suite.metric("reasoning.median") == statistics.median(lengths)
    low, high = median_bounds(lengths) or (None, None)
    iv = suite.interval("reasoning.median")
    assert (iv.low, iv.high, iv.method, iv.display) == (low, high,
                                                                   "order statistics", "amount")
    # the mean's interval: a bootstrap over the suite's groups of their (sum, n)
    sums: dict[str, Counter] = defaultdict(Counter)
    for r, n in zip(records, lengths, strict=True):
        sums[group_key(r)].update({"sum": n, "n": 1})
    units = sorted(sums, key=str)
    expected = bootstrap(Summaries.of([sums[u] for u in units]), mean_of,
                         derive_seed(0, "bigtom-everyday", "reasoning.mean"))
    mean_iv = suite.interval("reasoning.mean")
    assert (mean_iv.low, mean_iv.high) == pytest.approx((expected.low, expected.high))
    assert mean_iv.low < suite.metric("reasoning.mean") < mean_iv.high
    # quartiles of the judged items' lengths, each with its accuracy and Wilson interval
    cuts = quartiles([float(tokens_of(r)) for r in records if judged(r)])
    edges = [-math.inf, *cuts, math.inf]
    block = suite.reasoning
    assert (block.unit, block.measure, block.items) == ("tokens", "reasoning tokens", 625)
    assert len(block.quartiles) == 4
    for k, q in enumerate(block.quartiles, start=1):
        inside = [r for r in records if judged(r) and edges[k - 1] < tokens_of(r) <= edges[k]]
        ok = sum(right(r) for r in inside)
        assert q.metric == f"reasoning.q{k}.turn"
        assert q.judged == len(inside) > 100
        assert (q.low, q.high) == (min(map(tokens_of, inside)), max(map(tokens_of, inside)))
        assert q.median == statistics.median(map(tokens_of, inside))
        assert suite.metric(q.metric) == ok / len(inside)
        qiv = suite.interval(q.metric)
        assert (qiv.low, qiv.high) == pytest.approx(wilson(ok, len(inside)))


def test_the_mean_on_each_declared_accuracy_reads_false_belief_against_true_belief() -> None:
    records = think(scored(BIGTOM), longer_on_false_belief)
    suite = aggregate(records, SETTINGS).suite("bigtom-everyday")
    assert suite is not None
    for condition in ("true_belief", "false_belief", "true_control", "false_control"):
        mine = [tokens_of(r) for r in records if belief(r) == condition]
        assert suite.metric(f"reasoning.mean.{condition}") == pytest.approx(statistics.fmean(mine))
    ratio = suite.metric("reasoning.mean.false_belief") / suite.metric("reasoning.mean.true_belief")
    assert ratio == pytest.approx(2.3)
    # every declared condition and every tag gets its mean too, without a line of BigToM's
    for name in ("forward_action.false_belief.no_init", "tag.sight.turn"):
        assert suite.metric(f"reasoning.mean.{name}") is not None
    selections = {of: (label, items, headline)
                  for _, of, label, items, headline in suite.reasoning.selections}
    assert selections["false_belief"] == ("FB accuracy", 150, True)
    assert selections["tag.sight.turn"][2] is False
    text = "\n".join(reasoning_lines(suite))
    assert "FB accuracy" in text and "×" in text and "forward_action" not in text
    verbose = "\n".join(reasoning_lines(suite, verbose=True))
    assert "forward_action · false_belief · no_init" in verbose


def test_fantom_inaccessible_against_accessible_questions() -> None:
    """FANToM's false-belief reading: questions about a character who missed the
    information (inaccessible) against those about one who heard it (accessible)."""

    def length(rec: dict[str, Any], rng: random.Random) -> int:
        return {"inaccessible": 600, "accessible": 200}.get(
            str(rec["item"]["meta"].get("accessibility")), 50) + rng.randint(0, 9)

    records = think(scored(FANTOM), length)
    suite = aggregate(records, Settings(options={"fantom_context": "short"})).suite(
        "fantom-smalltalk")
    assert suite is not None
    for name, scenario in (("belief_choice", "inaccessible"),
                           ("accessible.belief_choice", "accessible")):
        mine = [tokens_of(r) for r in records if r["item"]["kind"] == "belief_choice"
                and r["item"]["meta"].get("accessibility") == scenario]
        assert suite.metric(f"reasoning.mean.{name}") == pytest.approx(statistics.fmean(mine))
    ratio = (suite.metric("reasoning.mean.belief_choice")
             / suite.metric("reasoning.mean.accessible.belief_choice"))
    assert 2.8 < ratio < 3.1


def test_a_plain_run_shows_nothing_new() -> None:
    records = scored(BIGTOM)
    zero = [{**r, "usage": {"completion_tokens": 2, "reasoning_tokens": 0}} for r in records]
    for recs in (records, zero):  # a plain model; one whose server counts 0 reasoning tokens
        results = aggregate(recs, SETTINGS)
        suite = results.suite("bigtom-everyday")
        assert suite is not None
        assert not [k for k in suite.metrics if k.startswith("reasoning")]
        assert not [k for k in suite.intervals if k.startswith("reasoning")]
        assert '"reasoning' not in json.dumps(results)  # no key (a checkout's path may have
        # the word: /work/wt-speed-reasoning/suites/...)
        assert reasoning_lines(suite) == []


def test_without_a_token_count_in_every_record_the_thought_is_measured_in_characters() -> None:
    records = think(scored(GENERIC), spread)
    del records[5]["usage"]  # a server that did not count this reply's reasoning
    records[7]["cached_usage"] = {"reasoning_tokens": 3}
    suite = aggregate(records, SETTINGS).suite("classic-false-belief")
    assert suite is not None
    chars = [len(r["thoughts"][0]) for r in records]
    assert suite.reasoning.unit == "characters"
    assert suite.reasoning.measure == "thought length in characters"
    assert suite.metric("reasoning.mean") == pytest.approx(statistics.fmean(chars))
    assert suite.metric("reasoning.median") == statistics.median(chars)
    text = reasoning_lines(suite, verbose=True)
    assert text[0].startswith("reasoning, thought length in characters of 174 answered items")
    assert "no token count in every record" in "\n".join(text)
    # the generic family declares nothing: its tags' accuracies get their means
    assert suite.metric("reasoning.mean.tag.second_order.turn") == pytest.approx(statistics.fmean(
        len(r["thoughts"][0]) for r in records if "second_order" in r["item"]["tags"]))


def test_lengths_of_errors_hidden_thoughts_and_cached_calls() -> None:
    records = think(scored(GENERIC)[:12], lambda r, rng: 40)
    records[0] = {**records[0], "outcome": {"correct": False, "error": "request_failed",
                                            "detail": "", "parsed": None, "value": None}}
    hidden = [{k: v for k, v in r.items() if k != "thoughts"} for r in records]
    for recs in (records, hidden):  # hidden: a server that counts reasoning but sends none
        reasoning = reasoning_of(recs)
        assert reasoning.unit == "tokens"
        assert np.isnan(reasoning.lengths[0])  # no reply: no length
        assert reasoning.lengths[1:].tolist() == [40.0] * 11  # usage + cached_usage
    del hidden[4]["usage"]  # no count: characters, and the others' thoughts are unknown
    reasoning = reasoning_of(hidden)
    assert reasoning.unit == "characters"
    assert reasoning.lengths[4] == 0  # no thought and no count: it did not reason
    assert np.isnan(np.delete(reasoning.lengths, 4)).all()


def test_a_quartile_of_tied_lengths_is_empty_not_split() -> None:
    records = think(scored(GENERIC), lambda r, rng: 0 if rng.random() < 0.6 else rng.randint(1, 99))
    suite = aggregate(records, SETTINGS).suite("classic-false-belief")
    assert suite is not None
    q1, q2, *_ = suite.reasoning.quartiles
    assert (q1.low, q1.high) == (0, 0) and q1.judged == sum(tokens_of(r) == 0 for r in records)
    assert q2.judged == 0 and suite.metric(q2.metric) is None
    assert "Q2 (no items: tied lengths)" in "\n".join(reasoning_lines(suite))


def test_samples_measure_each_sample_by_its_own_thoughts() -> None:
    base = think(scored(GENERIC)[:40], lambda r, rng: 10)
    records = []
    for i, rec in enumerate(base):
        samples = [{"outcome": rec["outcome"], "responses": rec["responses"],
                    "thoughts": ["x" * (10 * (s + 1) + i)]} for s in range(3)]
        records.append({**rec, "samples": samples, "thoughts": samples[0]["thoughts"],
                        "usage": {"reasoning_tokens": 999}})  # summed over the samples
    results = aggregate(records, SETTINGS)
    suite = results.suite("classic-false-belief")
    assert suite is not None and results.samples == 3
    per_sample = [statistics.fmean(10 * (s + 1) + i for i in range(40)) for s in range(3)]
    assert suite.metric("reasoning.mean") == pytest.approx(statistics.fmean(per_sample))
    assert suite.reasoning.unit == "characters"


def test_terminal_lines_stay_within_120_columns() -> None:
    # every record counts its tokens, so the figures are in tokens and the thought's text
    # is not measured: a short one (four characters a token would be 50 MB a record)
    records = think(scored(FANTOM), lambda r, rng: rng.randint(0, 12_345_678),
                    thought=lambda n: "w" * (n % 97 + 1))
    suite = aggregate(records, Settings(options={"fantom_context": "short"})).suite(
        "fantom-smalltalk")
    assert suite is not None and suite.reasoning.unit == "tokens"
    lines = reasoning_lines(suite, verbose=True)
    assert len(lines) > 20
    assert max(map(len, lines)) <= WIDTH


# -- the declarations ------------------------------------------------------------------
def test_a_selection_may_not_read_the_reasoning_it_must_declare_it() -> None:
    records = think(scored(GENERIC)[:20], spread)
    sneaky = Metric("sneaky", "sneaky", select=lambda r: r["usage"]["reasoning_tokens"] > 9)
    with pytest.raises(UndeclaredRead, match="quantity"):
        sneaky.evaluate(RecordTable(records, ()))
    band = Metric("long", "long thoughts", quantity=REASONING, band=(900.0, None))
    right_n, n = band.counts(RecordTable(records, ()))
    long = [r for r in records if tokens_of(r) > 900]
    assert (right_n, n) == (sum(right(r) for r in long), len(long))
    with pytest.raises(DeclarationError, match="quantity"):
        Metric("m", "median", MEDIAN)
    with pytest.raises(DeclarationError, match="band"):
        Metric("b", "band", band=(1.0, 2.0))
    with pytest.raises(DeclarationError, match="quantity must be"):
        Metric("q", "q", MEDIAN, quantity="seconds")


def test_median_interval_is_the_binomial_order_statistics() -> None:
    rng = random.Random(3)
    for n in (1, 5, 6, 7, 20, 101, 400):
        values = [rng.randint(0, 50) for _ in range(n)]
        iv = median_interval(values)
        assert iv.value == statistics.median(values)
        assert ((iv.low, iv.high) if iv.low is not None else None) == median_bounds(values)


# -- compare ---------------------------------------------------------------------------
def saved(tmp_path: Path, name: str, records: list[dict[str, Any]]) -> Path:
    path = tmp_path / f"{name}.json"
    report = RunReport.build(aggregate(records, SETTINGS), records,
                             {"model": name, "method": "vanilla", "seed": 0}, 0.0, 1.0)
    write_report(path, report)
    return path


def test_compare_pairs_reasoning_tokens_by_item(tmp_path: Path) -> None:
    base = scored(BIGTOM)
    a = think(base, longer_on_false_belief, seed=1)
    b = think(base[:600], lambda r, rng: 2 * longer_on_false_belief(r, rng) + 5, seed=1)
    runs = load_runs([saved(tmp_path, "short", a), saved(tmp_path, "long", b)])
    cmp = compare_runs(runs)
    rows = {r.metric: r for r in cmp.suites[0].rows}
    mean = rows["reasoning.mean"]
    assert mean.headline and mean.display == "amount"
    d = mean.diffs[1]
    shared = {r["item"]["id"] for r in b}
    ta = [tokens_of(r) for r in a if r["item"]["id"] in shared]
    tb = [tokens_of(r) for r in b]
    assert (d.a, d.b) == pytest.approx((statistics.fmean(ta), statistics.fmean(tb)))
    assert d.delta == pytest.approx(statistics.fmean(tb) - statistics.fmean(ta))
    assert d.low < d.delta < d.high and d.p_value < 0.01 and d.test == "paired bootstrap"
    fb = rows["reasoning.mean.false_belief"].diffs[1]
    assert fb.b / fb.a == pytest.approx(2 + 5 / 230)
    for name in ("reasoning.median", "reasoning.q1.turn"):
        assert rows[name].diffs[1] is None and rows[name].intervals[1] is not None
    text = render_text(cmp)
    line = next(x for x in text.splitlines() if x.startswith("mean reasoning tokens "))
    assert f"×{d.b / d.a:.2f}" in line and "pp" not in line
    assert "medians and quartiles: no paired test" in text
    html = render_html(runs, cmp)
    assert f"×{d.b / d.a:.2f}" in html


def test_compare_refuses_tokens_against_characters(tmp_path: Path) -> None:
    base = scored(GENERIC)
    a = think(base, spread)
    b = think(base, spread, tokens=False)
    cmp = compare_runs(load_runs([saved(tmp_path, "a", a), saved(tmp_path, "b", b)]))
    row = next(r for r in cmp.suites[0].rows if r.metric == "reasoning.mean")
    assert row.diffs[1] is None
    assert row.label == "mean reasoning length (tokens / characters: not compared)"


# -- HTML ------------------------------------------------------------------------------
def test_the_html_page_plots_accuracy_against_reasoning_length(tmp_path: Path) -> None:
    thinking = load_runs([saved(tmp_path, "thinking", think(scored(BIGTOM), spread))])
    plain = load_runs([saved(tmp_path, "plain", scored(BIGTOM))])
    page = render_html(thinking)
    assert "Turn accuracy by quartile of reasoning tokens (95% intervals)" in page
    assert "reasoning tokens (median of each quartile)" in page
    assert "mean reasoning tokens" in page  # the interval list, as an amount
    assert "Turn accuracy by quartile" not in render_html(plain)


def cut_some(records: list[dict[str, Any]], every: int) -> list[dict[str, Any]]:
    """Every `every`-th record cut off by the budget (inside the thought), as a run at too
    small a budget records it."""
    out = []
    for i, rec in enumerate(records):
        if i % every == 0:
            rec = {**rec, "responses": [""], "finish": ["length"],
                   "outcome": {**rec["outcome"], "correct": False, "error": "cut_off",
                               "parsed": None, "extra": {"in_thought": True}}}
        out.append(rec)
    return out


def test_compare_names_tokens_and_counts_cut_off_answers(tmp_path: Path) -> None:
    """Issue 46: against a run without a thought the thought length stays in tokens (the
    unit of the run that has one), and every comparison shows the cut-off answers: count
    and share per run, and the paired difference of the share."""
    base = scored(BIGTOM)
    thinking = cut_some(think(base, spread), every=4)
    runs = load_runs([saved(tmp_path, "plain", base), saved(tmp_path, "thinking", thinking)])
    cmp = compare_runs(runs)
    rows = {r.metric: r for r in cmp.suites[0].rows}
    assert rows["reasoning.mean"].label == "mean reasoning tokens"
    assert not any("characters" in r.label for r in cmp.suites[0].rows)
    cut = rows["cut_off"]
    n = len(base)
    k = sum(1 for r in thinking if r["outcome"]["error"] == "cut_off")
    assert cut.counts == [(0, n), (k, n)] and cut.values == [0.0, pytest.approx(k / n)]
    assert cut.headline and cut.diffs[1].delta == pytest.approx(k / n)
    assert cut.diffs[1].test == "mcnemar" and cut.diffs[1].p_value < 0.001
    total = next(t for t in cmp.totals if t.metric == "cut_off")
    assert total.counts == [(0, n), (k, n)]
    text = render_text(cmp)  # headline rows: no --all needed
    line = next(x for x in text.splitlines() if x.startswith("cut off by the budget"))
    assert f"0/{n} 0.0%" in line and f"{k}/{n} {100 * k / n:.1f}%" in line and " M" in line
    assert "cut off: items whose budget ran out" in text
    html = render_html(runs, cmp)
    assert f"{k}/{n} {100 * k / n:.1f}%" in html and "cut off by the budget" in html
    # two plain runs without a cut-off item: no such row (a plain comparison is unchanged)
    plain = compare_runs(load_runs([saved(tmp_path, "p1", base), saved(tmp_path, "p2", base)]))
    assert not any(r.metric == "cut_off" for s in plain.suites for r in s.rows)
    assert not any(t.metric == "cut_off" for t in plain.totals)
