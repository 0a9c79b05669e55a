"""A run stops early, with one line, when going on would only waste time (issue 33 point 8:
an unreachable server was retried for every item, 174 items in 1 min 36 s).

The rule (`asking/early_stop.UnreachableServer`) alone, then through pytest against a port
nobody listens on (plainly and under `-n 2`), and against a real server that answered once
and then failed (retried as always, never stopped)."""

from __future__ import annotations

import socket

import pytest
from chat_server import ChatServer
from conftest import SUITES, load_report

from pytest_tom.asking.completion import CallError, Completion
from pytest_tom.asking.early_stop import CutOffAnswers, EarlyStop, UnreachableServer, rules_for
from pytest_tom.asking.reasoning import budget_text, raise_text
from pytest_tom.backends.base import ModelReply
from pytest_tom.core.option_table import TomOptions

GENERIC = SUITES / "generic" / "classic-false-belief.tom.yaml"
DOWN = "connection failed: [Errno 111] Connect call failed ('127.0.0.1', 9)"


def test_the_rule_fires_on_one_error_from_three_items_and_nothing_answered() -> None:
    stop = EarlyStop([UnreachableServer()])
    stop.attempt("a", DOWN)
    stop.attempt("a", DOWN)  # retries of one item are not yet the server
    stop.attempt("b", DOWN)
    assert stop.reason is None
    stop.attempt("c", DOWN)
    assert stop.reason is not None
    assert stop.reason.startswith("the server never answered: the first 4 requests (3 items) "
                                  "all failed the same way and none succeeded: " + DOWN)
    assert "--tom-base-url" in stop.reason


@pytest.mark.parametrize("events", [
    [("a", None), ("b", DOWN), ("c", DOWN), ("d", DOWN)],  # answered once: retried as always
    [("a", DOWN), ("b", "HTTP 500: busy"), ("c", DOWN), ("d", DOWN)],  # not one cause
], ids=["answered-before", "different-errors"])
def test_the_rule_never_fires_for_a_server_that_answered_or_failures_that_differ(
        events: list[tuple[str, str | None]]) -> None:
    stop = EarlyStop([UnreachableServer()])
    for key, error in events * 3:
        stop.attempt(key, error)
    assert stop.reason is None


def test_an_answer_from_the_cache_counts_as_answered() -> None:
    stop = EarlyStop([UnreachableServer()])
    stop.finished(Completion(replies=[ModelReply("a)")], cached=1))
    for key in "abcd":
        stop.attempt(key, DOWN)
    assert stop.reason is None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("xdist", [[], ["-n", "2"]], ids=["plain", "xdist"])
def test_a_dead_server_stops_the_run_within_a_few_items_with_one_line(
        pytester: pytest.Pytester, xdist: list[str]) -> None:
    pytester.makeini("[pytest]\n")
    result = pytester.runpytest(  # in process: the workers of -n 2 are processes anyway
        str(GENERIC), "--tom-model=openai:m", f"--tom-base-url=http://127.0.0.1:{free_port()}/v1",
        "--tom-report=r.json", "--tom-save-baseline=b.json", "--tom-cache=off",
        "-p", "no:cacheprovider", *xdist)
    assert result.ret == 1
    stop_lines = [line for line in result.outlines if "the run stopped early: the server never "
                  "answered" in line and line.startswith("!")]
    assert len(stop_lines) == 1, result.stdout.str()[-3000:]
    assert "Connect call failed" in stop_lines[0] and "--tom-base-url" in stop_lines[0]
    # the plain run's line under xdist too, not pytest-xdist's exception name (issue 46)
    assert stop_lines[0].lstrip("! ").startswith("tom: the run stopped early: "), stop_lines[0]
    report = load_report(pytester.path / "r.json")
    assert report["status"] == "interrupted"
    # of the 174: it stopped within a few items; under -n 2 each worker's runner meets the
    # dead server and stops on its own, so each may have recorded up to four
    workers = 2 if xdist else 1
    assert 1 <= len(report["items"]) <= 4 * workers, [r["item"]["id"] for r in report["items"]]
    assert all(r["outcome"]["error"] for r in report["items"])
    assert not (pytester.path / "b.json").exists()  # no baseline of errors
    result.stdout.fnmatch_lines(["tom gates: the run stopped early: gates not evaluated, "
                                 "baseline not saved"])


def test_a_server_that_answered_once_is_retried_and_never_stopped(
        pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    server = ChatServer()

    def answer_once(body: dict) -> str:
        server.fail_when["Answer"] = 500  # every later request fails the same way
        return "a)"

    server.responder = answer_once
    with server:
        result = pytester.runpytest(
            str(GENERIC), "-k", "honey-cupboard or usb-stick-tray", "--tom-model=openai:m",
            f"--tom-base-url={server.base_url}", "--tom-concurrency=1", "--tom-retries=1",
            "--tom-backoff=0.01", "--tom-report=r.json", "--tom-cache=off",
            "-p", "no:cacheprovider")
    report = load_report(pytester.path / "r.json")
    assert report["status"] == "complete"
    n = len(report["items"])
    assert n >= 8
    assert sum(1 for r in report["items"] if r["outcome"]["error"]) == n - 1
    assert server.requests == 1 + 2 * (n - 1)  # every failed item asked twice (one retry)
    assert "stopped early" not in result.stdout.str()


def test_a_throttling_server_is_there_and_never_stops_the_run(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    with ChatServer(failure_rate=1.0, failure_statuses=(429,), retry_after=0.01) as server:
        result = pytester.runpytest(
            str(GENERIC), "-k", "honey-cupboard", "--tom-model=openai:m",
            f"--tom-base-url={server.base_url}", "--tom-retries=1", "--tom-report=r.json",
            "--tom-cache=off", "-p", "no:cacheprovider")
    assert "stopped early" not in result.stdout.str()
    report = load_report(pytester.path / "r.json")
    assert report["status"] == "complete" and len(report["items"]) >= 5


# -- most first answers cut off by the budget (issue 32) --------------------------------------
def cut(thought: bool = True) -> Completion:
    return Completion(replies=[ModelReply("" if thought else "b) the", thought="Sally left, so",
                                          finish_reason="length")])


def answered() -> Completion:
    return Completion(replies=[ModelReply("b)", thought="Sally left.", finish_reason="stop")])


def test_the_cut_off_rule_stops_the_suite_whose_first_answers_are_mostly_cut() -> None:
    stop = EarlyStop([CutOffAnswers(raise_with="raise --tom-thinking-tokens (now 256)")])
    assert not stop.watches_attempts  # it reads finished conversations only
    for comp in [cut(), answered(), cut(), cut(thought=False), answered(),
                 Completion(error=CallError("HTTP 500")), cut(), cut()]:  # an error is no answer
        stop.finished(comp, "bigtom", 320)
        stop.finished(answered(), "fantom", 384)  # another suite, answered: its own window
        assert stop.suite_stop("bigtom") is None
    stop.finished(cut(), "bigtom", 320)  # the sixth cut of at most ten: most of them
    assert stop.reason is None  # the run goes on ...
    assert stop.suite_stop("fantom") is None  # ... and so does every other suite
    assert stop.suites == {"bigtom": (
        "6 of its first 8 answers cut off by the budget (max_tokens 320, 5 inside the "
        "thought); nearly every item would end cut off, never scored; raise "
        "--tom-thinking-tokens (now 256) (or --tom-early-stop=off to run to the end at this "
        "budget)")}
    # a suite's window is its own: hitom's cut answers count from zero, fantom's window
    # (its first ten answers) was mostly answered and is never read again
    for _ in range(5):
        stop.finished(cut(), "hitom", 512)
        stop.finished(cut(), "fantom", 384)
    assert stop.suite_stop("hitom") is None
    stop.finished(cut(), "hitom", 512)
    assert "max_tokens 512" in (stop.suite_stop("hitom") or "")
    assert stop.suite_stop("fantom") is None


def test_a_thought_shown_changes_what_the_cut_off_rule_advises() -> None:
    stop = EarlyStop([CutOffAnswers(raise_with="raise --tom-max-tokens",
                                    raise_when_shown="the server ignored --tom-thinking=off")])
    for _ in range(6):
        stop.finished(Completion(replies=[ModelReply("b) the", finish_reason="length")]),
                      "plain", 64)
        stop.finished(cut(), "thinks", 64)
    assert "raise --tom-max-tokens" in stop.suites["plain"]
    assert "the server ignored --tom-thinking=off" in stop.suites["thinks"]


def test_the_cut_off_rule_never_fires_on_half_or_after_the_first_answers() -> None:
    half = EarlyStop([CutOffAnswers(raise_with="x")])
    for comp in [cut(), answered()] * 5 + [cut()] * 20:  # 5 of the first 10; later ones not read
        half.finished(comp)
    assert half.reason is None and not half.suites
    # a chain of thought's first call cut inside its answer goes on: not cut off
    cot = EarlyStop([CutOffAnswers(raise_with="x")])
    for _ in range(10):
        cot.finished(Completion(replies=[ModelReply("Step one", finish_reason="length"),
                                         ModelReply("b)", finish_reason="stop")]))
    assert cot.reason is None and not cot.suites


def test_the_rules_of_a_run() -> None:
    assert [type(r) for r in rules_for(False)] == []
    assert [type(r) for r in rules_for(True, cut_off="x")] == [UnreachableServer, CutOffAnswers]
    assert [type(r) for r in rules_for(False, cut_off="x")] == [CutOffAnswers]


def test_a_thought_after_thinking_off_is_the_server_ignoring_it() -> None:
    """Issue 46: after --tom-thinking=off a thought is the server ignoring the request (its
    template does not read enable_thinking): said so, never "turn thinking on"; the
    header's answer length says "thinking off"."""
    off = TomOptions(thinking="off")
    shown = raise_text(off, shown=True)
    assert shown.startswith("the server ignored --tom-thinking=off: its replies still show a "
                            "thought") and "--tom-thinking=on" not in shown
    assert "--tom-thinking=on" not in raise_text(off)  # no reply could tell
    assert raise_text(off, thinks=False).startswith("no reply showed a thought")
    assert "--tom-thinking=on" in raise_text(TomOptions())  # asked nothing: the advice stays
    assert budget_text(off, "max_tokens 64 per answer").endswith(
        "· thinking off (--tom-thinking=off)")
    assert "thinking off" not in budget_text(TomOptions(), "max_tokens 64 per answer")
