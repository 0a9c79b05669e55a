"""A reasoning model's reply (issue 32): the thought is kept apart and never scored, an
answer cut off by its budget is an outcome of its own (`cut_off`), never a wrong one.

The contract every backend fills (`backends.base.ModelReply`: answer, thought, finish
reason, reasoning tokens), the record's `thoughts` and `finish`, the core block's
`cut_off`, and how a cut-off answer fails, is reported and gated in a run.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from answerers import gold_text
from conftest import SUITES, load_report
from runner_support import numbers_suite

from pytest_tom.asking.cache import ResponseCache
from pytest_tom.asking.cache_file import OLD_RESPONSE_COLUMNS
from pytest_tom.backends.base import ModelReply, finish_reason
from pytest_tom.catalogue.load import load_suite
from pytest_tom.core.outcome import CUT_OFF, status
from pytest_tom.items.item import item_view
from pytest_tom.items.offline import score_records
from pytest_tom.metrics.accuracy import accuracy_block

GENERIC = SUITES / "generic" / "classic-false-belief.tom.yaml"


def misleading_thought(item: Any) -> str:
    """A thought that names every option and the opposite of the gold: read as an answer,
    it would be wrong or unparseable."""
    return ("Let me weigh it. " + " or ".join(item.choices or ["yes", "no"])
            + "? Maybe the other one, no, yes ... hmm.")


def test_only_the_answer_is_scored_and_the_thought_is_kept() -> None:
    items = load_suite(GENERIC).items
    plain = score_records(items, lambda r: gold_text(r.item))
    thinking = score_records(items, lambda r: ModelReply(
        text=gold_text(r.item), thought=misleading_thought(r.item), finish_reason="stop"))
    assert [r["outcome"] for r in thinking] == [r["outcome"] for r in plain]
    assert all(r["outcome"]["correct"] for r in thinking)
    thought = {spec.id: misleading_thought(item_view(spec)) for spec in items}
    assert all(r["thoughts"] == [thought[r["item"]["id"]]] and r["finish"] == ["stop"]
               for r in thinking)
    # a plain model's records lack both keys (reports made before stay as they were)
    assert not any("thoughts" in r or "finish" in r for r in plain)
    # read as the answer, the thought would not have been right
    as_answer = score_records(items, lambda r: misleading_thought(r.item))
    assert sum(bool(r["outcome"]["correct"]) for r in as_answer) < len(items) // 2


def test_a_cut_off_answer_is_never_wrong_and_stays_in_the_denominator() -> None:
    items = load_suite(GENERIC).items[:20]

    def answer(request: Any) -> ModelReply:
        index = next(i for i, s in enumerate(items) if s.id == request.item.id)
        if index % 2:  # cut off: inside the thought on odd items of the first half ...
            return ModelReply(text="", thought="Let me think about where", finish_reason="length")
        if index % 4 == 2:  # ... inside the answer on every fourth
            return ModelReply(text=gold_text(request.item)[:2], finish_reason="length")
        return ModelReply(text=gold_text(request.item), finish_reason="stop")

    records = score_records(items, answer)
    cut = [r for r in records if status(r["outcome"]) == CUT_OFF]
    assert len(cut) == 15  # 10 odd + 5 with index % 4 == 2
    assert all(r["outcome"]["correct"] is False for r in cut)
    assert {r["outcome"]["extra"]["in_thought"] for r in cut} == {True, False}
    assert all("cut off:" in r["outcome"]["detail"] and "inside the" in r["outcome"]["detail"]
               for r in cut)
    block = accuracy_block(records)
    assert block["cut_off"] == 15 and block["wrong"] == 0 and block["correct"] == 5
    assert block["judged"] == 20 and block["turn"] == 5 / 20  # not right, in the denominator
    assert block["correct"] + block["wrong"] + block["cut_off"] == block["judged"]


def test_finish_reasons_are_normalised() -> None:
    assert [finish_reason(r) for r in ("stop", "length", "max_tokens", "eos", "end_turn",
                                       "content_filter", None, "", 3)] == \
        ["stop", "length", "length", "stop", "stop", "content_filter", None, None, None]
    reply = ModelReply(text="", thought="...", finish_reason="length")
    assert reply.cut_off and reply.cut_in_thought
    assert not ModelReply(text="a)", finish_reason="length").cut_in_thought


# -- the cache keeps both parts -----------------------------------------------------------
OLD_SCHEMA = """
CREATE TABLE responses (key TEXT PRIMARY KEY, text TEXT NOT NULL, usage TEXT, model TEXT,
                        created REAL NOT NULL);
"""


def test_the_cache_keeps_the_thought_and_the_finish_reason(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path, mode="on")
    usage = {"prompt_tokens": 9, "completion_tokens": 40, "total_tokens": 49,
             "reasoning_tokens": 37}
    cache.put("k1", ModelReply("b) the basket", usage, "m", thought="Sally left ...",
                               finish_reason="stop"))
    cache.put("k2", ModelReply("", {"completion_tokens": 64}, "m", thought="So she",
                               finish_reason="length"))
    cache.put("k3", ModelReply("a)", None, "m"))  # a plain reply: no reply column value
    got = cache.get("k1")
    assert got is not None and (got.text, got.thought, got.finish_reason, got.usage) == \
        ("b) the basket", "Sally left ...", "stop", usage)
    cut = cache.get("k2")
    assert cut is not None and cut.cut_in_thought
    plain = cache.get("k3")
    assert plain is not None and (plain.thought, plain.finish_reason) == (None, None)
    cache.close()
    db = sqlite3.connect(tmp_path / "responses.sqlite3")
    assert db.execute("SELECT reply FROM responses WHERE key='k3'").fetchone() == (None,)
    db.close()


def test_a_cache_written_before_the_thought_is_read_and_then_given_the_column(
        tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / "responses.sqlite3")
    db.executescript(OLD_SCHEMA)
    db.execute("INSERT INTO responses VALUES ('old', 'a) the box', NULL, 'm', 1.0)")
    db.commit()
    db.close()
    read_only = ResponseCache(tmp_path, mode="read")  # changes nothing
    old = read_only.get("old")
    read_only.close()
    assert old is not None and (old.text, old.thought, old.finish_reason) == ("a) the box",
                                                                               None, None)
    db = sqlite3.connect(tmp_path / "responses.sqlite3")
    assert {r[1] for r in db.execute("PRAGMA table_info(responses)")} == OLD_RESPONSE_COLUMNS
    db.close()
    cache = ResponseCache(tmp_path, mode="on")  # writing: the column is added, rows kept
    assert cache.problem is None
    again = cache.get("old")
    assert again is not None and again.text == "a) the box"
    cache.put("new", ModelReply("b)", thought="hm", finish_reason="stop"))
    new = cache.get("new")
    assert new is not None and new.thought == "hm"
    cache.close()


# -- in a run -------------------------------------------------------------------------------
THINKER = '''
from pytest_tom.api import ModelReply

def answer(request):
    """Numbers suite: thinks, then answers right; cut off inside the thought on numbers
    divisible by 3 (the budget ran out), inside the answer on those ending in 7."""
    n = int(request.prompt.split("number ")[1].split()[0])
    gold = "Yes." if n % 2 == 0 else "No."
    usage = {"prompt_tokens": 10, "completion_tokens": 30, "total_tokens": 40,
             "reasoning_tokens": 25}
    if n % 3 == 0:
        return ModelReply(text="", thought=f"Is {n} even? Let me divide", usage=usage,
                          finish_reason="length")
    if n % 10 == 7:
        return ModelReply(text="Well,", thought="odd", usage=usage, finish_reason="length")
    return ModelReply(text=gold, thought=f"{n} ends in {n % 10}", usage=usage,
                      finish_reason="stop")
'''


def thinker_run(pytester: pytest.Pytester, *args: str, n: int = 12) -> Any:
    pytester.makepyfile(thinker=THINKER)
    pytester.makefile(".tom.yaml", numbers=numbers_suite(n))
    return pytester.runpytest("--tom-model=python:thinker.py:answer", "-p", "no:cacheprovider",
                              "--tom-report=r.json", "--tom-early-stop=off", *args)


def cut_numbers(n: int) -> list[int]:
    return [i for i in range(n) if i % 3 == 0 or i % 10 == 7]


def test_a_run_counts_cut_off_answers_apart_and_fails_them_naming_the_budget(
        pytester: pytest.Pytester) -> None:
    result = thinker_run(pytester)
    cut = cut_numbers(12)  # 0, 3, 6, 7, 9
    result.assert_outcomes(passed=12 - len(cut), failed=len(cut))
    out = result.stdout.str()
    assert "cut off [numbers · yes_no]" in out
    assert "cut off: the answerer's own budget (no max_tokens was sent) ran out inside the thought" in out
    assert "--tom-thinking-tokens" in out and "--tom-max-tokens" in out
    report = load_report(pytester.path / "r.json")
    metrics = report["suites"]["numbers"]["metrics"]
    assert (metrics["cut_off"], metrics["wrong"], metrics["correct"]) == (len(cut), 0, 7)
    assert metrics["turn"] == pytest.approx(7 / 12)
    assert report["totals"]["cut_off"] == len(cut)
    by_n = {int(r["item"]["id"].split("q")[-1]): r for r in report["items"]}
    for i, rec in by_n.items():
        assert rec["finish"] == ["length" if i in cut else "stop"]
        assert rec["thoughts"][0] and (rec["outcome"]["error"] == CUT_OFF) == (i in cut)
        assert rec["usage"]["reasoning_tokens"] == 25
    assert by_n[3]["responses"] == [""] and by_n[7]["responses"] == ["Well,"]
    # the terminal: its own column and its own count in the totals
    assert "cut off" in out and f"{len(cut)} cut off" in out


def test_report_mode_keeps_cut_off_answers_apart_and_a_gate_can_refuse_them(
        pytester: pytest.Pytester) -> None:
    result = thinker_run(pytester, "--tom-items=report")
    result.assert_outcomes(passed=7, xfailed=5)
    assert result.ret == 0
    gated = thinker_run(pytester, "--tom-fail-under=cut_off<=0")
    assert gated.ret == 1
    gated.stdout.fnmatch_lines(["*cut_off*above the allowed 0*"])


PLAIN_RAMBLER = '''
from pytest_tom.api import ModelReply

def answer(request):
    """A plain model (no thought) whose answers run into the budget on odd numbers."""
    n = int(request.prompt.split("number ")[1].split()[0])
    if n % 2:
        return ModelReply(text="Let me tell you about numbers", finish_reason="length")
    return ModelReply(text="Yes.", finish_reason="stop")
'''


def test_a_plain_model_cut_off_is_told_to_raise_the_answer_length_only(
        pytester: pytest.Pytester) -> None:
    """No reply showed a thought: the line under the totals names --tom-max-tokens, not the
    thinking options (a plain model has nothing to think with)."""
    pytester.makepyfile(rambler=PLAIN_RAMBLER)
    pytester.makefile(".tom.yaml", numbers=numbers_suite(8))
    result = pytester.runpytest("--tom-model=python:rambler.py:answer", "-p", "no:cacheprovider",
                                "--tom-early-stop=off", "--tom-items=report")
    lines = result.stdout.lines
    assert all(len(line) <= 120 for line in lines
               if "cut off by the budget" in line or "raise --tom-max-tokens" in line)
    out = result.stdout.str().replace(";\n  ", "; ")  # the line wraps at 120 columns
    assert ("tom: 4 of 8 answers cut off by the budget, counted apart, never wrong; "
            "no reply showed a thought: raise --tom-max-tokens N") in out
    assert "--tom-thinking" not in out.split("answers cut off by the budget")[1].splitlines()[0]


def test_samples_keep_their_own_thoughts(pytester: pytest.Pytester) -> None:
    result = thinker_run(pytester, "--tom-samples=2", "--tom-items=report", n=4)
    assert result.ret == 0
    report = load_report(pytester.path / "r.json")
    for rec in report["items"]:
        assert len(rec["samples"]) == 2
        for sample in rec["samples"]:
            assert sample["thoughts"] == rec["thoughts"] and sample["finish"] == rec["finish"]


def test_the_record_file_keeps_both_parts(pytester: pytest.Pytester) -> None:
    thinker_run(pytester, "--tom-items=report", "--tom-record=rec.jsonl", n=4)
    lines = [json.loads(x) for x in (pytester.path / "rec.jsonl").read_text().splitlines()]
    assert all("thoughts" in x and "finish" in x for x in lines)


# -- request fields ---------------------------------------------------------------------------
def test_request_fields_are_sent_keyed_and_redacted(pytester: pytest.Pytester) -> None:
    from chat_server import ChatServer  # noqa: PLC0415 the loopback server

    pytester.makefile(".tom.yaml", numbers=numbers_suite(4))
    secret = "sk-very-secret-value-123"
    with ChatServer(lambda body: "Yes.") as server:
        def run(*fields: str) -> Any:
            return pytester.runpytest("--tom-model=openai:test-model",
                                      f"--tom-base-url={server.base_url}", "-p", "no:cacheprovider",
                                      "--tom-items=report", "--tom-report=r.json",
                                      *(f"--tom-request-field={f}" for f in fields))

        run('chat_template_kwargs={"enable_thinking": false}', "top_k=20",
            f'extra={{"api_key": "{secret}", "mode": "x"}}')
        first = list(server.bodies)
        shown = (pytester.path / "r.json").read_text()
        run('chat_template_kwargs={"enable_thinking": false}', "top_k=20",
            f'extra={{"api_key": "{secret}", "mode": "x"}}')
        cached = len(server.bodies)
        run('chat_template_kwargs={"enable_thinking": true}', "top_k=20")
        again = server.bodies[cached:]
    assert len(first) == 4 and all(b["chat_template_kwargs"] == {"enable_thinking": False}
                                   and b["top_k"] == 20 and b["extra"]["api_key"] == secret
                                   for b in first)
    assert cached == 4  # the same fields: every answer from the cache
    assert len(again) == 4 and all(b["chat_template_kwargs"] == {"enable_thinking": True}
                                   for b in again)  # other fields: another cache key
    assert secret not in shown
    assert json.loads(shown)["settings"]["request_fields"]["extra"] == {"api_key": "***",
                                                                         "mode": "x"}
    text = (pytester.path / "r.json").read_text()
    assert secret not in text
    assert json.loads(text)["settings"]["request_fields"] == {
        "chat_template_kwargs": {"enable_thinking": True}, "top_k": 20}
    cache = pytester.path / ".tom_cache" / "responses.sqlite3"
    assert secret.encode() not in cache.read_bytes()
