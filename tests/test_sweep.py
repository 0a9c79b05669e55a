"""`--tom-sweep NAME=V1,V2,...` (issue 46 item 1), as units: the option read and checked,
the items expanded once per value, each value's requests built with its value (and so a
cache key of their own), the record saying its value. Whole runs (plain and `-n 2`,
against a thinking server): tests/test_sweep_runs.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_tom.asking.cache import request_key
from pytest_tom.asking.reasoning import request_fields, thinking_budget
from pytest_tom.backends.base import SamplingParams
from pytest_tom.catalogue.load import load_suite
from pytest_tom.core.model import ItemSpec
from pytest_tom.core.option_table import TomOptions, build_options
from pytest_tom.core.outcome import Outcome
from pytest_tom.core.settings import Settings
from pytest_tom.core.sweep import Sweep, expand, node_name, value_options
from pytest_tom.items.item import ItemEngine, build_record
from pytest_tom.results.asked import asked_block, differences

BIGTOM = load_suite(Path(__file__).parents[1] / "suites/bigtom/everyday-causal-templates.tom.yaml")


@pytest.mark.parametrize("text, setting, values", [
    ("thinking-tokens=16,1024", "thinking-tokens", (16, 1024)),
    ("thinking_tokens=16, 1024", "thinking-tokens", (16, 1024)),
    ("reasoning-effort=low,high", "reasoning-effort", ("low", "high")),
    ("thinking=OFF,on", "thinking", ("off", "on")),
    ("max-tokens=64,512", "max-tokens", (64, 512)),
    ("temperature=0,0.7", "temperature", (0.0, 0.7)),
    ("top_k=1,20", "top_k", (1, 20)),
    ("mode=fast,slow", "mode", ("fast", "slow")),
])
def test_the_option_reads_a_setting_and_its_typed_values(text: str, setting: str,
                                                         values: tuple) -> None:
    sweep = build_options({"sweep": text}).sweep
    assert sweep == Sweep(setting, values)
    assert [type(v) for v in sweep.values] == [type(v) for v in values]
    assert build_options({"sweep": "off"}).sweep is None
    assert build_options({}).sweep is None


@pytest.mark.parametrize("values, says", [
    ({"sweep": "thinking-tokens"}, "expected NAME=V1,V2,..."),
    ({"sweep": "thinking-tokens=16"}, "at least two values"),
    ({"sweep": "thinking-tokens=16,,32"}, "an empty value"),
    ({"sweep": "thinking-tokens=16,0"}, "'0' is not a whole number of tokens, at least 1"),
    ({"sweep": "temperature=0,nan"}, "'nan' is not a finite number"),
    ({"sweep": "thinking=on,maybe"}, "'maybe' is not on or off"),
    ({"sweep": "max-tokens=64,64"}, "64 given twice"),
    ({"sweep": "thinking-tokens=16,32", "thinking_tokens": "64"},
     "leave out --tom-thinking-tokens"),
    ({"sweep": "thinking-tokens=16,32", "max_tokens": "64"}, "sweep max-tokens instead"),
    ({"sweep": "top_k=1,2", "request_field": ["top_k=5"]}, "leave out the --tom-request-field"),
])
def test_a_bad_sweep_is_a_usage_error_naming_the_fix(values: dict, says: str) -> None:
    with pytest.raises(ValueError, match="--tom-sweep") as err:
        build_options(values)
    assert says in str(err.value)


def spec(id_: str = "s1::q1", suite: str = "bt") -> ItemSpec:
    return ItemSpec(id=id_, suite=suite, family="bigtom", scenario=id_.split("::")[0],
                    kind="mc", question="Q?", gold="a", choices=["x", "y"])


def test_each_item_once_per_value_in_a_suite_per_value() -> None:
    sweep = Sweep("thinking-tokens", (16, 4096))
    out = expand([spec("s1::q1"), spec("s1::q2")], sweep)
    assert [(s.id, s.suite) for s in out] == [
        ("s1::q1", "bt[thinking-tokens=16]"), ("s1::q1", "bt[thinking-tokens=4096]"),
        ("s1::q2", "bt[thinking-tokens=16]"), ("s1::q2", "bt[thinking-tokens=4096]")]
    assert {s.base_suite for s in out} == {"bt"}
    assert node_name(out[1], "q1") == "q1[thinking-tokens=4096]"
    assert "sweep" not in out[0].summary() and out[0].summary()["suite"] == out[0].suite
    # no sweep: the items as they are, the node name as it was
    plain = [spec()]
    assert expand(plain, None) == plain and node_name(plain[0], "q1") == "q1"


def engine_of(options: TomOptions) -> ItemEngine:
    """The engine a run makes (plugin/context.model_slot), with a family's lengths."""
    params = SamplingParams(temperature=options.temperature, max_tokens=options.max_tokens,
                            seed=options.seed, fields=request_fields(options))
    variants = {}
    for point in options.sweep.points(""):
        opts = value_options(options, point)
        variants[point.label] = (SamplingParams(opts.temperature, opts.max_tokens, opts.seed,
                                                request_fields(opts)), thinking_budget(opts))
    return ItemEngine(Settings(), params, family_max_tokens=True,
                      thinking_tokens=thinking_budget(options), variants=variants)


@pytest.mark.parametrize("text, read", [
    ("thinking-tokens=16,4096", lambda p: p.max_tokens),
    ("max-tokens=20,30", lambda p: p.max_tokens),
    ("temperature=0,0.5", lambda p: p.temperature),
    ("reasoning-effort=low,high", lambda p: p.request_fields()["reasoning_effort"]),
    ("thinking=off,on", lambda p: p.request_fields()["chat_template_kwargs"]),
    ("top_k=1,20", lambda p: p.request_fields()["top_k"]),
])
def test_each_value_asks_with_its_value_under_its_own_cache_key(text: str, read) -> None:
    options = build_options({"sweep": text, "request_field": ['chat_template_kwargs={"x": 1}']})
    engine = engine_of(options)
    specs = expand(BIGTOM.items[:1], options.sweep)
    requests = [engine.conversation(s)([]) for s in specs]
    seen = [read(r.params) for r in requests]
    assert len(set(map(str, seen))) == 2, seen
    if text.startswith("thinking-tokens"):  # the family's answer length + the value
        assert seen == [64 + 16, 64 + 4096]
    if text.startswith("thinking="):  # merged into the run's own field
        assert seen == [{"x": 1, "enable_thinking": False}, {"x": 1, "enable_thinking": True}]
    keys = {request_key({}, r.messages, r.params.to_dict()) for r in requests}
    assert len(keys) == 2  # the cache keeps the values apart
    assert requests[0].messages == requests[1].messages  # only the setting differs
    assert engine.request_key(specs[0]) != engine.request_key(specs[1])


def test_the_record_and_the_settings_say_the_value() -> None:
    sweep = Sweep("thinking-tokens", (16, 4096))
    one = expand([spec()], sweep)[1]
    record = build_record(one, Outcome(correct=True), ["a"])
    assert record["sweep"] == {"setting": "thinking-tokens", "value": 4096, "suite": "bt",
                               "index": 1}
    assert "sweep" not in build_record(spec(), Outcome(correct=True), ["a"])
    options = TomOptions(sweep=sweep)
    block = asked_block(options, [], "vanilla", True)
    assert block["sweep"] == {"setting": "thinking-tokens", "values": [16, 4096],
                              "request_field": False}
    assert "sweep" not in asked_block(TomOptions(), [], "vanilla", True)
    assert ("settings.asked.sweep.values", None, [16, 4096]) in differences(
        asked_block(TomOptions(), [], "vanilla", True), block)


def sweep_records() -> list:
    """A bigtom suite swept over 16 and 4096 tokens: every item cut off at 16 (a thought of
    16 tokens, a lower bound); at 4096 the items alternate right and wrong, thinking 100
    tokens on a right one and 300 on a wrong one."""
    sweep = Sweep("thinking-tokens", (16, 4096))
    records = []
    for n, one in enumerate(expand(BIGTOM.items[:24], sweep)):
        if one.sweep.value == 16:
            outcome, think = Outcome(correct=False, error="cut_off"), 16
        else:
            right = (n // 2) % 2 == 0
            outcome, think = Outcome(correct=right), 100 if right else 300
        records.append(build_record(one, outcome, ["a"], usage={"reasoning_tokens": think}))
    return records


def test_each_value_is_aggregated_as_its_own_suite_side_by_side() -> None:
    from pytest_tom.metrics.mcnemar import mcnemar_exact  # noqa: PLC0415
    from pytest_tom.report.markdown import sweep_section  # noqa: PLC0415
    from pytest_tom.report.terminal import sweep_lines  # noqa: PLC0415
    from pytest_tom.results.aggregate import aggregate  # noqa: PLC0415

    records = sweep_records()
    results = aggregate(records, Settings())
    base = BIGTOM.name
    small, large = (results.suite(f"{base}[thinking-tokens={v}]") for v in (16, 4096))
    assert small.counts.items == large.counts.items == 24
    block = results.sweep.as_dict()["suites"][base]
    low, high = block["values"]
    assert (low["value"], high["value"]) == (16, 4096)
    # at 16 every item cut off, none wrong; the figures are the value's suite's own
    assert (low["cut_off"], low["wrong"], low["right"], low["answered"]) == (24, 0, 0, 0)
    assert low["answered_accuracy"]["value"] is None and low["thought_mean"] is None
    assert high["right"] == 12 and high["turn"] == large.metric("turn") == 0.5
    assert high["answered_accuracy"]["value"] == 0.5 and high["answered"] == 24
    assert high["thought_mean"] == 200 and high["reasoning_tokens"] == 12 * 100 + 12 * 300
    assert high["metrics"]["turn"]["low"] == large.interval("turn").low
    assert set(high["metrics"]) == {k for k in large.intervals if not k.startswith("reasoning.")}
    pair = block["paired"][0]
    assert (pair["from"], pair["to"]) == (16, 4096)
    assert (pair["turn"]["n"], pair["turn"]["better"], pair["turn"]["worse"]) == (24, 12, 0)
    assert pair["turn"]["p_value"] == mcnemar_exact(0, 12)
    assert pair["thought_mean"] is None  # no item answered at 16: nothing to pair
    terminal = "\n".join(sweep_lines(results))
    assert "thinking-tokens=16" in terminal and "McNemar p" in terminal
    assert "accuracy on the answered items" in terminal
    markdown = "\n".join(sweep_section(results))
    assert "### Sweep of `thinking-tokens`" in markdown and "| cut off | 24 | 0 |" in markdown
    # a plain run has no sweep block
    plain = [r for r in records if r["sweep"]["value"] == 4096]
    for r in plain:
        del r["sweep"]
    assert "sweep" not in aggregate(plain, Settings())


def test_the_mean_thought_is_compared_on_items_answered_at_both_values() -> None:
    from pytest_tom.results.aggregate import aggregate  # noqa: PLC0415
    from pytest_tom.results.reasoning.sweep_results import sweep_block  # noqa: PLC0415

    records = sweep_records()
    for r in records:  # 16 now answers (right), thinking 50 tokens
        if r["sweep"]["value"] == 16:
            r["outcome"] = Outcome(correct=True).to_dict()
            r["usage"] = {"reasoning_tokens": 50}
    block = aggregate(records, Settings()).sweep.as_dict()
    pair = block["suites"][BIGTOM.name]["paired"][0]
    assert (pair["turn"]["better"], pair["turn"]["worse"]) == (0, 12)
    thought = pair["thought_mean"]
    assert thought["a"] == 50 and thought["b"] == 200 and thought["delta"] == 150
    assert thought["items"] == 24 and thought["unit"] == "tokens"
    assert thought["low"] <= 150 <= thought["high"] and thought["p_value"] < 0.05
    assert sweep_block(aggregate(records, Settings()), records) == block  # seeded: the same


def test_a_gate_names_a_value_of_the_sweep() -> None:
    from pytest_tom.gates.spec import parse_max_drop, parse_thresholds  # noqa: PLC0415

    gates = parse_thresholds("bt[thinking-tokens=1024]:turn>=0.6,bt[thinking-tokens=16]:"
                             "cut_off<=0,turn=0.5", {"bigtom"})
    assert [(g.ref.suite, g.ref.metric, g.op, g.value) for g in gates] == [
        ("bt[thinking-tokens=1024]", "turn", ">=", 0.6),
        ("bt[thinking-tokens=16]", "cut_off", "<=", 0.0), (None, "turn", ">=", 0.5)]
    drop = parse_max_drop("0.02,bt[temperature=0.7]:turn=0.1", {"bigtom"})
    assert drop.allowed("bt[temperature=0.7]", "bigtom", "turn") == 0.1
    assert drop.allowed("bt[temperature=0.0]", "bigtom", "turn") == 0.02


def test_limit_and_shards_keep_the_values_of_a_scenario_together() -> None:
    from types import SimpleNamespace  # noqa: PLC0415

    from pytest_tom.items.shards import Shard  # noqa: PLC0415
    from pytest_tom.plugin.selection import limit_items, shard_items  # noqa: PLC0415

    sweep = Sweep("thinking-tokens", (16, 256, 4096))
    items = [SimpleNamespace(spec=s) for s in expand(BIGTOM.items, sweep)]

    def scenarios(chosen: list, value: int) -> set[str]:
        return {i.spec.scenario for i in chosen if i.spec.sweep.value == value}

    kept, _ = limit_items(items, 10, seed=3)
    assert scenarios(kept, 16) == scenarios(kept, 256) == scenarios(kept, 4096)
    assert 0 < len(scenarios(kept, 16)) < len({i.spec.scenario for i in items})
    parts = [shard_items(items, Shard(k, 2, "test"), Settings(), {})[0] for k in (1, 2)]
    assert sum(map(len, parts)) == len(items)
    for part in parts:  # every value of a scenario in the shard that has the scenario
        assert part and scenarios(part, 16) == scenarios(part, 4096) == scenarios(part, 256)
