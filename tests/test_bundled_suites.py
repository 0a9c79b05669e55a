"""The bundled suites run by name from any folder (issue 21, point 1): `--tom-suite`,
readable node ids, the rootdir, `.pytest_cache/` (and `--lf`) and `.tom_cache/` in the
user's folder, an unknown name a usage error listing the names."""

from __future__ import annotations

import json

import pytest
from chat_server import ChatServer
from conftest import SUITES

from pytest_tom.catalogue import bundled
from pytest_tom.catalogue.load import load_suite

ANSWERER = """\
def first(req):
    return "A" if req.item.choices else "yes"
"""
MODEL = "--tom-model=python:answer.py:first"


@pytest.fixture
def empty_dir(pytester: pytest.Pytester) -> pytest.Pytester:
    """A folder with nothing but an answerer (no ini file, no suites)."""
    pytester.makepyfile(answer=ANSWERER)
    return pytester


def ids_of(result: pytest.RunResult) -> list[str]:
    return [line for line in result.outlines if "::" in line]


def test_the_bundled_names_are_the_folders_of_suites_and_describe_counts_them() -> None:
    folders = sorted(p.name for p in SUITES.iterdir() if any(p.glob("*.tom.yaml")))
    assert bundled.names() == folders
    assert bundled.bundled_root().resolve() == SUITES.resolve()  # a checkout reads suites/
    assert bundled.resolve("bundled") == folders
    assert bundled.resolve("fantom, bigtom,fantom") == ["fantom", "bigtom"]
    with pytest.raises(ValueError, match=r"'nope'.*bigtom, fantom"):
        bundled.resolve("fantom,nope")
    rows = bundled.describe(["robustness"])
    assert [r.relative for r in rows] == [f"robustness/{p.name}"
                                         for p in sorted((SUITES / "robustness").glob("*.tom.yaml"))]
    for row in rows:
        suite = load_suite(row.path)
        assert (row.suite, row.family, row.items, row.scenarios) == (
            suite.name, "robustness", len(suite.items), suite.scenario_count)


def test_tom_suite_collects_the_named_suites_with_readable_ids(empty_dir: pytest.Pytester) -> None:
    result = empty_dir.runpytest(MODEL, "--tom-suite=fantom,bigtom", "--co", "-q")
    assert result.ret == 0, result.stdout.str()
    ids = ids_of(result)
    files = {i.split("::")[0] for i in ids}
    assert files == {"fantom/smalltalk.tom.yaml", "bigtom/everyday-causal-templates.tom.yaml"}
    expected = sum(len(load_suite(p).items) for p in bundled.files(["fantom", "bigtom"]))
    assert len(ids) == expected


def test_tom_suite_with_paths_runs_both_and_ini_key_adds_the_suites(
        empty_dir: pytest.Pytester) -> None:
    own = empty_dir.path / "mine.tom.yaml"
    own.write_text((SUITES / "generic" / "classic-false-belief.tom.yaml").read_text())
    result = empty_dir.runpytest(MODEL, "--tom-suite=robustness", str(own), "--co", "-q")
    files = {i.split("::")[0] for i in ids_of(result)}
    assert "mine.tom.yaml" in files and any(f.startswith("robustness/") for f in files)
    empty_dir.makeini("[pytest]\ntom_suite = opentom\n")
    result = empty_dir.runpytest(MODEL, "--co", "-q")  # ini: the folder and the suites
    files = {i.split("::")[0] for i in ids_of(result)}
    assert files == {"mine.tom.yaml", "opentom/bundled-narratives.tom.yaml"}


def test_an_unknown_name_is_a_usage_error_listing_the_names(empty_dir: pytest.Pytester) -> None:
    result = empty_dir.runpytest(MODEL, "--tom-suite=fantom,fantomm")
    assert result.ret == 4
    result.stderr.fnmatch_lines(["*no suite named 'fantomm'; bundled suites: bigtom, "
                                 "fantom, generic, hitom, mmtomqa, opentom, robustness, simpletom, "
                                 "tomato, tombench "
                                 "(or bundled for all*"])


@pytest.mark.parametrize("xdist", [[], ["-n", "2"]], ids=["plain", "xdist"])
def test_rootdir_cache_and_lf_stay_in_the_users_folder(empty_dir: pytest.Pytester,
                                                       xdist: list[str]) -> None:
    # tombench, not fantom: the subject is pytest's rootdir and cache, and FANToM's embedder
    # would be loaded in every process
    args = [MODEL, "--tom-suite=tombench,robustness", "--tom-limit=4", "-p", "no:randomly"]
    first = empty_dir.runpytest(*args, *xdist)
    first.stdout.fnmatch_lines([f"rootdir: {empty_dir.path}*",
                                "tom: bundled suites tombench, robustness (from *)"])
    counts = first.parseoutcomes()
    assert counts["failed"] and counts["passed"]
    lastfailed = json.loads((empty_dir.path / ".pytest_cache" / "v" / "cache" / "lastfailed")
                            .read_text())
    assert len(lastfailed) == counts["failed"]
    assert all(k.startswith(("tombench/", "robustness/")) for k in lastfailed)
    again = empty_dir.runpytest(*args, *xdist, "--lf")
    assert again.parseoutcomes().get("failed") == counts["failed"]
    assert "passed" not in again.parseoutcomes()


def test_suites_outside_the_project_keep_the_tom_cache_in_the_invocation_folder(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    project = pytester.mkdir("project")
    elsewhere = pytester.mkdir("elsewhere")
    suite = elsewhere / "classic.tom.yaml"
    suite.write_text((SUITES / "generic" / "classic-false-belief.tom.yaml").read_text())
    monkeypatch.chdir(project)
    with ChatServer(lambda body: "a)") as server:
        result = pytester.runpytest_subprocess(
            str(suite), "--tom-model=openai:m", f"--tom-base-url={server.base_url}",
            "--tom-limit=3", "-p", "no:randomly")
    result.stdout.fnmatch_lines([f"rootdir: {pytester.path}",
                                 f"*the tom cache stays in {project}. Pass --rootdir=.*"])
    assert (project / ".tom_cache").is_dir()
    assert not (pytester.path / ".tom_cache").exists()
    assert not (elsewhere / ".tom_cache").exists()


@pytest.mark.parametrize("xdist", [[], ["-n", "2"]], ids=["plain", "xdist"])
def test_lf_reruns_failed_bundled_items_next_to_failed_project_tests(
        empty_dir: pytest.Pytester, xdist: list[str]) -> None:
    """pytest's --lf skips every file outside the last-failed paths once it has collected
    one failure, and it looks for those paths under the rootdir, where no bundled file
    is: the bundled items that failed must still run again beside the project's test."""
    empty_dir.makepyfile(test_own="def test_broken():\n    assert False\n\n"
                                  "def test_fine():\n    pass\n")
    args = [MODEL, "--tom-suite=tombench", ".", "--tom-limit=4", "-p", "no:randomly"]
    first = empty_dir.runpytest(*args, *xdist)
    counts = first.parseoutcomes()
    lastfailed = json.loads((empty_dir.path / ".pytest_cache" / "v" / "cache" / "lastfailed")
                            .read_text())
    bundled_failed = [k for k in lastfailed if k.startswith("tombench/")]
    assert "test_own.py::test_broken" in lastfailed and bundled_failed
    assert counts["failed"] == 1 + len(bundled_failed)
    again = empty_dir.runpytest(*args, *xdist, "--lf", "-rf")
    assert again.parseoutcomes().get("failed") == counts["failed"], again.stdout.str()[-3000:]
    again.stdout.fnmatch_lines(["FAILED test_own.py::test_broken*",
                                f"FAILED {bundled_failed[0]}*"], consecutive=False)
    assert "passed" not in again.parseoutcomes()
