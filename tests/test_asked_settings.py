"""What a run asked the model, as fields of the JSON report (issue 46 item 4): the thought's
budget, thinking on/off, the reasoning effort, the request fields and each family's answer
length are `settings.asked`, not prose; a report written before it (tests/data/saved-
ffd460d/) is read with the block derived from what it holds; `compare` and `gate` name the
field that differs between two reports asked differently."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from pytest_tom import families
from pytest_tom.asking.answer_length import header_text
from pytest_tom.asking.reasoning import budget_text
from pytest_tom.cli import main
from pytest_tom.compare.paired import compare_runs
from pytest_tom.compare.runs import load_runs
from pytest_tom.core.option_table import TomOptions
from pytest_tom.gates.evaluate import settings_notes
from pytest_tom.report.compare_text import render_markdown, render_text
from pytest_tom.report.html.build import render_html
from pytest_tom.results.asked import asked_block, derived_block, differences
from pytest_tom.results.run_report import ReportSettings, RunReport

SAVED = Path(__file__).parent / "data" / "saved-ffd460d"
BUILTIN = [families.get(n) for n in families.BUILTIN]


def block(**options: Any) -> dict[str, Any]:
    return asked_block(TomOptions(**options), BUILTIN, str(options.get("method", "vanilla")),
                       True)


def test_the_block_holds_the_settings_as_fields() -> None:
    asked = block(thinking_tokens=300, reasoning_effort="low",
                  request_field=(("top_k", "20"), ("api_key", '"sk-secret"')))
    assert asked["thinking_tokens"] == 300 and asked["thinking"] is None
    assert asked["reasoning_effort"] == "low" and asked["max_tokens"] is None
    assert asked["answer_tokens"] == {f.name: f.answer_tokens for f in BUILTIN}
    assert asked["answer_tokens"]["bigtom"] == 64 and asked["answer_tokens"]["hitom"] == 256
    assert asked["reasoning_step_tokens"] is None  # vanilla has no reasoning step
    assert asked["request_fields"]["reasoning_effort"] == "low"
    assert asked["request_fields"]["top_k"] == 20
    assert "sk-secret" not in json.dumps(asked)  # a credential is redacted, as everywhere
    on = block(thinking="on", method="cot")
    assert (on["thinking"], on["thinking_tokens"]) == ("on", 4096)
    assert on["request_fields"] == {"chat_template_kwargs": {"enable_thinking": True}}
    assert on["reasoning_step_tokens"]["bigtom"] == families.get("bigtom").reasoning_tokens
    one = block(max_tokens=512, thinking="off")
    assert (one["max_tokens"], one["answer_tokens"], one["thinking_tokens"]) == (512, None, None)
    assert one["thinking"] == "off"
    # an answerer that chooses its own length (no max_tokens sent): no family lengths
    own = asked_block(TomOptions(), BUILTIN, "vanilla", False)
    assert own["answer_tokens"] is None and own["max_tokens"] is None


def test_an_older_report_gets_the_block_from_its_prose() -> None:
    """A report written before `asked` existed: its header text and request fields say
    what was asked; the block derived from them equals the one a run writes now."""
    for options in ({"thinking_tokens": 300}, {"thinking": "on", "reasoning_effort": "high"},
                    {"thinking": "off"}, {}):
        opts = TomOptions(**options)
        prose = budget_text(opts, header_text(BUILTIN, "vanilla"))
        now = block(**options)
        then = ReportSettings({"max_tokens": None, "answer_length": prose, "method": "vanilla",
                               **({"request_fields": now["request_fields"]}
                                  if now["request_fields"] else {})}).asked
        assert then.pop("derived") is True
        assert then == now, options
    # the oldest reports said only "max_tokens: the backend's default": nothing derived
    old = RunReport(json.loads((SAVED / "weak.json").read_text())).settings
    assert not old.has("asked")
    assert old.asked["answer_tokens"] is None and old.asked["derived"] is True


def test_differences_name_the_field() -> None:
    a, b = block(thinking_tokens=300), block(thinking_tokens=4096, thinking="on")
    assert differences(a, b) == [
        ("settings.asked.thinking", None, "on"),
        ("settings.asked.thinking_tokens", 300, 4096),
        ("settings.asked.request_fields.chat_template_kwargs", None,
         {"enable_thinking": True})]
    assert differences(a, dict(a)) == []
    longer = block(max_tokens=1024)
    assert ("settings.asked.answer_tokens.bigtom", 64, None) in differences(a, longer)
    # a derived block that could not tell a field: not a difference
    assert differences(derived_block(), a) == []


def saved_with(tmp_path: Path, name: str, asked: dict[str, Any] | None) -> Path:
    """The saved weak run, written again as if asked with `asked` (its figures unchanged)."""
    data = json.loads((SAVED / "weak.json").read_text())
    if asked is not None:
        data["settings"]["asked"] = asked
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_compare_and_gate_name_the_field_that_differs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    short = saved_with(tmp_path, "short.json", block(thinking_tokens=300))
    long = saved_with(tmp_path, "long.json", block(thinking_tokens=4096))
    cmp = compare_runs(load_runs([short, long]), resamples=50)
    (asked,) = cmp.asked
    assert [(d.field, d.first, d.later) for d in asked.fields] == [
        ("settings.asked.thinking_tokens", 300, 4096)]
    first, later = cmp.labels
    text = render_text(cmp)
    assert f"asked differently ({later} against {first}):" in text
    assert f"settings.asked.thinking_tokens: 300 in {first}, 4096 in {later}" in text
    assert "settings.asked.thinking_tokens: 300 in " in render_markdown(cmp)
    page = render_html(load_runs([short, long]), cmp)
    assert "was asked differently from" in page and "settings.asked.thinking_tokens" in page
    assert cmp.to_dict()["asked_differently"][0]["fields"][0]["field"] == \
        "settings.asked.thinking_tokens"
    # asked alike (an old report against itself): nothing said
    same = compare_runs(load_runs([SAVED / "weak.json", SAVED / "strong.json"]), resamples=50)
    assert not any(a.fields for a in same.asked) and "asked differently" not in render_text(same)
    # the gate against a baseline asked differently names the field
    notes = settings_notes(RunReport(json.loads(short.read_text())),
                           RunReport(json.loads(long.read_text())).settings)
    assert ("the baseline was asked differently: settings.asked.thinking_tokens: 300 in the "
            "baseline, 4096 in this run") in notes
    copy = tmp_path / "base"
    shutil.copy(short, copy)
    assert main(["gate", str(long), f"--tom-baseline={copy}"]) in (0, 1)
    assert "settings.asked.thinking_tokens: 300 in the baseline, 4096 in this run" in \
        capsys.readouterr().out
