"""CI shards: `--tom-shard K/N` cuts whole groups, `pytest-tom merge` puts the parts back
into the report an unsharded run gives, `pytest-tom gate` gates it as a live run does.

The bundled suites are run for real (a `python:` answerer, each run a `pytest.main` in the
test's process, `in_process_run`): the strong answerer's baseline, the weak one unsharded
and gated, and as 2 shards, the second under `-n 2` (the parts of one run may come from
plain and xdist jobs alike), on a seeded subset of every suite (`--tom-limit`, whole
scenarios: every family and its tables, at a tenth of the items), made once per test
session: 4 runs. Which shard count cuts well, and that every group lands in exactly one of
3 parts, is the subject of the tests above (totals 1-7, and the inner runs of 3 shards); a
run's cost is its start-up, not its items. FANToM's free-response items (`belief_dist`)
are deselected (`-k`, recorded in every part's selection, so the merge checks it too):
scoring them imports sentence-transformers and loads the embedder, about 6-9 s of CPU in
each process that has not (the two workers of the -n 2 run), and embeddings are not the
subject here (FANToM's own tests score them, and the demo reports carry ALL* into compare
and the intervals); the grouped metrics merged here are FANToM's other set figures (All,
the answerability and info-access Alls) and the goals. (The demo reports' strong run could
be the baseline, but a worker that needs them while another builds them here would wait
idle.)"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from gate_support import SUITE, run, setup_project
from in_process_run import RunOutput, run_here
from report_runs import REPO
from shared_artifacts import shared_artifact

from pytest_tom.cli import main as cli
from pytest_tom.core.option_table import build_options
from pytest_tom.items.shards import Shard, ShardError, assign, resolve_shard

ANSWERER = "python:tests/demo_answerers.py:weak"
GATES = ["--tom-max-drop=0.02", "--tom-fail-under=turn=0.5,fantom.all=0,errors<=0"]
SHARDS = 2
LIMIT = "--tom-limit=40"  # items per suite in whole scenarios: ~300 of the 3,149
NO_EMBEDDINGS = "not belief_dist"  # -k: FANToM's free responses need the embedder


# -- the cut, without pytest ---------------------------------------------------------------
def test_shard_option_checked() -> None:
    assert build_options({"shard": "2/4"}).shard == "2/4"
    assert build_options({"shard": " AUTO "}).shard == "auto"
    for bad in ("0/4", "5/4", "2", "a/b", "2/0", "-1/3"):
        with pytest.raises(ValueError, match=r"--tom-shard .*expected K/N with 1 <= K <= N"):
            build_options({"shard": bad})


def test_auto_reads_the_ci_variables() -> None:
    assert resolve_shard(None, {}) is None
    assert resolve_shard("3/5", {}) == Shard(3, 5, "--tom-shard 3/5")
    gitlab = resolve_shard("auto", {"CI_NODE_INDEX": "2", "CI_NODE_TOTAL": "4"})
    assert (gitlab.index, gitlab.total) == (2, 4) and "GitLab CI CI_NODE_INDEX=2" in gitlab.source
    circle = resolve_shard("auto", {"CIRCLE_NODE_INDEX": "0", "CIRCLE_NODE_TOTAL": "3"})
    assert (circle.index, circle.total) == (1, 3)  # CircleCI counts from 0
    buildkite = resolve_shard("auto", {"BUILDKITE_PARALLEL_JOB": "4",
                                       "BUILDKITE_PARALLEL_JOB_COUNT": "5"})
    assert (buildkite.index, buildkite.total) == (5, 5)
    none = resolve_shard("auto", {})
    assert (none.index, none.total) == (1, 1) and "no CI shard variables" in none.source
    with pytest.raises(ShardError, match="CI_NODE_INDEX=5, CI_NODE_TOTAL=4 is no position"):
        resolve_shard("auto", {"CI_NODE_INDEX": "5", "CI_NODE_TOTAL": "4"})
    with pytest.raises(ShardError, match="not whole numbers"):
        resolve_shard("auto", {"CI_NODE_INDEX": "x", "CI_NODE_TOTAL": "4"})


@pytest.mark.parametrize("total", [1, 2, 3, 4, 7])
def test_assignment_disjoint_complete_balanced_deterministic(total: int) -> None:
    sizes = {("s", f"g{i}"): 1 + (i * 7919) % 23 for i in range(60)}
    sizes.update({("t", f"g{i}"): 5 for i in range(10)})
    owner = assign(sizes, total)
    assert set(owner) == set(sizes) and set(owner.values()) <= set(range(1, total + 1))
    assert owner == assign(dict(reversed(list(sizes.items()))), total)  # order-free
    loads = [sum(n for u, n in sizes.items() if owner[u] == k) for k in range(1, total + 1)]
    mean = sum(sizes.values()) / total
    assert max(loads) <= mean + max(sizes.values())  # no shard more than one group above


# -- the cut, through pytest -----------------------------------------------------------------
def _report(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("xdist", ["", "-n 2"])
def test_shards_are_disjoint_complete_whole_groups(pytester: pytest.Pytester, xdist: str) -> None:
    setup_project(pytester, scenarios=30)  # 150 items, 30 groups of 5
    extra = xdist.split()
    seen: dict[str, int] = {}
    for k in (1, 2, 3):
        report = pytester.path / f"part{k}.json"
        result = run(pytester, "right", f"--tom-shard={k}/3", f"--tom-report={report}",
                     "-k", "not s029", *extra)  # composes with -k: 145 selected
        assert result.ret == 0
        result.stdout.fnmatch_lines([f"tom: shard {k}/3 (--tom-shard {k}/3): whole groups*"])
        data = _report(report)
        ids = [r["item"]["id"] for r in data["items"]]
        for i in ids:
            assert i not in seen, f"{i} in shards {seen[i]} and {k}"
            seen[i] = k
        shard = data["settings"]["shard"]
        assert shard["index"] == k and shard["total"] == 3 and shard["items"] == len(ids)
        assert shard["selection"]["items"] == 145 and shard["selection"]["units"] == 29
        assert shard["selection"]["keyword"] == "not s029"
        # (under xdist the workers deselect; the controller's line does not count them)
        result.assert_outcomes(passed=len(ids), deselected=0 if xdist else 150 - len(ids))
    assert len(seen) == 145 and not any(i.startswith("s029") for i in seen)
    by_group: dict[str, set[int]] = {}
    for i, k in seen.items():
        by_group.setdefault(i.split("::")[0], set()).add(k)
    assert all(len(ks) == 1 for ks in by_group.values())  # whole groups
    counts = sorted(list(seen.values()).count(k) for k in (1, 2, 3))
    assert counts[-1] - 145 / 3 <= 5  # at most one group above the mean


def test_shard_auto_from_gitlab(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    setup_project(pytester, scenarios=8)
    monkeypatch.setenv("CI_NODE_INDEX", "2")
    monkeypatch.setenv("CI_NODE_TOTAL", "2")
    result = run(pytester, "right", "--tom-shard=auto")
    result.stdout.fnmatch_lines(["tom: shard 2/2 (GitLab CI CI_NODE_INDEX=2, CI_NODE_TOTAL=2)*"])
    result.assert_outcomes(passed=20, deselected=20)


def test_bad_shard_is_a_usage_error(pytester: pytest.Pytester) -> None:
    setup_project(pytester, scenarios=2)
    result = run(pytester, "right", "--tom-shard=5/4")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--tom-shard '5/4': expected K/N with 1 <= K <= N*"])


# -- the bundled suites: unsharded, and 2 shards, the second under -n 2 ------------------------
def _pytest(*args: str) -> RunOutput:
    """A run of the bundled suites, in this process (`in_process_run`: no new interpreter
    and plugin import for each of the four; the -n 2 run's workers are processes)."""
    return run_here(["suites", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                     f"--tom-model={ANSWERER}", "--tom-cache=off", LIMIT, "-k", NO_EMBEDDINGS,
                     *args], cwd=REPO)


def _figures(data: dict[str, Any]) -> dict[str, Any]:
    """Every metric, interval, table and total of a report (nothing about when or where)."""
    return {"suites": {name: {k: v for k, v in s.items() if k != "path"}
                       for name, s in data["suites"].items()},
            "totals": data["totals"], "totals_intervals": data["totals_intervals"],
            "items": [(r["item"]["suite"], r["item"]["id"], r["outcome"], r["responses"])
                      for r in data["items"]]}


def _gate_cases(path: Path) -> list[tuple[Any, ...]]:
    root = ET.parse(path).getroot()
    out = []
    for case in root.iter("testcase"):
        if case.get("classname", "").startswith("tom-gates") or "tom-gates" in (
                case.get("name") or ""):
            failure = case.find("failure")
            props = tuple((p.get("name"), p.get("value")) for p in case.iter("property"))
            out.append((case.get("classname"), case.get("name"),
                        None if failure is None else failure.get("message"), props))
    return sorted(out, key=repr)


def _run_the_shards(out: Path) -> None:
    strong = out / "strong.json"
    proc = _pytest("--tom-model=python:tests/demo_answerers.py:strong",
                   f"--tom-report={strong}")
    assert strong.exists(), proc.stdout[-2000:]
    live = _pytest(f"--tom-report={out / 'live.json'}", f"--tom-baseline={strong}", *GATES,
                   f"--junitxml={out / 'live.xml'}", f"--tom-markdown={out / 'live.md'}")
    (out / "live.ret").write_text(str(live.code))
    for k in range(1, SHARDS + 1):
        part = out / f"of{SHARDS}-{k}.json"
        extra = ["-n", "2"] if k == 2 else []  # the last part from an xdist job
        proc = _pytest(f"--tom-shard={k}/{SHARDS}", f"--tom-report={part}", *extra)
        assert part.exists(), proc.stdout[-2000:] + proc.stderr[-2000:]
        shard = json.loads(part.read_text(encoding="utf-8"))["settings"]["shard"]
        assert (shard["index"], shard["total"]) == (k, SHARDS)


@pytest.fixture(scope="session")
def bundled(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The saved reports: the strong baseline, the gated live run, the shards. Made once
    per test session (4 runs); tests write their own files beside them, named apart."""
    out = shared_artifact(tmp_path_factory, "shards", _run_the_shards)
    return {"baseline": out / "strong.json", "live": out / "live.json", "dir": out}


@pytest.mark.slow  # the fixture: four runs of the bundled suites (about 22 s alone)
def test_merged_shards_equal_the_unsharded_run(bundled: dict[str, Path],
                                               capsys: pytest.CaptureFixture[str]) -> None:
    out, total = bundled["dir"], SHARDS
    parts = [str(out / f"of{total}-{k}.json") for k in range(1, total + 1)]
    sizes = [len(_report(Path(p))["items"]) for p in parts]
    live = _report(bundled["live"])
    n = len(live["items"])
    assert sum(sizes) == n and max(sizes) < n  # a real cut
    merged = out / f"all{total}.json"
    html = out / f"all{total}.html"
    assert cli(["merge", *parts, "-o", str(merged), "--html", str(html)]) == 0
    data = _report(merged)
    assert data["status"] == "complete"
    assert _figures(data) == _figures(live)  # every metric, interval (==: bit-identical), table
    assert data["settings"]["shard"]["merged"] == list(range(1, total + 1))
    assert html.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")

    # gated against the baseline: the exit status, JUnit cases and Markdown of the live run
    code = cli(["gate", str(merged), f"--tom-baseline={bundled['baseline']}", *GATES,
                f"--junitxml={out / f'gate{total}.xml'}", f"--markdown={out / f'gate{total}.md'}"])
    printed = capsys.readouterr().out
    assert code == int((out / "live.ret").read_text()) == 1
    assert "tom gates:" in printed and "failed" in printed
    assert _gate_cases(out / f"gate{total}.xml") == _gate_cases(out / "live.xml")
    assert _gate_cases(out / "live.xml")  # the live run's file has the gate cases
    assert (out / f"gate{total}.md").read_text() == (out / "live.md").read_text()


def test_merge_refuses_what_is_not_one_run(bundled: dict[str, Path],
                                           capsys: pytest.CaptureFixture[str]) -> None:
    out = bundled["dir"]
    parts = [str(out / f"of{SHARDS}-{k}.json") for k in range(1, SHARDS + 1)]
    target = str(out / "refused.json")

    def refused(*args: str) -> str:
        assert cli(["merge", *args, "-o", target]) == 4
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1, err  # one clear line
        return err

    def edited(name: str, change: Any) -> str:
        """A copy of the last shard with one change to its JSON."""
        data = json.loads(Path(parts[-1]).read_text())
        change(data)
        path = out / name
        path.write_text(json.dumps(data))
        return str(path)

    assert "shard 2 of 2 missing (1 of 2 given)" in refused(parts[0])
    assert f"{parts[0]} and {parts[0]} overlap: both are shard 1/2" in refused(*parts, parts[0])
    four = edited("of4-2.json", lambda d: d["settings"]["shard"].update(total=4))
    assert "differ in the shard count" in refused(parts[0], four)
    assert "are shards (--tom-shard) but" in refused(parts[0], str(bundled["live"]))
    assert "overlap: both hold item" in refused(str(bundled["live"]), str(bundled["live"]))
    assert "differ in model" in refused(str(bundled["live"]), str(bundled["baseline"]))
    seeded = edited("seed1.json", lambda d: d["settings"].update(seed=1))
    err = refused(parts[0], seeded)
    assert "differ in settings.seed" in err and seeded in err
    moved = edited("edited.json", lambda d: d["settings"]["shard"]["selection"]["suites"].update(
        {"bigtom-everyday": "0" * 64}))
    assert "differ in the suite versions" in refused(parts[0], moved)

    # --partial: merged, marked incomplete, and a baseline refuses it
    partial = out / "partial.json"
    assert cli(["merge", parts[0], "-o", str(partial), "--partial"]) == 0
    assert "incomplete: shard 2 of 2 missing" in capsys.readouterr().err
    data = _report(partial)
    assert data["status"] == "incomplete"
    assert cli(["gate", str(bundled["live"]), f"--tom-baseline={partial}"]) == 4
    assert "the report is of an incomplete run" in capsys.readouterr().err
    assert cli(["gate", str(partial), "--tom-fail-under=turn=0"]) == 0
    assert "the gates judged a subset: the report is incomplete" in capsys.readouterr().out


def test_gate_on_a_saved_report_usage_errors(bundled: dict[str, Path],
                                             capsys: pytest.CaptureFixture[str]) -> None:
    live = str(bundled["live"])
    assert cli(["gate", live, "--tom-fail-under=turn=0.5"]) == 0
    assert "tom gates: all 1 passed" in capsys.readouterr().out
    assert cli(["gate", live, "--tom-fail-under=turn=0.5", "--tom-fail-under=goal=1"]) == 1
    assert "tom gates: 1 of 2 failed" in capsys.readouterr().out  # both, as in a run
    assert cli(["gate", live, "--tom-fail-under=tunr=0.5"]) == 4
    assert "unknown metric 'tunr' for the totals (did you mean 'turn'?)" in capsys.readouterr().err
    assert cli(["gate", live, "--tom-max-drop=0.1"]) == 4
    assert "--tom-max-drop needs --tom-baseline" in capsys.readouterr().err
    assert cli(["gate", str(bundled["dir"] / "nothing.json")]) == 4
    assert "no such file" in capsys.readouterr().err
    shard = str(bundled["dir"] / f"of{SHARDS}-2.json")
    assert cli(["gate", shard, "--tom-fail-under=turn=0"]) == 0
    assert "the gates judged a subset" in capsys.readouterr().out


def test_shard_report_alone_is_not_suite_wide(pytester: pytest.Pytester) -> None:
    """A sharded run's own gates warn that they judged a subset."""
    setup_project(pytester, scenarios=6)
    result = run(pytester, "right", "--tom-shard=1/2", "--tom-fail-under=turn=0.5")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*the gates judged a subset*--tom-shard*"])
    assert SUITE
