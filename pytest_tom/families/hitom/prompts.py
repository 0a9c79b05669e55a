"""Hi-ToM prompts: one user message per item, in the layout of the authors' prompt files.

The message is the style's instruction line, `Story:` and the numbered story lines,
`Question: ...`, `Choices: A. x, B. y, ...` (15 options on one line), a blank line and a
note stating the rules the stories follow (what an agent witnesses, whom it trusts, who
hears public and private claims). The layout is rebuilt from the item; the wording of the
instruction lines and of the note is pytest-tom's own (`OWN`), written to ask the same
things as the authors' prompt files without their words. A suite whose
`defaults.prompt` holds other wording (`vp`, `cotp`, `note`) is asked in it: that is how
`pytest-tom convert hitom --prompts PATH` puts the authors' exact lines, read from the
user's copy of their prompt files, into a converted suite (`prompt_files`).

VP (vanilla prompting) asks for the answer alone; CoTP (chain-of-thought prompting)
asks to reason step by step with the answer first and the reasoning after it: one call
either way, and the reply is read where its answer is: its opening when it opens with an
option, else its last answer statement (`hitom.scoring`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pytest_tom.families.kit import ItemSpec
from pytest_tom.families.kit import Message
from pytest_tom.families.kit import single_call

from .schema import HiToMSuite

VP, COTP = "vp", "cotp"
STYLES = (VP, COTP)
STYLE_LABEL = {VP: "VP", COTP: "CoTP"}  # the paper's names, and the release's `prompting_type`
OPTION_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


@dataclass(frozen=True)
class Wording:
    """The words around an item: one instruction line per style, and the note."""

    instruction: Mapping[str, str]  # style -> its first line
    note: str


OWN = Wording(
    instruction={
        VP: "Answer the multiple-choice question about the story below. Reply with the "
            "option only, and do not explain it.",
        COTP: "Answer the multiple-choice question about the story below. Reason it out "
              "step by step, but state the option you choose first and give your reasoning "
              "after it.",
    },
    note=(
        "Note: the stories follow these rules. (1) Until an agent leaves a room, it sees "
        "everything that happens there, every move of an object included. (2) One agent "
        "can know what another agent believes only if the two have been in the same room, "
        "or have spoken to each other in private or in public. (3) Agents may lie, and what "
        "an agent tells others does not change what it believes itself. An agent believes "
        "what it hears from an agent who left the room after it did; every agent knows the "
        "order in which they all left. (4) Two agents speaking in private know that nobody "
        "else hears them; a public claim is heard by everyone."
    ),
)


def wording(data: HiToMSuite) -> Wording:
    """The wording a suite's items are asked in: its `defaults.prompt`, else `OWN`."""
    given = (data.get("defaults") or {}).get("prompt")
    if not given:
        return OWN
    return Wording({VP: str(given["vp"]).strip(), COTP: str(given["cotp"]).strip()},
                   str(given["note"]).strip())


def choices_line(choices: list[str]) -> str:
    """`A. blue_drawer, B. green_crate, ...`: the options as the release writes them."""
    return ", ".join(f"{OPTION_LETTERS[i]}. {c}" for i, c in enumerate(choices))


def item_text(style: str, story: str, question: str, choices: list[str],
              words: Wording = OWN) -> str:
    """The prompt of one item in `style`, laid out as the authors' prompt files."""
    return (f"{words.instruction[style]}\nStory:\n{story.strip()}\nQuestion: "
            f"{question.strip()}\nChoices: {choices_line(choices)}\n\n{words.note}\n")


METHODS = ("vanilla",)  # the style is the story's (or --tom-hitom-prompting): one call


def conversation(item: ItemSpec, method: str, responses: list[str]) -> list[Message] | None:
    """One call: the item's prompt as the user message."""
    return single_call([{"role": "user", "content": item.data["text"]}], responses)
