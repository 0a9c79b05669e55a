"""`pytest-tom fetch simpletom-full`, served from the layout sample at the dataset's URLs:
not pinned by hash (no revision known offline, said when fetching), the files kept in
their folders, and the count the converter checks (1,147 stories) the guard that refuses
anything else. Skipped, with the reason, where `../shared/data` is absent."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from conftest import shared_data
from mirror_server import MirrorServer

from pytest_tom import families
from pytest_tom.catalogue.fetching import FetchError, fetch


def test_unpinned_files_are_said_so_and_the_story_count_guards(tmp_path: Path) -> None:
    sample = shared_data("simpletom", "layout-sample")
    download = families.downloads()["simpletom-full"]
    assert not download.licence.needs_acceptance  # ODC-BY
    assert [r.filename for r in download.files] == [
        "mental-state-qa/test.jsonl", "behavior-qa/test.jsonl", "judgment-qa/test.jsonl"]
    assert all(r.unpinned and not r.sha256 and not r.git_blob for r in download.files)
    assert all(r.url.startswith("https://huggingface.co/datasets/allenai/SimpleToM/resolve/")
               for r in download.files)
    lines: list[str] = []
    with MirrorServer() as server:
        for remote in download.files:
            server.put(remote.url, sample / remote.filename)
        with pytest.raises(FetchError, match="failed"):
            fetch(download, tmp_path / "a", mirror=server.mirror, say=lines.append)
        assert any("4 stories, not the 1147 expected" in line for line in lines)
        assert not (tmp_path / "a").exists()
        four = replace(download, convert=(*download.convert[:-1], "4"))
        lines.clear()
        done = fetch(four, tmp_path / "b", mirror=server.mirror, say=lines.append)
    assert done.items == 12
    assert sum("NOT PINNED" in line for line in lines) == 3
    assert (done.folder / "upstream" / "judgment-qa" / "test.jsonl").is_file()
