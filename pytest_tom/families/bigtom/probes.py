"""How a BigToM question is asked under `--tom-probe` (core/probe.py).

`no-story`: the question and its two options without the story, under the family's own
instruction; `no-options`: the story and the question, answered in one sentence (read
against the options' texts: items/probe_scoring.py); `shuffle`: the two options swapped
or kept, the item's text and its gold and initial-state letters moved with them. A probe
is one call: under `cot` the reasoning and the answer come in it (the opener asks for
both), not in the method's second call.
"""

from __future__ import annotations

from dataclasses import replace

from pytest_tom.families.kit import LETTERS
from pytest_tom.families.kit import ItemSpec
from pytest_tom.families.kit import Message
from pytest_tom.families.kit import meta_text

from .prompts import COT_INSTRUCTION
from .prompts import COT_OPENER
from .prompts import INSTRUCTION
from .prompts import item_text

NOT_APPLICABLE: dict[str, str] = {}  # every probe applies

OPEN = ("Read the story and answer the question about it in one sentence, saying what the "
        "person believes or will do.")


def probe_messages(item: ItemSpec, probe: str, method: str = "vanilla") -> list[Message]:
    """The first request of `item` under `probe` (`no-story` or `no-options`)."""
    cot = method in ("cot", "1shot-cot")
    if probe == "no-story":
        lines = [f"Question: {item.question.strip()}", "Choose one of the following:"]
        lines += [f"{LETTERS[i]}){opt.strip()}" for i, opt in enumerate(item.choices)]
        text = "\n".join(lines) + (f"\n\n{COT_OPENER}" if cot else "")
        return [{"role": "system", "content": COT_INSTRUCTION if cot else INSTRUCTION},
                {"role": "user", "content": text}]
    if probe == "no-options":
        text = f"Story: {item.data['story'].strip()}\nQuestion: {item.question.strip()}"
        return [{"role": "system", "content": OPEN}, {"role": "user", "content": text}]
    raise ValueError(f"probe {probe!r}: no-story or no-options")


def gold_place(item: ItemSpec) -> int:
    """The gold is the right option's text."""
    return item.choices.index(item.gold)


def reordered(item: ItemSpec, order: tuple[int, ...]) -> ItemSpec:
    """`item` with its options in `order`: its text and its letters moved with them."""
    options = [item.choices[i] for i in order]

    def moved(letter: str) -> str:
        return LETTERS[order.index(LETTERS.index(letter))]

    meta = {**item.meta, "gold_letter": moved(meta_text(item.meta, "gold_letter")),
            "initial_state_letter": moved(meta_text(item.meta, "initial_state_letter"))}
    return replace(item, choices=options, meta=meta,
                   data={**item.data,
                         "text": item_text(item.data["story"], item.question, options)})
