"""`pytest-tom fetch tomato-fb` and `tomato-full` against the loopback mirror of the shared
copy of `tomato_fb.json`: the evaluation-only licence asked for once (`--accept-licence`),
the sha256 pin of ToMATO-FB, and the git blob pin of the whole release (no copy of it is
here: another file served at its URL is refused by its blob id, and a declaration pinned
to the copy's own blob id fetches it). Skipped, with the reason, where `../shared/data` is
absent."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import shared_data
from mirror_server import MirrorServer

from pytest_tom import families
from pytest_tom.catalogue.fetch_folder import ACCEPTED, MANIFEST
from pytest_tom.catalogue.fetching import FetchError, fetch
from pytest_tom.cli import main

README_BLOB = "026caf9e88856e3ea42f9514951521392365512f"  # ../shared/data/README.md


def blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def test_the_licence_is_asked_once_and_the_sha256_pin_holds(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy = shared_data("tomato", "tomato_fb.json")
    declared = families.downloads()
    fb, full = declared["tomato-fb"], declared["tomato-full"]
    assert fb.licence.evaluation_only and fb.licence.needs_acceptance and fb.licence.commercial
    assert full.files[0].git_blob and not full.files[0].sha256
    assert "/nttmdlab-nlp/ToMATO/b8599487e8170322fcbcfb0573fb83a11181b0eb/dataset/" \
        in full.files[0].url
    target = tmp_path / "data"
    with MirrorServer() as server:
        server.put(fb.files[0].url, copy)
        args = ["fetch", "tomato-fb", "--dir", str(target), "--mirror", server.mirror]
        assert main(args) == 2
        out, err = capsys.readouterr()
        assert "EVALUATION ONLY" in err and "--accept-licence" in err
        assert not target.exists() and not server.requests
        assert main([*args, "--accept-licence"]) == 0
        out, err = capsys.readouterr()
        assert "fetched: tomato-fb.tom.yaml, 806 items" in out
        assert "note: tomato-fb may be used for evaluation only" in out
        accepted = json.loads((target / ACCEPTED).read_text())["accepted"]
        assert [(a["name"], a["licence"]) for a in accepted] == [
            ("tomato-fb", "Meta Llama 3 Community License")]
        # accepted once: the next fetch in this folder asks no more
        assert main(args) == 0
        assert "already fetched, up to date" in capsys.readouterr()[0]


def test_the_whole_release_is_pinned_by_its_git_blob_id(tmp_path: Path) -> None:
    copy = shared_data("tomato", "tomato_fb.json")
    body = copy.read_bytes()
    assert blob_id(body) == README_BLOB  # the blob id as git computes it
    full = families.downloads()["tomato-full"]
    with MirrorServer() as server:
        server.put(full.files[0].url, copy)  # not the whole release: refused
        with pytest.raises(FetchError, match=rf"tomato-full: tomato.json from http\S+ has git "
                                             rf"blob id {README_BLOB}, not the pinned "
                                             rf"{full.files[0].git_blob}: refused"):
            fetch(full, tmp_path / "a", mirror=server.mirror, say=lambda line: None)
        assert not (tmp_path / "a").exists()
        pinned = replace(full, files=(replace(full.files[0], git_blob=README_BLOB),))
        done = fetch(pinned, tmp_path / "b", mirror=server.mirror, say=lambda line: None)
    assert done.items == 806
    manifest = json.loads((done.folder / MANIFEST).read_text())
    assert manifest["files"][0]["git_blob"] == README_BLOB
    assert manifest["upstream"] == {"tomato.json": hashlib.sha256(body).hexdigest()}
