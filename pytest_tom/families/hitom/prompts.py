"""Hi-ToM prompts: the authors' prompt files, rebuilt per item.

A prompt file of the release is one user message: the style's instruction line, `Story:`
and the numbered story lines, `Question: ...`, `Choices: A. x, B. y, ...` (15 options on
one line), a blank line and the `Note: You should assume the following ...` block that
states the rules of the stories (what an agent witnesses, whom it trusts, who hears
public and private claims). The instruction lines and the Note are the authors' words
(ying-hui-he/Hi-ToM_dataset @ 56dda76, `Hi-ToM_prompts/`, Apache-2.0), kept as they wrote
them, typos included, because they are part of the benchmark's protocol; the rest of the
layout is rebuilt from the item, so a converted item asks exactly what the authors'
prompt file asks (tests/families/hitom compare the pieces with the release).

VP (vanilla prompting) asks for the answer alone; CoTP (chain-of-thought prompting)
asks to think step by step and give the answer first, then explain it: one call either
way, and the answer is read from the start of the reply (`hitom.scoring`).
"""

from __future__ import annotations

from pytest_tom.families.kit import ItemSpec, Message, single_call

VP, COTP = "vp", "cotp"
STYLES = (VP, COTP)
STYLE_LABEL = {VP: "VP", COTP: "CoTP"}  # the paper's names, and the release's `prompting_type`
OPTION_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

INSTRUCTION = {
    VP: "Read the following story and answer the multiple-choice question. "
        "Please provide answer without explanations.",
    COTP: "Read the following story and answer the multiple-choice question. "
          "Think step-by-step. Provide the answer first, and then explain it.",
}
NOTE = (
    "Note: You should assume the following. (1) An agent witnesses everything and every "
    "movements before exiting a location. (2) An agent A can infer another agent B's mental "
    "state only if A and B have been in the same location, or have private or public "
    "interactions. (3) Note that every agent tend to lie. What a character tells others "
    "doesn't affect his actual belief. An agent tend to trust a agent that exited the room "
    "later than himself. The exit order is known to all agents. (4) Agents in private "
    "communications know that others won't hear them, but they know that anyone can hear "
    "any public claims."
)


def choices_line(choices: list[str]) -> str:
    """`A. blue_drawer, B. green_crate, ...`: the options as the release writes them."""
    return ", ".join(f"{OPTION_LETTERS[i]}. {c}" for i, c in enumerate(choices))


def item_text(style: str, story: str, question: str, choices: list[str]) -> str:
    """The prompt of one item in `style`, laid out as the authors' prompt files."""
    return (f"{INSTRUCTION[style]}\nStory:\n{story.strip()}\nQuestion: {question.strip()}\n"
            f"Choices: {choices_line(choices)}\n\n{NOTE}\n")


METHODS = ("vanilla",)  # the style is the story's (or --tom-hitom-prompting): one call


def conversation(item: ItemSpec, method: str, responses: list[str]) -> list[Message] | None:
    """One call: the item's prompt file as the user message."""
    return single_call([{"role": "user", "content": item.data["text"]}], responses)
