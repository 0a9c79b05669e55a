"""FANToM (Kim et al., 2023): Theory of Mind in conversations with information asymmetry.

A conversation expands into sets; a set (one piece of information one character
missed while away) into a fact question, a choice and a free-response item per
belief question, answerability and info-access list questions, and per-character
yes/no questions. Prompts and answer reading follow the authors' evaluator (with
its listed defects fixed, see `fantom_parsing`); free responses are scored with
sentence embeddings (`pytest_tom.scoring.embeddings`); aggregates (ALL*, ALL,
weighted F1, per character, by ToM order, error types) are in `fantom_metrics`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from pytest_tom.core.model import ItemSpec, Suite
from pytest_tom.core.outcome import UNPARSEABLE, Outcome
from pytest_tom.families.base import (
    Family,
    FamilyResult,
    Message,
    ScoringContext,
    Settings,
    single_call,
    two_calls,
)
from pytest_tom.families.fantom.expand import LIST_KINDS, YN_KINDS, Expander
from pytest_tom.families.fantom.headline import METRICS, PLOTS, grouped_by
from pytest_tom.families.fantom.metrics import aggregate_fantom, grouping_of
from pytest_tom.families.fantom.options import OPTIONS
from pytest_tom.families.fantom.parsing import (
    IRRELEVANT,
    extract_answer,
    judge_list,
    letters_marked,
    parse_binary,
)
from pytest_tom.families.fantom.schema import CONVERSATION, DEFAULTS, check_document
from pytest_tom.metrics.declare import Metric
from pytest_tom.scoring.embeddings import (
    EmbedderError,
    embeddings_available,
    get_embedder,
    looks_like_path,
)
from pytest_tom.scoring.f1 import token_f1
from pytest_tom.suite.schema import Checker

COT_START = "Let's think step by step."
COT_FOLLOW_UP = "Therefore, the answer is:"
EMBEDDER_FAILED = "embedder_failed"


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


class FantomFamily(Family):
    name = "fantom"
    options = OPTIONS
    converters = {"fantom": "pytest_tom.families.fantom.convert"}
    # error counts of the list and yes/no questions (per context, e.g. inaccessible.*)
    headline_metrics = METRICS
    plots = PLOTS
    lower_is_better = ("*.wrong", "*.unparseable", "*.request_errors", "*.included_unaware",
                       "*.excluded_aware")
    methods = ("vanilla", "cot")
    metric_patterns = ()  # names beyond aggregate([]) (usage_checks)
    answer_tokens = 128  # free answers are a sentence; lists of names
    scenario_schema = CONVERSATION
    defaults_schema = DEFAULTS
    description = (
        "FANToM: conversations where characters leave and rejoin; belief, "
        "answerability and info-access questions; ALL* and the paper's table"
    )

    def check(self, data: dict[str, Any], ck: Checker) -> None:
        check_document(data, ck)

    def expand(
        self,
        suite: Suite,
        data: dict[str, Any],
        settings: Settings,
        line_of: Callable[[tuple[Any, ...]], int],
    ) -> list[ItemSpec]:
        return Expander(self.name, suite, data, settings, line_of).items()

    def conversation(
        self, item: ItemSpec, method: str, responses: list[str]
    ) -> list[Message] | None:
        text = prompt(item)
        if method == "cot":
            return two_calls(
                [{"role": "user", "content": f"{text} {COT_START}"}], COT_FOLLOW_UP, responses
            )
        return single_call([{"role": "user", "content": text}], responses)

    def option_problems(self, options: dict[str, Any]) -> list[str]:
        spec = options.get("embedder")
        if spec and looks_like_path(str(spec)) and not Path(str(spec)).expanduser().is_dir():
            return [f"--tom-embedder {spec}: no such model directory (give the folder of a "
                    f"sentence-transformers model, or a model name in the local Hugging Face "
                    f"cache; without the option the bundled all-MiniLM-L6-v2 is used)"]
        return []

    def unavailable(self, item: ItemSpec, settings: Settings) -> str | None:
        if item.kind != "belief_dist":
            return None
        reason = embeddings_available(settings.options.get("embedder"))
        return f"belief_dist needs sentence embeddings: {reason}" if reason else None

    # -- scoring ----------------------------------------------------------------------
    def shard_unit(self, item: ItemSpec, settings: Settings) -> str:
        """The ALL*/ALL grouping of `--tom-fantom-group`: a set (the item's group), a part
        or a whole conversation."""
        grouping = str(settings.options.get("fantom_group") or "set")
        return str(item.meta.get(grouping) or item.group)

    def score(self, item: ItemSpec, response: str, ctx: ScoringContext) -> Outcome:
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
            return self._score_choice(item, text)
        if kind == "belief_dist":
            return self._score_dist(item, text, ctx)
        if kind in LIST_KINDS:
            j = judge_list(text, item.meta["aware"], item.meta["unaware"])
            parts = [
                f"left out {', '.join(j.excluded_aware)}" if j.excluded_aware else "",
                f"named {', '.join(j.included_unaware)}" if j.included_unaware else "",
            ]
            return Outcome(
                correct=j.correct,
                parsed=j.named,
                detail="; ".join(p for p in parts if p),
                extra={
                    "named": j.named,
                    "excluded_aware": j.excluded_aware,
                    "included_unaware": j.included_unaware,
                },
            )
        label = parse_binary(text)
        if label == IRRELEVANT:
            return Outcome(
                correct=False, parsed=IRRELEVANT, error=UNPARSEABLE, detail="neither yes nor no"
            )
        return Outcome(correct=label == item.gold, parsed=label)

    def _score_choice(self, item: ItemSpec, text: str) -> Outcome:
        letters = letters_marked(text)
        if not letters:
            return Outcome(correct=False, error=UNPARSEABLE, detail="no option (a) or (b) named")
        if len(letters) > 1:
            return Outcome(correct=False, parsed=letters, detail="names both options")
        return Outcome(correct=letters[0] == item.meta["gold_letter"], parsed=letters[0])

    def prepare_scoring(self, pairs: Iterable[tuple[ItemSpec, str]], ctx: ScoringContext) -> int:
        """Embed the free responses of many items in one batch, before they are scored one
        at a time (scoring then finds them in the cache), and, in bfloat16, embed again in
        float32 (one batch) those too close to call. Returns how many were prepared.

        Scoring one answer per call costs several times more per answer than a batch; a
        caller that has the responses of a run (all of them, or an xdist worker's share)
        can call this first. Without it, scoring is the same, only slower.
        """
        items = [(item, extract_answer(r)) for item, r in pairs if item.kind == "belief_dist"]
        items = [(item, t) for item, t in items if t]
        if not items or self.unavailable(items[0][0], ctx.settings):
            return 0
        emb = self._embedder(items[0][0], ctx)
        if isinstance(emb, EmbedderError):
            return 0
        emb.compare_many([(t, str(item.gold), item.data["wrong"]) for item, t in items])
        return len(items)

    def _embedder(self, item: ItemSpec, ctx: ScoringContext) -> Any:
        """The session's embedder (loaded once per process), with the suite's options embedded."""
        spec = ctx.settings.options.get("embedder")
        dtype = ctx.settings.options.get("embedder_dtype")
        emb = ctx.service("fantom.embedder", lambda: _load_or_error(spec, dtype))
        if not isinstance(emb, EmbedderError):
            shared = item.data["prime"]
            emb.prime(shared.key, shared.texts)
        return emb

    def _score_dist(self, item: ItemSpec, text: str, ctx: ScoringContext) -> Outcome:
        emb = self._embedder(item, ctx)
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

    def declared_metrics(self, settings: Settings) -> tuple[Metric, ...]:
        return grouped_by(grouping_of(settings))

    def aggregate(self, records: list[dict[str, Any]], settings: Settings) -> FamilyResult:
        return aggregate_fantom(records, settings)


def _load_or_error(spec: str | None, dtype: str | None) -> Any:
    try:
        return get_embedder(spec, dtype=dtype or "auto")
    except EmbedderError as exc:
        return exc
