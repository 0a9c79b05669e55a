"""FANToM aggregates over item records, separately for the inaccessible scenario (the
FANToM scores) and the accessible control: the columns of the paper's Table 9, per
character scores and answer consistency, belief accuracy by ToM order, and the
error types of list and yes/no answers.

Records are plain dicts (see `pytest_tom.metrics.accuracy`); everything needed is
in `item.meta` and the outcome. Request errors count as wrong answers (and as
"irrelevant" yes/no labels); skipped `belief_dist` items (no embeddings) make
ALL*, Dist. and All-for-each-character unavailable (None), never a number.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from typing import Any

from pytest_tom.families.base import FamilyResult, MetricTable, Settings
from pytest_tom.families.fantom.expand import (
    BELIEF_KINDS,
    GROUPINGS,
    LIST_KINDS,
    TOM_KINDS,
    YN_KINDS,
)
from pytest_tom.families.fantom.parsing import IRRELEVANT, NO, YES
from pytest_tom.families.fantom.schema import ORDERS, name_key
from pytest_tom.metrics.accuracy import Record, is_request_error, is_skipped
from pytest_tom.metrics.numbers import points
from pytest_tom.metrics.weighted_f1 import weighted_f1
from pytest_tom.scoring.embeddings import describe_spec

SCENARIOS = (("inaccessible", "inaccessible"), ("accessible", "control"))
COLUMNS = (
    ("all_star", "ALL*"),
    ("all", "ALL"),
    ("belief_choice", "Belief\nChoice"),
    ("belief_dist", "Belief\nDist."),
    ("belief_dist_token_f1", "Belief\nTokenF1"),
    ("answerability_all", "Answerab.\nAll"),
    ("answerability_list", "Answerab.\nList"),
    ("answerability_yn_f1", "Answerab.\nY/N"),
    ("infoaccess_all", "InfoAcc.\nAll"),
    ("infoaccess_list", "InfoAcc.\nList"),
    ("infoaccess_yn_f1", "InfoAcc.\nY/N"),
    ("fact_token_f1", "Fact\nTokenF1"),
)
NEEDS_EMBEDDINGS = ("all_star", "belief_dist", "belief_dist_token_f1", "all_for_each_character")
ORDER_NAMES = {
    "first-order": "first_order",
    "second-order:cyclic": "second_order_cyclic",
    "second-order:acyclic": "second_order_acyclic",
}


def kind(rec: Record) -> str:
    return rec["item"]["kind"]


def meta(rec: Record) -> dict[str, Any]:
    return rec["item"].get("meta") or {}


def ok(rec: Record) -> bool:
    return rec["outcome"].get("correct") is True


def yn_label(rec: Record) -> str:
    parsed = rec["outcome"].get("parsed")
    return parsed if parsed in (YES, NO) else IRRELEVANT


def accuracy(recs: list[Record]) -> float | None:
    return sum(ok(r) for r in recs) / len(recs) if recs else None


def mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def ratio(pair: tuple[int, int]) -> float | None:
    return pair[0] / pair[1] if pair[1] else None


Kinds = dict[str, list[Record]]  # kind -> its records, in the order of the run's records


class AllRight:
    """Groups and whether every record of each is right (ALL*, ALL, the Alls).

    Kept as the groups seen and the groups with a wrong record, so adding a record
    is two set operations at most."""

    __slots__ = ("seen", "failed")

    def __init__(self) -> None:
        self.seen: set[Any] = set()
        self.failed: set[Any] = set()

    def add(self, group: Any, right: bool) -> None:
        self.seen.add(group)
        if not right:
            self.failed.add(group)

    def counts(self) -> tuple[int, int]:
        """(groups whose every record is right, groups)."""
        return len(self.seen) - len(self.failed), len(self.seen)


def split_records(records: Iterable[Record]) -> tuple[Kinds, dict[Any, Kinds], set[Any]]:
    """One pass over a suite's records: every kind's records, the ToM questions'
    records per accessibility (scenario) and kind, and the contexts named."""
    kinds: Kinds = defaultdict(list)
    for r in records:
        kinds[r["item"]["kind"]].append(r)
    scenarios: dict[Any, Kinds] = defaultdict(lambda: defaultdict(list))
    contexts: set[Any] = set()
    for k, recs in kinds.items():
        tom = k in TOM_KINDS
        for r in recs:
            m = r["item"].get("meta") or {}
            contexts.add(m.get("context"))
            if tom:
                scenarios[m.get("accessibility")][k].append(r)
    return kinds, scenarios, contexts - {None}


def control_sets(scenarios: dict[Any, Kinds]) -> set[Any]:
    """The sets of the control task: every ToM question of the set is accessible.

    Belief questions carry their own accessibility, list and yes/no questions the
    set's (relabelled in full context by `fantom_expand`), so a set where only some
    belief questions are accessible, or whose lists became inaccessible in full
    context, is not a control set.
    """
    accessible: set[Any] = set()
    other: set[Any] = set()
    for scen, kinds in scenarios.items():
        sets = accessible if scen == "accessible" else other
        for recs in kinds.values():
            sets.update([meta(r).get("set") for r in recs])
    return accessible - other


def scenario_metrics(
    kinds: Kinds, grouping: str, only_sets: set[Any] | None = None
) -> tuple[dict[str, Any], bool]:
    """The Table 9 figures of one scenario (its ToM records by kind), and whether free
    responses were unavailable.

    `only_sets` restricts the set-level figures (ALL*, ALL, the two Alls) to those sets:
    the control task counts only fully accessible sets (`control_sets`).
    """
    dist = kinds.get("belief_dist", [])
    missing = any(is_skipped(r) for r in dist) or bool(kinds.get("belief_choice") and not dist)
    field = {"set": "set", "part": "part", "conversation": "conversation"}[grouping]
    star, plain = AllRight(), AllRight()  # ALL* over every ToM question, ALL without Dist.
    alls = {"answerability": AllRight(), "infoaccess": AllRight()}  # per set
    sets: set[Any] = set()
    for k, recs in kinds.items():
        fam = alls.get(k.split("_")[0]) if k in LIST_KINDS or k in YN_KINDS else None
        for r in recs:
            m = r["item"].get("meta") or {}
            set_id = m.get("set")
            if only_sets is not None and set_id not in only_sets:
                continue
            right = r["outcome"].get("correct") is True
            group = m.get(field)
            star.add(group, right)
            if k != "belief_dist":
                plain.add(group, right)
            if fam is not None:
                fam.add(set_id, right)
            sets.add(set_id)
    m: dict[str, Any] = {}
    plain_counts = plain.counts()
    m["all_star"] = None if missing else ratio(star.counts())
    m["all"] = ratio(plain_counts)
    m["groups"] = plain_counts[1]
    m["sets"] = len(sets)
    m["belief_choice"] = accuracy(kinds.get("belief_choice", []))
    m["belief_dist"] = None if missing else accuracy(dist)
    right_f1 = [float(r["outcome"].get("value") or 0.0) for r in dist if ok(r)]
    m["belief_dist_token_f1"] = None if missing else mean(right_f1)
    for fam_name, fam_all in alls.items():
        lst, yn = kinds.get(f"{fam_name}_list", []), kinds.get(f"{fam_name}_yn", [])
        m[f"{fam_name}_list"] = accuracy(lst)
        m[f"{fam_name}_yn_f1"] = weighted_f1(
            [str(r["item"]["gold"]) for r in yn], [yn_label(r) for r in yn]
        )
        m[f"{fam_name}_all"] = ratio(fam_all.counts())
    return m, missing


def per_character(kinds: Kinds) -> dict[str, Any]:
    """All-for-each-character and answer consistency over (set, character) pairs.

    As the authors' evaluator forms them: a pair's answers are the character's yes/no
    answers, each belief answer whose outer believer (`meta.believer`, who holds the
    belief) is the character, and each list answer spread to the characters that have a
    yes/no question of the same kind (answerability / info access), judged by whether it
    names the character as that yes/no gold says. A character with only belief
    questions forms a pair too. Answers are consistent when the yes/no and list answers
    all say the same about whether the character knows (an unreadable answer is
    inconsistent); only pairs with yes/no questions have a consistency.

    Every record is read once into its set's `_SetAnswers`; the pairs are then formed
    set by set.
    """
    by_set: dict[Any, _SetAnswers] = defaultdict(_SetAnswers)
    unavailable = False
    for k in YN_KINDS:
        for r in kinds.get(k, []):
            by_set[set_key(r)].add_yes_no(k, r)
    for k in LIST_KINDS:
        for r in kinds.get(k, []):
            by_set[set_key(r)].add_list(k, r)
    for k in BELIEF_KINDS:
        for r in kinds.get(k, []):
            believer = meta(r).get("believer")
            if believer:
                by_set[set_key(r)].add_belief(name_key(believer), ok(r))
                unavailable = unavailable or is_skipped(r)
    all_ok = consistent = pairs = with_claims = 0
    for answers in by_set.values():
        for verdict, claims in answers.pairs():
            pairs += 1
            all_ok += verdict
            if claims:
                with_claims += 1
                consistent += None not in claims and len(claims) == 1
    return {
        "all_for_each_character": None if unavailable else ratio((all_ok, pairs)),
        "answer_consistency": ratio((consistent, with_claims)),
        "characters": pairs,
    }


class _SetAnswers:
    """The answers of one set that the (set, character) pairs are formed from."""

    __slots__ = ("yes_no", "lists", "beliefs")

    def __init__(self) -> None:
        # character -> (question family, right, claim, gold is yes) of each yes/no answer
        self.yes_no: dict[str, list[tuple[str, bool, bool | None, bool]]] = {}
        # question family -> the names each list answer gave (None: no readable list)
        self.lists: dict[str, list[set[str] | None]] = defaultdict(list)
        self.beliefs: dict[str, list[bool]] = {}  # outer believer -> right, per answer

    def add_yes_no(self, k: str, r: Record) -> None:
        label = yn_label(r)
        claim = None if label == IRRELEVANT else label == YES
        answer = (k.split("_")[0], ok(r), claim, r["item"]["gold"] == YES)
        self.yes_no.setdefault(name_key(meta(r)["character"]), []).append(answer)

    def add_list(self, k: str, r: Record) -> None:
        named = (r["outcome"].get("extra") or {}).get("named")
        self.lists[k.split("_")[0]].append(None if named is None else {name_key(n) for n in named})

    def add_belief(self, believer: str, right: bool) -> None:
        self.beliefs.setdefault(believer, []).append(right)

    def pairs(self) -> Iterator[tuple[bool, set[bool | None]]]:
        """Per character: whether every answer of the pair is right, and the claims
        (knows / does not / unreadable) of its yes/no and list answers."""
        for ck in dict.fromkeys([*self.yes_no, *self.beliefs]):
            right = all(self.beliefs.get(ck, ()))
            claims: set[bool | None] = set()
            for fam, yn_right, claim, gold_yes in self.yes_no.get(ck, ()):
                right = right and yn_right
                claims.add(claim)
                for named in self.lists.get(fam, ()):
                    if named is None:
                        right = False
                        claims.add(None)
                        continue
                    included = ck in named
                    right = right and included == gold_yes
                    claims.add(included)
            yield right, claims


def set_key(rec: Record) -> Any:
    return meta(rec).get("set")


def by_order(kinds: Kinds) -> dict[str, Any]:
    """Belief accuracy per ToM order (and the second orders pooled), per belief kind;
    None for a kind with a skipped item."""
    out: dict[str, Any] = {}
    for k in BELIEF_KINDS:
        right: dict[Any, int] = defaultdict(int)
        total: dict[Any, int] = defaultdict(int)
        skipped = False
        for r in kinds.get(k, []):
            if is_skipped(r):
                skipped = True
                continue
            order = meta(r).get("tom_order")
            total[order] += 1
            right[order] += ok(r)
        second = [o for o in total if str("" if o is None else o).startswith("second")]
        for order in ORDERS:
            n = total.get(order, 0)
            out[f"{k}.{ORDER_NAMES[order]}"] = None if skipped else ratio((right[order], n))
        n = sum(total[o] for o in second)
        out[f"{k}.second_order"] = None if skipped else ratio((sum(right[o] for o in second), n))
    return out


def error_types(kinds: Kinds) -> dict[str, Any]:
    """Per list and yes/no kind: questions, and shares with each kind of error."""
    out: dict[str, Any] = {}
    for k in (*LIST_KINDS, *YN_KINDS):
        rs = kinds.get(k, [])
        n = len(rs)
        fp = fn = irrelevant = failed = 0
        for r in rs:
            if is_request_error(r):
                failed += 1
                continue
            if k in LIST_KINDS:
                extra = r["outcome"].get("extra") or {}
                fp += bool(extra.get("included_unaware"))
                fn += bool(extra.get("excluded_aware"))
                irrelevant += "named" not in extra
            else:
                label, gold = yn_label(r), r["item"]["gold"]
                fp += label == YES and gold == NO
                fn += label == NO and gold == YES
                irrelevant += label == IRRELEVANT
        out[f"{k}.questions"] = n
        out[f"{k}.wrong"] = (n - sum(ok(r) for r in rs)) / n if n else None
        out[f"{k}.included_unaware"] = fp / n if n else None
        out[f"{k}.excluded_aware"] = fn / n if n else None
        out[f"{k}.unparseable"] = irrelevant / n if n else None
        out[f"{k}.request_errors"] = failed / n if n else None
    return out


def embedder_info(records: list[Record], settings: Settings) -> str:
    for r in records:
        name = (r["outcome"].get("extra") or {}).get("embedder")
        if name:
            return str(name)
    configured = describe_spec(settings.options.get("embedder"))
    for r in records:
        if kind(r) == "belief_dist" and is_skipped(r):
            return f"unavailable ({r['outcome'].get('detail')})"
    return f"{configured} (not used: no belief_dist answer was scored)"


def unavailable_reason(records: list[Record]) -> str:
    """Why the free-response figures are missing: the belief_dist items were skipped (the
    reason they carry: the extra or the embedder), or none ran (deselected)."""
    for r in records:
        if kind(r) == "belief_dist" and is_skipped(r):
            return str(r["outcome"].get("detail") or "the belief_dist items were skipped")
    return ("no belief_dist item ran in this session (deselected: -k, -m, --lf or "
            "--tom-limit); ALL* and the Dist. figures need them")


def pct(value: float | None, unavailable: bool = False) -> str:
    """Percent points, as the paper's tables (each table's caption says "in %")."""
    return points(value, "unavailable" if unavailable else "n/a")


CAPTION = "scores in % (one decimal, as the paper's tables)"


def aggregate_fantom(records: list[Record], settings: Settings) -> FamilyResult:
    grouping = str(settings.options.get("fantom_group") or "set")
    if grouping not in GROUPINGS:
        grouping = "set"
    kinds, scenarios, context = split_records(records)
    facts = kinds.get("fact", [])
    fact_f1 = mean([float(r["outcome"].get("value") or 0.0) for r in facts])
    metrics: dict[str, Any] = {"fact_token_f1": fact_f1, "fact_questions": len(facts)}
    main_rows: list[list[Any]] = []
    char_rows: list[list[Any]] = []
    order_rows: list[list[Any]] = []
    error_rows: list[list[Any]] = []
    controls = control_sets(scenarios)
    for scen, label in SCENARIOS:
        recs = scenarios.get(scen, {})
        m, missing = scenario_metrics(recs, grouping, controls if scen == "accessible" else None)
        m["fact_token_f1"] = fact_f1
        chars = per_character(recs)
        orders = by_order(recs)
        errors = error_types(recs)
        flat = {**m, **chars, **orders, **errors}
        metrics.update({f"{scen}.{k}": v for k, v in flat.items() if k != "fact_token_f1"})
        main_rows.append(
            [label, *(pct(m[c], missing and c in NEEDS_EMBEDDINGS) for c, _ in COLUMNS), m["sets"]]
        )
        char_rows.append(
            [
                label,
                pct(chars["all_for_each_character"], missing),
                pct(chars["answer_consistency"]),
                chars["characters"],
            ]
        )
        for k in BELIEF_KINDS:
            order_rows.append(
                [
                    label,
                    k,
                    *(
                        pct(orders[f"{k}.{ORDER_NAMES[o]}"], k == "belief_dist" and missing)
                        for o in ORDERS[:1]
                    ),
                    pct(orders[f"{k}.second_order"], k == "belief_dist" and missing),
                    *(
                        pct(orders[f"{k}.{ORDER_NAMES[o]}"], k == "belief_dist" and missing)
                        for o in ORDERS[1:]
                    ),
                ]
            )
        for k in (*LIST_KINDS, *YN_KINDS):
            error_rows.append(
                [
                    label,
                    k,
                    errors[f"{k}.questions"],
                    pct(errors[f"{k}.wrong"]),
                    pct(errors[f"{k}.included_unaware"]),
                    pct(errors[f"{k}.excluded_aware"]),
                    pct(errors[f"{k}.unparseable"]),
                    pct(errors[f"{k}.request_errors"]),
                ]
            )
    # the FANToM scores (the inaccessible scenario) also under their bare names, for gates
    # such as `fantom.all_star`
    for col, _ in COLUMNS:
        metrics.setdefault(col, metrics.get(f"inaccessible.{col}"))
    ctx_name = "/".join(sorted(context)) or "short"
    embedder = embedder_info(records, settings)
    tables = [
        MetricTable(
            title=f"FANToM scores ({ctx_name} context; ALL* grouped by {grouping})",
            headers=["", *(h for _, h in COLUMNS), "sets"],
            rows=main_rows,
            caption=CAPTION,
            note=(
                "Y/N = weighted F1 over yes/no/irrelevant; Belief TokenF1 over the "
                "Dist.-correct answers; fact questions belong to no scenario (same value in "
                "both rows)"
                + (
                    f"; 'unavailable': {unavailable_reason(records)}"
                    if any("unavailable" in r for r in main_rows)
                    else ""
                )
            ),
        ),
        MetricTable(
            title="FANToM per character",
            headers=["", "All for each character", "Answer consistency", "characters"],
            rows=char_rows,
            caption=CAPTION,
            note="(set, character) pairs: the characters with yes/no questions and the outer "
            "believers of belief questions; consistent = the yes/no and list answers agree on "
            "whether the character knows",
        ),
        MetricTable(
            title="FANToM belief accuracy by ToM order",
            headers=["", "question", "first-order", "second-order", "cyclic", "acyclic"],
            rows=order_rows,
            caption=CAPTION,
        ),
        MetricTable(
            title="FANToM error types",
            headers=[
                "",
                "question",
                "n",
                "wrong",
                "included unaware (FP)",
                "excluded aware (FN)",
                "unparseable",
                "request errors",
            ],
            rows=error_rows,
            caption="% of the questions of each kind (n: their number)",
        ),
    ]
    info = {"embedder": embedder, "context": ctx_name, "all_star_grouping": grouping}
    return FamilyResult(metrics=metrics, tables=tables, info=info)
