"""`pytest-tom fetch tombench-full tombench-zh` against the loopback mirror of the shared
copies (`tests/mirror_server.py`): the 20 task files pinned at the authors' commit, each
checked, converted into 2,860 questions per language, the licence printed, and the fetched
suite run by name. Skipped, with the reason, where `../shared/data` is absent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import FAMILY_TESTS, SHARED_DATA
from mirror_server import MirrorServer, shared_copies

from pytest_tom import families
from pytest_tom.catalogue.fetch_folder import MANIFEST
from pytest_tom.cli import main

NAMES = ("tombench-full", "tombench-zh")
SUPPORT = FAMILY_TESTS / "tombench" / "tombench_support.py"


@pytest.fixture(scope="module")
def fetched_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"upstream data not available: {SHARED_DATA} (only in the project's "
                    f"workspace)")
    declared = families.downloads()
    target = tmp_path_factory.mktemp("fetched") / "data"
    with MirrorServer() as server:
        server.add_declared([declared[n] for n in NAMES], shared_copies(SHARED_DATA))
        assert main(["fetch", *NAMES, "--dir", str(target), "--mirror", server.mirror]) == 0
        assert len(server.requests) == 2 * 20  # each name fetches its own 20 files
    return target


def test_both_languages_are_declared_pinned_and_fetched(fetched_dir: Path) -> None:
    declared = families.downloads()
    for name in NAMES:
        download = declared[name]
        assert download.family == "tombench" and download.licence.name == "MIT"
        assert len(download.files) == 20
        assert all("/zhchen18/ToMBench/4f491f0784ed31ef93a8837615fbc48f885cf78d/data/"
                   in remote.url for remote in download.files)
        manifest = json.loads((fetched_dir / name / MANIFEST).read_text())
        assert len(manifest["upstream"]) == 20
        suites = manifest["suite_files"]
        assert len(suites) == 20 and {s["suite"] for s in suites} == {name}
        assert sum(s["items"] for s in suites) == 2860


def test_a_fetched_tombench_runs_by_name(pytester: pytest.Pytester, fetched_dir: Path) -> None:
    pytester.makeini("[pytest]\n")
    result = pytester.runpytest(f"--tom-model=python:{SUPPORT}:gold", "--tom-suite=tombench-zh",
                                f"--tom-fetch-dir={fetched_dir}", "--tom-limit=30",
                                "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines([f"tom: fetched suites tombench-zh (from {fetched_dir})",
                                 "*tombench-zh*(family tombench, * items)*"])
    outcomes = result.parseoutcomes()
    assert outcomes["passed"] >= 30 and "failed" not in outcomes
