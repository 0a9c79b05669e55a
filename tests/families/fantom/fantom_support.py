"""FANToM test helpers: answerers for the python backend, and an independent computation
of the expected FANToM table from the rules (it shares no code with pytest_tom's
FANToM family: parsing results come from how each answer was written, aggregation
is written again here).

Answerers (used as `--tom-model=python:tests/families/fantom/fantom_support.py:<name>`):
- `personx`: always takes the PersonX-centric view (what each character could hear);
- `omniscient`: assumes every character heard everything (the model's own view);
- `mixed`: a deterministic mix of right, wrong and unreadable answers, avoiding the
  cases where pytest-tom deliberately differs from the authors' evaluator.
"""

from __future__ import annotations

import zlib
from collections import Counter, defaultdict
from types import SimpleNamespace
from typing import Any

YN = ("answerability_yn", "infoaccess_yn")
LISTS = ("answerability_list", "infoaccess_list")
TOM = ("belief_choice", "belief_dist", *LISTS, *YN)


def other(letter: str) -> str:
    return "b" if letter == "a" else "a"


def personx(req: Any) -> str:
    it = req.item
    if it.kind == "belief_choice":
        return f"({it.meta['gold_letter']})"
    if it.kind in LISTS:
        return ", ".join(it.gold)
    if it.kind in YN:
        return "Yes." if it.gold == "yes" else "No."
    return str(it.gold)


def omniscient(req: Any) -> str:
    it = req.item
    inaccessible = it.meta.get("accessibility") == "inaccessible"
    if it.kind == "belief_choice":
        g = it.meta["gold_letter"]
        return f"({other(g) if inaccessible else g})"
    if it.kind == "belief_dist":
        return it.meta["wrong_answer"] if inaccessible else str(it.gold)
    if it.kind in LISTS:
        return ", ".join([*it.meta["aware"], *it.meta["unaware"]])
    if it.kind in YN:
        return "Yes."
    return str(it.gold)


class Plan:
    """A mixed answer and what the rules make of it (None where embeddings decide).

    A plain class, not a dataclass: the python backend loads this file from its path
    without registering it in sys.modules, which dataclasses need.
    """

    def __init__(
        self,
        text: str,
        correct: bool | None = None,
        label: str | None = None,
        named: list[str] | None = None,
    ):
        self.text = text
        self.correct = correct
        self.label = label  # yes/no: yes | no | irrelevant
        self.named = named  # lists: the characters the answer names


def pick(item_id: str, n: int) -> int:
    return zlib.crc32(item_id.encode()) % n


def plan(it: Any) -> Plan:
    """The mixed answer for an item (an ItemView or a report record's item).

    In about a third of the sets every answer is right (in varied forms), so that
    ALL*, ALL and the All columns are neither 0 nor 100; elsewhere the form is
    picked from the item id among right, wrong and unreadable ones.
    """
    options = _options(it)
    if it.kind == "fact" or pick(str(it.meta["set"]), 3):
        return options[pick(it.id, len(options))]
    right = [p for p in options if p.correct is True or (p.correct is None and p.text == it.gold)]
    return right[pick(it.id, len(right))]


def _options(it: Any) -> list[Plan]:
    kind, meta, gold = it.kind, it.meta, it.gold
    if kind == "fact":
        words = str(gold).split()
        return [
            Plan(t)
            for t in (
                str(gold),
                "I am not sure about that.",
                " ".join(words[: len(words) // 2]),
                f"Answer: {gold}",
                "They talked about it earlier.",
                str(gold).upper(),
            )
        ]
    if kind == "belief_choice":
        g, w = meta["gold_letter"], other(meta["gold_letter"])
        return [
            Plan(f"({g})", True),
            Plan(f"{g}) {it.choices[0 if g == 'a' else 1][3:]}", True),
            Plan(f"({w})", False),
            Plan(f"I would say the answer is ({g}).", True),
            Plan("I cannot tell from the conversation.", False),
            Plan(f"{w.upper()}.", False),
        ]
    if kind == "belief_dist":  # judged by the embeddings (None here)
        wrong = meta["wrong_answer"]
        return [
            Plan(t)
            for t in (
                str(gold),
                wrong,
                f"I think {gold[0].lower()}{gold[1:]}",
                wrong.lower(),
                str(gold),
                "They were talking about the weekend.",
            )
        ]
    if kind in LISTS:
        aware, unaware = list(meta["aware"]), list(meta["unaware"])
        options = [
            Plan(", ".join(aware), named=aware),
            Plan(f"{' and '.join(aware)} know it.", named=aware),
            Plan(", ".join(aware + unaware[:1]), named=aware + unaware[:1]),
            Plan(", ".join(aware[:-1]) if len(aware) > 1 else "Nobody.", named=aware[:-1]),
            Plan(", ".join(reversed(aware + unaware)), named=aware + unaware),
            Plan(", ".join(aware), named=aware),
        ]
        for p in options:
            p.correct = set(p.named or []) == set(aware)
        return options
    name = meta["character"]
    forms = [
        ("Yes.", "yes"),
        ("No.", "no"),
        (f"Yes, {name} knows it.", "yes"),
        (f"{name} does not know the answer.", "no"),
        ("It is unclear from the conversation.", "irrelevant"),
        ("no", "no"),
    ]
    return [Plan(text, label == gold, label=label) for text, label in forms]


def mixed(req: Any) -> str:
    return plan(req.item).text


def cot(req: Any) -> str:
    """Chain of thought: the reasoning names the wrong option; only the answer is scored."""
    if req.step == 0:
        wrong = "(a)" if req.item.meta.get("gold_letter") == "b" else "(b)"
        return f"Maybe {wrong}, everyone knows. Yes, they all heard it."
    return personx(req)


def fails(req: Any) -> str:
    if req.item.kind in ("answerability_yn", "answerability_list"):
        raise RuntimeError("model unavailable")
    return personx(req)


# -- the expected table, written again from the rules ---------------------------------


def view(rec: dict[str, Any]) -> Any:
    """A report record's item as the namespace the answerers see."""
    it = rec["item"]
    return SimpleNamespace(
        id=it["id"],
        kind=it["kind"],
        meta=it["meta"],
        gold=it["gold"],
        choices=[f"{'ab'[i]}) {c}" for i, c in enumerate(it["choices"])],
    )


def token_f1(a: str, b: str, lowercase: bool = True) -> float:
    pa, pb = (a.lower().split(), b.lower().split()) if lowercase else (a.split(), b.split())
    shared = sum(min(pa.count(t), pb.count(t)) for t in set(pa))
    if not shared:
        return 0.0
    p, r = shared / len(pa), shared / len(pb)
    return 2 * p * r / (p + r)


def weighted_f1(gold: list[str], pred: list[str]) -> float:
    """Written out per label: F1 of each gold label times its share of the gold labels."""
    total = 0.0
    for label, support in Counter(gold).items():
        tp = sum(1 for g, p in zip(gold, pred, strict=True) if g == p == label)
        predicted = pred.count(label)
        if tp == 0:
            continue
        precision, recall = tp / predicted, tp / support
        total += support * 2 * precision * recall / (precision + recall)
    return total / len(gold)


def expected(
    records: list[dict[str, Any]],
    dist_correct: dict[str, bool],
    group: str = "set",
    answer: Any = plan,
) -> dict[str, Any]:
    """Every FANToM figure for the answers `answer(item)` would give, from the rules."""
    out: dict[str, Any] = {}
    facts = [r for r in records if r["item"]["kind"] == "fact"]
    out["fact_token_f1"] = sum(
        token_f1(answer(view(r)).text.split("Answer:")[-1].strip(), r["item"]["gold"])
        for r in facts
    ) / len(facts)
    # the control task's set-level figures count only the sets whose every ToM question
    # is accessible
    tom_sets: dict[str, set[Any]] = defaultdict(set)
    for r in records:
        if r["item"]["kind"] in TOM:
            tom_sets[r["item"]["meta"]["set"]].add(r["item"]["meta"]["accessibility"])
    control = {k for k, v in tom_sets.items() if v == {"accessible"}}
    for scen in ("inaccessible", "accessible"):
        recs = [r for r in records if r["item"]["meta"].get("accessibility") == scen]
        set_recs = recs if scen == "inaccessible" else [
            r for r in recs if r["item"]["meta"]["set"] in control]
        judged: dict[str, bool] = {}
        plans: dict[str, Plan] = {}
        for r in recs:
            p = answer(view(r))
            plans[r["item"]["id"]] = p
            judged[r["item"]["id"]] = (
                dist_correct[r["item"]["id"]]
                if r["item"]["kind"] == "belief_dist"
                else bool(p.correct)
            )

        def share(
            kinds: tuple[str, ...],
            key: str,
            recs: list[dict[str, Any]] = set_recs,
            judged: dict[str, bool] = judged,
        ) -> float | None:
            groups: dict[str, list[bool]] = defaultdict(list)
            for r in recs:
                if r["item"]["kind"] in kinds:
                    groups[r["item"]["meta"][key]].append(judged[r["item"]["id"]])
            return sum(all(v) for v in groups.values()) / len(groups) if groups else None

        def acc(
            kind: str, recs: list[dict[str, Any]] = recs, judged: dict[str, bool] = judged
        ) -> float | None:
            sel = [judged[r["item"]["id"]] for r in recs if r["item"]["kind"] == kind]
            return sum(sel) / len(sel) if sel else None

        m: dict[str, Any] = {
            "all_star": share(TOM, group),
            "all": share(tuple(k for k in TOM if k != "belief_dist"), group),
            "belief_choice": acc("belief_choice"),
            "belief_dist": acc("belief_dist"),
        }
        right_dist = [
            r for r in recs if r["item"]["kind"] == "belief_dist" and judged[r["item"]["id"]]
        ]
        m["belief_dist_token_f1"] = (
            sum(token_f1(plans[r["item"]["id"]].text, r["item"]["gold"], lowercase=False)
                for r in right_dist)
            / len(right_dist)
            if right_dist
            else None
        )
        for fam in ("answerability", "infoaccess"):
            m[f"{fam}_list"] = acc(f"{fam}_list")
            yn = [r for r in recs if r["item"]["kind"] == f"{fam}_yn"]
            m[f"{fam}_yn_f1"] = (
                weighted_f1(
                    [r["item"]["gold"] for r in yn], [plans[r["item"]["id"]].label for r in yn]
                )
                if yn
                else None
            )
            m[f"{fam}_all"] = share((f"{fam}_list", f"{fam}_yn"), "set")
        m.update(_per_character(recs, plans, judged))
        m.update(_by_order(recs, judged))
        m.update(_errors(recs, plans))
        for k, v in m.items():
            out[f"{scen}.{k}"] = v
    return out


def _per_character(
    recs: list[dict[str, Any]], plans: dict[str, Plan], judged: dict[str, bool]
) -> dict[str, Any]:
    """(set, character) groups: yes/no characters and outer believers; a list answer counts
    for each character with a yes/no question of its kind, right when it names the
    character exactly when that yes/no gold is yes."""
    sets: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in recs:
        sets[r["item"]["meta"]["set"]].append(r)
    all_ok, consistent = [], []
    for rs in sets.values():
        yn = [r for r in rs if r["item"]["kind"] in YN]
        names = [r["item"]["meta"]["character"] for r in yn] + [
            r["item"]["meta"]["believer"]
            for r in rs
            if r["item"]["kind"] in ("belief_choice", "belief_dist")
        ]
        for name in dict.fromkeys(names):
            verdicts, claims = [], []
            for r in yn:
                it, p = r["item"], plans[r["item"]["id"]]
                if it["meta"]["character"] != name:
                    continue
                verdicts.append(judged[it["id"]])
                claims.append(None if p.label == "irrelevant" else p.label == "yes")
                list_kind = it["kind"].replace("_yn", "_list")
                for x in rs:
                    if x["item"]["kind"] == list_kind:
                        named = name in (plans[x["item"]["id"]].named or [])
                        verdicts.append(named == (it["gold"] == "yes"))
                        claims.append(named)
            for r in rs:
                it = r["item"]
                if it["kind"] in ("belief_choice", "belief_dist") and it["meta"]["believer"] == name:
                    verdicts.append(judged[it["id"]])
            all_ok.append(all(verdicts))
            if claims:
                consistent.append(None not in claims and len(set(claims)) == 1)
    return {
        "all_for_each_character": sum(all_ok) / len(all_ok) if all_ok else None,
        "answer_consistency": sum(consistent) / len(consistent) if consistent else None,
    }


def _by_order(recs: list[dict[str, Any]], judged: dict[str, bool]) -> dict[str, Any]:
    out = {}
    names = {
        "first-order": "first_order",
        "second-order:cyclic": "second_order_cyclic",
        "second-order:acyclic": "second_order_acyclic",
    }
    for kind in ("belief_choice", "belief_dist"):
        for order, name in names.items():
            sel = [
                judged[r["item"]["id"]]
                for r in recs
                if r["item"]["kind"] == kind and r["item"]["meta"]["tom_order"] == order
            ]
            out[f"{kind}.{name}"] = sum(sel) / len(sel) if sel else None
    return out


def _errors(recs: list[dict[str, Any]], plans: dict[str, Plan]) -> dict[str, Any]:
    out = {}
    for kind in (*LISTS, *YN):
        rs = [r for r in recs if r["item"]["kind"] == kind]
        fp = fn = 0
        for r in rs:
            p, it = plans[r["item"]["id"]], r["item"]
            if kind in LISTS:
                fp += any(n in (p.named or []) for n in it["meta"]["unaware"])
                fn += any(n not in (p.named or []) for n in it["meta"]["aware"])
            else:
                fp += p.label == "yes" and it["gold"] == "no"
                fn += p.label == "no" and it["gold"] == "yes"
        out[f"{kind}.included_unaware"] = fp / len(rs) if rs else None
        out[f"{kind}.excluded_aware"] = fn / len(rs) if rs else None
    return out
