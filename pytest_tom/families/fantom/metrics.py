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
from collections.abc import Callable, Iterable
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


def share_all_correct(recs: Iterable[Record], key: Callable[[Record], Any]) -> tuple[int, int]:
    """(groups whose every record is right, groups)."""
    groups: dict[Any, bool] = {}
    for r in recs:
        k = key(r)
        groups[k] = groups.get(k, True) and ok(r)
    return sum(groups.values()), len(groups)


def ratio(pair: tuple[int, int]) -> float | None:
    return pair[0] / pair[1] if pair[1] else None


def group_key(grouping: str) -> Callable[[Record], Any]:
    field = {"set": "set", "part": "part", "conversation": "conversation"}[grouping]
    return lambda r: meta(r).get(field)


def set_key(rec: Record) -> Any:
    return meta(rec).get("set")


def control_sets(records: Iterable[Record]) -> set[Any]:
    """The sets of the control task: every ToM question of the set is accessible.

    Belief questions carry their own accessibility, list and yes/no questions the
    set's (relabelled in full context by `fantom_expand`), so a set where only some
    belief questions are accessible, or whose lists became inaccessible in full
    context, is not a control set.
    """
    sets: dict[Any, bool] = {}
    for r in records:
        if kind(r) in TOM_KINDS:
            k = set_key(r)
            sets[k] = sets.get(k, True) and meta(r).get("accessibility") == "accessible"
    return {k for k, accessible in sets.items() if accessible}


def scenario_metrics(
    recs: list[Record], grouping: str, only_sets: set[Any] | None = None
) -> tuple[dict[str, Any], bool]:
    """The Table 9 figures of one scenario, and whether free responses were unavailable.

    `only_sets` restricts the set-level figures (ALL*, ALL, the two Alls) to those sets:
    the control task counts only fully accessible sets (`control_sets`).
    """
    by_kind: dict[str, list[Record]] = defaultdict(list)
    for r in recs:
        by_kind[kind(r)].append(r)
    dist = by_kind["belief_dist"]
    missing = any(is_skipped(r) for r in dist) or bool(by_kind["belief_choice"] and not dist)
    key = group_key(grouping)
    grouped = recs if only_sets is None else [r for r in recs if set_key(r) in only_sets]
    m: dict[str, Any] = {}
    star = share_all_correct(grouped, key)
    plain = share_all_correct([r for r in grouped if kind(r) != "belief_dist"], key)
    m["all_star"] = None if missing else ratio(star)
    m["all"] = ratio(plain)
    m["groups"] = plain[1]
    m["sets"] = len({set_key(r) for r in grouped})
    m["belief_choice"] = accuracy(by_kind["belief_choice"])
    m["belief_dist"] = None if missing else accuracy(dist)
    right = [float(r["outcome"].get("value") or 0.0) for r in dist if ok(r)]
    m["belief_dist_token_f1"] = None if missing else mean(right)
    for fam in ("answerability", "infoaccess"):
        lst, yn = by_kind[f"{fam}_list"], by_kind[f"{fam}_yn"]
        m[f"{fam}_list"] = accuracy(lst)
        m[f"{fam}_yn_f1"] = weighted_f1(
            [str(r["item"]["gold"]) for r in yn], [yn_label(r) for r in yn]
        )
        both = lst + yn if only_sets is None else [r for r in lst + yn if set_key(r) in only_sets]
        m[f"{fam}_all"] = ratio(share_all_correct(both, set_key))
    return m, missing


def per_character(recs: list[Record]) -> dict[str, Any]:
    """All-for-each-character and answer consistency over (set, character) pairs.

    As the authors' evaluator forms them: a pair's answers are the character's yes/no
    answers, each belief answer whose outer believer (`meta.believer`, who holds the
    belief) is the character, and each list answer spread to the characters that have a
    yes/no question of the same kind (answerability / info access), judged by whether it
    names the character as that yes/no gold says. A character with only belief
    questions forms a pair too. Answers are consistent when the yes/no and list answers
    all say the same about whether the character knows (an unreadable answer is
    inconsistent); only pairs with yes/no questions have a consistency.
    """
    by_set: dict[Any, list[Record]] = defaultdict(list)
    for r in recs:
        by_set[set_key(r)].append(r)
    all_ok: list[bool] = []
    consistent: list[bool] = []
    unavailable = False
    for rs in by_set.values():
        yn = [r for r in rs if kind(r) in YN_KINDS]
        lists = [r for r in rs if kind(r) in LIST_KINDS]
        beliefs = [r for r in rs if kind(r) in BELIEF_KINDS]
        chars = dict.fromkeys(
            [name_key(meta(r)["character"]) for r in yn]
            + [name_key(meta(r)["believer"]) for r in beliefs if meta(r).get("believer")]
        )
        for ck in chars:
            verdicts: list[bool] = []
            claims: list[bool | None] = []
            for r in yn:
                if name_key(meta(r)["character"]) != ck:
                    continue
                verdicts.append(ok(r))
                label = yn_label(r)
                claims.append(None if label == IRRELEVANT else label == YES)
                lst = [x for x in lists if kind(x).split("_")[0] == kind(r).split("_")[0]]
                for x in lst:
                    named = (x["outcome"].get("extra") or {}).get("named")
                    if named is None:
                        verdicts.append(False)
                        claims.append(None)
                        continue
                    included = ck in {name_key(n) for n in named}
                    verdicts.append(included == (r["item"]["gold"] == YES))
                    claims.append(included)
            for r in beliefs:
                if meta(r).get("believer") and name_key(meta(r)["believer"]) == ck:
                    unavailable = unavailable or is_skipped(r)
                    verdicts.append(ok(r))
            all_ok.append(all(verdicts))
            if claims:
                consistent.append(None not in claims and len(set(claims)) == 1)
    return {
        "all_for_each_character": None if unavailable else mean([float(v) for v in all_ok]),
        "answer_consistency": mean([float(v) for v in consistent]),
        "characters": len(all_ok),
    }


def by_order(recs: list[Record]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k in BELIEF_KINDS:
        rs = [r for r in recs if kind(r) == k and not is_skipped(r)]
        skipped = any(is_skipped(r) for r in recs if kind(r) == k)
        for order in ORDERS:
            sel = [r for r in rs if meta(r).get("tom_order") == order]
            out[f"{k}.{ORDER_NAMES[order]}"] = None if skipped else accuracy(sel)
        second = [r for r in rs if str(meta(r).get("tom_order", "")).startswith("second")]
        out[f"{k}.second_order"] = None if skipped else accuracy(second)
    return out


def error_types(recs: list[Record]) -> dict[str, Any]:
    """Per list and yes/no kind: questions, and shares with each kind of error."""
    out: dict[str, Any] = {}
    for k in (*LIST_KINDS, *YN_KINDS):
        rs = [r for r in recs if kind(r) == k]
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
    context = {meta(r).get("context") for r in records} - {None}
    facts = [r for r in records if kind(r) == "fact"]
    fact_f1 = mean([float(r["outcome"].get("value") or 0.0) for r in facts])
    metrics: dict[str, Any] = {"fact_token_f1": fact_f1, "fact_questions": len(facts)}
    main_rows: list[list[Any]] = []
    char_rows: list[list[Any]] = []
    order_rows: list[list[Any]] = []
    error_rows: list[list[Any]] = []
    controls = control_sets(records)
    for scen, label in SCENARIOS:
        recs = [r for r in records if meta(r).get("accessibility") == scen and kind(r) in TOM_KINDS]
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
