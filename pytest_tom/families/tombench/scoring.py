"""ToMBench's answer rule: the reply read as one option (the correct reading, or the
authors' with `--tom-tombench-reading authors`, see `reading`), mapped back to the file's
order and judged against the right letter. The outcome carries, as `extra["vote"]`, the
file's letter the reply stands for (None when it stands for none), which the official
protocol's majority vote counts."""

from __future__ import annotations

from pytest_tom.families.kit import UNPARSEABLE, ItemSpec, Outcome

from .reading import authors_letter, authors_map, read_letter


def score_answer(item: ItemSpec, response: str, method: str, as_authors: bool) -> Outcome:
    """The outcome of `response` to `item`."""
    order = item.meta["order"]
    if as_authors:
        read = authors_letter(response)
        mapped = authors_map(item.data["file_options"], order)[read.letter or "A"]
        gold = item.meta["answer_as_released"]
        detail = f"read as the authors' script reads it: {read.how}" + (
            f" = option {mapped} of the file" if mapped and mapped != read.letter else
            "" if mapped else ", which maps to no option")
        return Outcome(correct=mapped == gold, parsed=read.letter, detail=detail,
                       extra={"vote": mapped or None})
    read = read_letter(response, len(order), method)
    if read.letter is None:
        return Outcome(correct=False, error=UNPARSEABLE, detail=read.how)
    original = order["ABCD".index(read.letter)]
    moved = f" (option {original} of the file)" if original != read.letter else ""
    return Outcome(correct=original == item.meta["answer"], parsed=read.letter,
                   detail=f"read {read.how}{moved}", extra={"vote": original})
