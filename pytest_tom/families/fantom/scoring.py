"""FANToM's answer rules: the fact question by token F1, the choice by the option named,
the free response by sentence embeddings (closer to the right than to the wrong answer),
list questions by the characters named, yes/no questions by the label read; and the
embedder they share (loaded once per process, primed with the suite's texts)."""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pytest_tom.families.fantom.expand import LIST_KINDS
from pytest_tom.families.fantom.expand import YN_KINDS
from pytest_tom.families.fantom.options import OPTIONS
from pytest_tom.families.fantom.parsing import IRRELEVANT
from pytest_tom.families.fantom.parsing import extract_answer
from pytest_tom.families.fantom.parsing import judge_list
from pytest_tom.families.fantom.parsing import letters_marked
from pytest_tom.families.fantom.parsing import parse_binary
from pytest_tom.families.kit import UNPARSEABLE
from pytest_tom.families.kit import EmbedderError
from pytest_tom.families.kit import ItemSpec
from pytest_tom.families.kit import Outcome
from pytest_tom.families.kit import ScoringContext
from pytest_tom.families.kit import Settings
from pytest_tom.families.kit import choice_problems
from pytest_tom.families.kit import embeddings_available
from pytest_tom.families.kit import get_embedder
from pytest_tom.families.kit import looks_like_path
from pytest_tom.families.kit import meta_texts
from pytest_tom.families.kit import token_f1

EMBEDDER_FAILED = "embedder_failed"


def option_problems(options: Mapping[str, object]) -> list[str]:
    """What is wrong with the FANToM options (a value none of its choices) and with
    --tom-embedder (a path that is no model directory), if anything."""
    problems = choice_problems(options, OPTIONS)
    spec = options.get("embedder")
    if spec and looks_like_path(str(spec)) and not Path(str(spec)).expanduser().is_dir():
        problems.append(f"--tom-embedder {spec}: no such model directory (give the folder of a "
                        f"sentence-transformers model, or a model name in the local Hugging "
                        f"Face cache; without the option the bundled all-MiniLM-L6-v2 is used)")
    return problems


def unavailable(item: ItemSpec, settings: Settings) -> str | None:
    """Why `item` cannot be scored here (a free response without sentence embeddings)."""
    if item.kind != "belief_dist":
        return None
    reason = embeddings_available(settings.options.get("embedder"))
    return f"belief_dist needs sentence embeddings: {reason}" if reason else None


def score(item: ItemSpec, response: str, ctx: ScoringContext) -> Outcome:
    """The outcome of `response` to `item` under the rule of the item's kind."""
    text = extract_answer(response)
    kind = item.kind
    if kind == "fact":
        return Outcome(
            correct=None,
            parsed=text,
            value=token_f1(text, item.gold),
            detail="" if text else "empty answer",
        )
    if not text:
        return Outcome(
            correct=False,
            parsed=IRRELEVANT if kind in YN_KINDS else None,
            error=UNPARSEABLE,
            detail="empty answer",
        )
    if kind == "belief_choice":
        return score_choice(item, text)
    if kind == "belief_dist":
        return score_dist(item, text, ctx)
    if kind in LIST_KINDS:
        j = judge_list(text, meta_texts(item.meta, "aware"), meta_texts(item.meta, "unaware"))
        parts = [
            f"left out {', '.join(j.excluded_aware)}" if j.excluded_aware else "",
            f"named {', '.join(j.included_unaware)}" if j.included_unaware else "",
        ]
        return Outcome(
            correct=j.correct,
            parsed=j.named,
            detail="; ".join(p for p in parts if p),
            extra={  # copies: a list[str] is no list[JSONValue] to a type checker
                "named": list(j.named),
                "excluded_aware": list(j.excluded_aware),
                "included_unaware": list(j.included_unaware),
            },
        )
    label = parse_binary(text)
    if label == IRRELEVANT:
        return Outcome(
            correct=False, parsed=IRRELEVANT, error=UNPARSEABLE, detail="neither yes nor no"
        )
    return Outcome(correct=label == item.gold, parsed=label)


def score_choice(item: ItemSpec, text: str) -> Outcome:
    """The belief choice: exactly one of (a) and (b) named, the gold one."""
    letters = letters_marked(text)
    if not letters:
        return Outcome(correct=False, error=UNPARSEABLE, detail="no option (a) or (b) named")
    if len(letters) > 1:
        return Outcome(correct=False, parsed=letters, detail="names both options")
    return Outcome(correct=letters[0] == item.meta["gold_letter"], parsed=letters[0])


def prepare_scoring(pairs: Iterable[tuple[ItemSpec, str]], ctx: ScoringContext) -> int:
    """Embed the free responses of many items in one batch, before they are scored one
    at a time (scoring then finds them in the cache), and, in bfloat16, embed again in
    float32 (one batch) those too close to call. Returns how many were prepared.

    Scoring one answer per call costs several times more per answer than a batch; a
    caller that has the responses of a run (all of them, or an xdist worker's share)
    can call this first. Without it, scoring is the same, only slower.
    """
    items = [(item, extract_answer(r)) for item, r in pairs if item.kind == "belief_dist"]
    items = [(item, t) for item, t in items if t]
    if not items or unavailable(items[0][0], ctx.settings):
        return 0
    emb = embedder(items[0][0], ctx)
    if isinstance(emb, EmbedderError):
        return 0
    emb.compare_many([(t, str(item.gold), item.data["wrong"]) for item, t in items])
    return len(items)


def embedder(item: ItemSpec, ctx: ScoringContext) -> Any:
    """The session's embedder (loaded once per process), with the suite's options embedded."""
    spec = ctx.settings.options.get("embedder")
    dtype = ctx.settings.options.get("embedder_dtype")
    emb = ctx.service("fantom.embedder", lambda: _load_or_error(spec, dtype))
    if not isinstance(emb, EmbedderError):
        shared = item.data["prime"]
        emb.prime(shared.key, shared.texts)
    return emb


def score_dist(item: ItemSpec, text: str, ctx: ScoringContext) -> Outcome:
    """The free response: closer (by embeddings) to the right than to the wrong answer."""
    emb = embedder(item, ctx)
    if isinstance(emb, EmbedderError):
        return Outcome.failed(EMBEDDER_FAILED, str(emb))
    sims = emb.compare(text, str(item.gold), item.data["wrong"])
    right, wrong = sims.right, sims.wrong
    correct = right > wrong  # a tie is wrong
    return Outcome(
        correct=correct,
        parsed=text,
        value=token_f1(text, str(item.gold), lowercase=False),  # case-sensitive, as upstream
        detail="" if correct else f"closer to the wrong answer ({right:.3f} vs {wrong:.3f})",
        extra={
            "sim_answer": round(right, 6),
            "sim_wrong": round(wrong, 6),
            "embedder": emb.description,
            "embedding_dtype": sims.dtype,  # of this answer's vector (options: float32)
        },
    )


def _load_or_error(spec: str | None, dtype: str | None) -> Any:
    try:
        return get_embedder(spec, dtype=dtype or "auto")
    except EmbedderError as exc:
        return exc
