"""How a generic question is asked under `--tom-probe` (core/probe.py): `no-story` asks
the question (and its options) without the scenario's context, under the rule's own
instruction, scored by the rule; `no-options` (a `choices` question) asks it in a few
words, read against the options' texts (items/probe_scoring.py); `shuffle` moves the
options and the gold letter (the gold is the right option's text). Questions of the other
rules have no options, so they get only the no-story copy."""

from __future__ import annotations

from dataclasses import replace

from pytest_tom.families.kit import LETTERS
from pytest_tom.families.kit import ItemSpec
from pytest_tom.families.kit import Message
from pytest_tom.families.kit import json_instruction

from .prompts import INSTRUCTIONS

NOT_APPLICABLE: dict[str, str] = {}  # every probe applies (options: `choices` questions)


def probe_messages(item: ItemSpec, probe: str, method: str = "vanilla") -> list[Message]:
    """The first request of `item` under `probe` (`no-story` or `no-options`)."""
    if probe == "no-story":
        instruction = INSTRUCTIONS[item.kind] or json_instruction(list(item.gold))
        parts = [f"Question: {item.question}", *item.choices_shown]
    elif probe == "no-options":
        instruction = INSTRUCTIONS["contains"]
        parts = [item.data["context"].strip(), "", f"Question: {item.question}"]
    else:
        raise ValueError(f"probe {probe!r}: no-story or no-options")
    if method == "cot":
        instruction = f"Let's think step by step, then end with the answer ({instruction})"
    return [{"role": "user", "content": "\n".join(parts) + f"\n\n{instruction}\nAnswer:"}]


def gold_place(item: ItemSpec) -> int:
    """The gold is the right option's text."""
    return item.choices.index(item.gold)


def reordered(item: ItemSpec, order: tuple[int, ...]) -> ItemSpec:
    """`item` with its options in `order` and its gold letter moved with them."""
    choices = [item.choices[i] for i in order]
    return replace(item, choices=choices,
                   meta={**item.meta, "gold_letter": LETTERS[choices.index(item.gold)]})
