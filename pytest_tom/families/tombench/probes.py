"""How a ToMBench question is asked under `--tom-probe` (core/probe.py).

`no-story`: the question and its options without the story (the family's system prompt,
which lets the model pick at random when the story does not settle it); `no-options`: the
story and the question, answered in one sentence (read against the options' texts:
items/probe_scoring.py); `shuffle`: the options in another order, the item's own order
(`meta.order`, which scoring maps a letter back through) moved with them.
"""

from __future__ import annotations

from dataclasses import replace

from pytest_tom.families.kit import ItemSpec
from pytest_tom.families.kit import Message
from pytest_tom.families.kit import meta_text
from pytest_tom.families.kit import meta_texts

from .prompts import HEADINGS
from .prompts import SYSTEM
from .schema import LETTERS

NOT_APPLICABLE: dict[str, str] = {}  # every probe applies

OPEN = {
    "en": ("You will read a short story, then a question about it. Using the story and "
           "ordinary common sense, answer the question in one short sentence."),
    "zh": "你将阅读一个短故事，然后回答一个关于它的问题。请根据故事和常识，用一句简短的话回答。",
}


def probe_messages(item: ItemSpec, probe: str, method: str = "vanilla") -> list[Message]:
    """The first request of `item` under `probe` (`no-story` or `no-options`)."""
    language = meta_text(item.meta, "language", "en")
    story, question, options = HEADINGS[language]
    if probe == "no-story":
        lines = [f"{LETTERS[i]}. {text}" for i, text in enumerate(item.choices)]
        text = "\n".join([question, item.question.strip(), "", options, *lines])
        system = SYSTEM[(language, "cot" if method == "cot" else "vanilla")]
    elif probe == "no-options":
        text = "\n".join([story, item.data["story"].strip(), "", question, item.question.strip()])
        system = OPEN.get(language, OPEN["en"])
    else:
        raise ValueError(f"probe {probe!r}: no-story or no-options")
    return [{"role": "system", "content": system}, {"role": "user", "content": text}]


def reordered(item: ItemSpec, order: tuple[int, ...]) -> ItemSpec:
    """`item` with its shown options in `order`; its `meta.order` (shown letter -> the
    file's letter, which scoring reads through) and its gold letter move with them."""
    shown = meta_texts(item.meta, "order")
    gold = LETTERS[order.index(LETTERS.index(str(item.gold)))]
    return replace(item, choices=[item.choices[i] for i in order], gold=gold,
                   meta={**item.meta, "order": [shown[i] for i in order]})
