"""The one place a model's reply becomes an answer, a thought and a finish reason
(issue 32; docs/reasoning-models.md).

Pure functions of what a backend decoded, so that every transport and every backend
reads replies alike:

- `chat_reply(body, tags)`: a chat-completions response body (the decoded JSON) as a
  `ModelReply`. `openai:` calls it on what its transport decoded; another transport
  calls it on its own.
- `split_thought(text, tags, finish)`: a reply's text as (answer, thought), for the
  content of a chat completion and for the decoded text of an in-process model
  (`hf:`, `local:`).
- `think_tags(value)`: the tags of `--tom-think-tags` (None for `off`).

How a reply is read:

- the thought comes from the server's reasoning field (`message.reasoning_content`:
  vLLM, SGLang and llama.cpp with a reasoning parser, DeepSeek's API;
  `message.reasoning`: OpenRouter, Ollama and newer vLLM), from content parts typed
  `thinking` (Magistral), and from tags in the text:
  - a leading `OPEN ... CLOSE` is split off: the text after CLOSE is the answer;
  - a text holding a CLOSE with no OPEN before it is split at that CLOSE: the chat
    templates of Qwen3 and DeepSeek-R1 write the OPEN into the prompt, so the reply
    begins inside the thought;
  - a leading OPEN never closed is all thought: the answer is empty (with finish
    "length", the budget ran out inside the thought);
  - tags anywhere else are the answer's text, as the model wrote them;
- the finish reason is normalised (`base.finish_reason`: "length", "max_tokens" ...
  are "length");
- `usage.completion_tokens_details.reasoning_tokens` (or `usage.reasoning_tokens`)
  becomes `usage["reasoning_tokens"]` when it counts something or the reply shows a
  thought (a plain model's zero is left out, so its run shows no reasoning figures);
- an empty answer is:
  - cut off when the finish reason is "length" (`content: null` included): the budget
    ran out, inside the thought;
  - the model's answer when a thought came before it (it thought, then said nothing:
    scored as what it is, never retried);
  - an error otherwise ("the server returned an empty completion"), as before.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pytest_tom.backends.base import LENGTH, BackendError, ModelReply, finish_reason
from pytest_tom.core.json_value import JSONObject


@dataclass(frozen=True)
class ThinkTags:
    """The tags around a thought in a reply's text."""

    open: str = "<think>"
    close: str = "</think>"

    def text(self) -> str:
        """As `--tom-think-tags` spells it."""
        return f"{self.open},{self.close}"


DEFAULT_TAGS = ThinkTags()

# the reasoning fields of a chat-completions message, in the order they are read
REASONING_FIELDS = ("reasoning_content", "reasoning")


def think_tags(value: Any) -> ThinkTags | None:
    """The tags of `--tom-think-tags` (`OPEN,CLOSE`, checked by the option table's
    `think_tags_text`), None for `off`; the default tags when the option is not given."""
    if value is None:
        return DEFAULT_TAGS
    text = str(value).strip()
    if text.lower() in ("off", "none", ""):
        return None
    open_, _, close = text.partition(",")
    return ThinkTags(open_.strip(), close.strip())


def split_thought(text: str, tags: ThinkTags | None = DEFAULT_TAGS
                  ) -> tuple[str, str | None]:
    """(answer, thought) of a reply's text (module docstring); thought None when the text
    shows none (an empty `OPEN CLOSE`, as Qwen3 writes with thinking off, is none). The
    answer is stripped of the blank space around it when a thought was
    split off, else returned as given."""
    if tags is None or not text:
        return text, None
    body = text.lstrip()
    if body.startswith(tags.open):
        inner = body[len(tags.open):]
        thought, closed, answer = inner.partition(tags.close)
        if not closed:  # never closed: all of it is thought, no answer was begun
            return "", inner.strip() or None
        return answer.strip(), thought.strip() or None
    before, closed, answer = text.partition(tags.close)
    if closed and tags.open not in before:  # the template opened the thought in the prompt
        return answer.strip(), before.strip() or None
    return text, None


def chat_reply(body: Any, tags: ThinkTags | None = DEFAULT_TAGS) -> ModelReply:
    """The reply of a chat-completions response body (decoded JSON): the first choice's
    answer, thought and finish reason, the usage and the model.

    What cannot be read as one (not a JSON object, no choices) is a final error naming
    what was missing; so is an empty answer with no thought that was not cut off."""
    if not isinstance(body, dict):
        raise BackendError(f"the server's answer is not a chat completion: {str(body)[:200]!r}")
    choices = body.get("choices")
    if not choices or not isinstance(choices, list):
        raise BackendError("the server returned no choices")
    choice = choices[0] if isinstance(choices[0], dict) else {}
    text, thought, finish = choice_parts(choice, tags)
    if not text.strip() and thought is None and finish != LENGTH:
        why = f" (finish_reason {finish})" if finish and finish != "stop" else ""
        raise BackendError(f"the server returned an empty completion{why}", retryable=False)
    model = body.get("model")
    return ModelReply(text=text, usage=usage_counts(body.get("usage"), thought is not None),
                      model=model if isinstance(model, str) else None, thought=thought,
                      finish_reason=finish)


def choice_parts(choice: JSONObject, tags: ThinkTags | None = DEFAULT_TAGS
                 ) -> tuple[str, str | None, str | None]:
    """(answer, thought, finish reason) of one choice of a chat completion."""
    message = choice.get("message")
    message = message if isinstance(message, dict) else {}
    content, part_thought = content_text(message.get("content"))
    answer, tag_thought = split_thought(content, tags)
    field = next((v for k in REASONING_FIELDS
                  if isinstance(v := message.get(k), str) and v.strip()), None)
    thoughts = [t.strip() for t in (field, part_thought, tag_thought) if t and t.strip()]
    thought = "\n\n".join(thoughts) if thoughts else None  # an empty one is none
    return answer, thought, finish_reason(choice.get("finish_reason"))


def content_text(content: Any) -> tuple[str, str | None]:
    """(text, thought of parts typed thinking) of a message's content: a string, null, or
    a list of parts (`{"type": "text", "text": ...}`; Magistral's `{"type": "thinking",
    "thinking": [parts]}`)."""
    if isinstance(content, str):
        return content, None
    if not isinstance(content, list):
        return "", None
    text: list[str] = []
    thought: list[str] = []
    for part in content:
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        if kind == "text" and isinstance(part.get("text"), str):
            text.append(part["text"])
        elif kind == "thinking":
            inner = part.get("thinking")
            if isinstance(inner, str):
                thought.append(inner)
            elif isinstance(inner, list):
                thought.append(content_text(inner)[0])
    return "".join(text), ("".join(thought) if thought else None)


def usage_counts(raw: Any, thought: bool = False) -> dict[str, int] | None:
    """The token counts of a response's `usage` (None without one): prompt, completion and
    total tokens (0 when missing), and `reasoning_tokens` when the server counted some or
    the reply showed a thought."""
    if not isinstance(raw, dict):
        return None
    usage = {k: _int(raw.get(k)) for k in ("prompt_tokens", "completion_tokens", "total_tokens")}
    details = raw.get("completion_tokens_details")
    reasoning = details.get("reasoning_tokens") if isinstance(details, dict) else None
    if reasoning is None:
        reasoning = raw.get("reasoning_tokens")
    if isinstance(reasoning, int) and not isinstance(reasoning, bool) and (reasoning > 0 or thought):
        usage["reasoning_tokens"] = reasoning
    return usage


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
