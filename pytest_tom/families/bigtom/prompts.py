"""BigToM prompts for the four methods: 0-shot, 0-shot chain of thought, 1-shot, 1-shot CoT.

The item is shown as the paper shows it: the story, the question, then
`Choose one of the following:` and the two options as `a)<option>` and
`b)<option>`; the model is asked to answer as `Answer:<option>)<answer>`.
The instruction goes in a system message. The one-shot example (a forward
belief, false belief item, as in the paper) is written for pytest-tom: it is
given as a user turn and a worked assistant turn before the item.

Chain of thought is two calls: the model first reasons (its reply should start
with `Thought: Let's think step by step`), then a second call asks for the
answer in the `Answer:` form; only the second reply is scored.
"""

from __future__ import annotations

from pytest_tom.families.kit import LETTERS
from pytest_tom.families.kit import ItemSpec
from pytest_tom.families.kit import Message
from pytest_tom.families.kit import single_call
from pytest_tom.families.kit import two_calls

ANSWER_FORM = "Answer:<option>)<answer>"

INSTRUCTION = (
    "Read the story and answer the question about it. Keep the answer short: the option's "
    f"letter and its text are enough. Write your answer as '{ANSWER_FORM}'."
)
COT_INSTRUCTION = (
    "Read the story and answer the question about it. First reason step by step, starting with "
    "'Thought: Let's think step by step'. Then write your final answer as "
    f"'{ANSWER_FORM}'. Always pick one of the two options."
)
COT_OPENER = "Thought: Let's think step by step."
COT_FOLLOW_UP = f"Therefore, the answer is (write it as '{ANSWER_FORM}'):"

# The one-shot example: forward belief, false belief (the agent misses the causal event).
EXAMPLE_STORY = (
    "Lena keeps bees on a hillside farm and sells honey at the Saturday market. "
    "Lena wants to bring a full jar of honey to the market stall. "
    "Lena fills a blue jar with honey and sets it on the porch table. "
    "Lena believes that the blue jar on the porch is full of honey. "
    "While Lena is loading crates into her van, a neighbour's goat knocks the blue jar off "
    "the table and the honey spills into the grass. "
    "Lena does not see the goat knocking over the jar."
)
EXAMPLE_QUESTION = "Does Lena believe the blue jar is full of honey or empty?"
EXAMPLE_OPTIONS = (
    "Lena believes the blue jar is empty.",
    "Lena believes the blue jar is full of honey.",
)
EXAMPLE_LETTER = "b"
EXAMPLE_THOUGHT = (
    "Thought: Let's think step by step. 1) Lena filled the blue jar herself, so she thinks it "
    "is full of honey. 2) A goat knocked the jar over and the honey spilled, so the jar is now "
    "empty. 3) Lena did not see this happen, and nothing else told her about it. 4) So her "
    "belief has not changed: she still thinks the jar is full of honey."
)


def item_text(story: str, question: str, options: list[str]) -> str:
    """The item as the model sees it (the paper's layout: `a)<option>` without a space)."""
    lines = [f"Story: {story.strip()}", f"Question: {question.strip()}",
             "Choose one of the following:"]
    lines += [f"{LETTERS[i]}){opt.strip()}" for i, opt in enumerate(options)]
    return "\n".join(lines)


def _example_answer() -> str:
    return f"Answer:{EXAMPLE_LETTER}){EXAMPLE_OPTIONS[LETTERS.index(EXAMPLE_LETTER)]}"


def _example(cot: bool) -> list[Message]:
    question = item_text(EXAMPLE_STORY, EXAMPLE_QUESTION, list(EXAMPLE_OPTIONS))
    if cot:
        question = f"{question}\n\n{COT_OPENER}"
    answer = f"{EXAMPLE_THOUGHT}\n{_example_answer()}" if cot else _example_answer()
    return [{"role": "user", "content": question}, {"role": "assistant", "content": answer}]


METHODS = ("vanilla", "cot", "1shot", "1shot-cot")


def conversation(item: ItemSpec, method: str, responses: list[str]) -> list[Message] | None:
    """The next call of `method` for `item` (its text, with the options shown); None when
    done."""
    text = item.data["text"]
    cot = method in ("cot", "1shot-cot")
    shots = _example(cot) if method in ("1shot", "1shot-cot") else []
    system = {"role": "system", "content": COT_INSTRUCTION if cot else INSTRUCTION}
    if not cot:
        return single_call([system, *shots, {"role": "user", "content": text}], responses)
    first = [system, *shots, {"role": "user", "content": f"{text}\n\n{COT_OPENER}"}]
    return two_calls(first, COT_FOLLOW_UP, responses)
