"""What a run asked the model, as data: the report's `settings.asked` block.

The settings that decide what a reasoning model is asked were prose in a report
(`settings.answer_length`: "max_tokens 64 per answer (...) + 300 for the thought ...") and
`settings.max_tokens` is null unless `--tom-max-tokens` was given. `settings.asked` holds
them as fields, so that two reports asked differently are told apart by name
(`differences`: `compare` and `gate` print them):

- `max_tokens`: `--tom-max-tokens`, one budget for every call (None: per family);
- `answer_tokens`: each family's answer length, what a call carried before the thought's
  room (None when `--tom-max-tokens` was given, or when no max_tokens was sent: an
  answerer that chooses its own length);
- `reasoning_step_tokens`: each family's length for the first call of a reasoning method
  (`cot`, `simtom` ...; None for a method without one, and whenever `answer_tokens` is);
- `thinking`: `--tom-thinking` (`on`, `off`; None: not asked either way);
- `thinking_tokens`: the room for the thought added to each call (`--tom-thinking-tokens`,
  or 4096 with `--tom-thinking=on`; None: none);
- `reasoning_effort`: `--tom-reasoning-effort` (None: not sent);
- `request_fields`: every field the options add to a request body (`reasoning_effort`,
  `chat_template_kwargs`, `--tom-request-field`), credentials redacted;
- `sweep` (only under `--tom-sweep`): `setting`, `values` (typed) and `request_field`
  (whether the setting is a request field); the other fields are the run's own, which
  the swept setting overrides per value (each record's `sweep` says its value);
- `probes` (only under `--tom-probe`): `probes` (the names) and, with shuffle, `orders`.

A report written before the block existed (same format version: an added setting keeps
it) is read with the block derived from what it holds (`derived_block`): `request_fields`
gives `thinking` and `reasoning_effort`, and the answer-length text gives the families'
lengths and the thought's room when it names them; what it cannot tell is None, and the
block says `"derived": true`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any, TypedDict, cast

from pytest_tom.asking.answer_length import REASONING_METHODS
from pytest_tom.asking.reasoning import request_fields, shown_fields, thinking_budget
from pytest_tom.core.json_value import JSONObject, JSONValue
from pytest_tom.core.option_table import TomOptions
from pytest_tom.core.probe import ProbesSetting
from pytest_tom.core.sweep import SweepSetting

KEYS = ("max_tokens", "answer_tokens", "reasoning_step_tokens", "thinking", "thinking_tokens",
        "reasoning_effort", "request_fields", "sweep", "probes")


class AskedJSON(TypedDict, total=False):
    """The `settings.asked` block (the module docstring says each field)."""

    max_tokens: int | None
    answer_tokens: dict[str, int] | None  # per family
    reasoning_step_tokens: dict[str, int] | None  # per family
    thinking: str | None  # "on", "off"
    thinking_tokens: int | None
    reasoning_effort: JSONValue  # a str; a derived block's: as its request fields held it
    request_fields: JSONObject  # free-form, credentials redacted
    sweep: SweepSetting
    probes: ProbesSetting
    derived: bool  # read from a report written before the block


def asked_block(options: TomOptions, families: Iterable[Any], method: str,
                family_lengths: bool) -> AskedJSON:
    """The `settings.asked` block of a run with `options`: `families`, the families whose
    lengths are recorded (name, `answer_tokens`, `reasoning_tokens`); `family_lengths`:
    the calls carry each family's length (no `--tom-max-tokens`, and a backend that asks
    for them or a thought's room)."""
    fields = shown_fields(request_fields(options))
    per_family = options.max_tokens is None and family_lengths
    fams = sorted(families, key=lambda f: str(f.name))
    block: AskedJSON = {
        "max_tokens": options.max_tokens,
        "answer_tokens": ({str(f.name): int(f.answer_tokens) for f in fams}
                          if per_family else None),
        "reasoning_step_tokens": ({str(f.name): int(f.reasoning_tokens) for f in fams}
                                  if per_family and method in REASONING_METHODS else None),
        "thinking": options.thinking if options.thinking in ("on", "off") else None,
        "thinking_tokens": thinking_budget(options),
        "reasoning_effort": options.reasoning_effort or None,
        "request_fields": fields,
    }
    if options.sweep is not None:  # present only in a sweep: plain reports keep their block
        block["sweep"] = options.sweep.as_dict()
    if options.probe is not None:  # present only with probes, likewise
        block["probes"] = options.probe.as_dict(options.probe_orders)
    return block


_PER_ANSWER = re.compile(r"^max_tokens (\d+) per answer(?: \(([^)]*)\))?")
_THOUGHT = re.compile(r"\+ (\d+) for the thought")
_TO_REASON = re.compile(r", ([\d/]+) to reason")


def _families_text(common: int, others: str | None, names: Iterable[str]) -> dict[str, int]:
    """Each family's answer length from the header's words: `common` for all but those
    `others` names ("fantom, generic 128; hitom 256")."""
    out = {name: common for name in names}
    for part in (others or "").split("; "):
        listed, _, n = part.rpartition(" ")
        if not n.isdigit():
            continue
        for name in listed.split(", "):
            if name.strip():
                out[name.strip()] = int(n)
    return out


def derived_block(*, request_fields: Any = None, answer_length: Any = "",
                  max_tokens: int | None = None, method: str = "vanilla",
                  family_names: Iterable[str] = ()) -> AskedJSON:
    """The block of a report written before it existed (module docstring), from what its
    settings hold (`results.run_report.ReportSettings.asked` reads them)."""
    fields: JSONObject = dict(request_fields) if isinstance(request_fields, Mapping) else {}
    kwargs = fields.get("chat_template_kwargs")
    enable = kwargs.get("enable_thinking") if isinstance(kwargs, Mapping) else None
    text = str(answer_length or "")
    answer: dict[str, int] | None = None
    step: dict[str, int] | None = None
    per_answer = _PER_ANSWER.match(text)
    if max_tokens is None and per_answer:
        names = sorted(set(family_names))
        answer = _families_text(int(per_answer.group(1)), per_answer.group(2), names)
        reason = _TO_REASON.search(text)
        if reason and method in REASONING_METHODS:
            lengths = reason.group(1).split("/")
            if len(lengths) == 1:  # one length for every family; several: not whose
                step = {name: int(lengths[0]) for name in answer}
    thought = _THOUGHT.search(text)
    return {
        "max_tokens": max_tokens,
        "answer_tokens": answer,
        "reasoning_step_tokens": step,
        "thinking": None if enable is None else ("on" if enable else "off"),
        "thinking_tokens": int(thought.group(1)) if thought else None,
        "reasoning_effort": fields.get("reasoning_effort"),
        "request_fields": fields,
        "derived": True,
    }


def _flat(block: AskedJSON) -> dict[str, JSONValue]:
    """`asked.<key>` and, for the per-family and per-field maps, `asked.<key>.<name>`."""
    fields = cast(Mapping[str, JSONValue], block)  # every field of the block is JSON
    out: dict[str, JSONValue] = {}
    for key in KEYS:
        value = fields.get(key)
        if isinstance(value, Mapping):
            for name, v in sorted(value.items()):
                out[f"asked.{key}.{name}"] = v
            if not value:
                out[f"asked.{key}"] = None
        else:
            out[f"asked.{key}"] = value
    return out


def differences(before: AskedJSON, after: AskedJSON
                ) -> list[tuple[str, JSONValue, JSONValue]]:
    """(field, before, after) of every field of two `asked` blocks that differs, by its
    dotted name under `settings` (`asked.thinking_tokens`, `asked.answer_tokens.bigtom`).
    A field a derived block could not tell (None there) is not a difference."""
    a, b = _flat(before), _flat(after)
    unknown_a, unknown_b = bool(before.get("derived")), bool(after.get("derived"))
    out = []
    for name in sorted(set(a) | set(b), key=lambda n: (KEYS.index(n.split(".")[1]), n)):
        va, vb = a.get(name), b.get(name)
        if va == vb or (unknown_a and va is None) or (unknown_b and vb is None):
            continue
        out.append((f"settings.{name}", va, vb))
    return out


def shown(value: Any) -> str:
    """A field's value in a line: JSON for a structure, `none` for None."""
    if value is None:
        return "none"
    if isinstance(value, str | int | float):
        return str(value)
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def difference_text(field: str, before: Any, after: Any, first: str = "the first",
                    second: str = "this one") -> str:
    """`settings.asked.thinking_tokens: 300 in the first, 4096 in this one`."""
    return f"{field}: {shown(before)} in {first}, {shown(after)} in {second}"
