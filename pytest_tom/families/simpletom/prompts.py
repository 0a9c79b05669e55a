"""SimpleToM's prompts, as the authors' protocol asks: the story, the question, the
options as `(A) text` lines, and the request to reply with just the letter in
parentheses. The wording is the project's own. `cot` reasons first and ends with the
letter in parentheses."""

from __future__ import annotations

from pytest_tom.families.kit import ItemSpec
from pytest_tom.families.kit import Message
from pytest_tom.families.kit import single_call

from .schema import LETTERS

METHODS = ("vanilla", "cot")


def _letters(item: ItemSpec) -> str:
    shown = [f'"({LETTERS[i]})"' for i in range(len(item.choices))]
    return " or ".join([", ".join(shown[:-1]), shown[-1]]) if len(shown) > 2 else " or ".join(shown)


def user_text(item: ItemSpec, method: str = "vanilla", *, story: bool = True,
              options: bool = True) -> str:
    """What the model reads (the probes leave out the story or the options: `probes`)."""
    parts = [item.data["story"]] if story else []
    parts.append("Question: " + item.question)
    if options:
        parts.append("\n".join(f"({LETTERS[i]}) {text}" for i, text in enumerate(item.choices)))
        if method == "cot":
            parts.append(f"Think it through step by step, then end your reply with just "
                         f"{_letters(item)}.")
        else:
            parts.append(f"Reply with just {_letters(item)}.")
    else:
        parts.append("Answer in one sentence.")
    return "\n\n".join(parts)


def conversation(item: ItemSpec, method: str, responses: list[str]) -> list[Message] | None:
    return single_call([{"role": "user", "content": user_text(item, method)}], responses)
