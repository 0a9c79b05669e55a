"""Adding a family touches one folder: a toy family written into a temporary folder
(family.py, headline.py, options.py, convert.py, as docs/adding-a-family.md says), entered
in `families.BUILTIN` as a folder under `pytest_tom/families/` is, or installed as a
distribution with an entry point, gets its suites collected and scored, its option, its
converter subcommand, its lower-is-better metric, and its one declared grouped metric with
its interval in the terminal, the JSON and the Markdown, in `pytest-tom compare`, in a
`--tom-fail-under` gate, and its declared plot in the HTML report."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from family_support import forget_package, install_entry_point_family

from pytest_tom import families
from pytest_tom.cli import main

FAMILY = '''
"""Toy family: each scenario asks for one word; the answer must contain it."""
from pytest_tom.api import (ID, Family, FamilyResult, Field, ListOf, Obj, Outcome, Str,
                            judged, single_call)
from toy_tom.headline import METRICS, PLOTS
from toy_tom.options import OPTIONS


class ToyFamily(Family):
    name = "toy"
    methods = ("vanilla",)
    options = OPTIONS
    converters = {"toy": "toy_tom.convert"}
    lower_is_better = ("misses",)
    headline_metrics = METRICS
    plots = PLOTS
    scenario_schema = Obj(what="toy scenario", fields={
        "id": Field(ID, required=True), "question": Field(Str(), required=True),
        "answer": Field(Str(), required=True), "topic": Field(Str(), required=True)})

    def expand(self, suite, data, settings, line_of):
        from pytest_tom.api import ItemSpec
        return [ItemSpec(id=f"{s['id']}::q", suite=suite.name, family=self.name,
                         scenario=s["id"], kind="word", question=s["question"],
                         gold=s["answer"], meta={"topic": s["topic"]},
                         line=line_of(("scenarios", i)))
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
HEADLINE = '''
"""Toy: the share of topics whose every question was answered right, and its plot."""
from pytest_tom.api import GROUPED, AllRight, Metric, Plot, ratio_of


def topic(record):
    return record["item"]["meta"]["topic"]


PLOTS = (Plot("topics", "Toy topics answered right"),)
METRICS = (Metric("topics_right", "topics all right", GROUPED, summarize=AllRight(),
                  finish=ratio_of(), unit=topic, of_groups=True, plot="topics",
                  short="all right"),)
'''
OPTIONS = '''
from pytest_tom.core.option_table import Opt

OPTIONS = (Opt("toy_exact", "toy: the answer must be the word alone", default=False, flag=True),)
'''
CONVERT = '''
"""Toy: a JSON list of [question, answer, topic] triples -> one toy suite."""
import json
from pathlib import Path

from pytest_tom.api import dump_suite


def add_arguments(parser):
    parser.add_argument("input")
    parser.add_argument("-o", "--out", required=True)


def run(args):
    pairs = json.loads(Path(args.input).read_text())
    doc = {"suite": "toy", "family": "toy", "version": 1,
           "scenarios": [{"id": f"s{i}", "question": q, "answer": a, "topic": t}
                         for i, (q, a, t) in enumerate(pairs)]}
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
    """The toy family's folder, entered in the built-in table (a folder under
    pytest_tom/families/ is entered there by the registry itself)."""
    folder = tmp_path / "pkgs" / "toy_tom"
    folder.mkdir(parents=True)
    for name, text in (("__init__", ""), ("family", FAMILY), ("headline", HEADLINE),
                       ("options", OPTIONS), ("convert", CONVERT)):
        (folder / f"{name}.py").write_text(textwrap.dedent(text), encoding="utf-8")
    monkeypatch.syspath_prepend(str(folder.parent))
    monkeypatch.setitem(families.BUILTIN, "toy", "toy_tom.family:ToyFamily")
    monkeypatch.setattr(families, "_cache", {})
    yield folder
    forget_package("toy_tom")


def test_toy_family_runs_with_its_option_converter_and_direction(
        toy: Path, pytester: pytest.Pytester) -> None:
    source = pytester.path / "pairs.json"
    source.write_text(json.dumps([["What colour is the sky?", "blue", "sky"],
                                  ["What colour is grass?", "green", "grass"]]))
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


TOPICS = [["What colour is the sky?", "blue", "sky"],
          ["What colour is the sky at noon?", "blue", "sky"],
          ["What colour is the sea under a clear sky?", "blue", "sea"],
          ["What colour is grass?", "green", "grass"]]
ALL_RIGHT = '''
def answer(req):
    return "It is " + ("blue" if "sky" in req.item.question else "green") + "."
'''


def declared_metric_everywhere(folder: Path, pytester: pytest.Pytester) -> None:
    """The toy's declared grouped metric, with no line changed outside its folder: its value
    and interval in the terminal, JSON and Markdown, `compare` with a paired test, a
    `--tom-fail-under` gate in the declared direction, and its declared plot in the HTML."""
    source = pytester.path / "topics.json"
    source.write_text(json.dumps(TOPICS))
    assert main(["convert", "toy", str(source), "-o", str(pytester.path / "suites")]) == 0
    suite = str(pytester.path / "suites" / "toy.tom.yaml")
    (pytester.path / "answers.py").write_text(ANSWERS)
    (pytester.path / "right.py").write_text(ALL_RIGHT)
    weak = f"--tom-model=python:{pytester.path / 'answers.py'}:answer"
    strong = f"--tom-model=python:{pytester.path / 'right.py'}:answer"
    plain = ("-p", "no:cacheprovider", "-q", "--tom-cache=off")

    result = pytester.runpytest(suite, weak, *plain, "--tom-report=weak.json",
                                "--tom-markdown=weak.md", "--tom-html=weak.html",
                                "--tom-fail-under=toy.topics_right=0.6")
    assert result.ret == 0  # 2 of 3 topics all right: 0.667 >= 0.6
    report = json.loads((pytester.path / "weak.json").read_text())
    toy = report["suites"]["toy"]
    assert toy["metrics"]["topics_right"] == pytest.approx(2 / 3)  # sky, sea right; grass not
    iv = toy["intervals"]["topics_right"]
    assert iv["method"] == "bootstrap" and iv["n"] == 3
    assert iv["low"] <= 2 / 3 <= iv["high"] and iv["label"] == "topics all right"
    result.stdout.fnmatch_lines(["*95% intervals: topics all right 66.7% [[]*, *[]]*"])
    markdown = (pytester.path / "weak.md").read_text()
    assert "| topics all right | `topics_right` | 66.7% | [" in markdown
    html = (pytester.path / "weak.html").read_text()
    assert "Toy topics answered right" in html and html.count("<svg") >= 2

    result = pytester.runpytest(suite, weak, *plain, "--tom-fail-under=toy.topics_right=0.7")
    assert result.ret == 1  # higher is better (the default direction): 0.667 < 0.7 fails
    result.stdout.fnmatch_lines(["*toy:topics_right*0.7*"])

    result = pytester.runpytest(suite, strong, *plain, "--tom-report=strong.json")
    assert result.ret == 0
    out = pytester.path / "compare.json"
    assert main(["compare", str(pytester.path / "weak.json"), str(pytester.path / "strong.json"),
                 "--labels", "weak,strong", "--json", str(out)]) == 0
    row = next(r for s in json.loads(out.read_text())["suites"] for r in s["rows"]
               if r["metric"] == "topics_right")
    assert row["values"] == [pytest.approx(2 / 3), 1.0]
    assert row["intervals"][0]["method"] == "bootstrap"
    diff = row["diffs"][1]
    assert diff["test"] == "paired bootstrap" and diff["delta"] == pytest.approx(1 / 3)


def test_toy_family_declared_metric_reaches_every_output(
        toy: Path, pytester: pytest.Pytester) -> None:
    declared_metric_everywhere(toy, pytester)


@pytest.fixture
def toy_distribution(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The toy family installed as a distribution: its package and a `.dist-info` with the
    `pytest_tom.families` entry point on sys.path (no `BUILTIN` line)."""
    site = tmp_path / "site"
    folder = site / "toy_tom"
    folder.mkdir(parents=True)
    for name, text in (("__init__", ""), ("family", FAMILY), ("headline", HEADLINE),
                       ("options", OPTIONS), ("convert", CONVERT)):
        (folder / f"{name}.py").write_text(textwrap.dedent(text), encoding="utf-8")
    install_entry_point_family(site, "toy-tom", "toy", "toy_tom.family:ToyFamily", monkeypatch)
    assert "toy" not in families.BUILTIN and families.available()["toy"] == \
        "toy_tom.family:ToyFamily"  # found through the entry point
    yield folder
    forget_package("toy_tom")


def test_entry_point_family_declared_metric_reaches_every_output(
        toy_distribution: Path, pytester: pytest.Pytester) -> None:
    declared_metric_everywhere(toy_distribution, pytester)
