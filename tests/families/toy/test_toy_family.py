"""Adding a family touches one folder and one registry line: a toy family written into a
temporary folder (family.py, options.py, convert.py, as docs/adding-a-family.md says),
registered by one `BUILTIN` entry, gets its suites collected and scored, its option,
its converter subcommand and its lower-is-better metric."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

from pytest_tom import families
from pytest_tom.cli import main

FAMILY = '''
"""Toy family: each scenario asks for one word; the answer must contain it."""
from pytest_tom.api import (ID, Family, FamilyResult, Field, ListOf, Obj, Outcome, Str,
                            judged, single_call)
from toy_tom.options import OPTIONS


class ToyFamily(Family):
    name = "toy"
    methods = ("vanilla",)
    options = OPTIONS
    converters = {"toy": "toy_tom.convert"}
    lower_is_better = ("misses",)
    scenario_schema = Obj(what="toy scenario", fields={
        "id": Field(ID, required=True), "question": Field(Str(), required=True),
        "answer": Field(Str(), required=True)})

    def expand(self, suite, data, settings, line_of):
        from pytest_tom.api import ItemSpec
        return [ItemSpec(id=f"{s['id']}::q", suite=suite.name, family=self.name,
                         scenario=s["id"], kind="word", question=s["question"],
                         gold=s["answer"], line=line_of(("scenarios", i)))
                for i, s in enumerate(data["scenarios"])]

    def conversation(self, item, method, responses):
        return single_call([{"role": "user", "content": item.question}], responses)

    def score(self, item, response, ctx):
        exact = ctx.settings.options.get("toy_exact")
        got = response.strip().lower()
        ok = got == item.gold.lower() if exact else item.gold.lower() in got
        return Outcome(correct=ok, parsed=got)

    def aggregate(self, records, settings):
        return FamilyResult(metrics={"misses": sum(1 for r in judged(records)
                                                   if r["outcome"]["correct"] is False)})
'''
OPTIONS = '''
from pytest_tom.core.option_table import Opt

OPTIONS = (Opt("toy_exact", "toy: the answer must be the word alone", default=False, flag=True),)
'''
CONVERT = '''
"""Toy: a JSON list of [question, answer] pairs -> one toy suite."""
import json
from pathlib import Path

from pytest_tom.api import dump_suite


def add_arguments(parser):
    parser.add_argument("input")
    parser.add_argument("-o", "--out", required=True)


def run(args):
    pairs = json.loads(Path(args.input).read_text())
    doc = {"suite": "toy", "family": "toy", "version": 1,
           "scenarios": [{"id": f"s{i}", "question": q, "answer": a}
                         for i, (q, a) in enumerate(pairs)]}
    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / "toy.tom.yaml").write_text(dump_suite(doc))
    return 0
'''
ANSWERS = '''
def answer(req):
    return "It is " + ("blue" if "sky" in req.item.question else "unknown") + "."
'''


@pytest.fixture
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The toy family's folder, and its one registry line."""
    folder = tmp_path / "pkgs" / "toy_tom"
    folder.mkdir(parents=True)
    for name, text in (("__init__", ""), ("family", FAMILY), ("options", OPTIONS),
                       ("convert", CONVERT)):
        (folder / f"{name}.py").write_text(textwrap.dedent(text), encoding="utf-8")
    monkeypatch.syspath_prepend(str(folder.parent))
    monkeypatch.setitem(families.BUILTIN, "toy", "toy_tom.family:ToyFamily")  # the one line
    monkeypatch.setattr(families, "_cache", {})
    yield folder
    for name in [m for m in sys.modules if m == "toy_tom" or m.startswith("toy_tom.")]:
        del sys.modules[name]


def test_toy_family_runs_with_its_option_converter_and_direction(
        toy: Path, pytester: pytest.Pytester) -> None:
    source = pytester.path / "pairs.json"
    source.write_text(json.dumps([["What colour is the sky?", "blue"],
                                  ["What colour is grass?", "green"]]))
    assert main(["convert", "toy", str(source), "-o", str(pytester.path / "suites")]) == 0
    suite = pytester.path / "suites" / "toy.tom.yaml"
    (pytester.path / "answers.py").write_text(ANSWERS)
    model = f"--tom-model=python:{pytester.path / 'answers.py'}:answer"

    result = pytester.runpytest(str(suite), model, "-p", "no:cacheprovider", "-q",
                                "--tom-fail-under=toy.misses=1")
    result.assert_outcomes(passed=1, xfailed=1)  # gates decide: a wrong answer is an xfail
    assert result.ret == 0  # misses 1 <= 1: a ceiling, declared by the family

    result = pytester.runpytest(str(suite), model, "-p", "no:cacheprovider", "-q",
                                "--tom-fail-under=toy.misses=0")
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*toy:misses*required <= 0*above the allowed 0*"])

    result = pytester.runpytest(str(suite), model, "-p", "no:cacheprovider", "-q",
                                "--tom-toy-exact")  # the family's own option
    result.assert_outcomes(failed=2)
