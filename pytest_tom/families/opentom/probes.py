"""How an OpenToM question is asked under `--tom-probe` (core/probe.py): `no-story` asks
the question (with the attitude labels, as the item shows them) without the narrative,
read and scored as the item is. Its answers are labels of a fixed vocabulary per genre
(a place, yes/no, more/less/equally full, positive/neutral/negative), scored by class,
not options drawn for the item: there is nothing to take away or reorder."""

from __future__ import annotations

from pytest_tom.families.kit import ItemSpec
from pytest_tom.families.kit import Message

from .prompts import ANSWER_FORMAT
from .prompts import COT
from .prompts import NO_EXPLANATION
from .prompts import question_block

LABELS = "answers are labels of a fixed vocabulary per genre, not options drawn for the item"
NOT_APPLICABLE = {"no-options": LABELS, "shuffle": LABELS}


def probe_messages(item: ItemSpec, probe: str, method: str = "vanilla") -> list[Message]:
    """The first request of `item` under `no-story`: the question alone (one call)."""
    if probe != "no-story":
        raise ValueError(f"probe {probe!r}: opentom takes no-story only")
    if method == "cot":
        text = f"{question_block(item)}\n{ANSWER_FORMAT[item.kind]}\n{COT}"
    else:
        text = f"{question_block(item)}\n{ANSWER_FORMAT[item.kind]} {NO_EXPLANATION}\nAnswer:"
    return [{"role": "user", "content": text}]
