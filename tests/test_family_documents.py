"""The TypedDicts a family's hooks take say what its suite schema says: for each level of
the YAML (the document, a scenario, its blocks) the type has the keys of the schema's
`Obj`, and marks required the keys the schema requires (but where a type says why not).
A key added to a schema and not to its type, or the other way, fails here."""

from __future__ import annotations

import pytest

from pytest_tom.catalogue.load import _top_schema
from pytest_tom.families import document
from pytest_tom.families.bigtom import schema as bigtom
from pytest_tom.families.fantom import schema as fantom
from pytest_tom.families.opentom import schema as opentom
from pytest_tom.suite.schema import Field, Obj


def obj(field: Field) -> Obj:
    assert isinstance(field.node, Obj), field
    return field.node


def keys(typed: type) -> set[str]:
    return set(typed.__required_keys__) | set(typed.__optional_keys__)  # type: ignore[attr-defined]


TOP = _top_schema([], None)
PAIRS = [
    ("bigtom template", bigtom.SCENARIO, bigtom.Template, set()),
    ("bigtom event", bigtom.EVENT, bigtom.EventBlock, set()),
    ("bigtom action", bigtom.ACTION, bigtom.ActionBlock, set()),
    ("bigtom question", bigtom.QUESTION, bigtom.QuestionBlock, set()),
    ("bigtom defaults", bigtom.DEFAULTS, document.Defaults, set()),
    ("opentom scenario", opentom.SCENARIO, opentom.OpentomScenario, set()),
    # written key by key by the converter (the type's docstring says so)
    ("opentom question", opentom.QUESTION, opentom.Question, {"genre", "answer"}),
    ("opentom preferences", obj(opentom.SCENARIO.fields["preferences"]), opentom.Preferences,
     set()),
    ("opentom aliases", obj(opentom.SCENARIO.fields["place_aliases"]), opentom.PlaceAliases,
     set()),
    ("opentom defaults", opentom.DEFAULTS, opentom.OpentomDefaults, set()),
    ("fantom conversation", fantom.SCENARIO, fantom.Conversation, set()),
    ("fantom contexts", obj(fantom.SCENARIO.fields["contexts"]), fantom.Contexts, set()),
    ("fantom set", fantom.SET, fantom.FantomSet, set()),
    ("fantom belief", fantom.BELIEF, fantom.Belief, set()),
    ("fantom fact", fantom.FACT, fantom.Fact, set()),
    ("fantom lists", fantom.LISTS, fantom.Lists, set()),
    ("fantom yes/no", fantom.YES_NO, fantom.YesNo, set()),
    ("fantom defaults", fantom.DEFAULTS, document.Defaults, set()),
    *((f"{name} document", TOP, typed, set()) for name, typed in (
        ("bigtom", bigtom.BigtomDocument), ("opentom", opentom.OpentomDocument),
        ("fantom", fantom.FantomDocument))),
]


@pytest.mark.parametrize(("schema", "typed", "unmarked"),
                         [p[1:] for p in PAIRS], ids=[p[0] for p in PAIRS])
def test_each_type_has_the_keys_of_its_schema(schema: Obj, typed: type,
                                               unmarked: set[str]) -> None:
    assert keys(typed) == set(schema.fields)
    required = {k for k, f in schema.fields.items() if f.required}
    assert set(typed.__required_keys__) == required - unmarked  # type: ignore[attr-defined]

