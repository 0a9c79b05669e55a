"""Expanding a FANToM conversation into items: per set, a fact question, a choice and
a free-response item per belief question, two list questions, and a yes/no question
per character for answerability and info access.

The context option decides which questions exist and which scenario they count in
(as the authors' evaluator does):

- `short`: binary questions whose gold is `no:long` (characters absent from the
  short context) are dropped; list and yes/no questions take the set's accessibility.
- `full`: `no:long` counts as "no"; a list question is inaccessible when its
  unaware list is non-empty, and all binary questions of a kind are inaccessible
  when any of their golds is not "yes".
"""

from __future__ import annotations

import re
from typing import Any
from typing import TypedDict

from pytest_tom.families.fantom.schema import Belief
from pytest_tom.families.fantom.schema import Conversation
from pytest_tom.families.fantom.schema import FantomDocument
from pytest_tom.families.fantom.schema import FantomSet
from pytest_tom.families.fantom.schema import YesNo
from pytest_tom.families.fantom.schema import YesNoKey
from pytest_tom.families.fantom.schema import name_key
from pytest_tom.families.fantom.schema import set_accessibility
from pytest_tom.families.kit import ItemSpec
from pytest_tom.families.kit import JSONObject
from pytest_tom.families.kit import LineOf
from pytest_tom.families.kit import Settings
from pytest_tom.families.kit import Suite
from pytest_tom.families.kit import tags_of
from pytest_tom.families.kit import word_pattern

KINDS = (
    "fact",
    "belief_choice",
    "belief_dist",
    "answerability_list",
    "answerability_yn",
    "infoaccess_list",
    "infoaccess_yn",
)
TOM_KINDS = KINDS[1:]
LIST_KINDS = ("answerability_list", "infoaccess_list")
YN_KINDS = ("answerability_yn", "infoaccess_yn")
BELIEF_KINDS = ("belief_choice", "belief_dist")
LIST_QUESTION = {
    "answerability_list": "List all the characters who know the precise correct answer to this "
    "question.",
    "infoaccess_list": "List all the characters who know this information.",
}
YN_QUESTION = {
    "answerability_yn": "Does {name} know the precise correct answer to this question?",
    "infoaccess_yn": "Does {name} know this information?",
}
ORDER_MARKER = {
    "first-order": "first_order",
    "second-order:cyclic": "second_order_cyclic",
    "second-order:acyclic": "second_order_acyclic",
}
CONTEXTS = ("short", "full")
GROUPINGS = ("set", "part", "conversation")


class FantomMeta(TypedDict, total=False):
    """A FANToM item's `meta`, as `Expander` writes it and metrics.py and headline.py read
    it from the record: the set's keys, then those of the item's kind."""

    kind: str
    accessibility: str | None  # the item's scenario: accessible / inaccessible (None: fact)
    set: str
    part: str  # "<conversation>/<part>"
    conversation: str
    missed_by: str | None
    context: str  # short, full
    belief: str  # belief kinds: the belief's id ...
    tom_order: str
    believer: str | None  # ... who holds the belief (per-character scores)
    gold_letter: str  # belief_choice
    wrong_answer: str  # belief_dist
    # list kinds: the names (and `unaware`); yes/no kinds: whether `character` knows
    aware: list[str] | bool
    unaware: list[str]
    character: str


class FantomData(TypedDict, total=False):
    """A FANToM item's `data`: what its prompts and scoring read."""

    context: str  # the conversation (short part, or full) shown
    fact_question: str
    fact_answer: str
    question: str
    options: list[str]  # belief_choice, in the order shown
    wrong: str  # belief_dist: the wrong answer, and every answer text of the suite
    prime: SharedTexts  # (embedded in one batch at first use)
    aware: list[str]  # list kinds
    unaware: list[str]
    character: str  # yes/no kinds


def binary_gold(value: Any) -> str:
    """YAML 1.1 reads yes/no as booleans: map them back."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def list_names(st: FantomSet, kind: str) -> tuple[list[str], list[str]]:
    """(aware, unaware) for a list question kind."""
    if kind.startswith("infoaccess") and st.get("infoaccess"):
        return [str(n) for n in st["infoaccess"]["aware"]], [
            str(n) for n in st["infoaccess"]["unaware"]
        ]
    return [str(n) for n in st["aware"]], [str(n) for n in st.get("unaware", [])]


def binary_golds(st: FantomSet, kind: str) -> list[tuple[str, str]]:
    """(character, gold) of the yes/no questions: written out, else derived from the lists."""
    key: YesNoKey = "answerability" if kind.startswith("answerability") else "infoaccess"
    yes_no: YesNo = st.get("yes_no") or {}
    written = yes_no.get(key)
    if written is not None:
        return [(str(n), binary_gold(v)) for n, v in written.items()]
    aware, unaware = list_names(st, kind)
    full_only = {name_key(n) for n in st.get("full_only", [])}
    return [(n, "yes") for n in aware] + [
        (n, "no:long" if name_key(n) in full_only else "no") for n in unaware
    ]


_DOES = re.compile(r"\bdoes\s+", re.IGNORECASE)


def outer_believer(question: str, names: list[str]) -> str | None:
    """The character who holds the belief a question asks about: the one named right after
    "does" ("What does Daniel believe about Sofia's belief ..." -> Daniel), as the authors'
    evaluator reads it; without that, the first character the question names."""
    for m in _DOES.finditer(question):
        rest = question[m.end():]
        at_start = [n for n in names if word_pattern(n).match(rest)]
        if at_start:
            return max(at_start, key=len)
    found = sorted(
        (m.start(), -len(n), n) for n in names if (m := word_pattern(n).search(question))
    )
    return found[0][2] if found else None


def node_name(name: str) -> str:
    """A character name as a part of an item id (no spaces)."""
    return re.sub(r"\s+", "_", name.strip())


def expand(suite: Suite, data: FantomDocument, settings: Settings,
           line_of: LineOf) -> list[ItemSpec]:
    """The items of a FANToM suite, conversation by conversation."""
    return Expander(suite.family, suite, data, settings, line_of).items()


class Expander:
    """Builds the items of one suite document."""

    def __init__(
        self,
        family: str,
        suite: Suite,
        data: FantomDocument,
        settings: Settings,
        line_of: LineOf,
    ):
        self.family = family
        self.suite = suite
        self.data = data
        self.settings = settings
        self.line_of = line_of
        self.mode = str(settings.options.get("fantom_context") or "short")
        if self.mode not in CONTEXTS:
            raise ValueError(f"fantom_context must be one of {CONTEXTS}, got {self.mode!r}")
        self.defaults = data.get("defaults") or {}
        # every free-response answer text of the suite, embedded in one batch at first use
        self.dist_texts = SharedTexts(f"{suite.path}:{suite.name}:{self.mode}")

    def items(self) -> list[ItemSpec]:
        out: list[ItemSpec] = []
        for ci, conv in enumerate(self.data["scenarios"]):
            for si, st in enumerate(conv["sets"]):
                out.extend(self._set_items(conv, st, ("scenarios", ci, "sets", si)))
        return out

    # -- one set ----------------------------------------------------------------------
    def _set_items(
        self, conv: Conversation, st: FantomSet, spath: tuple[Any, ...]
    ) -> list[ItemSpec]:
        short = conv["contexts"]["short"]
        part = str(st["part"]) if "part" in st else "main"
        context = (
            conv["contexts"]["full"]
            if self.mode == "full"
            else (
                short[next(k for k in short if str(k) == part)]
                if isinstance(short, dict)
                else short
            )
        )
        set_access = set_accessibility(st)
        base_meta: FantomMeta = {
            "set": str(st["id"]),
            "part": f"{conv['id']}/{part}",
            "conversation": str(conv["id"]),
            "missed_by": str(st["missed_by"]) if st.get("missed_by") else None,
            "context": self.mode,
        }
        tags = tags_of(self.defaults, conv, st)
        source: JSONObject = {**(conv.get("source") or {}), **(st.get("source") or {})}
        shared: FantomData = {
            "context": str(context).strip(),
            "fact_question": str(st["fact"]["question"]),
            "fact_answer": str(st["fact"]["answer"]),
        }
        ctx = _SetContext(conv, st, spath, base_meta, tags, source, shared)
        items = [
            self._item(
                ctx,
                "fact",
                "",
                str(st["fact"]["question"]),
                str(st["fact"]["answer"]),
                None,
                {},
                {},
                (*spath, "fact"),
            )
        ]
        for bi, b in enumerate(st["beliefs"]):
            items.extend(self._belief_items(ctx, b, bi, set_access))
        for list_kind, yn_kind in zip(LIST_KINDS, YN_KINDS, strict=True):
            items.append(self._list_item(ctx, list_kind, set_access))
            items.extend(self._yn_items(ctx, yn_kind, set_access))
        return items

    def _belief_items(
        self, ctx: _SetContext, b: Belief, bi: int, set_access: str
    ) -> list[ItemSpec]:
        bpath = (*ctx.spath, "beliefs", bi)
        bid = str(b.get("id", f"b{bi + 1}"))
        access = str(b.get("accessibility", set_access))
        answer, wrong = str(b["answer"]), str(b["wrong_answer"])
        meta: FantomMeta = {"belief": bid, "tom_order": b["order"],
                            "believer": self._believer(ctx, b)}
        markers = [ORDER_MARKER[b["order"]]]
        source: JSONObject = {"belief_index": bi, **(b.get("source") or {})}
        choice_id = f"{ctx.st['id']}::belief_choice::{bid}"
        options = [answer, wrong]
        self.settings.rng(self.suite.name, choice_id).shuffle(options)
        gold_letter = "ab"[options.index(answer)]
        choice = self._item(
            ctx,
            "belief_choice",
            bid,
            str(b["question"]),
            answer,
            access,
            {**meta, "gold_letter": gold_letter},
            {"options": options},
            bpath,
            markers,
            source,
            choices=options,
        )
        self.dist_texts.texts.extend([answer, wrong])
        dist = self._item(
            ctx,
            "belief_dist",
            bid,
            str(b["question"]),
            answer,
            access,
            {**meta, "wrong_answer": wrong},
            {"wrong": wrong, "prime": self.dist_texts},
            bpath,
            markers,
            source,
        )
        return [choice, dist]

    def _believer(self, ctx: _SetContext, b: Belief) -> str | None:
        """The character a belief question is filed under for the per-character scores: its
        outer believer, who holds the belief (`about:` in the suite overrides it)."""
        names = ctx.names()
        if "about" in b:
            return names.get(name_key(b["about"]), str(b["about"]))
        return outer_believer(str(b["question"]), list(names.values()))

    def _list_item(self, ctx: _SetContext, kind: str, set_access: str) -> ItemSpec:
        aware, unaware = list_names(ctx.st, kind)
        access = (
            set_access if self.mode == "short" else ("inaccessible" if unaware else "accessible")
        )
        return self._item(
            ctx,
            kind,
            "",
            LIST_QUESTION[kind],
            aware,
            access,
            {"aware": aware, "unaware": unaware},
            {"aware": aware, "unaware": unaware},
            ctx.spath,
        )

    def _yn_items(self, ctx: _SetContext, kind: str, set_access: str) -> list[ItemSpec]:
        golds = binary_golds(ctx.st, kind)
        if self.mode == "short":
            golds = [(n, g) for n, g in golds if g != "no:long"]
            access = set_access
        else:
            golds = [(n, "no" if g == "no:long" else g) for n, g in golds]
            access = "inaccessible" if any(g != "yes" for _, g in golds) else "accessible"
        key = "answerability" if kind.startswith("answerability") else "infoaccess"
        path = (*ctx.spath, "yes_no", key) if (ctx.st.get("yes_no") or {}).get(key) else ctx.spath
        return [
            self._item(
                ctx,
                kind,
                node_name(name),
                YN_QUESTION[kind].format(name=name),
                gold,
                access,
                {"character": name, "aware": gold == "yes"},
                {"character": name},
                path,
            )
            for name, gold in golds
        ]

    def _item(
        self,
        ctx: _SetContext,
        kind: str,
        leaf: str,
        question: str,
        gold: Any,
        access: str | None,
        meta: FantomMeta,
        data: FantomData,
        path: tuple[Any, ...],
        markers: list[str] | None = None,
        source: JSONObject | None = None,
        choices: list[str] | None = None,
    ) -> ItemSpec:
        item_id = f"{ctx.st['id']}::{kind}" + (f"::{leaf}" if leaf else "")
        line = self.line_of(path)
        extra_markers = [kind] + ([access] if access else []) + (markers or [])
        return ItemSpec(
            id=item_id,
            suite=self.suite.name,
            family=self.family,
            scenario=str(ctx.conv["id"]),
            kind=kind,
            question=question,
            gold=gold,
            group=str(ctx.st["id"]),
            choices=list(choices or []),
            tags=ctx.tags,
            markers=extra_markers,
            source={"file": self.suite.path, "line": line, **ctx.source, **(source or {})},
            meta={"kind": kind, "accessibility": access, **ctx.meta, **meta},
            data={**ctx.shared, "question": question, **data},
            line=line,
        )


class SharedTexts:
    """Texts shared by every item of a suite; never copied (items are copied into reports)."""

    def __init__(self, key: str):
        self.key = key
        self.texts: list[str] = []

    def __deepcopy__(self, memo: dict[int, Any]) -> SharedTexts:
        return self


class _SetContext:
    """What every item of one set shares."""

    def __init__(
        self,
        conv: Conversation,
        st: FantomSet,
        spath: tuple[Any, ...],
        meta: FantomMeta,
        tags: list[str],
        source: JSONObject,
        shared: FantomData,
    ):
        self.conv, self.st, self.spath = conv, st, spath
        self.meta, self.tags, self.source, self.shared = meta, tags, source, shared

    def names(self) -> dict[str, str]:
        """name key -> spelling, for every character the set or conversation names."""
        out: dict[str, str] = {}
        for n in [*self.st["aware"], *self.st.get("unaware", []), *self.conv.get("characters", [])]:
            out.setdefault(name_key(n), str(n))
        return out
