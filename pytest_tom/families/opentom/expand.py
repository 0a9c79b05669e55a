"""OpenToM items: one item per question, with its gold label, its perspective subsets and
the narrative (short, or OpenToM-L with --tom-opentom-long) it is asked about."""

from __future__ import annotations

from typing import TypedDict

from pytest_tom.families.kit import ItemSpec
from pytest_tom.families.kit import LineOf
from pytest_tom.families.kit import Settings
from pytest_tom.families.kit import Suite
from pytest_tom.families.kit import tags_of
from pytest_tom.families.opentom import prompts as opentom_prompts
from pytest_tom.families.opentom.labels import ATTITUDES
from pytest_tom.families.opentom.labels import gold_label
from pytest_tom.families.opentom.labels import perspective_subsets
from pytest_tom.families.opentom.labels import place_name
from pytest_tom.families.opentom.schema import OpentomDefaults
from pytest_tom.families.opentom.schema import OpentomDocument
from pytest_tom.families.opentom.schema import OpentomScenario
from pytest_tom.families.opentom.schema import Question
from pytest_tom.families.opentom.schema import places_of
from pytest_tom.families.opentom.schema import question_id


class OpentomMeta(TypedDict, total=False):
    """An OpenToM item's `meta`, as `item_of` writes it and the metrics read it from the
    record (`headline.item_meta`); a report saved before `subsets` lacks that key."""

    genre: str
    order: str | None  # None: attitude
    role: str  # the question's perspective: mover, observer, narrator
    gold_label: str | None
    observed: bool
    places: list[str]
    narrative: str  # short, long
    gold_place: str | None  # loc_fine: the gold place's normalised name
    subsets: list[str]  # the perspective subsets the item counts in
    container: str  # mhop_fullness


class OpentomData(TypedDict):
    """An OpenToM item's `data`: what its prompts and scoring read."""

    narrative: str
    character: str | None  # whose perspective (None: the narrator)
    places: list[list[str]]  # [[original, *aliases], [new, *aliases]]
    long_missing: bool  # --tom-opentom-long and no long narrative: skipped


def expand(suite: Suite, data: OpentomDocument, settings: Settings,
           line_of: LineOf) -> list[ItemSpec]:
    """The items of an OpenToM suite, in file order."""
    family = suite.family
    defaults = data.get("defaults") or {}
    long = bool(settings.options.get("opentom_long")) or defaults.get("narrative") == "long"
    items: list[ItemSpec] = []
    for si, sc in enumerate(data["scenarios"]):
        for qi, q in enumerate(sc["questions"]):
            line = line_of(("scenarios", si, "questions", qi))
            items.append(item_of(family, suite, sc, q, defaults, long, line))
    return items


def item_of(family: str, suite: Suite, sc: OpentomScenario, q: Question,
            defaults: OpentomDefaults, long: bool, line: int) -> ItemSpec:
    """The item of question `q` of scenario `sc`."""
    genre = q["genre"]
    order = q.get("order")
    role = q.get("perspective", "observer")
    places = places_of(sc)
    label = gold_label(genre, q["answer"], places)
    gold = label if genre != "loc_fine" else str(q["answer"]).strip()
    ask = q.get("ask") or opentom_prompts.default_question(
        genre, order, role, q.get("container"), sc)
    character = {"mover": sc["mover"], "observer": sc["observer"]}.get(role)
    narrative = sc.get("long_narrative") if long else sc["narrative"]
    markers = [genre, *([f"{order}_order"] if order else []), role]
    tags = tags_of(defaults, sc, q)
    meta: OpentomMeta = {
        "genre": genre, "order": order, "role": role, "gold_label": label,
        "observed": bool(sc["observed"]), "places": [g[0] for g in places],
        "narrative": "long" if long else "short",
    }
    if genre == "loc_fine":
        meta["gold_place"] = place_name(label, places)  # for reading; the class is gold_label
    meta["subsets"] = list(perspective_subsets(str(ask), str(sc["mover"]), str(sc["observer"]))
                           if genre != "attitude" else ("observer",))
    if "container" in q:
        meta["container"] = q["container"]
    data: OpentomData = {"narrative": narrative or "", "character": character, "places": places,
                         "long_missing": long and not narrative}
    return ItemSpec(
        id=f"{sc['id']}::{question_id(q)}", suite=suite.name, family=family,
        scenario=str(sc["id"]), kind=genre, question=str(ask), gold=gold,
        choices=list(ATTITUDES) if genre == "attitude" else [], tags=tags, markers=markers,
        source={"file": suite.path, "line": line, **(sc.get("source") or {}),
                **(q.get("source") or {})},
        meta=meta, line=line, data=data,
    )


def unavailable(item: ItemSpec, settings: Settings) -> str | None:
    """Why `item` cannot be asked (no long narrative under --tom-opentom-long), or None."""
    if item.data.get("long_missing"):
        return (f"scenario {item.scenario!r} has no long narrative "
                f"(--tom-opentom-long asks for OpenToM-L)")
    return None
