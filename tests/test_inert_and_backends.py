"""Without --tom-model the plugin is inert; the python and replay backends; the tom_model fixture."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import TESTS, load_report

ANSWERERS = TESTS / "answerers.py"
SUITE = """\
suite: mini
family: generic
version: 1
defaults: {shuffle: false}
scenarios:
  - id: s
    context: Ann puts the ball in the box.
    questions:
      - {id: where, ask: Where is the ball?, choices: [box, basket], answer: box}
      - {id: knows, ask: Does Ann know where the ball is?, yes_no: "yes"}
"""


def make_repo(pytester: pytest.Pytester) -> None:
    pytester.makefile(".tom.yaml", mini=SUITE)
    pytester.makefile(".yaml", config="key: value\n")
    pytester.makepyfile(test_plain="""
        import pytest
        def test_ok(): assert 1 + 1 == 2
        def test_fail(): assert False
        @pytest.mark.skip(reason="x")
        def test_skip(): pass
    """)


def test_without_model_behaves_as_without_plugin(pytester: pytest.Pytester) -> None:
    make_repo(pytester)
    with_plugin = pytester.runpytest("-p", "no:cacheprovider", "-v")
    without = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:tom", "-v")
    assert with_plugin.ret == without.ret == 1
    with_plugin.assert_outcomes(passed=1, failed=1, skipped=1)
    without.assert_outcomes(passed=1, failed=1, skipped=1)
    assert "tom" not in "\n".join(line for line in with_plugin.stdout.lines if "::" in line)
    assert "tom:" not in with_plugin.stdout.str()


def test_inert_plugin_imports_nothing_heavy(pytester: pytest.Pytester) -> None:
    make_repo(pytester)
    pytester.makeconftest("""
        import sys
        def pytest_sessionfinish(session):
            heavy = [m for m in ("openai", "torch", "sentence_transformers", "xllamacpp",
                                 "pytest_tom.catalogue.load", "pytest_tom.asking.runner", "tabulate")
                     if m in sys.modules]
            print("HEAVY:", heavy)
    """)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-s", "-p", "no:anyio")
    result.stdout.fnmatch_lines(["*HEAVY: []*"])


def test_disable_with_no_tom(pytester: pytest.Pytester) -> None:
    make_repo(pytester)
    result = pytester.runpytest("-p", "no:tom", "-p", "no:cacheprovider", "--tom-model=x")
    assert result.ret == pytest.ExitCode.USAGE_ERROR  # the option does not exist then


def test_unknown_backend_is_a_usage_error(pytester: pytest.Pytester) -> None:
    make_repo(pytester)
    result = pytester.runpytest("--tom-model=gpt4", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*unknown backend 'gpt4'*openai:*python:*replay:*"])


def test_python_backend_gets_the_item(pytester: pytest.Pytester) -> None:
    pytester.makefile(".tom.yaml", mini=SUITE)
    pytester.makepyfile(spy="""
        import json
        SEEN = []
        def answer(req):
            it = req.item
            with open("seen.jsonl", "a") as fh:
                fh.write(json.dumps({"id": it.id, "family": it.family, "kind": it.kind,
                    "question": it.question, "choices": it.choices, "gold": it.gold,
                    "tags": it.tags, "line": it.source["line"], "prompt": req.prompt,
                    "roles": [m["role"] for m in req.messages], "step": req.step}) + "\\n")
            return "a)" if it.kind == "choice" else "yes"
    """)
    result = pytester.runpytest("--tom-model=python:spy:answer", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
    seen = [json.loads(x) for x in (pytester.path / "seen.jsonl").read_text().splitlines()]
    by_id = {s["id"]: s for s in seen}
    where = by_id["s::where"]
    assert where["choices"] == ["a) box", "b) basket"] and where["gold"] == "box"
    assert where["family"] == "generic" and where["kind"] == "choice" and where["line"] == 9
    assert "Ann puts the ball in the box." in where["prompt"] and where["roles"] == ["user"]
    assert by_id["s::knows"]["gold"] == "yes"


def test_cot_method_makes_two_calls_and_scores_the_second(pytester: pytest.Pytester) -> None:
    pytester.makefile(".tom.yaml", mini=SUITE)
    pytester.makepyfile(cot="""
        def answer(req):
            if req.step == 0:
                assert req.prompt.endswith("Let's think step by step.")
                return "b) looks tempting but the ball went in the box, not b)."
            assert req.messages[1]["role"] == "assistant"
            return "a)" if req.item.kind == "choice" else "Yes."
    """)
    report = pytester.path / "r.json"
    result = pytester.runpytest("--tom-model=python:cot:answer", "--tom-method=cot",
                                f"--tom-report={report}", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
    assert all(len(r["responses"]) == 2 for r in load_report(report)["items"])


def test_a_method_the_family_does_not_offer_runs_vanilla_and_says_so(
        pytester: pytest.Pytester) -> None:
    pytester.makefile(".tom.yaml", mini=SUITE)
    result = pytester.runpytest(f"--tom-model=python:{ANSWERERS}:right", "--tom-method=simtom",
                                "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["tom: method simtom applies to opentom; suites of *generic* "
                                 "run vanilla*"])
    result.assert_outcomes(passed=2)


def test_python_backend_exception_is_an_error_outcome(pytester: pytest.Pytester) -> None:
    pytester.makefile(".tom.yaml", mini=SUITE)
    report = pytester.path / "r.json"
    result = pytester.runpytest(f"--tom-model=python:{ANSWERERS}:boom", f"--tom-report={report}",
                                "-p", "no:cacheprovider")
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(["*RuntimeError: the answerer broke*"])
    m = load_report(report)["suites"]["mini"]["metrics"]
    assert (m["items"], m["errors"], m["turn"]) == (2, 2, 0.0)


def test_unparseable_answers_are_wrong_and_counted(pytester: pytest.Pytester) -> None:
    pytester.makefile(".tom.yaml", mini=SUITE)
    report = pytester.path / "r.json"
    result = pytester.runpytest(f"--tom-model=python:{ANSWERERS}:unparseable",
                                f"--tom-report={report}", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(["*unparseable answer ?mini · choice?*"])
    m = load_report(report)["suites"]["mini"]["metrics"]
    assert (m["unparseable"], m["turn"], m["parse_failure_rate"]) == (2, 0.0, 1.0)


def test_replay_missing_id_is_an_error_outcome(pytester: pytest.Pytester) -> None:
    pytester.makefile(".tom.yaml", mini=SUITE)
    replay = pytester.path / "rec.jsonl"
    replay.write_text(json.dumps({"id": "s::where", "response": "a) box"}) + "\n")
    report = pytester.path / "r.json"
    result = pytester.runpytest(f"--tom-model=replay:{replay}", f"--tom-report={report}",
                                "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*missing_response*no recorded response for 's::knows'*"])
    m = load_report(report)["suites"]["mini"]["metrics"]
    assert (m["items"], m["errors"], m["correct"]) == (2, 1, 1)


def test_bad_replay_file_names_the_line(pytester: pytest.Pytester) -> None:
    pytester.makefile(".tom.yaml", mini=SUITE)
    replay = pytester.path / "rec.jsonl"
    replay.write_text('{"id": "s::where", "response": "a"}\nnot json\n')
    result = pytester.runpytest(f"--tom-model=replay:{replay}", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*rec.jsonl:2: not a replay record*"])


def test_tom_model_fixture_in_user_tests(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(echo="def answer(req): return 'echo: ' + req.prompt")
    pytester.makepyfile(test_mine="""
        def test_ask(tom_model):
            assert tom_model.ask("hello") == "echo: hello"
    """)
    result = pytester.runpytest("--tom-model=python:echo:answer", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    skipped = pytester.runpytest("-p", "no:cacheprovider", "-rs")
    skipped.assert_outcomes(skipped=1)
    skipped.stdout.fnmatch_lines(["*no model configured: pass --tom-model*"])


def test_help_shows_the_tom_group() -> None:
    out = subprocess.run([sys.executable, "-m", "pytest", "--help"], capture_output=True, text=True).stdout
    assert "pytest-tom: Theory-of-Mind suites" in out
    for flag in ("--tom-model", "--tom-base-url", "--tom-files", "--tom-method", "--tom-seed",
                 "--tom-temperature", "--tom-max-tokens", "--tom-report"):
        assert flag in out
    assert "tom_model" in out and "tom_report" in out
