"""How a reply becomes answer, thought and finish reason (backends/reply_parts.py): the
decoded chat-completions bodies each kind of server sends, and a real `openai:` run
against a loopback server in each shape."""

from __future__ import annotations

import json
from typing import Any

import pytest
from chat_server import ChatServer
from conftest import load_report
from runner_support import number_of, numbers_suite

from pytest_tom.backends.base import BackendError
from pytest_tom.backends.reply_parts import (
    DEFAULT_TAGS,
    ThinkTags,
    chat_reply,
    split_thought,
    think_tags,
)


def body(message: dict[str, Any], finish: Any = "stop", usage: Any = None) -> dict[str, Any]:
    out: dict[str, Any] = {"model": "m", "choices": [{"index": 0, "finish_reason": finish,
                                                      "message": {"role": "assistant", **message}}]}
    if usage is not None:
        out["usage"] = usage
    return out


def parts(message: dict[str, Any], finish: Any = "stop", tags: ThinkTags | None = DEFAULT_TAGS
          ) -> tuple[str, str | None, str | None]:
    reply = chat_reply(body(message, finish), tags)
    return reply.text, reply.thought, reply.finish_reason


def test_a_plain_reply_is_all_answer() -> None:
    assert parts({"content": "b) the basket"}) == ("b) the basket", None, "stop")


def test_a_leading_thought_in_tags_is_split_off() -> None:
    assert parts({"content": "  <think>\nShe left.\n</think>\n\nb) the basket"}) == \
        ("b) the basket", "She left.", "stop")


def test_a_lone_closing_tag_ends_a_thought_the_prompt_opened() -> None:
    assert parts({"content": "She left before it moved.\n</think>\n\nb) the basket"}) == \
        ("b) the basket", "She left before it moved.", "stop")


def test_an_unclosed_thought_cut_by_the_budget_has_no_answer() -> None:
    reply = chat_reply(body({"content": "<think>She left, so"}, "length"))
    assert (reply.text, reply.thought, reply.finish_reason) == ("", "She left, so", "length")
    assert reply.cut_in_thought


def test_tags_elsewhere_are_the_answer_and_an_empty_thought_is_none() -> None:
    text = "b) the basket, not <think>a) the box</think>"
    assert parts({"content": text}) == (text, None, "stop")
    # Qwen3 with thinking off writes an empty pair
    assert parts({"content": "<think>\n\n</think>\n\nb)"}) == ("b)", None, "stop")


def test_other_tags_and_tags_off() -> None:
    tags = think_tags("[THINK],[/THINK]")
    assert tags == ThinkTags("[THINK]", "[/THINK]")
    assert parts({"content": "[THINK]hm[/THINK]a)"}, tags=tags) == ("a)", "hm", "stop")
    assert parts({"content": "<think>hm</think>a)"}, tags=tags) == ("<think>hm</think>a)", None,
                                                                   "stop")
    assert think_tags("off") is None and think_tags(None) == DEFAULT_TAGS
    assert parts({"content": "<think>hm</think>a)"}, tags=None) == ("<think>hm</think>a)", None,
                                                                   "stop")
    assert split_thought("x</think>y", None) == ("x</think>y", None)


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
def test_the_servers_reasoning_field_is_the_thought(field: str) -> None:
    assert parts({"content": "b)", field: "She left."}) == ("b)", "She left.", "stop")


def test_thinking_parts_of_the_content_are_the_thought() -> None:
    content = [{"type": "thinking", "thinking": [{"type": "text", "text": "She left."}]},
               {"type": "text", "text": "b) the basket"}]
    assert parts({"content": content}) == ("b) the basket", "She left.", "stop")


def test_content_null_at_the_budget_is_cut_off_not_an_empty_completion() -> None:
    reply = chat_reply(body({"content": None, "reasoning_content": "She left, so"}, "length"))
    assert reply.cut_in_thought and reply.thought == "She left, so"
    hidden = chat_reply(body({"content": None}, "max_tokens"))  # the thought never shown
    assert hidden.cut_in_thought and hidden.thought is None and hidden.finish_reason == "length"


def test_an_empty_answer_after_a_whole_thought_is_the_models_answer() -> None:
    reply = chat_reply(body({"content": "", "reasoning_content": "Hm."}))
    assert (reply.text, reply.thought, reply.finish_reason) == ("", "Hm.", "stop")
    assert not reply.cut_off


@pytest.mark.parametrize("data, words", [
    ([], "not a chat completion"), ({"choices": []}, "no choices"),
    (body({"content": ""}), "empty completion"), (body({"content": None}), "empty completion"),
    (body({"content": "<think></think>"}), "empty completion"),
    (body({"content": None}, "content_filter"), "empty completion (finish_reason content_filter)"),
])
def test_what_is_no_reply_is_a_final_error(data: Any, words: str) -> None:
    with pytest.raises(BackendError, match=words.replace("(", r"\(").replace(")", r"\)")) as exc:
        chat_reply(data)
    assert not exc.value.retryable


def test_reasoning_tokens_are_read_and_a_plain_models_zero_is_left_out() -> None:
    usage = {"prompt_tokens": 5, "completion_tokens": 40, "total_tokens": 45,
             "completion_tokens_details": {"reasoning_tokens": 37}}
    reply = chat_reply(body({"content": "b)"}, usage=usage))  # hidden reasoning (o-series)
    assert reply.usage == {"prompt_tokens": 5, "completion_tokens": 40, "total_tokens": 45,
                           "reasoning_tokens": 37}
    plain = {**usage, "completion_tokens_details": {"reasoning_tokens": 0}}
    assert "reasoning_tokens" not in (chat_reply(body({"content": "b)"}, usage=plain)).usage or {})
    shown = chat_reply(body({"content": "b)", "reasoning": "x"}, usage=plain))
    assert shown.usage is not None and shown.usage["reasoning_tokens"] == 0
    assert chat_reply(body({"content": "b)"})).usage is None


# -- a real run against a loopback server in each shape -----------------------------------
def gold(body: dict[str, Any]) -> str:
    return "Yes." if number_of(body) % 2 == 0 else "No."


THOUGHT = "Is it even? yes or no, No. or Yes."  # read as the answer it would mislead

SHAPES: dict[str, Any] = {
    "plain": lambda b: gold(b),
    "tags": lambda b: f"<think>{THOUGHT}</think>\n{gold(b)}",
    "lone_close": lambda b: f"{THOUGHT}\n</think>\n\n{gold(b)}",
    "reasoning_content": lambda b: {"content": gold(b), "reasoning_content": THOUGHT,
                                    "usage": {"completion_tokens_details":
                                              {"reasoning_tokens": 9}}},
    "reasoning": lambda b: {"content": gold(b), "reasoning": THOUGHT},
}


def shape_run(pytester: pytest.Pytester, shape: str, *args: str) -> tuple[dict[str, Any], str]:
    pytester.makefile(".tom.yaml", numbers=numbers_suite(6))
    with ChatServer(SHAPES[shape]) as server:
        result = pytester.runpytest("--tom-model=openai:m", f"--tom-base-url={server.base_url}",
                                    "-p", "no:cacheprovider", "--tom-cache=off",
                                    "--tom-report=r.json", *args)
    return load_report(pytester.path / "r.json"), result.stdout.str()


@pytest.fixture(scope="module")
def made_once() -> dict[str, Any]:
    """The plain model's report, made by the first shape's test that needs it (a
    module-scoped fixture cannot use pytester, a test's own folder and runner)."""
    return {}


@pytest.mark.parametrize("shape", [s for s in SHAPES if s != "plain"])
def test_every_shape_scores_the_answer_alone_and_keeps_the_thought(
        pytester: pytest.Pytester, shape: str, made_once: dict[str, Any]) -> None:
    if "plain" not in made_once:
        made_once["plain"], _ = shape_run(pytester, "plain")
    plain = made_once["plain"]
    assert not any("thoughts" in r for r in plain["items"])
    report, out = shape_run(pytester, shape)
    assert report["suites"]["numbers"]["metrics"]["turn"] == 1.0
    assert [r["outcome"] for r in report["items"]] == [r["outcome"] for r in plain["items"]]
    assert all(r["thoughts"] == [THOUGHT] and r["finish"] == ["stop"] for r in report["items"])
    counted = shape == "reasoning_content"
    assert all(("reasoning_tokens" in r["usage"]) == counted for r in report["items"])


def test_a_cut_off_reply_with_content_null_is_counted_apart(pytester: pytest.Pytester) -> None:
    pytester.makefile(".tom.yaml", numbers=numbers_suite(4))
    cut = {"content": None, "reasoning_content": "Is it even? Let me", "finish_reason": "length"}
    with ChatServer(lambda b: cut) as server:
        result = pytester.runpytest("--tom-model=openai:m", f"--tom-base-url={server.base_url}",
                                    "-p", "no:cacheprovider", "--tom-cache=off",
                                    "--tom-report=r.json", "--tom-items=report",
                                    "--tom-early-stop=off")
    assert result.ret == 0
    report = load_report(pytester.path / "r.json")
    metrics = report["suites"]["numbers"]["metrics"]
    assert (metrics["cut_off"], metrics["wrong"], metrics["errors"]) == (4, 0, 0)
    assert "empty completion" not in json.dumps(report)
