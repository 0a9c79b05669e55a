"""An item's first request is built once (issue 35): the runner's key hashes it and the
runner then sends that same request; the record's messages come from what the runner
sent (`Completion.sent`) instead of building every call again, and equal the rebuilt
ones."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import SUITES

from pytest_tom import families
from pytest_tom.catalogue.load import load_suite
from pytest_tom.core.settings import Settings
from pytest_tom.items.item import ItemEngine
from pytest_tom.items.transcript import call_messages, sent_messages

GENERIC = SUITES / "generic" / "classic-false-belief.tom.yaml"


@pytest.fixture
def built(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ids of the items whose family built a call, one entry per call built."""
    family = families.get("generic")
    own = family.conversation
    seen: list[str] = []

    def counting(spec: Any, method: Any, responses: list[str]) -> Any:
        seen.append(spec.id)
        return own(spec, method, responses)

    monkeypatch.setattr(family, "conversation", counting)
    return seen


def test_the_first_request_is_built_once_for_key_and_runner(built: list[str]) -> None:
    items = load_suite(GENERIC).items[:12]
    engine = ItemEngine(Settings())
    for spec in items:
        key, conversation = engine.submission(spec)
        first = conversation([])  # what the runner asks first
        assert built.count(spec.id) == 1
        # the key is the one a fresh engine gives, and a set-up finds it without building
        assert key == ItemEngine(Settings()).request_key(spec)
        assert engine.known_key(spec) == key
        again = conversation([])  # handed out once: a second ask builds a new request
        assert again is not first and again is not None and first is not None
        assert again.messages == first.messages


def test_sent_messages_equal_the_rebuilt_calls() -> None:
    items = load_suite(GENERIC).items[:12]
    engine = ItemEngine(Settings())
    for spec in items:
        conversation = engine.conversation(spec)
        responses = ["an answer"]
        sent = [conversation(responses[:i]).messages for i in range(len(responses))]
        assert sent_messages(sent, responses) == call_messages(conversation, responses)
        failed = [*sent, conversation(responses).messages] if conversation(responses) else sent
        if len(failed) > len(sent):
            assert sent_messages(failed, responses, failed=True) == call_messages(
                engine.conversation(spec), responses, failed=True)
        # not every call recorded (a completion made elsewhere): rebuild instead
        assert sent_messages([], responses) is None
        assert sent_messages(sent, responses, failed=True) is None
