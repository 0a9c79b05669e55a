"""The OpenToM suite's shape and its checks: the scenario and question schemas, question
ids, place names with their aliases, and the checks the schema cannot express (mover vs
observer, distinct places, question fields per genre, gold answers that agree)."""

from __future__ import annotations

from typing import Any
from typing import TypedDict

from pytest_tom.families.kit import ID
from pytest_tom.families.kit import TAG
from pytest_tom.families.kit import Any_
from pytest_tom.families.kit import Bool
from pytest_tom.families.kit import Checker
from pytest_tom.families.kit import Defaults
from pytest_tom.families.kit import Enum
from pytest_tom.families.kit import Field
from pytest_tom.families.kit import JSONObject
from pytest_tom.families.kit import JSONValue
from pytest_tom.families.kit import ListOf
from pytest_tom.families.kit import Obj
from pytest_tom.families.kit import Scenario
from pytest_tom.families.kit import Str
from pytest_tom.families.kit import SuiteDocument
from pytest_tom.families.kit import Tagged
from pytest_tom.families.kit import checked_scenarios
from pytest_tom.families.kit import describe
from pytest_tom.families.kit import normalise
from pytest_tom.families.opentom.labels import CONTAINERS
from pytest_tom.families.opentom.labels import GENRES
from pytest_tom.families.opentom.labels import LABELS
from pytest_tom.families.opentom.labels import ORDERS
from pytest_tom.families.opentom.labels import ROLES
from pytest_tom.families.opentom.labels import gold_label


class Question(Tagged, total=False):
    """An OpenToM question (`QUESTION`). `genre` and `answer` are required by the schema;
    they are not marked so here because the converter writes a question key by key, in the
    order of the file (`convert._question`)."""

    id: str
    genre: str  # one of labels.GENRES
    order: str  # first, second (not for attitude)
    perspective: str  # mover, observer, narrator
    container: str  # mhop_fullness: original or new
    ask: str
    answer: JSONValue  # the gold as written: a place, a label, or a YAML 1.1 yes/no boolean
    source: JSONObject


class Preferences(TypedDict, total=False):
    """A scenario's `preferences`: what each character likes and thinks the other likes."""

    mover: str
    observer: str
    mover_about_observer: str
    observer_about_mover: str


class PlaceAliases(TypedDict, total=False):
    """Other names of each place that a fine-location answer may use."""

    original: list[str]
    new: list[str]


class Cast(Scenario):
    """Who moves the entity from where to where, and whether the observer saw it: what a
    question's wording and gold are made of."""

    mover: str
    observer: str
    entity: str
    original_place: str
    new_place: str
    observed: bool


class Particulars(TypedDict, total=False):
    """The optional parts of a scenario before its narrative (in the file's order)."""

    personality: str
    preferences: Preferences
    intention: str
    place_aliases: PlaceAliases


class _Story(Cast, Particulars):
    narrative: str
    questions: list[Question]


class OpentomScenario(_Story, total=False):
    """An OpenToM scenario (`SCENARIO`): the cast, the narrative and its questions."""

    long_narrative: str  # OpenToM-L


class OpentomDefaults(Defaults, total=False):
    narrative: str  # short or long: which version of the story to show


class _Scenarios(TypedDict):
    scenarios: list[OpentomScenario]


class OpentomDocument(SuiteDocument, _Scenarios, total=False):
    """An OpenToM suite file."""

    defaults: OpentomDefaults


QUESTION = Obj(
    what="OpenToM question",
    fields={
        "id": Field(ID, doc="default: <genre>-<fo|so>-<perspective>[-<container>]"),
        "genre": Field(Enum(values=GENRES), required=True, doc=f"one of {', '.join(GENRES)}"),
        "order": Field(Enum(values=ORDERS), doc="first or second (not for attitude)"),
        "perspective": Field(Enum(values=ROLES), doc="whose perspective: mover, observer, narrator"),
        "container": Field(Enum(values=CONTAINERS), doc="mhop_fullness: original or new place"),
        "ask": Field(Str(), doc="the question (default: the dataset's wording)"),
        "answer": Field(Any_(), required=True, doc="the gold answer"),
        "tags": Field(ListOf(TAG)),
        "source": Field(Any_()),
    },
)

SCENARIO = Obj(
    what="OpenToM scenario",
    fields={
        "id": Field(ID, required=True, doc="a unique name for the narrative"),
        "narrative": Field(Str(), required=True, doc="the story"),
        "long_narrative": Field(Str(), doc="the OpenToM-L version of the story"),
        "mover": Field(Str(), required=True, doc="the character who moves the entity"),
        "observer": Field(Str(), required=True, doc="the character who may see the move"),
        "entity": Field(Str(), required=True, doc="the entity of interest"),
        "original_place": Field(Str(), required=True),
        "new_place": Field(Str(), required=True),
        "observed": Field(Bool(), required=True, doc="whether the observer saw the move"),
        "personality": Field(Str(), doc="the mover's personality trait"),
        "preferences": Field(Obj(what="preferences mapping", fields={
            "mover": Field(Str()), "observer": Field(Str()),
            "mover_about_observer": Field(Str()), "observer_about_mover": Field(Str()),
        })),
        "intention": Field(Str(), doc="why the mover moves the entity"),
        "place_aliases": Field(Obj(what="place aliases mapping", fields={
            "original": Field(ListOf(Str(), unique=True)), "new": Field(ListOf(Str(), unique=True)),
        }), doc="other names of a place that a fine-location answer may use"),
        "tags": Field(ListOf(TAG)),
        "source": Field(Any_()),
        "questions": Field(ListOf(QUESTION, min_len=1), required=True),
    },
)

DEFAULTS = Obj(what="defaults mapping", fields={
    "narrative": Field(Enum(values=("short", "long")), doc="which version of the story to show"),
    "tags": Field(ListOf(TAG)),
})


def question_id(q: Question) -> str:
    """The question's id: given, or built from its genre, order, perspective and container."""
    if "id" in q:
        return str(q["id"])
    if q["genre"] == "attitude":
        return "attitude"
    parts = [q["genre"], {"first": "fo", "second": "so"}.get(q.get("order", ""), "o"),
             q.get("perspective", "")]
    if "container" in q:
        parts.append(q["container"])
    return "-".join(parts)


def places_of(sc: OpentomScenario) -> list[list[str]]:
    aliases = sc.get("place_aliases") or {}
    return [[str(sc["original_place"]), *map(str, aliases.get("original", []))],
            [str(sc["new_place"]), *map(str, aliases.get("new", []))]]


def check(data: OpentomDocument, ck: Checker) -> None:
    """Report every OpenToM-specific error of a suite's `data` to `ck`."""
    given = data.get("defaults")
    defaults: OpentomDefaults = given if isinstance(given, dict) else {}
    for base, sc in checked_scenarios(data, ck, "scenario"):
        check_scenario(sc, base, defaults, ck)


def check_scenario(sc: OpentomScenario, base: tuple[Any, ...], defaults: OpentomDefaults,
                   ck: Checker) -> None:
    """The checks of one scenario at `base`: characters, places, questions, agreeing golds."""
    if defaults.get("narrative") == "long" and "long_narrative" not in sc:
        ck.error(base, f"{describe(base)}: the suite's defaults say 'narrative: long' but this "
                 f"scenario has no 'long_narrative'; add one or remove the default")
    if str(sc.get("mover", "")).strip().lower() == str(sc.get("observer", "")).strip().lower():
        ck.error((*base, "observer"), f"{describe((*base, 'observer'))}: the observer must be "
                 f"another character than the mover ({sc.get('mover')!r})")
    try:
        places = places_of(sc)
    except KeyError:
        return  # a required place is missing: the schema reported it
    names = [{normalise(n) for n in group} - {""} for group in places]
    if not names[0] or not names[1]:
        ck.error((*base, "original_place"), f"{describe(base)}: a place name must contain "
                 f"more than articles and punctuation")
    elif names[0] & names[1]:
        ck.error((*base, "new_place"), f"{describe((*base, 'new_place'))}: the new place reads "
                 f"the same as the original place ({sorted(names[0] & names[1])[0]!r}); "
                 f"answers could not tell them apart")
    seen: dict[str, int] = {}
    golds: dict[tuple[str, str, str], tuple[str, tuple[Any, ...]]] = {}
    for qi, q in enumerate(sc.get("questions") or []):
        if not isinstance(q, dict) or q.get("genre") not in GENRES:
            continue
        qpath = (*base, "questions", qi)
        if not check_question(q, qpath, places, ck):
            continue
        qid = question_id(q)
        if qid in seen:
            ck.error((*qpath, "id") if "id" in q else qpath,
                     f"duplicate question id {qid!r} in scenario {sc.get('id')!r} (first "
                     f"used by question {seen[qid] + 1}); give one of them an 'id:'")
        seen.setdefault(qid, qi)
        if q["genre"] in ("loc_coarse", "loc_fine") and q["perspective"] != "narrator":
            label = gold_label(q["genre"], q["answer"], places)
            golds[(q["genre"], q["order"], q["perspective"])] = (str(label), qpath)
    for (genre, order, who), (label, qpath) in golds.items():
        if genre != "loc_fine" or ("loc_coarse", order, who) not in golds:
            continue
        coarse = golds[("loc_coarse", order, who)][0]
        if (coarse == "Yes") != (label == "original"):
            place = label
            ck.error((*qpath, "answer"), f"{describe((*qpath, 'answer'))}: the gold answers "
                     f"contradict each other: the {order}-order loc_coarse question of the "
                     f"{who} says {coarse!r} but this answer names the {place} place; fix one")


def check_question(q: Question, qpath: tuple[Any, ...],
                   places: list[list[str]], ck: Checker) -> bool:
    """The checks of one question at `qpath`; False when it has an error."""
    genre = q["genre"]
    ok = True

    def err(key: str | None, message: str) -> None:
        nonlocal ok
        ok = False
        path = (*qpath, key) if key else qpath
        ck.error(path, f"{describe(path)}: {message}", key=key is not None and key != "answer")

    if genre == "attitude":
        if "order" in q:
            err("order", "attitude questions have no order; remove 'order'")
        if q.get("perspective", "observer") != "observer":
            err("perspective", "attitude questions are asked as the observer")
    else:
        if "order" not in q:
            err(None, f"a {genre} question needs 'order: first' or 'order: second'")
        if "perspective" not in q:
            err(None, f"a {genre} question needs 'perspective:' (mover or observer)")
    if q.get("perspective") == "narrator":
        if genre != "loc_fine" or q.get("order") != "first":
            err("perspective", "narrator questions are first-order loc_fine questions only")
        elif "ask" not in q:
            err(None, "a narrator question needs 'ask:' (there is no template for it)")
        elif "id" not in q:
            err(None, "a narrator question needs an 'id:' (a narrative may ask two)")
    if genre == "mhop_fullness" and "container" not in q:
        err(None, "an mhop_fullness question needs 'container:' (original or new)")
    if genre != "mhop_fullness" and "container" in q:
        err("container", "'container' only applies to mhop_fullness questions")
    if gold_label(genre, q.get("answer"), places) is None:
        if genre == "loc_fine":
            shown = " or ".join(repr(g[0]) for g in places)
            err("answer", f"{q.get('answer')!r} must name exactly one of the two places "
                f"({shown}), or an alias listed in the scenario's 'place_aliases'")
        else:
            labels = ", ".join(LABELS[genre])
            err("answer", f"{q.get('answer')!r} is not an answer of a {genre} question; "
                f"use one of: {labels}")
    return ok
