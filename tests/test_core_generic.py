"""The whole path through pytest: bundled generic suite -> items -> python backend -> scores."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from answerers import is_in_wrong_subset
from conftest import SUITES, TESTS, load_report

GENERIC = SUITES / "generic" / "classic-false-belief.tom.yaml"
ANSWERERS = TESTS / "answerers.py"


def expected_figures(path: Path) -> dict[str, float | int]:
    """Turn and goal accuracy of the `mixed` answerer, computed from the raw YAML."""
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    items = right = goals = 0
    for sc in doc["scenarios"]:
        all_right = True
        for i, q in enumerate(sc["questions"]):
            qid = q.get("id", f"q{i + 1}")
            ok = not is_in_wrong_subset(f"{sc['id']}::{qid}")
            items += 1
            right += ok
            all_right = all_right and ok
        goals += all_right
    return {"items": items, "right": right, "turn": right / items, "scenarios": len(doc["scenarios"]),
            "goal": goals / len(doc["scenarios"]), "goals_right": goals}


def run(pytester: pytest.Pytester, answerer: str, *args: str) -> pytest.RunResult:
    pytester.makeini("[pytest]\n")
    return pytester.runpytest(str(GENERIC), f"--tom-model=python:{ANSWERERS}:{answerer}",
                              "-p", "no:cacheprovider", *args)


def test_bundled_suite_size() -> None:
    fig = expected_figures(GENERIC)
    assert fig["scenarios"] >= 30
    doc = yaml.safe_load(GENERIC.read_text(encoding="utf-8"))
    for sc in doc["scenarios"]:
        kinds = {t for q in sc["questions"] for t in q.get("tags", [])}
        assert {"belief", "reality", "memory"} <= kinds, sc["id"]


def test_gold_answerer_passes_everything(pytester: pytest.Pytester) -> None:
    report = pytester.path / "r.json"
    result = run(pytester, "right", f"--tom-report={report}")
    fig = expected_figures(GENERIC)
    result.assert_outcomes(passed=fig["items"])
    # the table is wider than 120 columns, so the goal column comes in a block of its own
    n = fig["scenarios"]
    result.stdout.fnmatch_lines(["*tom scores*", f"all *{fig['items']} *100.0%*",
                                 f"all *100.0% ({n}/{n})*", "tom totals:*turn 100.0%*goal 100.0%*"])
    data = load_report(report)
    m = data["suites"]["classic-false-belief"]["metrics"]
    assert m["turn"] == 1.0 and m["goal"] == 1.0 and m["items"] == fig["items"]


@pytest.mark.parametrize("xdist", [[], ["-n", "2"]], ids=["plain", "xdist"])
def test_mixed_answerer_exact_figures(pytester: pytest.Pytester, xdist: list[str]) -> None:
    report = pytester.path / "r.json"
    result = run(pytester, "mixed", f"--tom-report={report}", *xdist)
    fig = expected_figures(GENERIC)
    result.assert_outcomes(passed=fig["right"], failed=fig["items"] - fig["right"])
    data = load_report(report)
    m = data["suites"]["classic-false-belief"]["metrics"]
    assert m["items"] == fig["items"]
    assert m["correct"] == fig["right"]
    assert m["turn"] == pytest.approx(fig["turn"])
    assert m["goal"] == pytest.approx(fig["goal"])
    assert m["groups_correct"] == fig["goals_right"]
    assert data["totals"]["turn"] == pytest.approx(fig["turn"])
    assert len(data["items"]) == fig["items"]
    wrong_ids = {r["item"]["id"] for r in data["items"] if not r["outcome"]["correct"]}
    assert wrong_ids == {r["item"]["id"] for r in data["items"] if is_in_wrong_subset(r["item"]["id"])}
    result.stdout.fnmatch_lines([f"tom totals: {fig['items']} items · turn {100 * fig['turn']:.1f}%*"])


def test_xdist_and_plain_reports_agree(pytester: pytest.Pytester) -> None:
    plain, dist = pytester.path / "plain.json", pytester.path / "dist.json"
    run(pytester, "mixed", f"--tom-report={plain}")
    run(pytester, "mixed", f"--tom-report={dist}", "-n", "2")
    a, b = load_report(plain), load_report(dist)
    assert a["suites"] == b["suites"]
    assert a["totals"] == b["totals"]
    strip = [("item", "outcome", "responses")]
    assert [{k: r[k] for k in strip[0]} for r in a["items"]] == [{k: r[k] for k in strip[0]} for r in b["items"]]


def test_failure_text_is_short_and_readable(pytester: pytest.Pytester) -> None:
    result = run(pytester, "mixed", "-k", "memory", "-x")
    out = result.stdout.str()
    assert "wrong answer [classic-false-belief · choice]" in out
    assert "question:" in out and "expected:" in out and "parsed:" in out and "answer:" in out
    assert "Traceback" not in out and "def runtest" not in out
    result.assert_outcomes(failed=1)


def test_selection_by_k_m_and_node_id(pytester: pytest.Pytester) -> None:
    doc = yaml.safe_load(GENERIC.read_text(encoding="utf-8"))
    n_memory = sum(1 for sc in doc["scenarios"] for q in sc["questions"] if "memory" in q.get("tags", []))
    run(pytester, "right", "-m", "memory").assert_outcomes(passed=n_memory)
    n_transfer = sum(len(sc["questions"]) for sc in doc["scenarios"]
                     if "unexpected_transfer" in sc.get("tags", []))
    run(pytester, "right", "-m", "tom_generic and unexpected_transfer").assert_outcomes(passed=n_transfer)
    first = doc["scenarios"][0]
    result = pytester.runpytest(f"{GENERIC}::{first['id']}",
                                f"--tom-model=python:{ANSWERERS}:right", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=len(first["questions"]))
    q = first["questions"][0]
    result = pytester.runpytest(f"{GENERIC}::{first['id']}::{q['id']}",
                                f"--tom-model=python:{ANSWERERS}:right", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


def test_last_failed_reruns_only_wrong_items(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    model = f"--tom-model=python:{ANSWERERS}:mixed"
    first = pytester.runpytest(str(GENERIC), model)
    fig = expected_figures(GENERIC)
    n_wrong = fig["items"] - fig["right"]
    first.assert_outcomes(passed=fig["right"], failed=n_wrong)
    again = pytester.runpytest(str(GENERIC), model, "--lf")
    again.assert_outcomes(failed=n_wrong)


def test_junit_xml_has_one_case_per_item(pytester: pytest.Pytester) -> None:
    xml = pytester.path / "junit.xml"
    run(pytester, "mixed", f"--junitxml={xml}")
    text = xml.read_text(encoding="utf-8")
    fig = expected_figures(GENERIC)
    assert text.count("<testcase ") == fig["items"]
    assert text.count("<failure ") == fig["items"] - fig["right"]


def test_header_shows_model_and_settings(pytester: pytest.Pytester) -> None:
    result = run(pytester, "right", "--tom-seed=7", "--tom-temperature=0.5", "--co", "-q")
    result2 = pytester.runpytest(str(GENERIC), f"--tom-model=python:{ANSWERERS}:right", "--co")
    result2.stdout.fnmatch_lines(["tom: model python:*answerers.py:right (one worker thread (not "
                                   "thread-safe)) · method vanilla · seed 0*"])
    assert result.ret == 0


def test_seed_changes_choice_order_reproducibly(pytester: pytest.Pytester) -> None:
    reports = []
    for seed in (1, 1, 2):
        path = pytester.path / f"r{len(reports)}.json"
        run(pytester, "right", f"--tom-seed={seed}", f"--tom-report={path}")
        reports.append([r["item"]["choices"] for r in load_report(path)["items"]])
    assert reports[0] == reports[1]
    assert reports[0] != reports[2]


def test_ini_keys_and_command_line_precedence(pytester: pytest.Pytester) -> None:
    report = pytester.path / "r.json"
    pytester.makeini(f"[pytest]\ntom_model = python:{ANSWERERS}:mixed\ntom_seed = 5\n"
                     f"tom_report = {report}\n")
    (pytester.path / GENERIC.name).write_text(GENERIC.read_text(encoding="utf-8"), encoding="utf-8")
    result = pytester.runpytest(GENERIC.name, "-p", "no:cacheprovider", "--tom-seed=9")
    result.stdout.fnmatch_lines(["tom: model python:*mixed (*) · method vanilla · seed 9*"])
    data = load_report(report)
    assert data["settings"]["seed"] == 9


def test_record_then_replay_gives_the_same_numbers(pytester: pytest.Pytester) -> None:
    rec, r1, r2 = (pytester.path / n for n in ("rec.jsonl", "r1.json", "r2.json"))
    run(pytester, "mixed", f"--tom-record={rec}", f"--tom-report={r1}")
    lines = [json.loads(line) for line in rec.read_text().splitlines()]
    assert lines and all("id" in x and "responses" in x for x in lines)
    pytester.makeini("[pytest]\n")
    result = pytester.runpytest(str(GENERIC), f"--tom-model=replay:{rec}", f"--tom-report={r2}",
                                "-p", "no:cacheprovider")
    assert result.ret == 1
    assert load_report(r1)["suites"] == load_report(r2)["suites"]


def _limited_ids(pytester: pytest.Pytester, *args: str) -> tuple[list[str], pytest.RunResult]:
    report = pytester.path / f"r{len(list(pytester.path.glob('r*.json')))}.json"
    result = run(pytester, "right", f"--tom-report={report}", *args)
    return [r["item"]["id"] for r in load_report(report)["items"]], result


def test_limit_keeps_whole_scenarios_chosen_by_the_seed(pytester: pytest.Pytester) -> None:
    doc = yaml.safe_load(GENERIC.read_text(encoding="utf-8"))
    sizes = {sc["id"]: len(sc["questions"]) for sc in doc["scenarios"]}
    ids, result = _limited_ids(pytester, "--tom-limit=12")
    scenarios = {i.split("::")[0] for i in ids}
    assert 0 < len(ids) <= 12
    assert len(ids) == sum(sizes[s] for s in scenarios)  # whole scenarios only
    result.stdout.fnmatch_lines([f"*{len(ids)} passed, {fig_items() - len(ids)} deselected*"])
    again, _ = _limited_ids(pytester, "--tom-limit=12", "-n", "2")
    assert sorted(again) == sorted(ids)
    other, _ = _limited_ids(pytester, "--tom-limit=12", "--tom-seed=3")
    assert {i.split("::")[0] for i in other} != scenarios


def fig_items() -> int:
    return expected_figures(GENERIC)["items"]
