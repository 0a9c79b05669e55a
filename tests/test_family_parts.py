"""A family names its parts in one typed object in its family.py (`parts = Parts(...)`,
families/parts.py): each part module gives the hooks of its names, nothing is found by a
module's name, and every built-in family names every part its folder holds, each of
which resolves (its converter through `families.converter`, its options as the inert
plugin reads them)."""

from __future__ import annotations

import ast
import importlib
import textwrap
from pathlib import Path

import pytest
from conftest import REPO
from family_support import forget_package

from pytest_tom import families
from pytest_tom.core.registry import BrokenTarget, UnknownName
from pytest_tom.families.base import Family, ScoringContext, Settings
from pytest_tom.families.parts import HOOKS

FAMILY_PY = '''
        from pytest_tom.api import Family, Parts

        from . import expand, headline, metrics, options, prompts, schema, scoring

        class PartsFamily(Family):
            name = "parts"
            parts = Parts(schema, expand, prompts, scoring, metrics, headline, options,
                          convert="parts_tom.convert")
            answer_tokens = 7
            methods = ("vanilla", "cot", "own")  # set here: wins over prompts.METHODS
        '''

PARTS_OF = {
    "family": FAMILY_PY,
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


def test_the_parts_named_in_family_py_become_the_family(parts_site: Path) -> None:
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


def test_a_module_not_named_in_parts_is_not_a_part(parts_site: Path) -> None:
    """No module is found by its name: a folder's scoring.py the family does not name
    gives nothing; a module named for the wrong part is an error when the class is
    defined."""
    family = FAMILY_PY.replace("scoring, metrics", "None, metrics")
    write(parts_site, "twice_tom", {**PARTS_OF, "family": family})
    cls = importlib.import_module("twice_tom.family").PartsFamily
    assert cls.score is Family.score and cls.option_problems is Family.option_problems
    with pytest.raises(NotImplementedError, match=r"family parts has no score: name the part "
                                                  r"that defines it in `parts = Parts\(\.\.\.\)`"):
        cls().score(None, "", None)
    forget_package("twice_tom")
    wrong = FAMILY_PY.replace("Parts(schema, expand,", "Parts(expand, schema,")
    write(parts_site, "parts_tom", {**PARTS_OF, "family": wrong})
    with pytest.raises(TypeError, match=r"its part schema=parts_tom.expand defines none of "
                                        r"SCENARIO, DEFAULTS, check; is it the schema part\?"):
        importlib.import_module("parts_tom.family")


def test_a_class_naming_no_parts_is_taken_as_written() -> None:
    class Written(Family):
        name = "written"

    assert Written.scenario_schema is Family.scenario_schema and Written.converters == {}
    assert Written.score is Family.score
    with pytest.raises(TypeError, match="`parts` should be a Parts"):
        type("Wrong", (Family,), {"name": "wrong", "parts": {"schema": None}})


def test_a_converter_resolves_through_one_function_with_a_clear_error(
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert families.converter("tomato").__name__ == "pytest_tom.families.tomato.convert"
    with pytest.raises(UnknownName, match=r"no converter 'tomatoe' \(did you mean 'tomato'\?\)"):
        families.converter("tomatoe")
    monkeypatch.setattr(families, "converters", lambda: {"gone": "no_such_tom.convert",
                                                         "odd": "pytest_tom.families.kit"})
    with pytest.raises(BrokenTarget, match=r"converter 'gone' \(no_such_tom.convert, .*"
                                           r"ModuleNotFoundError"):
        families.converter("gone")
    with pytest.raises(BrokenTarget, match="it defines no add_arguments and no run"):
        families.converter("odd")


# a part's names -> the Family attributes they give: a built-in family.py sets none itself
GIVEN_BY_PARTS = {attribute for names in HOOKS.values() for attribute in names.values()}
PART_MODULES = {*HOOKS, "convert"}


@pytest.mark.parametrize("name", sorted(families.BUILTIN))
def test_a_built_in_family_names_every_part_and_each_resolves(name: str) -> None:
    folder = REPO / "pytest_tom" / "families" / name
    (cls,) = [n for n in ast.parse((folder / "family.py").read_text()).body
              if isinstance(n, ast.ClassDef)]
    written = {t.id for n in cls.body if isinstance(n, ast.Assign) for t in n.targets
               if isinstance(t, ast.Name)}
    written |= {n.name for n in cls.body if isinstance(n, ast.FunctionDef)}
    assert not written & GIVEN_BY_PARTS, (
        f"{name}/family.py sets {sorted(written & GIVEN_BY_PARTS)} itself: put each in its "
        f"part, under the name families/parts.py gives it, and name the part in `parts` "
        f"(docs/adding-a-family.md, 'The parts are named in family.py')")
    fam = families.get(name)
    named = {part: module.__name__ for part, module in type(fam).parts.given().items()}
    # every module of the folder named as a part is this family's part of that name
    in_folder = {path.stem for path in folder.glob("*.py")} & PART_MODULES
    prefix = f"pytest_tom.families.{name}"
    assert named == {p: f"{prefix}.{p}" for p in in_folder - {"convert"}}, (
        f"{name}: its folder holds {sorted(in_folder)}; name each in `parts`")
    if "convert" in in_folder:  # the converter, named by its import path, resolves
        (sub,) = [s for s, target in fam.converters.items() if target == f"{prefix}.convert"]
        assert families.converter(sub).run
    families.options_agree(name)  # the inert plugin registers what the family declares
    assert fam.scenario_schema is not Family.scenario_schema
    assert type(fam).score is not Family.score and type(fam).expand is not Family.expand


def test_options_the_family_does_not_name_are_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    fam = families.get("tomato")
    monkeypatch.setitem(families._cache, "tomato", type("T", (type(fam),), {"options": ()})())
    with pytest.raises(BrokenTarget, match=r"family 'tomato' declares the options \[\], and "
                                           r"the inert plugin registers \['tomato_reading'"):
        families.options_agree("tomato")
