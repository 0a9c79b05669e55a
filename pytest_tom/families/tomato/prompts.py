"""ToMATO's prompts and its sampling protocol.

As the authors' protocol asks: the transcript, the question and the options shown as
`[A]`..`[D]`, and the instruction to choose the most probable option and give it in that
bracketed form. The wording is the project's own. `cot` reasons first and ends with the
bracketed letter.

`sampling`: the authors generated with sampling (temperature 0.6, top_p 0.9, seed 42);
`--tom-tomato-sampling authors` sends those with every ToMATO request. By default the
run's own decoding applies (greedy: `--tom-temperature` 0), which the family's table says.
"""

from __future__ import annotations

from typing import TypedDict

from pytest_tom.families.kit import ItemSpec
from pytest_tom.families.kit import Message
from pytest_tom.families.kit import Settings
from pytest_tom.families.kit import single_call

from .schema import LETTERS

METHODS = ("vanilla", "cot")


class Sampling(TypedDict):
    """The request fields of the authors' sampling."""

    temperature: float
    top_p: float
    seed: int


AUTHORS_SAMPLING: Sampling = {"temperature": 0.6, "top_p": 0.9, "seed": 42}

SYSTEM = {
    "vanilla": (
        "You are good at understanding how people think and feel in conversations. Read the "
        "transcript, then the question about one of the speakers, and choose the most "
        "probable answer among the options. Give your final answer as the option's letter "
        "in square brackets, exactly one of [A], [B], [C] or [D]."),
    "cot": (
        "You are good at understanding how people think and feel in conversations. Read the "
        "transcript, then the question about one of the speakers. Think it through step by "
        "step, then end your reply with the most probable option's letter in square "
        "brackets, exactly one of [A], [B], [C] or [D]."),
}


def user_text(item: ItemSpec, *, story: bool = True, options: bool = True) -> str:
    """The transcript, the question and the options as the model sees them (the probes
    leave out the transcript or the options: `probes`)."""
    parts = []
    if story:
        parts.append("# Transcript\n" + item.data["conversation"])
    parts.append("# Question\n" + item.question.strip())
    if options:
        parts.append("# Options\n" + "\n".join(f"[{LETTERS[i]}] {text}"
                                                for i, text in enumerate(item.choices)))
    return "\n\n".join(parts)


def conversation(item: ItemSpec, method: str, responses: list[str]) -> list[Message] | None:
    system = SYSTEM["cot" if method == "cot" else "vanilla"]
    return single_call([{"role": "system", "content": system},
                        {"role": "user", "content": user_text(item)}], responses)


def sampling(item: ItemSpec, settings: Settings) -> Sampling | None:
    """The authors' sampling with `--tom-tomato-sampling authors`, else the run's own."""
    if settings.options.get("tomato_sampling", "greedy") == "authors":
        return AUTHORS_SAMPLING.copy()
    return None
