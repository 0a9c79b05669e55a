"""A family's parts are found in its folder by their names (families/parts.py): family.py
says only what is particular to the family, and no built-in family forwards its hooks."""

from __future__ import annotations

import ast
import importlib
import textwrap
from pathlib import Path

import pytest
from conftest import REPO
from family_support import forget_package

from pytest_tom import families
from pytest_tom.families.base import Family, ScoringContext, Settings
from pytest_tom.families.parts import PARTS

PARTS_OF = {
    "family": '''
        from pytest_tom.api import Family

        class PartsFamily(Family):
            name = "parts"
            answer_tokens = 7
            methods = ("vanilla", "cot", "own")  # set here: wins over prompts.METHODS
        ''',
    "schema": '''
        from pytest_tom.api import Field, Obj, Str

        SCENARIO = Obj(what="parts scenario", fields={"id": Field(Str(), required=True)})
        DEFAULTS = Obj(what="parts defaults")
        CHECKED = []

        def check(data, ck):
            CHECKED.append(data)
        ''',
    "expand": '''
        from pytest_tom.api import ItemSpec

        def expand(suite, data, settings, line_of):
            return [ItemSpec(id=f"{s['id']}::q", suite=suite.name, family=suite.family,
                             scenario=s["id"], kind="k", question="q?", gold="yes", line=1)
                    for s in data["scenarios"]]
        ''',
    "prompts": '''
        from pytest_tom.api import single_call

        METHODS = ("vanilla",)

        def conversation(item, method, responses):
            return single_call([{"role": "user", "content": item.question}], responses)
        ''',
    "scoring": '''
        from pytest_tom.api import Outcome

        def score(item, response, ctx):
            return Outcome(correct=response == item.gold, parsed=response)

        def unavailable(item, settings):
            return "never" if item.scenario == "skip" else None

        def option_problems(options):
            return ["bad"] if options.get("parts_bad") else []
        ''',
    "metrics": '''
        from pytest_tom.api import FamilyResult

        def aggregate(records, settings, declared):
            return FamilyResult(metrics={"n": len(records), "declared": sorted(declared)})
        ''',
    "headline": '''
        from pytest_tom.api import Metric, Plot

        PLOTS = (Plot("p", "parts"),)
        METRICS = (Metric("right", "right answers", plot="p"),)
        ''',
    "options": '''
        from pytest_tom.families.option_kit import Opt

        OPTIONS = (Opt("parts_bad", "parts: a bad option", default=False, flag=True),)
        ''',
    "convert": '''
        def add_arguments(parser):
            pass

        def run(args):
            return 0
        ''',
}


def write(site: Path, package: str, modules: dict[str, str]) -> None:
    folder = site / package
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text("")
    for name, code in modules.items():
        (folder / f"{name}.py").write_text(textwrap.dedent(code))


@pytest.fixture
def parts_site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for package in ("parts_tom", "twice_tom"):
        forget_package(package)


def test_the_parts_beside_family_py_become_the_family(parts_site: Path) -> None:
    write(parts_site, "parts_tom", PARTS_OF)
    cls = importlib.import_module("parts_tom.family").PartsFamily
    fam = cls()
    schema = importlib.import_module("parts_tom.schema")
    assert cls.scenario_schema is schema.SCENARIO and cls.defaults_schema is schema.DEFAULTS
    assert fam.methods == ("vanilla", "cot", "own")  # the class's own wins
    assert [m.name for m in fam.headline_metrics] == ["right"] and fam.plots[0].id == "p"
    assert [o.name for o in fam.options] == ["parts_bad"]
    assert fam.converters == {"parts": "parts_tom.convert"}
    assert fam.answer_tokens == 7 and fam.reasoning_tokens == Family.reasoning_tokens

    fam.check({"scenarios": []}, None)
    assert schema.CHECKED == [{"scenarios": []}]
    item = fam.expand(type("S", (), {"name": "s", "family": "parts"})(),
                      {"scenarios": [{"id": "a"}, {"id": "skip"}]}, Settings(), lambda p: 1)
    assert [i.id for i in item] == ["a::q", "skip::q"] and item[0].family == "parts"
    assert fam.conversation(item[0], "vanilla", []) == [{"role": "user", "content": "q?"}]
    assert fam.score(item[0], "yes", ScoringContext(Settings())).correct is True
    assert fam.unavailable(item[1], Settings()) == "never"
    assert fam.option_problems({"parts_bad": True}) == ["bad"]
    assert fam.prepare_scoring([], ScoringContext(Settings())) == 0  # not given: the default
    # a hook is a plain method: a subclass or a test wraps it as it would a written one
    assert cls.score(fam, item[0], "no", ScoringContext(Settings())).correct is False
    # with the values of the declared metrics, or without (then its own declarations)
    assert fam.aggregate([], Settings(), {"x": None}).metrics == {"n": 0, "declared": ["x"]}
    assert fam.aggregate([], Settings()).metrics == {"n": 0, "declared": ["right"]}


def test_a_hook_in_two_modules_is_an_error_when_the_class_is_defined(parts_site: Path) -> None:
    write(parts_site, "twice_tom", {**PARTS_OF, "expand": PARTS_OF["expand"] + '''
        def unavailable(item, settings):
            return None
        '''})
    with pytest.raises(TypeError, match=r"`unavailable` is in both twice_tom.expand and "
                                        r"twice_tom.scoring; keep one"):
        importlib.import_module("twice_tom.family")


def test_a_hook_one_part_imports_from_another_is_one_hook(parts_site: Path) -> None:
    write(parts_site, "twice_tom", {**PARTS_OF, "expand": "from .scoring import unavailable\n"
                                    + textwrap.dedent(PARTS_OF["expand"])})
    fam = importlib.import_module("twice_tom.family").PartsFamily()
    assert fam.unavailable(type("I", (), {"scenario": "skip"})(), Settings()) == "never"


def test_a_family_class_outside_a_family_module_is_taken_as_written() -> None:
    class Written(Family):
        name = "written"

    assert Written.scenario_schema is Family.scenario_schema and Written.converters == {}
    assert Written.score is Family.score


# the Family attributes the parts give: a built-in family.py sets none of them itself
GIVEN_BY_PARTS = {attribute for names in PARTS.values() for attribute in names.values()}


@pytest.mark.parametrize("name", sorted(families.BUILTIN))
def test_a_built_in_family_py_writes_no_part(name: str) -> None:
    path = REPO / "pytest_tom" / "families" / name / "family.py"
    (cls,) = [n for n in ast.parse(path.read_text()).body if isinstance(n, ast.ClassDef)]
    written = {t.id for n in cls.body if isinstance(n, ast.Assign) for t in n.targets
               if isinstance(t, ast.Name)}
    written |= {n.name for n in cls.body if isinstance(n, ast.FunctionDef)}
    assert not written & GIVEN_BY_PARTS, (
        f"{name}/family.py sets {sorted(written & GIVEN_BY_PARTS)} itself: put each in the "
        f"module of its name beside family.py, under the name families/parts.py gives it "
        f"(docs/adding-a-family.md, 'The parts are found by their names')")
    fam = families.get(name)
    assert fam.scenario_schema is not Family.scenario_schema  # found beside it
    assert type(fam).score is not Family.score and type(fam).expand is not Family.expand
