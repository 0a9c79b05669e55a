"""The TypedDicts a family declares for its suite files say what its schemas say: for each
level of the YAML (the document, a scenario, its blocks) the type has the keys of the schema's
`Obj`, and marks required the keys the schema requires (but where a type says why not). A key
added to a schema and not to its type, or the other way, fails here. (Robustness's `ask`
mapping is a plain `dict[str, str]`, not a TypedDict, so it has no entry here.)"""

from __future__ import annotations

import pytest

from pytest_tom.catalogue.load import _top_schema
from pytest_tom.families import document
from pytest_tom.families.bigtom import schema as bigtom
from pytest_tom.families.fantom import schema as fantom
from pytest_tom.families.generic import schema as generic
from pytest_tom.families.hitom import schema as hitom
from pytest_tom.families.mmtomqa import schema as mmtomqa
from pytest_tom.families.opentom import schema as opentom
from pytest_tom.families.robustness import schema as robustness
from pytest_tom.families.robustness import suite_shape as stage
from pytest_tom.families.simpletom import schema as simpletom
from pytest_tom.families.tomato import schema as tomato
from pytest_tom.families.tombench import schema as tombench
from pytest_tom.suite.schema import Field, Obj


def obj(field: Field) -> Obj:
    assert isinstance(field.node, Obj), field
    return field.node


def keys(typed: type) -> set[str]:
    return set(typed.__required_keys__) | set(typed.__optional_keys__)  # type: ignore[attr-defined]


TOP = _top_schema([], None)  # suite, family, version, description, defaults, scenarios
# (label, schema, type, keys the schema requires that the type leaves optional)
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
    ("simpletom suite", TOP, simpletom.SimpleTomSuite, set()),
    ("simpletom story", simpletom.SCENARIO, simpletom.SimpleTomScenario, set()),
    ("simpletom question", simpletom.QUESTION, simpletom.SimpleTomQuestion, set()),
    ("simpletom defaults", simpletom.DEFAULTS, document.Defaults, set()),
    ("tombench suite", TOP, tombench.TomBenchSuite, set()),
    ("tombench question", tombench.SCENARIO, tombench.TomBenchScenario, set()),
    ("tombench defaults", tombench.DEFAULTS, tombench.TomBenchDefaults, set()),
    ("mmtomqa suite", TOP, mmtomqa.MMToMQASuite, set()),
    ("mmtomqa question", mmtomqa.SCENARIO, mmtomqa.MMToMQAScenario, set()),
    ("mmtomqa defaults", mmtomqa.DEFAULTS, document.Defaults, set()),
    ("hitom suite", TOP, hitom.HiToMSuite, set()),
    ("hitom story", hitom.SCENARIO, hitom.HiToMScenario, set()),
    ("hitom question", hitom.QUESTION, hitom.HiToMQuestion, set()),
    ("hitom prompt", hitom.PROMPT, hitom.HiToMPrompt, set()),
    ("hitom defaults", hitom.DEFAULTS, hitom.HiToMDefaults, set()),
    ("tomato suite", TOP, tomato.ToMATOSuite, set()),
    ("tomato question", tomato.SCENARIO, tomato.ToMATOScenario, set()),
    ("tomato defaults", tomato.DEFAULTS, document.Defaults, set()),
    ("robustness suite", TOP, stage.RobustnessSuite, set()),
    ("robustness stage", robustness.SCENARIO, stage.Stage, set()),
    ("robustness scenery", robustness.SCENERY, stage.Scenery, set()),
    ("robustness scene", robustness.SCENE, stage.HandScene, set()),
    ("robustness variants", robustness.VARIANTS, stage.Variants, set()),
    ("robustness variant", robustness.VARIANT, stage.Variant, set()),
    ("robustness edit", robustness.EDIT, stage.Edit, set()),
    ("robustness defaults", robustness.DEFAULTS, document.Defaults, set()),
    ("generic suite", TOP, generic.GenericSuite, set()),
    ("generic scenario", generic.SCENARIO, generic.GenericScenario, set()),
    ("generic question", generic.QUESTION, generic.GenericQuestion, set()),
    ("generic defaults", generic.DEFAULTS, generic.GenericDefaults, set()),
]


@pytest.mark.parametrize(("schema", "typed", "unmarked"),
                         [p[1:] for p in PAIRS], ids=[p[0] for p in PAIRS])
def test_each_type_has_the_keys_of_its_schema(schema: Obj, typed: type,
                                               unmarked: set[str]) -> None:
    assert keys(typed) == set(schema.fields)
    required = {k for k, f in schema.fields.items() if f.required}
    assert set(typed.__required_keys__) == required - unmarked  # type: ignore[attr-defined]


def test_mmtomqa_question_parts_are_what_the_text_is_made_of() -> None:
    """`QuestionParts` (what `prompts.question_text` joins) is the question's text-bearing
    part of its scenario: the keys of the scenario the prompt reads, all required."""
    parts = mmtomqa.QuestionParts.__required_keys__
    assert parts == {"apartment", "person", "actions", "question", "options"}
    assert parts <= {k for k, f in mmtomqa.SCENARIO.fields.items() if f.required}
