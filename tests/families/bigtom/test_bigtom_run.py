"""BigToM through pytest itself (pytester): baselines on the converted data, exact figures.

The baselines on the 5,000 converted items run in process (loader, the
family's prompts and scoring, the aggregation: the plugin's steps without
pytest), because three pytester runs of 5,000 items with thousands of
failures take too long for the test budget on two shared cores (see
benchmarks/bigtom_speed.py); one pytester run on a 1,000-item slice checks
that the plugin path gives exactly the in-process numbers. The answerers read
the answers from the authors' CSV, not from the family.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from bigtom_support import (
    BELIEFS,
    CONDITION_IDS,
    CSV_ENV,
    INFERENCES,
    VARIANTS,
    YAML_ENV,
    as_item,
    behaviour,
    expected_mixed,
    first_letter,
    initial_state,
    oracle,
    right_text,
    run_in_process,
)
from conftest import FAMILY_TESTS, SUITES, load_report, shared_data

from pytest_tom.cli import main

SUPPORT = FAMILY_TESTS / "bigtom" / "bigtom_support.py"
BUNDLED = SUITES / "bigtom" / "everyday-causal-templates.tom.yaml"
JOINT_NAMES = ("tb_and_fb", "tc_and_fc")


@pytest.fixture(scope="module")
def authors_csv() -> Path:
    return shared_data("bigtom", "bigtom.csv")


@pytest.fixture(scope="module")
def converted(authors_csv: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bigtom-run")
    assert main(["convert", "bigtom", str(authors_csv), "-o", str(out)]) == 0
    return out / "bigtom.tom.yaml"


@pytest.fixture(scope="module")
def converted_slice(authors_csv: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bigtom-slice")
    assert main(["convert", "bigtom", str(authors_csv), "-o", str(out), "--limit", "40",
                 "--suite", "bigtom-40"]) == 0
    return out / "bigtom-40.tom.yaml"


@pytest.fixture
def csv_env(authors_csv: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CSV_ENV, str(authors_csv))


def run(pytester: pytest.Pytester, suite: Path, answerer: str, *args: str) -> tuple[Any, dict]:
    pytester.makeini("[pytest]\n")
    report = pytester.path / "report.json"
    result = pytester.runpytest(str(suite), f"--tom-model=python:{SUPPORT}:{answerer}",
                                f"--tom-report={report}", "-p", "no:cacheprovider", "-q",
                                "--tb=no", *args)
    return result, load_report(report)


def joint_ids() -> list[str]:
    return [f"{i}.{name}.{v}" for i in INFERENCES for v in VARIANTS for name in JOINT_NAMES]


def first_letter_expected(records: list[dict[str, Any]]) -> dict[str, float]:
    """Figures of "always a)" computed from the shown options and the CSV's answers."""
    ok: dict[tuple[str, str], bool] = {}
    for rec in records:
        item = as_item(rec)
        ok[item.scenario, item.id.split("::")[1]] = item.choices[0] == right_text(item)
    templates = sorted({t for t, _ in ok})
    n = len(templates)
    out = {cid: sum(ok[t, cid] for t in templates) / n for cid in CONDITION_IDS}
    for i in INFERENCES:
        for v in VARIANTS:
            for name, a, d in (("tb_and_fb", "true_belief", "false_belief"),
                               ("tc_and_fc", "true_control", "false_control")):
                both = sum(ok[t, f"{i}.{a}.{v}"] and ok[t, f"{i}.{d}.{v}"] for t in templates)
                out[f"{i}.{name}.{v}"] = both / n
    out["items_right"] = sum(ok.values())
    return out


# -- baselines on the authors' 200 templates (in process: 5,000 items) ---------------------------
def test_always_correct_scores_100_everywhere(converted: Path, csv_env: None) -> None:
    suite, records = run_in_process(converted, oracle)
    assert len(records) == 5000
    m = suite["metrics"]
    for name in [*CONDITION_IDS, *joint_ids(), *BELIEFS, *JOINT_NAMES]:
        assert m[name] == 1.0, name
    assert m["goal"] == 1.0 and m["parse_failure_rate"] == 0.0


def test_always_initial_state(converted: Path, csv_env: None) -> None:
    suite, records = run_in_process(converted, initial_state)
    m = suite["metrics"]
    assert m["correct"] == 3800
    for cid in CONDITION_IDS:
        assert m[cid] == (0.0 if ".true_belief." in cid else 1.0), cid
    for jid in joint_ids():
        assert m[jid] == (0.0 if "tb_and_fb" in jid else 1.0), jid
    assert m["initial_state_rate"] == 1.0


def test_always_first_letter_is_chance(converted: Path, csv_env: None) -> None:
    suite, records = run_in_process(converted, first_letter)
    m = suite["metrics"]
    expected = first_letter_expected(records)
    for name in [*CONDITION_IDS, *joint_ids()]:
        assert m[name] == pytest.approx(expected[name]), name
    for cid in CONDITION_IDS:
        assert 0.38 <= m[cid] <= 0.62, (cid, m[cid])  # about 50%: shuffled per item
    for jid in joint_ids():
        assert 0.15 <= m[jid] <= 0.35, (jid, m[jid])  # about 25%
    assert 0.2 <= m["tb_and_fb"] <= 0.3 and 0.2 <= m["tc_and_fc"] <= 0.3


def test_pytest_run_equals_in_process_figures(pytester: pytest.Pytester, converted_slice: Path,
                                              csv_env: None) -> None:
    """The plugin path on 1,000 converted items: the same numbers as the in-process path."""
    result, data = run(pytester, converted_slice, "first_letter")
    m = data["suites"]["bigtom-40"]["metrics"]
    expected = first_letter_expected(data["items"])
    result.assert_outcomes(passed=expected["items_right"], failed=1000 - expected["items_right"])
    for name in [*CONDITION_IDS, *joint_ids()]:
        assert m[name] == pytest.approx(expected[name]), name
    suite, _ = run_in_process(converted_slice, first_letter)
    assert suite["metrics"] == m
    assert suite["tables"] == data["suites"]["bigtom-40"]["tables"]
    result.stdout.fnmatch_lines(["*accuracy (rows as the paper's Table 2)*",
                                 "forward belief*TB*(*/40)*(*/40)*", "*TB ∧ FB*(*/40)*(*/40)*"])


# -- the bundled suite: a mixed answerer, plainly and under xdist -----------------------------
@pytest.mark.parametrize("xdist", [[], ["-n", "2"]], ids=["plain", "xdist"])
def test_mixed_answerer_exact_figures(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                      xdist: list[str]) -> None:
    import yaml

    monkeypatch.setenv(YAML_ENV, str(BUNDLED))
    result, data = run(pytester, BUNDLED, "mixed", *xdist)
    templates = [t["id"] for t in yaml.safe_load(BUNDLED.read_text(encoding="utf-8"))["scenarios"]]
    ids = [f"{t}::{c}" for t in templates for c in CONDITION_IDS]
    kinds = defaultdict(int)
    for i in ids:
        kinds[behaviour(i)] += 1
    result.assert_outcomes(passed=kinds["right"], errors=kinds["fail"],
                           failed=kinds["wrong"] + kinds["unparseable"] + kinds["both"])
    m = data["suites"]["bigtom-everyday"]["metrics"]
    assert m["items"] == len(ids) and m["unparseable"] == kinds["unparseable"]
    assert m["errors"] == kinds["fail"]
    for name, value in expected_mixed(templates).items():
        assert m[name] == pytest.approx(value), name
    assert m["turn"] == pytest.approx(kinds["right"] / len(ids))


def test_marker_selection_and_partial_joint_scores(pytester: pytest.Pytester,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(YAML_ENV, str(BUNDLED))
    result, data = run(pytester, BUNDLED, "oracle", "-m", "tom_bigtom and false_belief and smell")
    result.assert_outcomes(passed=4 * 6)  # 4 smell templates x 3 inferences x 2 variants
    m = data["suites"]["bigtom-everyday"]["metrics"]
    assert m["false_belief"] == 1.0 and m["true_belief"] is None and m["tb_and_fb"] is None
    result.stdout.fnmatch_lines(["*24 item(s) had no partner item in this run*"])
    result, _ = run(pytester, BUNDLED, "oracle", "-m", "percept_to_belief or "
                    "(backward_belief and with_initial_belief and true_control)")
    result.assert_outcomes(passed=2 * 25)


@pytest.mark.parametrize("method", ["cot", "1shot", "1shot-cot"])
def test_methods_through_pytest(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                method: str) -> None:
    """Chain of thought scores only the second reply (the first names both letters)."""
    monkeypatch.setenv(YAML_ENV, str(BUNDLED))
    (pytester.path / "think.py").write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(FAMILY_TESTS / 'bigtom')!r})\n"
        "from bigtom_support import oracle\n"
        "def answer(req):\n"
        "    roles = [m['role'] for m in req.messages]\n"
        "    shots = roles.count('assistant') - req.step\n"
        f"    assert shots == {0 if method == 'cot' else 1}, roles\n"
        "    if req.step == 0 and 'cot' in " + repr(method) + ":\n"
        "        return 'Thought: Let us weigh a) against b). Answer:a) and b)'\n"
        "    return oracle(req)\n", encoding="utf-8")
    pytester.makeini("[pytest]\n")
    result = pytester.runpytest(str(BUNDLED), f"--tom-model=python:{pytester.path}/think.py:answer",
                                f"--tom-method={method}", "-p", "no:cacheprovider", "-q",
                                "-k", "bakery-sugar-jar or morning-bus")
    result.assert_outcomes(passed=50)


def test_broken_suite_is_a_collection_error(pytester: pytest.Pytester) -> None:
    bad = pytester.makefile(".tom.yaml", bad="suite: bad\nfamily: bigtom\nversion: 1\n"
                            "scenarios:\n  - id: x\n    context: C.\n")
    pytester.makeini("[pytest]\n")
    result = pytester.runpytest(str(bad), f"--tom-model=python:{SUPPORT}:first_letter",
                                "-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*bad.tom.yaml:5:5: scenarios[[]0[]]: missing required key 'desire'*"])
