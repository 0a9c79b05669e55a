"""ToMBench's answer rule: the reply read as one option (the correct reading, or the
authors' with `--tom-tombench-reading authors`, see `reading`), mapped back to the file's
order and judged against the right letter. The outcome carries, as `extra["vote"]`, the
file's letter the reply stands for (None when it stands for none), which the official
protocol's majority vote counts."""

from __future__ import annotations

from collections.abc import Mapping

from pytest_tom.families.kit import UNPARSEABLE
from pytest_tom.families.kit import ItemSpec
from pytest_tom.families.kit import Outcome
from pytest_tom.families.kit import ScoringContext
from pytest_tom.families.kit import choice_problems
from pytest_tom.families.kit import meta_texts

from .options import OPTIONS
from .reading import authors_letter
from .reading import authors_map
from .reading import read_reply


def score(item: ItemSpec, response: str, ctx: ScoringContext) -> Outcome:
    """The outcome of `response` to `item`, read as the run's options say."""
    as_authors = ctx.settings.options.get("tombench_reading") == "authors"
    return score_answer(item, response, ctx.settings.method, as_authors)


def option_problems(options: Mapping[str, object]) -> list[str]:
    """Usage errors in the ToMBench options: a value none of its choices, a number of
    tries below 1."""
    problems = choice_problems(options, OPTIONS)
    tries = options.get("tombench_tries", 5)
    if not isinstance(tries, int) or tries < 1:
        problems.append(f"--tom-tombench-tries {tries!r}: must be at least 1")
    return problems


def score_answer(item: ItemSpec, response: str, method: str, as_authors: bool) -> Outcome:
    """The outcome of `response` to `item` asked with `method`, read correctly or as the
    authors' script reads it."""
    order = meta_texts(item.meta, "order")
    if as_authors:
        read = authors_letter(response)
        mapped = authors_map(item.data["file_options"], order)[read.letter or "A"]
        gold = item.meta["answer_as_released"]
        detail = f"read as the authors' script reads it: {read.how}" + (
            f" = option {mapped} of the file" if mapped and mapped != read.letter else
            "" if mapped else ", which maps to no option")
        return Outcome(correct=mapped == gold, parsed=read.letter, detail=detail,
                       extra={"vote": mapped or None})
    read = read_reply(response, list(item.choices), method)
    if read.letter is None:
        return Outcome(correct=False, error=UNPARSEABLE, detail=read.how)
    original = order["ABCD".index(read.letter)]
    moved = f" (option {original} of the file)" if original != read.letter else ""
    return Outcome(correct=original == item.meta["answer"], parsed=read.letter,
                   detail=f"read {read.how}{moved}", extra={"vote": original})
