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
from pytest_tom.metrics.accuracy import AllRightGroups, Record, is_request_error, is_skipped
from pytest_tom.metrics.numbers import points
from pytest_tom.metrics.weighted_f1 import weighted_f1
from pytest_tom.scoring.embeddings import describe_spec, resolve_dtype

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


def grouping_of(settings: Settings) -> str:
    """The field ALL* and ALL group by (`--tom-fantom-group`; set by default)."""
    grouping = str(settings.options.get("fantom_group") or "set")
    return grouping if grouping in GROUPINGS else "set"


def kind(rec: Record) -> str:
    return rec["item"]["kind"]


def yn_label(rec: Record) -> str:
    parsed = rec["outcome"].get("parsed")
    return parsed if parsed in (YES, NO) else IRRELEVANT


def mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def ratio(pair: tuple[int, int]) -> float | None:
    return pair[0] / pair[1] if pair[1] else None


class AllRight:
    """Groups and whether every record of each is right (ALL*, ALL, the two Alls): an
    `AllRightGroups` of (set, group) pairs, so that the control task can count only its
    sets once every record is read."""

    __slots__ = ("groups",)

    def __init__(self) -> None:
        self.groups = AllRightGroups()

    def add(self, set_id: Any, group: Any, right: bool) -> None:
        self.groups.add((set_id, group), right)

    def counts(self, only_sets: set[Any] | None = None) -> tuple[int, int]:
        """(groups whose every record is right, groups), over `only_sets` if given."""
        keep = None if only_sets is None else (lambda sg: sg[0] in only_sets)
        return self.groups.counts(keep, project=lambda sg: sg[1])

    def sets(self, only_sets: set[Any] | None = None) -> int:
        return len({s for s, _ in self.groups.seen if only_sets is None or s in only_sets})


class ScenarioTally:
    """The figures of one scenario (the inaccessible one or the accessible control),
    counted as its ToM records are read.

    Each record is read once for every figure (Table 9, per character, by order, error
    types): the records of a 100,000-record run lie far apart in memory, and a pass
    over them costs more than the arithmetic done in it.
    """

    def __init__(self, grouping: str) -> None:
        self.field = {"set": "set", "part": "part", "conversation": "conversation"}[grouping]
        self.count: dict[str, int] = defaultdict(int)  # kind -> questions
        self.right: dict[str, int] = defaultdict(int)  # kind -> right answers
        self.star, self.plain = AllRight(), AllRight()  # ALL* (every ToM kind), ALL (no Dist.)
        self.alls = {"answerability": AllRight(), "infoaccess": AllRight()}  # grouped by set
        self.dist_skipped = False
        self.dist_right_f1: list[float] = []  # token F1 of the Dist.-correct answers
        self.yn_gold: dict[str, list[str]] = {"answerability": [], "infoaccess": []}
        self.yn_labels: dict[str, list[str]] = {"answerability": [], "infoaccess": []}
        self.by_set: dict[Any, _SetAnswers] = defaultdict(_SetAnswers)
        self.believer_skipped = False  # a belief item of an outer believer was skipped
        # belief kind -> ToM order -> [right, answered] (skipped items left out)
        self.orders: dict[str, dict[Any, list[int]]] = {k: {} for k in BELIEF_KINDS}
        self.order_skipped: set[str] = set()
        # list / yes-no kind -> [included unaware, excluded aware, unparseable, request errors]
        self.errors: dict[str, list[int]] = {k: [0, 0, 0, 0] for k in (*LIST_KINDS, *YN_KINDS)}

    def add(self, k: str, rec: Record, m: dict[str, Any]) -> None:
        """Count one ToM record of kind `k` (`m`: its meta)."""
        outcome = rec["outcome"]
        right = outcome.get("correct") is True
        set_id = m.get("set")
        self.count[k] += 1
        self.right[k] += right
        group = m.get(self.field)
        self.star.add(set_id, group, right)
        if k != "belief_dist":
            self.plain.add(set_id, group, right)
        if k in BELIEF_KINDS:
            self._belief(k, outcome, m, right, is_skipped(rec))
            return
        fam = k.split("_")[0]  # answerability / infoaccess
        self.alls[fam].add(set_id, set_id, right)
        request_error = is_request_error(rec)
        errors = self.errors[k]
        errors[3] += request_error
        if k in LIST_KINDS:
            extra = outcome.get("extra") or {}
            named = extra.get("named")
            self.by_set[set_id].add_list(fam, None if named is None else
                                         {name_key(n) for n in named})
            if not request_error:
                errors[0] += bool(extra.get("included_unaware"))
                errors[1] += bool(extra.get("excluded_aware"))
                errors[2] += "named" not in extra
            return
        parsed, gold = outcome.get("parsed"), rec["item"]["gold"]
        label = parsed if parsed in (YES, NO) else IRRELEVANT  # as `yn_label`
        self.yn_gold[fam].append(str(gold))
        self.yn_labels[fam].append(label)
        claim = None if label == IRRELEVANT else label == YES
        self.by_set[set_id].add_yes_no(name_key(m["character"]), fam, right, claim, gold == YES)
        if not request_error:
            errors[0] += label == YES and gold == NO
            errors[1] += label == NO and gold == YES
            errors[2] += label == IRRELEVANT

    def _belief(self, k: str, outcome: dict[str, Any], m: dict[str, Any], right: bool,
                skipped: bool) -> None:
        if skipped:
            self.order_skipped.add(k)
            self.dist_skipped = self.dist_skipped or k == "belief_dist"
        else:
            cell = self.orders[k].setdefault(m.get("tom_order"), [0, 0])
            cell[0] += right
            cell[1] += 1
        if k == "belief_dist" and right:
            self.dist_right_f1.append(float(outcome.get("value") or 0.0))
        believer = m.get("believer")
        if believer:
            self.by_set[m.get("set")].add_belief(name_key(believer), right)
            self.believer_skipped = self.believer_skipped or skipped

    def accuracy(self, k: str) -> float | None:
        return ratio((self.right[k], self.count[k]))

    def scenario_metrics(self, only_sets: set[Any] | None = None) -> tuple[dict[str, Any], bool]:
        """The Table 9 figures, and whether free responses were unavailable.

        `only_sets` restricts the set-level figures (ALL*, ALL, the two Alls) to those
        sets: the control task counts only fully accessible sets (`control_sets`).
        """
        missing = self.dist_skipped or bool(self.count["belief_choice"]
                                            and not self.count["belief_dist"])
        m: dict[str, Any] = {}
        plain = self.plain.counts(only_sets)
        m["all_star"] = None if missing else ratio(self.star.counts(only_sets))
        m["all"] = ratio(plain)
        m["groups"] = plain[1]
        m["sets"] = self.star.sets(only_sets)
        m["belief_choice"] = self.accuracy("belief_choice")
        m["belief_dist"] = None if missing else self.accuracy("belief_dist")
        m["belief_dist_token_f1"] = None if missing else mean(self.dist_right_f1)
        for fam, fam_all in self.alls.items():
            m[f"{fam}_list"] = self.accuracy(f"{fam}_list")
            m[f"{fam}_yn_f1"] = weighted_f1(self.yn_gold[fam], self.yn_labels[fam])
            m[f"{fam}_all"] = ratio(fam_all.counts(only_sets))
        return m, missing

    def per_character(self) -> dict[str, Any]:
        """All-for-each-character and answer consistency over (set, character) pairs.

        As the authors' evaluator forms them: a pair's answers are the character's yes/no
        answers, each belief answer whose outer believer (`meta.believer`, who holds the
        belief) is the character, and each list answer spread to the characters that have
        a yes/no question of the same kind (answerability / info access), judged by whether
        it names the character as that yes/no gold says. A character with only belief
        questions forms a pair too. Answers are consistent when the yes/no and list answers
        all say the same about whether the character knows (an unreadable answer is
        inconsistent); only pairs with yes/no questions have a consistency.
        """
        all_ok = consistent = pairs = with_claims = 0
        for answers in self.by_set.values():
            for verdict, claims in answers.pairs():
                pairs += 1
                all_ok += verdict
                if claims:
                    with_claims += 1
                    consistent += None not in claims and len(claims) == 1
        return {
            "all_for_each_character": None if self.believer_skipped else ratio((all_ok, pairs)),
            "answer_consistency": ratio((consistent, with_claims)),
            "characters": pairs,
        }

    def by_order(self) -> dict[str, Any]:
        """Belief accuracy per ToM order (and the second orders pooled), per belief kind;
        None for a kind with a skipped item."""
        out: dict[str, Any] = {}
        for k in BELIEF_KINDS:
            cells = self.orders[k]
            skipped = k in self.order_skipped
            for order in ORDERS:
                right, n = cells.get(order, (0, 0))
                out[f"{k}.{ORDER_NAMES[order]}"] = None if skipped else ratio((right, n))
            second = [c for o, c in cells.items()
                      if str("" if o is None else o).startswith("second")]
            pooled = (sum(c[0] for c in second), sum(c[1] for c in second))
            out[f"{k}.second_order"] = None if skipped else ratio(pooled)
        return out

    def error_types(self) -> dict[str, Any]:
        """Per list and yes/no kind: questions, and shares with each kind of error."""
        out: dict[str, Any] = {}
        for k, (fp, fn, irrelevant, failed) in self.errors.items():
            n = self.count[k]
            out[f"{k}.questions"] = n
            out[f"{k}.wrong"] = (n - self.right[k]) / n if n else None
            out[f"{k}.included_unaware"] = fp / n if n else None
            out[f"{k}.excluded_aware"] = fn / n if n else None
            out[f"{k}.unparseable"] = irrelevant / n if n else None
            out[f"{k}.request_errors"] = failed / n if n else None
        return out


class _SetAnswers:
    """The answers of one set that the (set, character) pairs are formed from."""

    __slots__ = ("yes_no", "lists", "beliefs")

    def __init__(self) -> None:
        # character -> (question family, right, claim, gold is yes) of each yes/no answer
        self.yes_no: dict[str, list[tuple[str, bool, bool | None, bool]]] = {}
        # question family -> the names each list answer gave (None: no readable list)
        self.lists: dict[str, list[set[str] | None]] = defaultdict(list)
        self.beliefs: dict[str, list[bool]] = {}  # outer believer -> right, per answer

    def add_yes_no(self, character: str, fam: str, right: bool, claim: bool | None,
                   gold_yes: bool) -> None:
        self.yes_no.setdefault(character, []).append((fam, right, claim, gold_yes))

    def add_list(self, fam: str, named: set[str] | None) -> None:
        self.lists[fam].append(named)

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


class Reading:
    """A FANToM suite's records, read once: each scenario's tally, the fact answers'
    token F1, the contexts named and the control sets."""

    def __init__(self, records: Iterable[Record], grouping: str) -> None:
        self.scenarios = {scen: ScenarioTally(grouping) for scen, _ in SCENARIOS}
        self.fact_f1: list[float] = []
        contexts: set[Any] = set()
        accessible: set[Any] = set()  # sets with an accessible ToM question ...
        other: set[Any] = set()  # ... and with another one
        for r in records:
            item = r["item"]
            k = item["kind"]
            m = item.get("meta") or {}
            contexts.add(m.get("context"))
            if k in TOM_KINDS:
                scen = m.get("accessibility")
                (accessible if scen == "accessible" else other).add(m.get("set"))
                tally = self.scenarios.get(scen)
                if tally is not None:
                    tally.add(k, r, m)
            elif k == "fact":
                self.fact_f1.append(float(r["outcome"].get("value") or 0.0))
        self.contexts = contexts - {None}
        # The sets of the control task: every ToM question of the set is accessible.
        # Belief questions carry their own accessibility, list and yes/no questions the
        # set's (relabelled in full context by `fantom_expand`), so a set where only some
        # belief questions are accessible, or whose lists became inaccessible in full
        # context, is not a control set.
        self.control_sets = accessible - other


def embedder_info(records: list[Record], settings: Settings) -> str:
    for r in records:
        name = (r["outcome"].get("extra") or {}).get("embedder")
        if name:
            return str(name)
    configured = describe_spec(settings.options.get("embedder"),
                               resolve_dtype(settings.options.get("embedder_dtype")))
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
    grouping = grouping_of(settings)
    reading = Reading(records, grouping)
    context = reading.contexts
    fact_f1 = mean(reading.fact_f1)
    metrics: dict[str, Any] = {"fact_token_f1": fact_f1, "fact_questions": len(reading.fact_f1)}
    main_rows: list[list[Any]] = []
    char_rows: list[list[Any]] = []
    order_rows: list[list[Any]] = []
    error_rows: list[list[Any]] = []
    for scen, label in SCENARIOS:
        tally = reading.scenarios[scen]
        m, missing = tally.scenario_metrics(reading.control_sets if scen == "accessible" else None)
        m["fact_token_f1"] = fact_f1
        chars = tally.per_character()
        orders = tally.by_order()
        errors = tally.error_types()
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
