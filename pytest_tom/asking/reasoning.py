"""Reasoning models: the budget of their thought and the request fields that steer them
(docs/reasoning-models.md).

- `thinking_budget`: `--tom-thinking-tokens`, or its preset with `--tom-thinking=on`: the
  tokens a thought may take, added to each call's answer length (`items/item.ItemEngine`).
- `request_fields`: what the options add to every request body: `reasoning_effort`,
  `chat_template_kwargs.enable_thinking` (`--tom-thinking`), and the fields of
  `--tom-request-field` (which win on a clash, merged into `chat_template_kwargs`).
- `budget_text`: the budget in words for the run's header and report.
- `raise_text`: what to raise when the answers are cut off (the early stop's line).

The replies themselves (answer, thought, finish reason) are read in `backends/`
(`backends/reply_parts.py`); a cut-off answer's outcome is `items/item.cut_off`.
"""

from __future__ import annotations

import json
from typing import cast

from pytest_tom.core.json_value import JSONObject, JSONValue
from pytest_tom.core.option_table import TomOptions
from pytest_tom.core.secrets import redact_fields

# the thought's budget of `--tom-thinking=on` when --tom-thinking-tokens is not given: room
# for the short reasoning of a benchmark question (Qwen3 and DeepSeek-R1 distills write a
# few hundred to a few thousand tokens on these items)
THINKING_TOKENS = 4096


def thinking_budget(options: TomOptions) -> int | None:
    """The tokens a thought may take on top of each answer, or None (no room for one)."""
    if options.thinking_tokens:
        return int(options.thinking_tokens)
    if options.thinking == "on":
        return THINKING_TOKENS
    return None


def request_fields(options: TomOptions) -> tuple[tuple[str, str], ...]:
    """(name, canonical JSON) of every field the options add to a request, sorted by name."""
    fields: JSONObject = {}  # free-form: the server reads them by name
    if options.reasoning_effort:
        fields["reasoning_effort"] = options.reasoning_effort
    if options.thinking in ("on", "off"):
        fields["chat_template_kwargs"] = {"enable_thinking": options.thinking == "on"}
    for name, raw in options.request_field:
        value = json.loads(raw)
        mine = fields.get(name)
        if isinstance(mine, dict) and isinstance(value, dict):
            value = {**mine, **value}  # --tom-request-field wins, key by key
        fields[name] = value
    return tuple((name, json.dumps(fields[name], sort_keys=True, ensure_ascii=False))
                 for name in sorted(fields))


def shown_fields(fields: tuple[tuple[str, str], ...]) -> JSONObject:
    """The request fields for a header or a report: credentials redacted (a copy of JSON is
    JSON)."""
    return {name: cast(JSONValue, redact_fields(json.loads(raw), name)) for name, raw in fields}


def budget_text(options: TomOptions, answer_length: str) -> str:
    """The budget in words: `answer_length` (the header's text of the answer budget), plus
    the thought's room when there is one."""
    room = thinking_budget(options)
    if options.thinking == "off":  # asked for no thought: said, as the server may ignore it
        return f"{answer_length} · thinking off (--tom-thinking=off)"
    if room is None or options.max_tokens is not None:
        return answer_length
    why = ("--tom-thinking-tokens" if options.thinking_tokens
           else "--tom-thinking=on's preset; --tom-thinking-tokens N to change")
    return f"{answer_length} + {room} for the thought ({why})"


def raise_text(options: TomOptions, thinks: bool = True, shown: bool = False) -> str:
    """The options that give the answers more room, in words, for a run with `options`.
    `thinks`: whether the model may be thinking (False once the replies that ended showed
    no thought: then only the answer length is worth raising); `shown`: some reply showed
    a thought. After `--tom-thinking=off` a thought means the server ignored the request
    (its chat template does not read `enable_thinking`), which is said as such: turning
    thinking on is not the advice."""
    if options.max_tokens is not None:
        return f"raise --tom-max-tokens (now {options.max_tokens})"
    room = thinking_budget(options)
    if room is not None:
        return f"raise --tom-thinking-tokens (now {room}) or --tom-max-tokens"
    if options.thinking == "off":
        if shown:
            return ("the server ignored --tom-thinking=off: its replies still show a thought "
                    "(its chat template does not read enable_thinking, docs/reasoning-models.md); "
                    "give the thought room with --tom-thinking-tokens N, or raise --tom-max-tokens")
        if thinks:
            return ("raise --tom-max-tokens; if the server ignores --tom-thinking=off (a thought "
                    "cut off may show no tag), give the thought room with --tom-thinking-tokens N")
    if not thinks:
        return "no reply showed a thought: raise --tom-max-tokens N (now each family's length)"
    return (f"give the thought room with --tom-thinking=on ({THINKING_TOKENS} tokens) or "
            f"--tom-thinking-tokens N, or raise --tom-max-tokens")
