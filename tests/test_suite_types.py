"""The TypedDicts that SimpleToM, ToMBench, MMToM-QA, Hi-ToM, ToMATO, robustness and generic
declare for their suite files say what their schemas say: each level of the YAML has
the keys of the schema's `Obj`, and its required keys are the ones the schema requires. A
key added to a schema and not to its type, or the other way, fails here. (Robustness's
`ask` mapping is a plain `dict[str, str]`, not a TypedDict, so it has no entry here.)"""

from __future__ import annotations

import pytest

from pytest_tom.catalogue.load import _top_schema
from pytest_tom.families.generic import schema as generic
from pytest_tom.families.hitom import schema as hitom
from pytest_tom.families.mmtomqa import schema as mmtomqa
from pytest_tom.families.robustness import schema as robustness
from pytest_tom.families.robustness import suite_shape as stage
from pytest_tom.families.simpletom import schema as simpletom
from pytest_tom.families.tomato import schema as tomato
from pytest_tom.families.tombench import schema as tombench
from pytest_tom.suite.schema import Obj

TOP = _top_schema([], None)  # suite, family, version, description, defaults, scenarios
PAIRS = [
    ("simpletom suite", TOP, simpletom.SimpleTomSuite),
    ("simpletom story", simpletom.SCENARIO, simpletom.SimpleTomScenario),
    ("simpletom question", simpletom.QUESTION, simpletom.SimpleTomQuestion),
    ("simpletom defaults", simpletom.DEFAULTS, simpletom.SimpleTomDefaults),
    ("tombench suite", TOP, tombench.TomBenchSuite),
    ("tombench question", tombench.SCENARIO, tombench.TomBenchScenario),
    ("tombench defaults", tombench.DEFAULTS, tombench.TomBenchDefaults),
    ("mmtomqa suite", TOP, mmtomqa.MMToMQASuite),
    ("mmtomqa question", mmtomqa.SCENARIO, mmtomqa.MMToMQAScenario),
    ("mmtomqa defaults", mmtomqa.DEFAULTS, mmtomqa.MMToMQADefaults),
    ("hitom suite", TOP, hitom.HiToMSuite),
    ("hitom story", hitom.SCENARIO, hitom.HiToMScenario),
    ("hitom question", hitom.QUESTION, hitom.HiToMQuestion),
    ("hitom prompt", hitom.PROMPT, hitom.HiToMPrompt),
    ("hitom defaults", hitom.DEFAULTS, hitom.HiToMDefaults),
    ("tomato suite", TOP, tomato.ToMATOSuite),
    ("tomato question", tomato.SCENARIO, tomato.ToMATOScenario),
    ("tomato defaults", tomato.DEFAULTS, tomato.ToMATODefaults),
    ("robustness suite", TOP, stage.RobustnessSuite),
    ("robustness stage", robustness.SCENARIO, stage.Stage),
    ("robustness scenery", robustness.SCENERY, stage.Scenery),
    ("robustness scene", robustness.SCENE, stage.HandScene),
    ("robustness variants", robustness.VARIANTS, stage.Variants),
    ("robustness variant", robustness.VARIANT, stage.Variant),
    ("robustness edit", robustness.EDIT, stage.Edit),
    ("robustness defaults", robustness.DEFAULTS, stage.RobustnessDefaults),
    ("generic suite", TOP, generic.GenericSuite),
    ("generic scenario", generic.SCENARIO, generic.GenericScenario),
    ("generic question", generic.QUESTION, generic.GenericQuestion),
    ("generic defaults", generic.DEFAULTS, generic.GenericDefaults),
]


@pytest.mark.parametrize(("schema", "typed"), [p[1:] for p in PAIRS], ids=[p[0] for p in PAIRS])
def test_each_type_has_the_keys_of_its_schema(schema: Obj, typed: type) -> None:
    required: frozenset[str] = typed.__required_keys__  # type: ignore[attr-defined]
    optional: frozenset[str] = typed.__optional_keys__  # type: ignore[attr-defined]
    assert required | optional == set(schema.fields)
    assert required == {k for k, f in schema.fields.items() if f.required}


def test_mmtomqa_question_parts_are_what_the_text_is_made_of() -> None:
    """`QuestionParts` (what `prompts.question_text` joins) is the question's text-bearing
    part of its scenario: the keys of the scenario the prompt reads, all required."""
    parts = mmtomqa.QuestionParts.__required_keys__
    assert parts == {"apartment", "person", "actions", "question", "options"}
    assert parts <= {k for k, f in mmtomqa.SCENARIO.fields.items() if f.required}
