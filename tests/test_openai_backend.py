"""The openai: backend end to end against a real chat-completions server on 127.0.0.1."""

from __future__ import annotations

import re

import pytest
from chat_server import ChatServer, last_user_text
from conftest import load_report

SUITE = """\
suite: http-demo
family: generic
version: 1
defaults: {shuffle: false}
scenarios:
  - id: s1
    context: Ann puts the ball in the box and leaves. Bob moves it to the basket.
    characters: [Ann, Bob]
    questions:
      - id: belief
        ask: Where will Ann look for the ball?
        choices: [the box, the basket]
        answer: the box
      - id: reality
        ask: Where is the ball now?
        choices: [the box, the basket]
        answer: the basket
      - id: knows
        ask: Does Ann know the ball was moved?
        yes_no: "no"
  - id: s2
    context: Cy keeps pencils in a tea tin. Di sees the tin.
    characters: [Cy, Di]
    questions:
      - id: belief
        ask: BOOM What does Di think is in the tin?
        choices: [tea, pencils]
        answer: tea
      - id: who
        ask: EMPTY Who knows what is in the tin?
        names: [Cy]
"""


def answer(body: dict) -> str:
    text = last_user_text(body)
    if "Where will Ann look" in text:
        return "a) the box"
    if "Where is the ball now" in text:
        return "The answer is a)."  # wrong on purpose
    if "Does Ann know" in text:
        return "No, she does not know."
    return "a)"


@pytest.fixture
def server() -> ChatServer:
    with ChatServer(answer, fail_when={"BOOM": 500}, empty_when=("EMPTY",), retry_after=0.01) as s:
        yield s


def run(pytester: pytest.Pytester, server: ChatServer, *args: str) -> pytest.RunResult:
    pytester.makefile(".tom.yaml", demo=SUITE)
    return pytester.runpytest("--tom-model=openai:test-model", f"--tom-base-url={server.base_url}",
                              "--tom-retries=1", "-p", "no:cacheprovider", *args)


def test_end_to_end_with_errors(pytester: pytest.Pytester, server: ChatServer,
                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-SECRET-123")
    report = pytester.path / "r.json"
    junit = pytester.path / "j.xml"
    result = run(pytester, server, f"--tom-report={report}", f"--junitxml={junit}")
    # belief right, reality wrong, knows right; BOOM -> HTTP 500 (retried, then error);
    # EMPTY -> empty completion (error)
    result.assert_outcomes(passed=2, failed=1, errors=2)
    out = result.stdout.str()
    assert "request failed (request_failed): HTTP 500" in out
    assert "empty completion" in out
    data = load_report(report)
    m = data["suites"]["http-demo"]["metrics"]
    assert (m["items"], m["correct"], m["errors"]) == (5, 2, 2)
    assert m["turn"] == pytest.approx(2 / 5)  # errors stay in the denominator
    assert m["goal"] == 0.0
    # the server saw the messages of the generic prompt and the sampling settings
    body = server.bodies[0]
    assert body["model"] == "test-model" and body["temperature"] == 0
    assert "Question:" in last_user_text(body) and last_user_text(body).rstrip().endswith("Answer:")
    # the key reached the server but no report, log or XML
    assert all(h == "Bearer sk-test-SECRET-123" for h in server.auth_headers)
    for path in (report, junit):
        assert "SECRET" not in path.read_text()
    assert "SECRET" not in out
    assert data["settings"]["backend"]["base_url"] == server.base_url
    # the 500 was retried once (--tom-retries=1): two requests for that prompt
    boom = [k for k, v in server.per_prompt.items() if v == 2]
    assert len(boom) == 1


def test_usage_is_recorded(pytester: pytest.Pytester, server: ChatServer,
                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)  # a local server needs no key
    report = pytester.path / "r.json"
    run(pytester, server, f"--tom-report={report}", "-k", "s1")
    data = load_report(report)
    assert all(r["usage"]["total_tokens"] > 0 for r in data["items"])


def test_base_url_credentials_are_redacted(pytester: pytest.Pytester, server: ChatServer,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    report = pytester.path / "r.json"
    url = re.sub(r"^http://", "http://user:pw-SECRET@", server.base_url)
    result = run(pytester, server, f"--tom-report={report}", "-k", "s1")
    pytester.makefile(".tom.yaml", demo=SUITE)
    result = pytester.runpytest("--tom-model=openai:test-model", f"--tom-base-url={url}",
                                f"--tom-report={report}", "-k", "s1", "-p", "no:cacheprovider")
    assert "SECRET" not in result.stdout.str()
    assert "SECRET" not in report.read_text()


def test_missing_key_without_base_url_is_a_usage_error(pytester: pytest.Pytester,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    pytester.makefile(".tom.yaml", demo=SUITE)
    result = pytester.runpytest("--tom-model=openai:gpt-4o-mini", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*OPENAI_API_KEY is not set*--tom-base-url*"])
