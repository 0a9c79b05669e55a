"""A stand-in model that thinks before it answers, for the reasoning-length tests:
`python:tests/thinking_answerers.py:counted` (its replies carry the thought and its
reasoning token count, as an in-process model's do) and `...:uncounted` (the thought
alone, as an OpenAI-compatible server that sends `reasoning_content` without
`completion_tokens_details.reasoning_tokens`).

Its answers are `demo_answerers.weak`'s (right about two times in three). Its thought is
one word per reasoning token: 120 to 239 words, fixed by the item id, and 2.3 times as
many on a false-belief item (BigToM's false-belief condition, FANToM's questions about a
character who missed the information); one item in twenty runs out of budget inside its
thought (finish reason "length", no answer: cut off).
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path
from typing import Any

TESTS = Path(__file__).resolve().parent
# demo_answerers and the families' answerers it imports (as pyproject's `pythonpath` has
# them), for a run in another folder
sys.path[:0] = [str(TESTS), *(str(p) for p in sorted((TESTS / "families").iterdir()) if p.is_dir())]

import demo_answerers  # noqa: E402

from pytest_tom.api import ModelReply  # noqa: E402

FALSE_BELIEF_FACTOR = 2.3


def share(text: str) -> float:
    digest = hashlib.sha256(text.encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2 ** 64


def false_belief(item: Any) -> bool:
    meta = item.meta or {}
    return (meta.get("belief_condition") == "false_belief"
            or meta.get("accessibility") == "inaccessible")


def words(item: Any) -> int:
    """The thought's length in words (= its reasoning tokens)."""
    base = 120 + int(120 * share(item.id))
    return round(base * FALSE_BELIEF_FACTOR) if false_belief(item) else base


def reply(request: Any, counted: bool) -> ModelReply:
    item = request.item
    n = words(item)
    thought = " ".join(["hm"] * n)
    usage = {"prompt_tokens": 50, "completion_tokens": n + 3, "total_tokens": n + 53}
    if counted:
        usage["reasoning_tokens"] = n
    if share("cut" + item.id) < 0.05:  # the budget ran out inside the thought
        return ModelReply(text="", thought=thought, usage=usage, finish_reason="length")
    return ModelReply(text=demo_answerers.weak(request), thought=thought, usage=usage,
                      finish_reason="stop")


def counted(request: Any) -> ModelReply:
    return reply(request, counted=True)


def uncounted(request: Any) -> ModelReply:
    return reply(request, counted=False)
