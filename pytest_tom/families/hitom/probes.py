"""How a Hi-ToM question is asked under `--tom-probe` (core/probe.py).

`no-story`: the question and its choices without the story, in the item's style and
wording; `no-options`: the story and the question, answered with the place in a few words
(read against the choices' texts, `_` as a space: items/probe_scoring.py); `shuffle`:
the choices in another order, the prompt and the gold letter moved with them. The
choices are the story's containers, so without the options the story still names them:
the probe takes away the list to pick from, not the places.
"""

from __future__ import annotations

from dataclasses import replace

from pytest_tom.families.kit import ItemSpec
from pytest_tom.families.kit import Message
from pytest_tom.families.kit import meta_text

from .prompts import OPTION_LETTERS
from .prompts import choices_line
from .prompts import item_text

NOT_APPLICABLE: dict[str, str] = {}  # every probe applies

OPEN = ("Answer the question about the story below with the place only, in a few words, "
        "and do not explain it.")


def probe_messages(item: ItemSpec, probe: str, method: str = "vanilla") -> list[Message]:
    """The first request of `item` under `probe` (`no-story` or `no-options`)."""
    words = item.data["words"]
    if probe == "no-story":
        text = (f"{words.instruction[item.meta['style']]}\nQuestion: {item.question.strip()}\n"
                f"Choices: {choices_line(item.choices)}\n\n{words.note}\n")
    elif probe == "no-options":
        text = f"{OPEN}\nStory:\n{item.data['story'].strip()}\nQuestion: {item.question.strip()}\n"
    else:
        raise ValueError(f"probe {probe!r}: no-story or no-options")
    return [{"role": "user", "content": text}]


def gold_place(item: ItemSpec) -> int:
    """The gold is the right choice's text."""
    return item.choices.index(item.gold)


def reordered(item: ItemSpec, order: tuple[int, ...]) -> ItemSpec:
    """`item` with its choices in `order`: its prompt and gold letter moved with them."""
    choices = [item.choices[i] for i in order]
    return replace(item, choices=choices,
                   meta={**item.meta, "gold_letter": OPTION_LETTERS[choices.index(item.gold)]},
                   data={**item.data, "text": item_text(meta_text(item.meta, "style"), item.data["story"],
                                                        item.question, choices,
                                                        item.data["words"])})
