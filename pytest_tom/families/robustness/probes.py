"""How a robustness scene is asked under `--tom-probe` (core/probe.py): `no-story` asks
the question without the scene's text (the same instruction and JSON answer, scored as
the scene is); its questions are open (a JSON answer), so there are no options to take
away or reorder."""

from __future__ import annotations

from pytest_tom.families.kit import ItemSpec
from pytest_tom.families.kit import Message

from .prompts import INSTRUCTION

OPEN_QUESTIONS = "open questions answered in JSON: no options to take away or reorder"
NOT_APPLICABLE = {"no-options": OPEN_QUESTIONS, "shuffle": OPEN_QUESTIONS}


def probe_messages(item: ItemSpec, probe: str, method: str = "vanilla") -> list[Message]:
    """The first request of `item` under `no-story`: the instruction and the question."""
    if probe != "no-story":
        raise ValueError(f"probe {probe!r}: robustness takes no-story only")
    d = item.data
    return [{"role": "user", "content": f"{INSTRUCTION}\n\nQuestion:\n{d['ask']}\n\n"
                                        f"Use \"{d['key']}\" as the entry inside \"final\"."}]
