"""How a SimpleToM question is asked under `--tom-probe` (core/probe.py): without its
story, or without its options; `shuffle` takes the kit's default (the gold is a letter).

Without the story, the behaviour and judgement questions still name the person and
the act, so a right answer shows what the options give away; without the options, the
model says in its own words whether the person is aware, what they will do, and whether
that is reasonable. The no-options replies have no letter to read: they are read against
the options' texts alone (items/probe_scoring.py), not by `scoring`.
"""

from __future__ import annotations

from pytest_tom.families.kit import ItemSpec
from pytest_tom.families.kit import Message

from .prompts import user_text

PROBES = ("no-story", "no-options")
NOT_APPLICABLE: dict[str, str] = {}  # every probe applies


def probe_messages(item: ItemSpec, probe: str, method: str = "vanilla") -> list[Message]:
    """The first request of `item` under `probe` (`no_story`: the question and its
    options; `no_options`: the story and the question, answered in a sentence)."""
    if probe not in PROBES:
        raise ValueError(f"probe {probe!r}: one of {', '.join(PROBES)}")
    text = user_text(item, method, story=probe != "no-story", options=probe != "no-options")
    return [{"role": "user", "content": text}]
