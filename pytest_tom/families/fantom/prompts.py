"""FANToM prompts: the released evaluator's prompt per question kind, and the
chain-of-thought conversation (a reasoning call, then a follow-up for the answer)."""

from __future__ import annotations

from pytest_tom.families.fantom.expand import LIST_KINDS
from pytest_tom.families.kit import ItemSpec
from pytest_tom.families.kit import Message
from pytest_tom.families.kit import single_call
from pytest_tom.families.kit import two_calls

METHODS = ("vanilla", "cot")
COT_START = "Let's think step by step."
COT_FOLLOW_UP = "Therefore, the answer is:"


def prompt(item: ItemSpec) -> str:
    """The prompt of the released evaluator for this item's kind."""
    d = item.data
    ctx = d["context"]
    kind = item.kind
    if kind in ("fact", "belief_dist"):
        return f"{ctx}\n\nQuestion: {d['question']}\nAnswer:"
    if kind == "belief_choice":
        a, b = d["options"]
        return (
            f"{ctx}\n\nQuestion: {d['question']}\n(a) {a}\n(b) {b}\n\nChoose an answer from above:"
        )
    about = (
        f"Target: {d['fact_question']}"
        if kind.startswith("answerability")
        else f"Information: {d['fact_question']} {d['fact_answer']}"
    )
    if kind in LIST_KINDS:
        return f"{ctx}\n\n{about}\nQuestion: {d['question']}\nAnswer:"
    return f"{ctx}\n\n{about}\nQuestion: {d['question']} Answer yes or no.\nAnswer:"


def conversation(item: ItemSpec, method: str, responses: list[str]) -> list[Message] | None:
    """The messages of `item` under `method` (vanilla: one call; cot: two calls)."""
    text = prompt(item)
    if method == "cot":
        return two_calls(
            [{"role": "user", "content": f"{text} {COT_START}"}], COT_FOLLOW_UP, responses
        )
    return single_call([{"role": "user", "content": text}], responses)
