"""The YAML shape of a FANToM suite and its semantic checks.

A scenario is one conversation: its `contexts` (`full`, and `short`: one text,
or one text per part keyed by part id) and its `sets`. A set is one piece of
information that one character (`missed_by`, the paper's PersonX) missed while
away: the fact question with its full answer, the belief questions, and who is
`aware` and `unaware` of the information. Per-character yes/no questions are
derived from those lists unless written out under `yes_no`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from typing import Any
from typing import Literal
from typing import TypedDict

from pytest_tom.families.kit import ID
from pytest_tom.families.kit import TAG
from pytest_tom.families.kit import Any_
from pytest_tom.families.kit import Checker
from pytest_tom.families.kit import Defaults
from pytest_tom.families.kit import Enum
from pytest_tom.families.kit import Field
from pytest_tom.families.kit import JSONObject
from pytest_tom.families.kit import ListOf
from pytest_tom.families.kit import Node
from pytest_tom.families.kit import Obj
from pytest_tom.families.kit import Path_
from pytest_tom.families.kit import Scenario
from pytest_tom.families.kit import Str
from pytest_tom.families.kit import SuiteDocument
from pytest_tom.families.kit import Tagged
from pytest_tom.families.kit import Text
from pytest_tom.families.kit import check_unique_ids
from pytest_tom.families.kit import describe
from pytest_tom.families.kit import type_name

ORDERS = ("first-order", "second-order:cyclic", "second-order:acyclic")
ACCESSIBILITY = ("inaccessible", "accessible")
BINARY_GOLDS = ("yes", "no", "no:long")


Answer = str | int | float  # a `Text()` answer: numbers are read as text


class _BeliefKeys(TypedDict):
    question: str
    answer: Answer
    wrong_answer: Answer
    order: str  # one of ORDERS


class Belief(_BeliefKeys, total=False):
    """A belief question of a set (`BELIEF`)."""

    id: str  # default b1, b2, ...
    accessibility: str  # one of ACCESSIBILITY; default: the set's
    about: str  # who holds the belief
    source: JSONObject


class Fact(TypedDict):
    """A set's fact question (`FACT`)."""

    question: str
    answer: Answer


class Lists(TypedDict):
    """Who knows and who does not (`LISTS`: the info-access override)."""

    aware: list[str]
    unaware: list[str]


class YesNo(TypedDict, total=False):
    """Per-character yes/no golds written out (`YES_NO`): name -> yes, no or no:long (YAML
    1.1 reads an unquoted yes/no as a boolean: `expand.binary_gold` maps it back)."""

    answerability: Mapping[str, str | bool]
    infoaccess: Mapping[str, str | bool]


YesNoKey = Literal["answerability", "infoaccess"]  # the keys of `YesNo`


class Missed(TypedDict, total=False):
    """Who was away and what they missed (the keys of a set after its id)."""

    missed_by: str
    missed_info: str


class Awareness(TypedDict, total=False):
    """Who does not know, beyond the set's `aware` list, and the overrides of what the list
    and yes/no questions derive from it (the keys of a set after `aware`)."""

    unaware: list[str]
    infoaccess: Lists
    accessibility: str  # of the list and yes/no questions; default: derived
    full_only: list[str]  # unaware characters absent from the short context
    yes_no: YesNo


class _SetKeys(TypedDict):
    id: str
    fact: Fact
    beliefs: list[Belief]
    aware: list[str]


class FantomSet(_SetKeys, Missed, Awareness, Tagged, total=False):
    """A set (`SET`): one piece of information one character missed, and its questions."""

    part: str  # the key of its part in `contexts.short` (several parts)
    source: JSONObject


class Contexts(TypedDict):
    """A conversation's `contexts`: the whole one, and the short one (one text, or one per
    part keyed by part id)."""

    full: str
    short: str | dict[str, str]


class _ConversationKeys(Scenario):
    contexts: Contexts
    sets: list[FantomSet]


class Conversation(_ConversationKeys, total=False):
    """A FANToM scenario, one conversation (`SCENARIO`)."""

    topic: str
    characters: list[str]


class _Conversations(TypedDict):
    scenarios: list[Conversation]


class FantomDocument(SuiteDocument, _Conversations, total=False):
    """A FANToM suite file."""

    defaults: Defaults


@dataclass
class TextOrParts(Node):
    """One text, or a mapping of part id -> text (a conversation with several parts)."""

    expected: str = "a text, or a mapping of part id to text"

    def check(self, value: Any, path: Path_, ck: Checker) -> bool:
        if isinstance(value, dict):
            if not value:
                ck.error(path, f"{describe(path)}: the mapping of parts is empty")
                return False
            ok = True
            for key, text in value.items():
                ok = (
                    ID.check(str(key), (*path, key), ck)
                    and ok
                )
                ok = Str().check(text, (*path, key), ck) and ok
            return ok
        return Str(expected=self.expected).check(value, path, ck)


@dataclass
class MapOf(Node):
    """A mapping from names (strings) to values of one schema."""

    value: Node = field(default_factory=Str)
    expected: str = "a mapping of character name to answer"

    def check(self, value: Any, path: Path_, ck: Checker) -> bool:
        if not isinstance(value, dict):
            ck.error(path, f"{describe(path)}: expected {self.expected}, got {type_name(value)}")
            return False
        ok = True
        for key, v in value.items():
            if not isinstance(key, str) or not key.strip():
                ck.error(
                    (*path, key),
                    f"{describe((*path, key))}: a character name must be text",
                    key=True,
                )
                ok = False
            ok = self.value.check(v, (*path, key), ck) and ok
        return ok


NAMES = ListOf(Str(), unique=True)

BELIEF = Obj(
    what="belief question",
    fields={
        "id": Field(
            ID,
            doc="short id within the set (default b1, b2, ...)",
        ),
        "question": Field(Str(), required=True, doc="the belief question"),
        "answer": Field(
            Text(),
            required=True,
            doc="the right answer: the belief given what the asked character could "
            "hear (the PersonX-centric answer for an inaccessible question)",
        ),
        "wrong_answer": Field(
            Text(),
            required=True,
            doc="the wrong answer (the omniscient-view answer for an inaccessible question)",
        ),
        "order": Field(Enum(values=ORDERS), required=True, doc=", ".join(ORDERS)),
        "accessibility": Field(Enum(values=ACCESSIBILITY)),
        "about": Field(Str(), doc="who holds the belief (per-character scores); default: named after 'does'"),
        "source": Field(Any_()),
    },
)

FACT = Obj(
    what="fact question",
    fields={
        "question": Field(Str(), required=True, doc="the fact question"),
        "answer": Field(Text(), required=True, doc="the full fact answer"),
    },
)

LISTS = Obj(
    what="list override",
    fields={
        "aware": Field(NAMES, required=True),
        "unaware": Field(NAMES, required=True),
    },
)

YES_NO = Obj(
    what="yes/no answers",
    fields={
        "answerability": Field(MapOf(value=Enum(values=BINARY_GOLDS))),
        "infoaccess": Field(MapOf(value=Enum(values=BINARY_GOLDS))),
    },
)

SET = Obj(
    what="set",
    fields={
        "id": Field(
            ID,
            required=True,
            doc="unique in the suite; items are named <set id>::<kind>",
        ),
        "part": Field(
            ID,
            doc="the part of the conversation (a key of contexts.short)",
        ),
        "missed_by": Field(Str(), doc="the character who was away (PersonX)"),
        "missed_info": Field(Str()),
        "fact": Field(FACT, required=True),
        "beliefs": Field(ListOf(BELIEF, min_len=1), required=True),
        "aware": Field(
            ListOf(Str(), min_len=1, unique=True),
            required=True,
            doc="characters who know the information",
        ),
        "unaware": Field(NAMES, doc="characters who do not"),
        "full_only": Field(
            NAMES,
            doc="unaware characters absent from the short context: their "
            "yes/no questions are asked with the full context only",
        ),
        "accessibility": Field(
            Enum(values=ACCESSIBILITY),
            doc="of the list and yes/no questions (default: inaccessible when someone is unaware)",
        ),
        "infoaccess": Field(LISTS, doc="aware/unaware for the info-access list when they differ"),
        "yes_no": Field(YES_NO),
        "tags": Field(ListOf(TAG)),
        "source": Field(Any_()),
    },
)

SCENARIO = Obj(  # a FANToM scenario is a conversation
    what="conversation",
    fields={
        "id": Field(
            ID,
            required=True,
            doc="a unique name for the conversation",
        ),
        "topic": Field(Str()),
        "characters": Field(ListOf(Str(), min_len=1, unique=True)),
        "contexts": Field(
            Obj(
                what="contexts mapping",
                fields={
                    "full": Field(Str(), required=True, doc="the whole conversation"),
                    "short": Field(
                        TextOrParts(),
                        required=True,
                        doc="the part where the character left and rejoined",
                    ),
                },
            ),
            required=True,
            doc="full and short",
        ),
        "sets": Field(ListOf(SET, min_len=1), required=True),
        "tags": Field(ListOf(TAG)),
        "source": Field(Any_()),
    },
)

DEFAULTS = Obj(what="defaults mapping", fields={"tags": Field(ListOf(TAG))})

_SPACE = re.compile(r"\s+")


def name_key(name: Any) -> str:
    """A character's name as compared: spaces collapsed, case folded."""
    return _name_key(name) if isinstance(name, str) else _SPACE.sub(" ", str(name)).strip().lower()


@functools.lru_cache(maxsize=4096)
def _name_key(name: str) -> str:  # a run compares the same few names 100,000s of times
    return _SPACE.sub(" ", name).strip().lower()


def set_accessibility(st: FantomSet) -> str:
    """Accessibility of a set's list and yes/no questions (explicit, else derived)."""
    if "accessibility" in st:
        return str(st["accessibility"])
    return "inaccessible" if st.get("unaware") else "accessible"


def check(data: FantomDocument, ck: Checker) -> None:
    convs = data.get("scenarios") or []
    check_unique_ids(convs, ("scenarios",), ck, "conversation")
    first_set: dict[str, tuple[Any, ...]] = {}
    for ci, conv in enumerate(convs):
        cpath = ("scenarios", ci)
        short = conv["contexts"]["short"]
        parts = {str(k) for k in short} if isinstance(short, dict) else None
        known_conv = {name_key(c) for c in conv.get("characters", [])}
        for si, st in enumerate(conv["sets"]):
            spath = (*cpath, "sets", si)
            sid = st["id"]
            if sid in first_set:
                line = ck.at((*first_set[sid], "id"))[0]
                ck.error(
                    (*spath, "id"),
                    f"duplicate set id {sid!r} (first used on line {line}); "
                    f"set ids must be unique in the suite",
                )
            else:
                first_set[sid] = spath
            _check_set(st, spath, parts, known_conv, conv, ck)


def _check_set(
    st: FantomSet,
    spath: Path_,
    parts: set[str] | None,
    known_conv: set[str],
    conv: Conversation,
    ck: Checker,
) -> None:
    aware = [name_key(n) for n in st["aware"]]
    unaware = [name_key(n) for n in st.get("unaware", [])]
    for i, n in enumerate(st.get("unaware", [])):
        if name_key(n) in aware:
            ck.error(
                (*spath, "unaware", i),
                f"{describe((*spath, 'unaware', i))}: {n!r} is also "
                f"in 'aware'; a character either knows the information or not",
            )
    known = set(aware) | set(unaware) | known_conv
    if known_conv:
        for key, listed in (("aware", st["aware"]), ("unaware", st.get("unaware", []))):
            for i, n in enumerate(listed):
                if name_key(n) not in known_conv:
                    ck.error(
                        (*spath, key, i),
                        f"{describe((*spath, key, i))}: {n!r} is not among "
                        f"the conversation's characters {conv['characters']!r}",
                    )
    for i, n in enumerate(st.get("full_only", [])):
        if name_key(n) not in unaware:
            ck.error(
                (*spath, "full_only", i),
                f"{describe((*spath, 'full_only', i))}: {n!r} must "
                f"also be listed in 'unaware' (full_only marks unaware characters who are "
                f"absent from the short context)",
            )
    if "missed_by" in st and name_key(st["missed_by"]) not in known:
        ck.error(
            (*spath, "missed_by"),
            f"{describe((*spath, 'missed_by'))}: {st['missed_by']!r} "
            f"is not in the set's aware/unaware lists; name the character who was away",
        )
    if parts is not None:
        if "part" not in st:
            ck.error(
                spath,
                f"{describe(spath)}: missing 'part': contexts.short has several parts "
                f"({', '.join(sorted(parts))}); say which one this set belongs to",
            )
        elif str(st["part"]) not in parts:
            ck.error(
                (*spath, "part"),
                f"{describe((*spath, 'part'))}: {st['part']!r} is not a part "
                f"of contexts.short (parts: {', '.join(sorted(parts))})",
            )
    lists = st.get("infoaccess")
    if lists:
        ia = {name_key(n) for n in lists["aware"]}
        for i, n in enumerate(lists["unaware"]):
            if name_key(n) in ia:
                ck.error(
                    (*spath, "infoaccess", "unaware", i),
                    f"{n!r} is both aware and unaware in infoaccess",
                )
    for kind, answers in (st.get("yes_no") or {}).items():
        # a `YesNo` read key by key in file order: its values are mappings (the schema's)
        for name in answers if isinstance(answers, Mapping) else ():
            if name_key(name) not in known:
                ck.error(
                    (*spath, "yes_no", kind, name),
                    f"{describe((*spath, 'yes_no', kind))}: "
                    f"{name!r} is not a character of this set (aware or unaware)",
                    key=True,
                )
    seen: dict[str, int] = {}
    for bi, b in enumerate(st["beliefs"]):
        bpath = (*spath, "beliefs", bi)
        bid = str(b.get("id", f"b{bi + 1}"))
        if bid in seen:
            ck.error(
                bpath,
                f"{describe(bpath)}: duplicate belief id {bid!r} in set {st['id']!r} "
                f"(first used by belief {seen[bid] + 1})",
            )
        seen.setdefault(bid, bi)
        if "about" in b and name_key(b["about"]) not in known:
            ck.error(
                (*bpath, "about"),
                f"{describe((*bpath, 'about'))}: {b['about']!r} is not a character of this set",
            )
        if name_key(b["answer"]) == name_key(b["wrong_answer"]):
            ck.error(
                (*bpath, "wrong_answer"),
                f"{describe((*bpath, 'wrong_answer'))}: the wrong answer is the same as the answer",
            )
