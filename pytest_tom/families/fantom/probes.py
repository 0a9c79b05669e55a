"""How a FANToM question is asked under `--tom-probe` (core/probe.py): `no-story` asks
every kind of question without the conversation (the released evaluator's prompt with
its context left out), read and scored as the item is. FANToM already asks each belief
question both with two options and open-ended (its free-response items), so a no-options
copy would repeat those; the order of the choice items' two options is not declared as a
probe yet."""

from __future__ import annotations

from dataclasses import replace

from pytest_tom.families.kit import ItemSpec
from pytest_tom.families.kit import Message

from .prompts import COT_START
from .prompts import prompt

NOT_APPLICABLE = {
    "no-options": "each belief question is asked open-ended already (the free-response items)",
    "shuffle": "not declared for FANToM yet (its choice items keep the released order)",
}


def probe_messages(item: ItemSpec, probe: str, method: str = "vanilla") -> list[Message]:
    """The first request of `item` under `no-story`: its prompt without the conversation
    (one call; under cot the reasoning and the answer come in it)."""
    if probe != "no-story":
        raise ValueError(f"probe {probe!r}: fantom takes no-story only")
    text = prompt(replace(item, data={**item.data, "context": ""})).strip()
    return [{"role": "user", "content": f"{text} {COT_START}" if method == "cot" else text}]
