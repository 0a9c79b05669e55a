"""ToMBench's prompts: a system message with the rules and a user message with the story,
the question and the lettered options, in English or Chinese, as the authors' protocol
asks (pick the most likely option, one even when unsure, reply with its letter in double
square brackets: `[[A]]`). The wording is the project's own. `cot` is the authors'
chain-of-thought variant: one call that reasons first and ends with the bracketed letter."""

from __future__ import annotations

from pytest_tom.families.kit import ItemSpec
from pytest_tom.families.kit import Message
from pytest_tom.families.kit import meta_text
from pytest_tom.families.kit import single_call

from .schema import LETTERS

METHODS = ("vanilla", "cot")

SYSTEM = {
    ("en", "vanilla"): (
        "You will read a short story, then a question about it with a few answer options. "
        "Using the story and ordinary common sense, decide which option is the most likely "
        "answer.\n"
        "Rules:\n"
        "1. Reply with the letter of that option in double square brackets and nothing "
        "else: [[B]] if option B is the most likely.\n"
        "2. Always choose exactly one of the options given, even if the story does not settle "
        "the question; when you cannot decide, choose one of them at random.\n"
        "3. Give no explanation, only the bracketed letter."),
    ("en", "cot"): (
        "You will read a short story, then a question about it with a few answer options. "
        "Using the story and ordinary common sense, decide which option is the most likely "
        "answer.\n"
        "Rules:\n"
        "1. First reason step by step about the story and the question.\n"
        "2. Then end your reply with the letter of the most likely option in double square "
        "brackets: [[B]] if option B is the most likely.\n"
        "3. Always choose exactly one of the options given, even if the story does not settle "
        "the question; when you cannot decide, choose one of them at random. Do not give the "
        "letter before your reasoning."),
    ("zh", "vanilla"): (
        "你将读到一个小故事，以及关于这个故事的一个问题和几个选项。请根据故事内容和日常常识，"
        "判断哪个选项最有可能是正确答案。\n"
        "要求：\n"
        "1. 只回复该选项的字母，并放在两层方括号里，不要写其他内容：例如最可能的是选项B，就回复[[B]]。\n"
        "2. 无论故事是否给出足够的信息，都必须从给出的选项中恰好选一个；实在无法判断时，就从中随机选一个。\n"
        "3. 不要解释，只回复带方括号的字母。"),
    ("zh", "cot"): (
        "你将读到一个小故事，以及关于这个故事的一个问题和几个选项。请根据故事内容和日常常识，"
        "判断哪个选项最有可能是正确答案。\n"
        "要求：\n"
        "1. 先针对故事和问题一步一步地推理。\n"
        "2. 推理之后，在回复的最后写出最可能的选项的字母，并放在两层方括号里：例如最可能的是选项B，就写[[B]]。\n"
        "3. 无论故事是否给出足够的信息，都必须从给出的选项中恰好选一个；实在无法判断时，就从中随机选一个。"
        "不要在推理之前给出字母。"),
}

HEADINGS = {
    "en": ("Story:", "Question:", "Options:"),
    "zh": ("故事：", "问题：", "选项："),
}


def user_text(item: ItemSpec) -> str:
    """The story, the question and the options (in the order of this item) as the model sees
    them."""
    story, question, options = HEADINGS[meta_text(item.meta, "language", "en")]
    lines = [f"{LETTERS[i]}. {text}" for i, text in enumerate(item.choices)]
    return "\n".join([story, item.data["story"].strip(), "", question, item.question.strip(),
                      "", options, *lines])


def conversation(item: ItemSpec, method: str, responses: list[str]) -> list[Message] | None:
    language = meta_text(item.meta, "language", "en")
    system = SYSTEM[(language, "cot" if method == "cot" else "vanilla")]
    return single_call([{"role": "system", "content": system},
                        {"role": "user", "content": user_text(item)}], responses)
