"""FANToM's tables in the paper's layout, and the figures beyond its declared metrics,
separately for the inaccessible scenario (the FANToM scores) and the accessible control:
the columns of the paper's Table 9, per character scores and answer consistency, belief
accuracy by ToM order, and the error types of list and yes/no answers.

Every cell that shows a declared metric (`fantom.headline`: Table 9 of both scenarios
except the control's set-level columns, and the ToM orders) shows the value the engine
computed from its declaration (`declared`), never a count of its own. Counted here,
because no selection of one record can express them: the control task's set-level
figures (ALL*, ALL, the two Alls and the groups and sets behind them: they count only the
sets whose every ToM question is accessible, a property of the whole set), the
per-character figures (formed across a set's answers), and the error types (they read
the outcome's `extra`, which a selection may not read).

Records are plain dicts (see `pytest_tom.metrics.accuracy`); everything needed is in
`item.meta` and the outcome. Request errors count as wrong answers (and as "irrelevant"
yes/no labels); skipped `belief_dist` items (no embeddings) make ALL*, Dist. and
All-for-each-character unavailable (None), never a number.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from collections.abc import Iterator
from collections.abc import Mapping
from typing import Any
from typing import cast

from pytest_tom.families.fantom.expand import BELIEF_KINDS
from pytest_tom.families.fantom.expand import LIST_KINDS
from pytest_tom.families.fantom.expand import TOM_KINDS
from pytest_tom.families.fantom.expand import YN_KINDS
from pytest_tom.families.fantom.expand import FantomMeta
from pytest_tom.families.fantom.headline import ACCESSIBLE
from pytest_tom.families.fantom.headline import INACCESSIBLE
from pytest_tom.families.fantom.headline import ORDER_NAMES
from pytest_tom.families.fantom.headline import PREFIX
from pytest_tom.families.fantom.headline import grouping_of
from pytest_tom.families.fantom.parsing import IRRELEVANT
from pytest_tom.families.fantom.parsing import NO
from pytest_tom.families.fantom.parsing import YES
from pytest_tom.families.fantom.schema import ORDERS
from pytest_tom.families.fantom.schema import name_key
from pytest_tom.families.kit import CUT_OFF
from pytest_tom.families.kit import ERROR
from pytest_tom.families.kit import SKIPPED
from pytest_tom.families.kit import AllRightGroups
from pytest_tom.families.kit import FamilyResult
from pytest_tom.families.kit import MetricTable
from pytest_tom.families.kit import Record
from pytest_tom.families.kit import RecordView
from pytest_tom.families.kit import Settings
from pytest_tom.families.kit import Value
from pytest_tom.families.kit import answer_rows
from pytest_tom.families.kit import describe_spec
from pytest_tom.families.kit import extra_of
from pytest_tom.families.kit import is_skipped
from pytest_tom.families.kit import kind_of
from pytest_tom.families.kit import points
from pytest_tom.families.kit import resolve_dtype

SCENARIOS = ((INACCESSIBLE, "inaccessible"), (ACCESSIBLE, "control"))
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
# the control task's columns counted here, over its control sets (see the module docstring)
CONTROL_SET_LEVEL = ("all_star", "all", "answerability_all", "infoaccess_all")
NEEDS_EMBEDDINGS = ("all_star", "belief_dist", "belief_dist_token_f1", "all_for_each_character")
ORDER_COLUMNS = (ORDERS[0], "second_order", *ORDERS[1:])  # the ToM order table's columns
# list / yes-no kind -> its question family (answerability / infoaccess)
QUESTION_FAMILY = {k: k.split("_")[0] for k in (*LIST_KINDS, *YN_KINDS)}


kind = kind_of


def ratio(pair: tuple[int, int]) -> float | None:
    return pair[0] / pair[1] if pair[1] else None


def declared_name(scenario: str, column: str) -> str:
    """The declared metric a Table 9 cell shows (the fact column is the same in both)."""
    return column if column == "fact_token_f1" else f"{PREFIX[scenario]}{column}"


def order_name(scenario: str, belief_kind: str, order: str) -> str:
    """The declared metric of a cell of the ToM order table."""
    return f"{scenario}.{belief_kind}.{ORDER_NAMES.get(order, order)}"


class ControlSets:
    """The control task's set-level figures (ALL*, ALL, the two Alls): an `AllRightGroups`
    of (set, group) pairs each, so that only the control sets are counted once every
    record is read."""

    __slots__ = ("star", "plain", "alls")

    def __init__(self) -> None:
        self.star, self.plain = AllRightGroups(), AllRightGroups()  # every ToM kind; no Dist.
        self.alls = {"answerability": AllRightGroups(), "infoaccess": AllRightGroups()}

    def add(self, k: str, set_id: Any, group: Any, right: bool) -> None:
        self.star.add((set_id, group), right)
        if k != "belief_dist":
            self.plain.add((set_id, group), right)
        if k not in BELIEF_KINDS:
            self.alls[QUESTION_FAMILY[k]].add((set_id, set_id), right)

    def figures(self, only_sets: set[Any], missing: bool) -> dict[str, float | None]:
        """The set-level figures over `only_sets`, and the groups and sets they count."""
        def counts(groups: AllRightGroups) -> tuple[int, int]:
            return groups.counts(lambda sg: sg[0] in only_sets, project=lambda sg: sg[1])

        plain = counts(self.plain)
        return {
            "all_star": None if missing else ratio(counts(self.star)),
            "all": ratio(plain),
            "groups": plain[1],
            "sets": len({s for s, _ in self.star.seen if s in only_sets}),
            **{f"{fam}_all": ratio(counts(groups)) for fam, groups in self.alls.items()},
        }


class ScenarioTally:
    """What one scenario's figures need beyond the declared metrics, gathered as its ToM
    records are read: whether free responses were skipped, the per-character answers, the
    error types and (for the control task) the set-level counts.

    Each record is read once for all of them: the records of a 100,000-record run lie far
    apart in memory, and a pass over them costs more than the arithmetic done in it.
    """

    def __init__(self, grouping: str, control: bool) -> None:
        self.field = {"set": "set", "part": "part", "conversation": "conversation"}[grouping]
        self.count: dict[str, int] = defaultdict(int)  # kind -> questions
        self.right: dict[str, int] = defaultdict(int)  # list / yes-no kind -> right answers
        self.cut: dict[str, int] = defaultdict(int)  # ... -> answers cut off by the budget
        self.sets: set[Any] = set()
        self.control = ControlSets() if control else None
        self.skipped_kinds: set[str] = set()  # belief kinds with a skipped item
        self.by_set: dict[Any, _SetAnswers] = defaultdict(_SetAnswers)
        self.believer_skipped = False  # a belief item of an outer believer was skipped
        # list / yes-no kind -> [included unaware, excluded aware, unparseable, request errors]
        self.errors: dict[str, list[int]] = {k: [0, 0, 0, 0] for k in (*LIST_KINDS, *YN_KINDS)}

    def add(self, k: str, m: FantomMeta, state: str, correct: bool | None, parsed: Any,
            gold: Any, extra: Mapping[str, Any]) -> None:
        """Count one ToM record of kind `k`: its meta, status and outcome's fields (as
        `answer_rows` reads them)."""
        right = correct is True
        set_id = m.get("set")
        self.count[k] += 1
        self.sets.add(set_id)
        if self.control is not None:
            self.control.add(k, set_id, m.get(self.field), right)
        if k in BELIEF_KINDS:
            skipped = state == SKIPPED
            if skipped:
                self.skipped_kinds.add(k)
            believer = m.get("believer")
            if believer:
                self.by_set[set_id].add_belief(name_key(believer), right)
                self.believer_skipped = self.believer_skipped or skipped
            return
        fam = QUESTION_FAMILY[k]
        self.right[k] += right
        request_error = state == ERROR
        # no answer to analyse: a failed request, or an answer the budget cut off (counted
        # apart by the core block, never as one of the authors' error types)
        no_answer = request_error or state == CUT_OFF
        errors = self.errors[k]
        errors[3] += request_error
        self.cut[k] += state == CUT_OFF
        if k in LIST_KINDS:
            named = extra.get("named")
            self.by_set[set_id].add_list(fam, None if named is None else
                                         {name_key(n) for n in named})
            if not no_answer:
                errors[0] += bool(extra.get("included_unaware"))
                errors[1] += bool(extra.get("excluded_aware"))
                errors[2] += "named" not in extra
            return
        label = parsed if parsed in (YES, NO) else IRRELEVANT  # as `headline.yn_label`
        claim = None if label == IRRELEVANT else label == YES
        self.by_set[set_id].add_yes_no(name_key(m["character"]), fam, right, claim, gold == YES)
        if not no_answer:
            errors[0] += label == YES and gold == NO
            errors[1] += label == NO and gold == YES
            errors[2] += label == IRRELEVANT

    @property
    def missing(self) -> bool:
        """Whether the free responses are unavailable: a belief_dist item was skipped, or
        none ran while belief_choice items did (deselected)."""
        return "belief_dist" in self.skipped_kinds or bool(self.count["belief_choice"]
                                                            and not self.count["belief_dist"])

    def per_character(self) -> dict[str, float | None]:
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

    def error_types(self) -> dict[str, float | None]:
        """Per list and yes/no kind: questions, and shares with each kind of error."""
        out: dict[str, float | None] = {}
        for k, (fp, fn, irrelevant, failed) in self.errors.items():
            n = self.count[k]
            out[f"{k}.questions"] = n
            # not right, and not cut off (a cut-off answer is never a wrong one)
            out[f"{k}.wrong"] = (n - self.right[k] - self.cut[k]) / n if n else None
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
    """A FANToM suite's records, read once: each scenario's tally, the contexts named and
    the control sets."""

    def __init__(self, records: Iterable[Record], grouping: str) -> None:
        self.scenarios = {scen: ScenarioTally(grouping, control=scen == ACCESSIBLE)
                          for scen, _ in SCENARIOS}
        contexts: set[Any] = set()
        accessible: set[Any] = set()  # sets with an accessible ToM question ...
        other: set[Any] = set()  # ... and with another one
        for _, k, meta, _, state, _, correct, parsed, gold, extra in answer_rows(records):
            m = cast(FantomMeta, meta)  # as `expand.Expander` wrote it
            contexts.add(m.get("context"))
            if k in TOM_KINDS:
                scen = m.get("accessibility")
                (accessible if scen == ACCESSIBLE else other).add(m.get("set"))
                tally = self.scenarios.get(scen) if scen is not None else None
                if tally is not None:
                    tally.add(k, m, state, correct, parsed, gold, extra)
        self.contexts = contexts - {None}
        # The sets of the control task: every ToM question of the set is accessible.
        # Belief questions carry their own accessibility, list and yes/no questions the
        # set's (relabelled in full context by `fantom_expand`), so a set where only some
        # belief questions are accessible, or whose lists became inaccessible in full
        # context, is not a control set.
        self.control_sets = accessible - other


def embedder_info(records: list[Record], settings: Settings) -> str:
    for r in records:
        name = extra_of(r).get("embedder")
        if name:
            return str(name)
    configured = describe_spec(settings.options.get("embedder"),
                               resolve_dtype(settings.options.get("embedder_dtype")))
    for r in records:
        if kind(r) == "belief_dist" and is_skipped(r):
            return f"unavailable ({RecordView(r).detail})"
    return f"{configured} (not used: no belief_dist answer was scored)"


def unavailable_reason(records: list[Record]) -> str:
    """Why the free-response figures are missing: the belief_dist items were skipped (the
    reason they carry: the extra or the embedder), or none ran (deselected)."""
    for r in records:
        if kind(r) == "belief_dist" and is_skipped(r):
            return str(RecordView(r).detail or "the belief_dist items were skipped")
    return ("no belief_dist item ran in this session (deselected: -k, -m, --lf or "
            "--tom-limit); ALL* and the Dist. figures need them")


def pct(value: float | None, unavailable: bool = False) -> str:
    """Percent points, as the paper's tables (each table's caption says "in %")."""
    return points(value, "unavailable" if unavailable else "n/a")


CAPTION = "scores in % (one decimal, as the paper's tables)"


def scenario_figures(scen: str, tally: ScenarioTally, declared: Mapping[str, Value],
                     control_sets: set[Any]) -> dict[str, float | None]:
    """A scenario's Table 9 figures, by column, with `groups` and `sets`: the declared
    values, and for the control task its set-level figures over the control sets; None
    for a figure that needs the free responses when they are unavailable."""
    missing = tally.missing
    if tally.control is not None:
        own = tally.control.figures(control_sets, missing)
    else:
        own = {"groups": declared["all"].count()[1], "sets": len(tally.sets)}
    m: dict[str, float | None] = {}
    for col, _ in COLUMNS:
        if col in own:
            m[col] = own[col]
        else:
            m[col] = None if missing and col in NEEDS_EMBEDDINGS else \
                declared[declared_name(scen, col)].value
    m["groups"], m["sets"] = own["groups"], own["sets"]
    return m


def order_figures(scen: str, tally: ScenarioTally,
                  declared: Mapping[str, Value]) -> dict[str, float | None]:
    """Belief accuracy per ToM order (and the second orders pooled), per belief kind, as
    declared; None for a kind with a skipped item."""
    return {f"{k}.{ORDER_NAMES.get(o, o)}":
            None if k in tally.skipped_kinds else declared[order_name(scen, k, o)].value
            for k in BELIEF_KINDS for o in ORDER_COLUMNS}


def unavailable_declared(reading: Reading, declared: Mapping[str, Value]) -> dict[str, None]:
    """The declared metrics with no number in this run, reported as None (the engine keeps
    them so, and a metric that selected nothing stays in the report as null): those that
    need the free responses when they are unavailable, the ToM orders of a belief kind
    with a skipped item, and those with nothing to count."""
    out: dict[str, None] = {}
    for scen, _ in SCENARIOS:
        tally = reading.scenarios[scen]
        if tally.missing:
            out.update({declared_name(scen, c): None for c in NEEDS_EMBEDDINGS
                        if declared_name(scen, c) in declared})
        out.update({order_name(scen, k, o): None for k in tally.skipped_kinds
                    for o in ORDER_COLUMNS})
    out.update({name: None for name, v in declared.items() if v.value is None})
    return out


def aggregate(records: list[Record], settings: Settings,
              declared: Mapping[str, Value]) -> FamilyResult:
    """The figures beyond the declared metrics and the tables, which show the declared
    values (`declared`, see the module docstring)."""
    grouping = grouping_of(settings)
    reading = Reading(records, grouping)
    context = reading.contexts
    metrics: dict[str, float | int | None] = {
        "fact_questions": declared["fact_token_f1"].count("sum", "n")[1]}
    main_rows: list[list[Any]] = []
    char_rows: list[list[Any]] = []
    order_rows: list[list[Any]] = []
    error_rows: list[list[Any]] = []
    for scen, label in SCENARIOS:
        tally = reading.scenarios[scen]
        missing = tally.missing
        m = scenario_figures(scen, tally, declared, reading.control_sets)
        chars = tally.per_character()
        orders = order_figures(scen, tally, declared)
        errors = tally.error_types()
        flat = {**m, **chars, **orders, **errors}
        metrics.update({f"{scen}.{k}": v for k, v in flat.items()
                        if k != "fact_token_f1" and f"{scen}.{k}" not in declared})
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
            unavailable = k == "belief_dist" and missing
            order_rows.append([label, k, *(pct(orders[f"{k}.{ORDER_NAMES.get(o, o)}"], unavailable)
                                           for o in ORDER_COLUMNS)])
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
    # the declared metrics (the FANToM scores under their bare names, for gates such as
    # `fantom.all_star`) are set by the engine; those without a number here stay None
    metrics.update(unavailable_declared(reading, declared))
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
