"""The messages of each model call of an item, as the runner sent them or rebuilt from
its responses.

A family's conversation is a pure function of the item, the method and the
responses so far, so the calls an item made are `conversation(responses[:i])`
for each response, plus the call that failed when the item errored. The JSON
report keeps them (`messages`: a list of calls, each a list of
`{"role", "content"}`), so a run can be read later without rerunning, and the
failure text shows what the model saw.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pytest_tom.core.message import Message


def call_messages(next_request: Callable[[list[str]], Any], responses: list[str],
                  failed: bool = False) -> list[list[Message]]:
    """Every call made: one list of messages per call, in order.

    `next_request` is the item engine's conversation (`ItemEngine.conversation(spec)`),
    the same function the runner asked with, so the calls are rebuilt exactly as sent.
    """
    calls: list[list[Message]] = []
    for i in range(len(responses) + (1 if failed else 0)):
        try:
            request = next_request(list(responses[:i]))
        except Exception:  # a family that cannot rebuild a call: keep what we have
            break
        if request is None:
            break
        calls.append(plain_call(request.messages))
    return calls


def plain_call(messages: list[Message]) -> list[Message]:
    """One call's messages as the report keeps them: role and content, as text."""
    return [{"role": str(m.get("role", "")), "content": str(m.get("content", ""))}
            for m in messages]


def sent_messages(sent: list[list[Message]], responses: list[str],
                  failed: bool = False) -> list[list[Message]] | None:
    """`call_messages` from the messages the runner recorded as it sent each call
    (`Completion.sent`), without building the calls again; None when they do not cover
    every call `call_messages` would rebuild (a completion made elsewhere, or a conversation
    that failed while building its next call): then rebuild."""
    if len(sent) != len(responses) + (1 if failed else 0):
        return None
    return [plain_call(messages) for messages in sent]
