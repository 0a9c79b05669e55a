"""How an MMToM-QA question is asked under `--tom-probe` (core/probe.py). The story is the
home and the person's actions: `no-story` asks the question and its two options alone;
`no-options` asks the story and the question, answered in a sentence (read against the
options' texts: items/probe_scoring.py); `shuffle` swaps or keeps the two options, the
release's text and the gold letter moved with them."""

from __future__ import annotations

from dataclasses import replace

from pytest_tom.families.kit import ItemSpec
from pytest_tom.families.kit import Message

from .prompts import LETTERS
from .prompts import SYSTEM
from .prompts import lines_with_spaces
from .prompts import question_text
from .schema import MMToMQAScenario

NOT_APPLICABLE: dict[str, str] = {}  # every probe applies


def probe_messages(item: ItemSpec, probe: str, method: str = "vanilla") -> list[Message]:
    """The first request of `item` under `probe` (`no-story` or `no-options`)."""
    s = item.data["scenario"]
    a, b = (c.strip() for c in item.choices)
    if probe == "no-story":
        text = (f"Question: {item.question} (a) {a} (b) {b} Please respond with either a or b."
                f"\nAnswer: ")
    elif probe == "no-options":
        text = (f"What's inside the apartment: {lines_with_spaces(str(s['apartment']))}\n"
                f"Actions taken by {str(s['person']).strip()}: {str(s['actions']).strip()} \n"
                f"Question: {item.question} Please answer in one sentence.\nAnswer: ")
    else:
        raise ValueError(f"probe {probe!r}: no-story or no-options")
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": text}]


def gold_place(item: ItemSpec) -> int:
    """The gold is the right option's text."""
    return item.choices.index(item.gold)


def reordered(item: ItemSpec, order: tuple[int, ...]) -> ItemSpec:
    """`item` with its two options in `order`: the text and the gold letter moved."""
    options = [item.choices[i] for i in order]
    shown: MMToMQAScenario = item.data["scenario"]  # a copy of its scenario (expand)
    scenario: MMToMQAScenario = {**shown, "options": options}
    return replace(item, choices=options,
                   meta={**item.meta, "gold_letter": LETTERS[options.index(item.gold)]},
                   data={**item.data, "scenario": scenario, "text": question_text(scenario)})
