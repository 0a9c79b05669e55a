"""The user path of issue 15: real servers work out of the box, failures show what the
model saw, big runs read well. Against the loopback chat server or a `python:` answerer."""

from __future__ import annotations

import json
import time

import pytest
from chat_server import ChatServer, last_user_text
from conftest import SUITES, TESTS, header_budgets, load_report

GENERIC = SUITES / "generic" / "classic-false-belief.tom.yaml"
BIGTOM = SUITES / "bigtom" / "everyday-causal-templates.tom.yaml"
ANSWERERS = TESTS / "answerers.py"

SUITE = """\
suite: story-demo
family: generic
version: 1
defaults: {shuffle: false}
scenarios:
  - id: ball
    context: |
      Ann puts the ball in the box.
      Ann leaves the room.
      Bob moves the ball to the basket.
      Bob leaves too.
      Ann comes back.
      The room is quiet.
      A clock ticks.
      LASTLINE of the story.
    characters: [Ann, Bob]
    questions:
      - id: belief
        ask: Where will Ann look for the ball?
        choices: [the box, the basket]
        answer: the box
      - id: knows
        ask: SLOW Does Ann know the ball was moved?
        yes_no: "no"
"""


def openai_args(server: ChatServer, *args: str) -> list[str]:
    return ["--tom-model=openai:test-model", f"--tom-base-url={server.base_url}",
            "--tom-cache=off", "-p", "no:cacheprovider", "-p", "no:randomly", *args]


# -- 1. answer length, timeouts, usage -----------------------------------------------------
def test_openai_sends_the_family_default_max_tokens_and_the_header_shows_it(
        pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    with ChatServer(lambda body: "a)") as server:
        result = pytester.runpytest(str(GENERIC), str(BIGTOM), *openai_args(
            server, "-k", "cash-box-van or bakery-sugar-jar"))
        plain = {(b["max_tokens"], "Story:" in last_user_text(b)) for b in server.bodies}
        n_first = len(server.bodies)
        cot = pytester.runpytest(str(GENERIC), *openai_args(server, "-k", "cash-box-van",
                                                              "--tom-method=cot"))
        cot_bodies = server.bodies[n_first:]
        n_cot = len(server.bodies)
        fixed = pytester.runpytest(str(GENERIC), *openai_args(server, "-k", "cash-box-van",
                                                                "--tom-max-tokens=16"))
        fixed_tokens = {b["max_tokens"] for b in server.bodies[n_cot:]}
    # generic answers may be a small JSON: 128; BigToM answers are a letter: 64
    assert plain == {(128, False), (64, True)}
    result.stdout.fnmatch_lines(["tom: model openai:test-model*per answer*--tom-max-tokens*"])
    budgets = header_budgets(result.stdout.str())
    assert (budgets["generic"], budgets["bigtom"], budgets["opentom"]) == (128, 64, 64)
    # chain of thought: the reasoning call may be long, the answer call is short
    firsts = {b["max_tokens"] for b in cot_bodies if len(b["messages"]) == 1}
    seconds = {b["max_tokens"] for b in cot_bodies if len(b["messages"]) == 3}
    assert (firsts, seconds) == ({512}, {128})
    cot.stdout.fnmatch_lines(["tom: *max_tokens * per answer*512 to reason*"])
    assert header_budgets(cot.stdout.str())["generic"] == 128
    assert fixed_tokens == {16}
    fixed.stdout.fnmatch_lines(["tom: *· max_tokens 16 ·*"])


def slow_on_mark(body: dict) -> str:
    if "SLOW" in last_user_text(body):
        time.sleep(1.5)
    return "a)" if "Where" in last_user_text(body) else "No."


def test_a_timeout_says_what_each_attempt_did_and_names_the_options(
        pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    pytester.makefile(".tom.yaml", demo=SUITE)
    with ChatServer(slow_on_mark) as server:
        result = pytester.runpytest(*openai_args(server, "--tom-timeout=0.3", "--tom-retries=1",
                                                 "--tom-backoff=0.01", "--tom-report=r.json"))
    result.assert_outcomes(passed=1, errors=1)
    rec = next(r for r in load_report(pytester.path / "r.json")["items"]
               if r["item"]["id"] == "ball::knows")
    detail = rec["outcome"]["detail"]
    assert detail.startswith("timed out after 0.3s (--tom-timeout) (gave up after 2 attempts")
    assert "lower --tom-max-tokens" in detail and "raise --tom-timeout" in detail
    assert "lower --tom-concurrency" in detail
    assert "max_tokens 128" in detail
    # the usage table: one row for the model, though the server answered as "test-model"
    # for one item and the timed-out item has no answer (and so no model name) at all
    out = result.stdout.str()
    table = out[out.index("tom requests ---"):]
    rows = [ln for ln in table.splitlines() if ln.startswith("openai:test-model")]
    assert len(rows) == 1 and "test-model @ http://127.0.0.1" in rows[0]
    assert "the server answered as: test-model" not in table  # the configured name itself


# -- 2. the story of a failure ---------------------------------------------------------------
def test_a_failure_shows_what_the_model_saw_compact_and_whole_with_v(
        pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    pytester.makefile(".tom.yaml", demo=SUITE)
    model = f"--tom-model=python:{ANSWERERS}:unparseable"
    compact = pytester.runpytest(model, "-p", "no:cacheprovider", "-k", "belief", "--tb=short")
    compact.stdout.fnmatch_lines([
        "unparseable answer [story-demo · choice]",
        "  asked (the last user message):",
        "    | Ann puts the ball in the box.",
        "    | ... * more lines (-v shows all) ...",
        "  question: Where will Ann look for the ball?",
        "  choices:  a) the box  b) the basket",
        "  expected: a) the box",
        "  answer:   'Hmm, hard to say.'",
        "  parsed:   None",
        "  why:      the answer could not be read (no option named); counted as wrong",
    ])
    assert "LASTLINE" not in compact.stdout.str()  # the context is trimmed
    whole = pytester.runpytest(model, "-p", "no:cacheprovider", "-k", "belief", "-v",
                               "--tom-method=cot", "--tb=short")
    whole.stdout.fnmatch_lines([
        "  call 1 of 2:", "   user:", "    | Ann puts the ball in the box.",
        "    | LASTLINE of the story.", "*",
        "  call 2 of 2:", "   user:", "*", "   assistant:", "    | Hmm, hard to say.",
        "   user:", "    | Therefore, the answer is:*",
    ])


def test_the_json_report_keeps_every_call_of_every_item(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    pytester.makefile(".tom.yaml", demo=SUITE)
    pytester.runpytest(f"--tom-model=python:{ANSWERERS}:mixed", "--tom-method=cot",
                       "-p", "no:cacheprovider", "--tom-report=r.json")
    items = load_report(pytester.path / "r.json")["items"]
    assert len(items) == 2
    for rec in items:
        calls = rec["messages"]
        assert len(calls) == 2 == len(rec["responses"])
        assert all(set(m) == {"role", "content"} for call in calls for m in call)
        assert calls[0][0]["role"] == "user" and "Ann puts the ball" in calls[0][0]["content"]
        assert rec["item"]["question"].replace("SLOW ", "") in calls[0][0]["content"].replace(
            "SLOW ", "")
        # the second call carries the first answer as the assistant's turn
        assert calls[1][1] == {"role": "assistant", "content": rec["responses"][0]}
    json.dumps(items)  # plain data


def test_an_errored_item_keeps_the_call_that_failed(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    pytester.makefile(".tom.yaml", demo=SUITE)
    pytester.runpytest(f"--tom-model=python:{ANSWERERS}:boom", "-p", "no:cacheprovider",
                       "--tom-report=r.json")
    for rec in load_report(pytester.path / "r.json")["items"]:
        assert rec["outcome"]["error"] == "request_failed"
        assert len(rec["messages"]) == 1 and rec["responses"] == []


# -- 3. a wrong answer in report mode is as cheap as a failure -------------------------------
def test_an_xfail_in_report_mode_carries_the_reason_not_a_traceback(
        pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    pytester.makefile(".tom.yaml", demo=SUITE)
    rec = pytester.inline_run(f"--tom-model=python:{ANSWERERS}:unparseable",
                              "-p", "no:cacheprovider", "--tom-items=report")
    xfailed = [r for r in rec.getreports("pytest_runtest_logreport")
               if r.when == "call" and hasattr(r, "wasxfail")]
    assert len(xfailed) == 2
    for r in xfailed:
        # no traceback was built: the text of the report is the one-line reason
        assert isinstance(r.longrepr, str) and "unparseable answer" in r.longrepr
        assert "Traceback" not in r.longrepr and "\n" not in r.longrepr


# -- 4. big runs read well ---------------------------------------------------------------------
def generic_run(pytester: pytest.Pytester, answerer: str, *args: str) -> pytest.RunResult:
    pytester.makeini("[pytest]\n")
    return pytester.runpytest(str(GENERIC), f"--tom-model=python:{ANSWERERS}:{answerer}",
                              "-p", "no:cacheprovider", "-p", "no:randomly", *args)


def test_a_big_run_counts_its_wrong_items_and_ends_with_the_scores(
        pytester: pytest.Pytester) -> None:
    result = generic_run(pytester, "unparseable")  # every one of the 174 items is wrong
    out = result.stdout.str()
    result.assert_outcomes(failed=174)  # pytest's last line keeps every count
    assert "= FAILURES =" not in out and "\nFAILED " not in out  # no story, no line each
    result.stdout.fnmatch_lines(["*- tom wrong answers -*",
                                 "174 wrong (* unparseable): not listed one by one (more than 50)",
                                 "each story: --tb=short*"])
    # the scores come last, right before pytest's own last line
    lines = out.rstrip().splitlines()
    totals = next(i for i, line in enumerate(lines) if line.startswith("tom totals: 174 items"))
    assert all(line.startswith("  ") for line in lines[totals + 1:-1])  # wrapped at 120
    assert out.index("tom requests -") < out.index("tom scores")


@pytest.mark.parametrize("xdist", [(), ("-n", "2")], ids=["plain", "xdist"])
def test_a_mid_sized_run_gets_one_line_per_wrong_item(pytester: pytest.Pytester,
                                                      xdist: tuple[str, ...]) -> None:
    result = generic_run(pytester, "unparseable", "-k", "memory", *xdist)  # 34 wrong items
    result.stdout.fnmatch_lines([
        "*- tom wrong answers -*",
        "UNPARSEABLE *classic-false-belief.tom.yaml::*::memory - answered 'Hmm, hard to say.', "
        "expected *",
        "34 wrong (* unparseable)",
    ])
    assert "= FAILURES =" not in result.stdout.str()


def test_few_failures_and_explicit_tb_or_r_keep_pytests_own_output(
        pytester: pytest.Pytester) -> None:
    few = generic_run(pytester, "unparseable", "-k", "cash-box-van")
    assert "= FAILURES =" in few.stdout.str() and "tom wrong answers" not in few.stdout.str()
    explicit = generic_run(pytester, "unparseable", "--tb=line", "-rf")
    assert "tom wrong answers" not in explicit.stdout.str()
    assert explicit.stdout.str().count("\nFAILED ") == 174


def test_x_stops_asking_the_model(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    with ChatServer(lambda body: "Hmm.") as server:  # every answer is unparseable
        result = pytester.runpytest(str(GENERIC), *openai_args(
            server, "-x", "--tom-concurrency=2"))
    result.assert_outcomes(failed=1)
    # the first item and a window of two ahead: not the 174 items of the suite
    assert 1 <= server.requests <= 3
    if server.requests > 1:
        result.stdout.fnmatch_lines(["* further request(s) for items that were not scored*"])


def test_wide_family_tables_are_wrapped_to_120_columns() -> None:
    from pytest_tom.families.base import MetricTable
    from pytest_tom.report.terminal import render_table

    headers = ["", *(f"Column number {i:02d}" for i in range(12))]
    rows = [["inaccessible", *(f"{10 * i:.1f}" for i in range(12))],
            ["control", *(f"{i:.1f}" for i in range(12))]]
    text = render_table(MetricTable("wide", headers, rows))
    assert max(len(ln) for ln in text.splitlines()) <= 120
    for h in headers[1:]:
        assert text.count(h) == 1  # every column once
    assert text.count("inaccessible") >= 2  # the row label repeated in each block


# -- 5. errors that say the real reason, early -------------------------------------------------
FANTOM = SUITES / "fantom" / "smalltalk.tom.yaml"


def test_an_unknown_family_metric_is_a_usage_error_before_the_run(
        pytester: pytest.Pytester) -> None:
    result = generic_run(pytester, "right", "--tom-fail-under=fantom.allstar=0.1")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str()
    assert "unknown metric 'fantom.allstar' (did you mean 'fantom.all_star'?)" in err
    assert "more (every name: the JSON report's suites.<suite>.metrics)" in err
    assert max(len(line) for line in err.splitlines()) < 1000  # no 6,000-character list
    assert "collected" not in result.stdout.str()  # nothing ran
    ok = generic_run(pytester, "right", "--tom-fail-under=fantom.all_star=0.1,"
                     "robustness.class.late_label.turn=0.5", "-k", "cash-box-van")
    assert "unknown metric" not in ok.stderr.str() + ok.stdout.str().split("tom gates")[0]


def test_a_missing_embedder_path_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = generic_run(pytester, "right", "--tom-embedder=./no/such/model")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--tom-embedder ./no/such/model: no such model directory" in result.stderr.str()


def test_methods_unknown_everywhere_or_offered_somewhere(pytester: pytest.Pytester) -> None:
    nowhere = generic_run(pytester, "right", "--tom-method=telepathy")
    assert nowhere.ret == pytest.ExitCode.USAGE_ERROR
    err = nowhere.stderr.str()
    assert err.count("--tom-method 'telepathy': no installed family offers it") == 1
    assert "simtom" in err and "1shot-cot" in err
    # simtom is OpenToM's: the generic suite runs vanilla, and the header says so
    some = generic_run(pytester, "right", "--tom-method=simtom", "-k", "cash-box-van")
    some.assert_outcomes(passed=5)
    some.stdout.fnmatch_lines(["tom: method simtom applies to opentom; suites of *generic* run "
                               "vanilla (they do not offer simtom)"])


def test_an_xdist_worker_leaves_the_family_checks_to_its_controller(
        request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """`check_start`: the controller refuses a method no family offers (the run above);
    a worker, started only once its controller checked the same options, loads no family
    for it (each family's import was a worker's start-up) and still checks its paths."""
    from pytest_tom import families
    from pytest_tom.core.option_table import build_options
    from pytest_tom.plugin.context import run_settings
    from pytest_tom.plugin.usage_errors import check_start

    options = build_options({"model": "python:x", "method": "telepathy"})
    settings = run_settings(options)
    with pytest.raises(pytest.UsageError, match="'telepathy': no installed family offers it"):
        check_start(request.config, options, settings, is_worker=False)
    monkeypatch.setattr(families, "get", lambda name: pytest.fail(f"a worker loaded {name}"))
    check_start(request.config, options, settings, is_worker=True)
    monkeypatch.setattr(request.config.option, "tom_report", " ")
    with pytest.raises(pytest.UsageError, match="--tom-report: an empty path"):
        check_start(request.config, options, settings, is_worker=True)


def test_fantom_unavailable_footnote_names_the_real_reason(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    result = pytester.runpytest(str(FANTOM), f"--tom-model=python:{ANSWERERS}:right",
                                "-p", "no:cacheprovider", "-m", "belief_choice")
    out = " ".join(result.stdout.str().split())
    assert ("'unavailable': no belief_dist item ran in this session (deselected: -k, -m, --lf "
            "or --tom-limit)") in out
    assert "needs the embeddings extra" not in out


def test_a_suite_without_a_model_says_how_to_activate_the_plugin(
        pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    pytester.makefile(".tom.yaml", demo=SUITE)
    named = pytester.runpytest("demo.tom.yaml")
    assert named.ret == pytest.ExitCode.USAGE_ERROR
    assert "demo.tom.yaml: a pytest-tom suite, but pytest-tom is inactive: pass " \
           "--tom-model=SPEC" in named.stderr.str()
    folder = pytester.runpytest(".")
    folder.stdout.fnmatch_lines(["note: 1 pytest-tom suite file(s) (*.tom.yaml) were not "
                                 "collected: pytest-tom is inactive*"])
    helptext = " ".join(pytester.runpytest("--help").stdout.str().split())
    assert "whole scenarios chosen by the seed, at least one per suite" in helptext


# -- 6. CI artefacts tell the story ------------------------------------------------------------
@pytest.mark.parametrize("xdist", [(), ("-n", "2")], ids=["plain", "xdist"])
def test_gates_are_junit_test_cases(pytester: pytest.Pytester, xdist: tuple[str, ...]) -> None:
    import xml.etree.ElementTree as ET

    result = generic_run(pytester, "mixed", "--tom-fail-under=turn=0.99,goal>=0",
                         "--junitxml=j.xml", *xdist)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    cases = {c.get("name"): c for c in ET.parse(pytester.path / "j.xml").iter("testcase")
             if c.get("classname") == "tom-gates"}
    assert set(cases) == {"totals:turn", "totals:goal"}
    failure = cases["totals:turn"].find("failure")
    assert failure is not None and "FAILED totals:turn  required >= 0.99" in failure.get("message")
    assert cases["totals:goal"].find("failure") is None
    props = {p.get("name"): p.get("value") for p in cases["totals:turn"].iter("property")}
    assert props["tom_gate_kind"] == "threshold" and props["tom_gate_reference"] == "0.99"
    suite = next(ET.parse(pytester.path / "j.xml").iter("testsuite"))
    assert int(suite.get("tests")) == 174 + 2  # the items and the two gates


def test_markdown_tells_flipped_items_and_without_baseline_the_weakest(
        pytester: pytest.Pytester) -> None:
    generic_run(pytester, "right", "--tom-save-baseline=b.json")
    generic_run(pytester, "mixed", "--tom-baseline=b.json", "--tom-markdown=s.md")
    md = (pytester.path / "s.md").read_text()
    assert "| item | question | baseline answer | new answer |" in md
    row = next(ln for ln in md.splitlines() if "::memory`" in ln)
    assert "?" in row.split("|")[2]  # the question
    assert row.split("|")[3].strip() != row.split("|")[4].strip()  # the two answers differ
    assert not row.split("|")[4].strip().startswith(("(read:", "—"))  # what the model wrote
    generic_run(pytester, "mixed", "--tom-markdown=alone.md")
    alone = (pytester.path / "alone.md").read_text()
    weakest = alone[alone.index("### Weakest tags and kinds"):]
    assert "| `classic-false-belief` | tag | `memory` | 0.0% |" in weakest


def test_last_failed_after_a_report_mode_run_reruns_the_wrong_items(
        pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    model = f"--tom-model=python:{ANSWERERS}:mixed"
    first = pytester.runpytest(str(GENERIC), model, "--tom-items=report", "-p", "no:randomly")
    wrong = first.parseoutcomes()["xfailed"]
    assert first.ret == pytest.ExitCode.OK and wrong > 0
    again = pytester.runpytest(str(GENERIC), f"--tom-model=python:{ANSWERERS}:right", "--lf",
                               "-p", "no:randomly", "--tom-fail-under=turn=0")
    again.assert_outcomes(passed=wrong, deselected=174 - wrong)
    again.stdout.fnmatch_lines(["note: the gates judged a subset: * item(s) ran (* deselected "
                                "by --lf)*"])


# -- 7. small things -------------------------------------------------------------------------
SAMPLED = '''\
import zlib

def answer(req):
    """Right or wrong by a hash of the item and the sample's seed: samples differ."""
    right = zlib.crc32(f"{req.item.id}:{req.params.seed}".encode()) % 3 != 0
    if req.item.kind == "choice":
        letter = req.item.meta["gold_letter"] if right else "z"
        return f"{letter})"
    return ("Yes." if req.item.gold == "yes" else "No.") if right else "Maybe."
'''


def test_samples_are_rounded_and_the_totals_carry_their_spread(
        pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    pytester.makefile(".tom.yaml", demo=SUITE)
    pytester.makepyfile(sampled=SAMPLED)
    result = pytester.runpytest("--tom-model=python:sampled:answer", "--tom-samples=3",
                                "--tom-temperature=0.7", "-p", "no:cacheprovider",
                                "--tom-report=r.json")
    data = load_report(pytester.path / "r.json")
    assert data["samples"] == 3 and set(data["totals_spread"]) >= {"turn"}
    for block in (data["totals"], data["totals_spread"], data["suites"]["story-demo"]["metrics"]):
        for v in block.values():
            if isinstance(v, float):
                assert v == round(v, 9)
    result.stdout.fnmatch_lines(["tom totals: 2 items · turn *% ± *% · goal *",
                                 "  mean over 3 samples · model python:*"])
    assert "33333333" not in result.stdout.str()


def test_progress_before_the_first_answer_has_no_rate_and_no_question_mark() -> None:
    from pytest_tom.asking.runner import RunnerStats
    from pytest_tom.report.progress import status_line

    stats = RunnerStats(submitted=92, requests=16, started=time.perf_counter() - 5)
    line = status_line(stats)
    assert "waiting for the first answer (0:05)" in line
    assert "?" not in line and "req/s" not in line
    stats.done = 1
    assert "req/s" in status_line(stats)


def test_identical_prompts_within_a_run_are_shared_not_cached(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    twice = SUITE.replace("      - id: knows\n        ask: SLOW Does Ann know the ball was moved?\n"
                          "        yes_no: \"no\"\n",
                          "      - id: again\n        ask: Where will Ann look for the ball?\n"
                          "        choices: [the box, the basket]\n        answer: the box\n")
    pytester.makefile(".tom.yaml", demo=twice)
    with ChatServer(lambda body: "a)", latency=0.3) as server:
        result = pytester.runpytest(*openai_args(server, "--tom-report=r.json"))
    assert server.requests == 1
    items = load_report(pytester.path / "r.json")["items"]
    assert sorted((r["requests"], r["shared"], r["cached"]) for r in items) == [(0, 1, 0), (1, 0, 0)]
    result.stdout.fnmatch_lines(["openai:test-model @ * 2 * 1 * 0 * 0 * 1 *",
                                 "shared: answered by an identical request of this run*"])


def test_an_empty_markdown_path_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = generic_run(pytester, "right", "--tom-markdown=")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--tom-markdown: an empty path" in result.stderr.str()


def test_markers_lists_family_markers_and_with_a_model_the_tags(
        pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    plain = pytester.runpytest("--markers")
    plain.stdout.fnmatch_lines(["@pytest.mark.tom_fantom: every item of the fantom family*"])
    tags = pytester.runpytest(str(GENERIC), "--markers", f"--tom-model=python:{ANSWERERS}:right")
    tags.stdout.fnmatch_lines(["@pytest.mark.unexpected_transfer: pytest-tom tag "
                               "(classic-false-belief)"])


def test_contains_accepts_alternatives(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    pytester.makefile(".tom.yaml", alt="""\
suite: alt
family: generic
version: 1
scenarios:
  - id: box
    context: Sam opens the crayon box and finds candles.
    questions:
      - id: thinks
        ask: What did Sam expect in the box?
        contains: [[crayon, crayons]]
        excludes: [candles]
""")
    pytester.makepyfile(alt_answers="def plural(req):\n    return 'Crayons, of course.'\n"
                                    "def other(req):\n    return 'Pencils.'\n")
    pytester.runpytest("--tom-model=python:alt_answers:plural",
                       "-p", "no:cacheprovider").assert_outcomes(passed=1)
    wrong = pytester.runpytest("--tom-model=python:alt_answers:other", "-p", "no:cacheprovider")
    wrong.assert_outcomes(failed=1)
    wrong.stdout.fnmatch_lines(["  expected: an answer containing crayon or crayons; not candles",
                                "  why:      missing ['crayon or crayons']"])
