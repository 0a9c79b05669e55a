"""The generic family's prompts: the story, the question and its options, then one
instruction per answer rule (vanilla), or a step-by-step call followed by the instruction
(cot)."""

from __future__ import annotations

from pytest_tom.families.kit import ItemSpec
from pytest_tom.families.kit import Message
from pytest_tom.families.kit import json_instruction
from pytest_tom.families.kit import single_call
from pytest_tom.families.kit import two_calls

METHODS = ("vanilla", "cot")
INSTRUCTIONS = {
    "choice": "Answer with the letter of the correct option.",
    "yes_no": "Answer yes or no.",
    "names": "Answer with the names of the characters only.",
    "contains": "Answer in a few words.",
    "json_final": "",  # built from the asked objects: json_instruction(keys)
}


def item_text(item: ItemSpec) -> str:
    """The story, the question and the options shown (if any)."""
    parts = [item.data["context"].strip(), "", f"Question: {item.question}"]
    parts += item.choices_shown
    return "\n".join(parts)


def conversation(item: ItemSpec, method: str, responses: list[str]) -> list[Message] | None:
    """The messages of the next model call of `method`, given the responses so far."""
    instruction = INSTRUCTIONS[item.kind] or json_instruction(list(item.gold))
    if method == "cot":
        first = [{"role": "user", "content": f"{item_text(item)}\n\nLet's think step by step."}]
        return two_calls(first, f"Therefore, the answer is: ({instruction})", responses)
    msg = f"{item_text(item)}\n\n{instruction}\nAnswer:"
    return single_call([{"role": "user", "content": msg}], responses)
