"""A stand-in reasoning model for the loopback chat server (tests/chat_server.py): it
thinks, then gives the answer a plain model would have given, in the shape a server sends.

`plain_answer(body)` is the plain model: a deterministic answer read off the prompt (one
of its lettered options, yes or no, or a name), right on some items, wrong or unparseable
on others, never knowing the gold. `responder(shape)` is the thinking model: the same
answer after a thought that names every option (read as the answer, it would mislead),
`THOUGHT_WORDS` words long. A request whose `max_tokens` leaves no room for the thought and
the answer is cut off inside the thought, as a server cuts it (`finish_reason: "length"`).

Shapes, as servers send them (docs/reasoning-models.md):

- `plain`: a plain model (no thought), never cut off;
- `tags`: `<think>...</think>` in the content (a server without a reasoning parser);
- `lone_close`: the content holds the thought and a lone `</think>` (the chat template
  opened the tag in the prompt: DeepSeek-R1, QwQ);
- `reasoning_content`: the thought in `message.reasoning_content`, with its token count in
  `usage.completion_tokens_details.reasoning_tokens` (vLLM, SGLang with a parser); a
  cut-off reply has `content: null`;
- `reasoning`: the thought in `message.reasoning` (OpenRouter, Ollama), no count;
- `content`: `tags` or `lone_close`, and `fields`: `reasoning_content` or `reasoning`,
  chosen per prompt (both ways of a shape in one run).

`record_weak` and `table_answers` give the server the answers of a stand-in model of every
bundled family (right, wrong and unparseable in each family's own way).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from chat_server import last_user_text, prompt_key

SHAPES = ("plain", "tags", "lone_close", "reasoning_content", "reasoning", "content",
          "fields")
THOUGHT_WORDS = 400  # more than any family's answer length: cut off without a thinking budget
OPTION = re.compile(r"^\s*\(?([a-z])\)\s*(.+)$", re.MULTILINE)
NAME = re.compile(r"\b([A-Z][a-z]{2,})\b")


def _pick(text: str, n: int) -> int:
    return int(hashlib.sha256(text.encode("utf-8")).hexdigest()[:8], 16) % n


def plain_answer(body: dict[str, Any]) -> str:
    """A plain model's answer read off the prompt alone (deterministic; right, wrong or
    unparseable), for runs whose answers do not matter."""
    text = last_user_text(body)
    options = OPTION.findall(text)
    roll = _pick(text, 7)
    if roll == 0:
        return "Hard to say."
    if options:
        letter, words = options[roll % len(options)]
        return f"{letter}) {words}"
    return "Yes." if roll % 2 else "No."


def record_weak(request: Any) -> str:
    """`python:tests/thinking_server.py:record_weak`: the `weak` stand-in model of every
    bundled family (tests/demo_answerers.py), each answer also written, keyed by the
    messages asked, as a JSON line to the file $TOM_ANSWER_TABLE: the answers a server's
    plain model then gives (`table_answers`)."""
    import demo_answerers  # noqa: PLC0415 imports every family's support module

    answer = demo_answerers.weak(request)
    with open(os.environ["TOM_ANSWER_TABLE"], "a", encoding="utf-8") as out:
        out.write(json.dumps({"key": prompt_key({"messages": request.messages}),
                              "answer": answer}) + "\n")
    return answer


def table_answers(path: str | Path) -> Callable[[dict[str, Any]], str]:
    """The answers `record_weak` wrote, as a server's plain model (by the messages asked)."""
    table = {}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        table[row["key"]] = row["answer"]
    return lambda body: table[prompt_key(body)]


def thought_of(body: dict[str, Any]) -> str:
    """A thought that weighs every option the prompt offers, `THOUGHT_WORDS` words long."""
    text = last_user_text(body)
    options = " or ".join(f"{letter}) {words}" for letter, words in OPTION.findall(text))
    head = f"Let me think. Is it {options or 'yes'}? Yes, no, maybe Nobody."
    words = head.split()
    filler = ["hmm"] * max(0, THOUGHT_WORDS - len(words))
    return " ".join(words + filler)


def responder(shape: str, answer_of: Callable[[dict[str, Any]], str] = plain_answer) -> Any:
    """The chat server's responder of a model in `shape` (module docstring) whose answers
    are `answer_of`'s."""

    def respond(body: dict[str, Any]) -> str | dict[str, Any]:
        answer = answer_of(body)
        shape_now = shape
        if shape in ("content", "fields"):  # one of the two, by the prompt
            pair = ("tags", "lone_close") if shape == "content" else ("reasoning_content",
                                                                      "reasoning")
            shape_now = pair[_pick(prompt_key(body), 2)]
        if shape_now == "plain":
            return answer
        thought = thought_of(body)
        budget = body.get("max_tokens")
        cut = budget is not None and budget < THOUGHT_WORDS + len(answer.split())
        if cut:  # the budget ran out inside the thought
            thought = " ".join(thought.split()[: max(1, int(budget or 1) - 1)])
        counted = {"completion_tokens_details": {"reasoning_tokens": len(thought.split())}}
        finish = "length" if cut else "stop"
        if shape_now == "tags":
            return {"content": f"<think>\n{thought}" + ("" if cut else f"\n</think>\n\n{answer}"),
                    "finish_reason": finish}
        if shape_now == "lone_close":
            return {"content": thought + ("" if cut else f"\n</think>\n\n{answer}"),
                    "finish_reason": finish}
        if shape_now == "reasoning_content":
            return {"content": None if cut else answer, "reasoning_content": thought,
                    "finish_reason": finish, "usage": counted}
        if shape_now == "reasoning":
            return {"content": None if cut else answer, "reasoning": thought,
                    "finish_reason": finish}
        raise ValueError(f"no shape {shape!r}: {', '.join(SHAPES)}")

    return respond
