"""How a ToMATO question is asked under `--tom-probe` (core/probe.py): without its
transcript, or without its options; `shuffle` takes the kit's default (the gold is a
letter).

A probe asks the same question with a part taken away, to see what the answer rests on:
without the transcript, a right answer comes from the options alone (an answer
guessable from its wording); without the options, the model must say the mental state
in its own words. Without the options there is no letter to read: that probe's replies
are read against the options' texts alone (items/probe_scoring.py), not by `scoring`.
"""

from __future__ import annotations

from pytest_tom.families.kit import ItemSpec
from pytest_tom.families.kit import Message

from .prompts import SYSTEM
from .prompts import user_text

PROBES = ("no-story", "no-options")
NOT_APPLICABLE: dict[str, str] = {}  # every probe applies

NO_OPTIONS_SYSTEM = (
    "You are good at understanding how people think and feel in conversations. Read the "
    "transcript, then the question about one of the speakers, and answer it in one sentence.")


def probe_messages(item: ItemSpec, probe: str, method: str = "vanilla") -> list[Message]:
    """The first request of `item` under `probe`: `no_story` drops the transcript (the
    question and the bracketed options stay), `no_options` drops the options (the
    transcript and the question stay, and the model answers in a sentence)."""
    if probe == "no-story":
        return [{"role": "system", "content": SYSTEM["cot" if method == "cot" else "vanilla"]},
                {"role": "user", "content": user_text(item, story=False)}]
    if probe == "no-options":
        return [{"role": "system", "content": NO_OPTIONS_SYSTEM},
                {"role": "user", "content": user_text(item, options=False)}]
    raise ValueError(f"probe {probe!r}: one of {', '.join(PROBES)}")
