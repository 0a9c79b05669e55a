"""The hook for the probes of the reasoning-models issue (not in pytest-tom yet): how a
SimpleToM question is asked without its story, or without its options.

Without the story, the behaviour and judgement questions still name the person and
the act, so a right answer shows what the options give away; without the options, the
model says in its own words whether the person is aware, what they will do, and whether
that is reasonable. When the probes land they call `probe_messages(item, probe, method)`
for each SimpleToM item; nothing else of the family changes. The no-options replies have
no letter to read: the probes feature judges them, not `scoring`.
"""

from __future__ import annotations

from pytest_tom.families.kit import ItemSpec, Message

from .prompts import user_text

PROBES = ("no_story", "no_options")


def probe_messages(item: ItemSpec, probe: str, method: str = "vanilla") -> list[Message]:
    """The first request of `item` under `probe` (`no_story`: the question and its
    options; `no_options`: the story and the question, answered in a sentence)."""
    if probe not in PROBES:
        raise ValueError(f"probe {probe!r}: one of {', '.join(PROBES)}")
    text = user_text(item, method, story=probe != "no_story", options=probe != "no_options")
    return [{"role": "user", "content": text}]
