"""MMToM-QA prompts, as the authors' script sends a text-only question.

The release's `question` is one text: `What's inside the apartment: <one line per room>`,
`Actions taken by <person>: <actions>`, `Question: <question> (a) <option> (b) <option>
Please respond with either a or b.`, every line but the last ending in a space. A suite
keeps the parts (`apartment`, `person`, `actions`, `question`, `options`) and
`question_text` puts them back together exactly. The script sends that text followed by
`\\nAnswer: ` as the user message, after the system message "You are a helpful
assistant." (its chat-model path); one call.
"""

from __future__ import annotations

from pytest_tom.families.kit import ItemSpec
from pytest_tom.families.kit import Message
from pytest_tom.families.kit import single_call

from .schema import QuestionParts

SYSTEM = "You are a helpful assistant."
LETTERS = "ab"


def lines_with_spaces(text: str) -> str:
    """The release's line ends: each non-empty line followed by a space."""
    return "\n".join(f"{line} " if line else line for line in text.strip("\n").split("\n"))


def question_text(s: QuestionParts) -> str:
    """The release's `question` text of a scenario."""
    a, b = (str(o).strip() for o in s["options"])
    return (f"What's inside the apartment: {lines_with_spaces(str(s['apartment']))}\n"
            f"Actions taken by {str(s['person']).strip()}: {str(s['actions']).strip()} \n"
            f"Question: {str(s['question']).strip()} (a) {a} (b) {b} "
            f"Please respond with either a or b.")


METHODS = ("vanilla",)


def conversation(item: ItemSpec, method: str, responses: list[str]) -> list[Message] | None:
    """One call: the system message, then the question text and `\nAnswer: `."""
    return single_call([{"role": "system", "content": SYSTEM},
                        {"role": "user", "content": f"{item.data['text']}\nAnswer: "}],
                       responses)
