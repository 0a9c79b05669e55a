"""Prompts of the robustness family: the task instruction, one worked example, the scene.

Written for pytest-tom after the description of the paper's prompt (a task
statement, the JSON `final` format between markers, a note that people do not
see inside containers or read labels unless the text says so, one example);
the wording and the example story are our own.
"""

from __future__ import annotations

from pytest_tom.families.kit import JSON_BEGIN
from pytest_tom.families.kit import JSON_END
from pytest_tom.families.kit import ItemSpec
from pytest_tom.families.kit import Message
from pytest_tom.families.kit import single_call
from pytest_tom.families.kit import two_calls

METHODS = ("vanilla", "cot")
INSTRUCTION = f"""### TASK ###
Below is a short text about one or more people and one or more objects. An object can be \
inside another object or at some place, and this can change as the text goes on.

Answer the question that follows the text. It asks either what a person believes about an \
object (where the object is, or what is inside it) or what is really the case. Give the state \
after the last sentence of the text. When the question asks for a person's belief, give what \
that person believes, even where it differs from the truth; if the person has no way to tell, \
answer "unknown".

People do not look inside containers, read labels or notice changes unless the text says so.

Write the answer as JSON between a line {JSON_BEGIN} and a line {JSON_END}. The JSON object has one \
top-level entry, "final". Inside "final", give one entry for each object the question asks \
about; its value is the answer: a place, a content, or "unknown".

### EXAMPLE ###
Text:
A closed wooden crate stands in the garage. The crate holds apples. Noor has never looked \
inside the crate. A sticker on the crate says "pears". Noor reads the sticker.

Question:
What does Noor think is inside the crate?

Answer:
{JSON_BEGIN}
{{"final": {{"crate": "pears"}}}}
{JSON_END}
### END OF EXAMPLE ###"""

COT_FIRST = ("Before answering, think step by step: follow the text sentence by sentence and say "
             "what the person knows after each one. Do not write the JSON yet.")
COT_FOLLOW_UP = (f"Therefore, what is the answer? Write only the JSON between {JSON_BEGIN} and "
                 f"{JSON_END}, with the entry \"{{key}}\" inside \"final\".")


def scene_prompt(text: str, ask: str, key: str) -> str:
    """The task instruction, then the scene's text and question."""
    return (f"{INSTRUCTION}\n\nText:\n{text}\n\nQuestion:\n{ask}\n\n"
            f"Use \"{key}\" as the entry inside \"final\".")


def conversation(item: ItemSpec, method: str, responses: list[str]) -> list[Message] | None:
    """The messages of `item` under `method` (vanilla: one call; cot: two calls)."""
    d = item.data
    prompt = scene_prompt(d["text"], d["ask"], d["key"])
    if method == "cot":
        first = [{"role": "user", "content": f"{prompt}\n\n{COT_FIRST}"}]
        return two_calls(first, COT_FOLLOW_UP.format(key=d["key"]), responses)
    return single_call([{"role": "user", "content": prompt}], responses)
