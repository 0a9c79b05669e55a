"""`pytest-tom fetch NAME --list` and `--from FILE...` (issue 46, item 6): a machine without
internet lists what a fetch would read and where it would install it, without any network
access, and installs files downloaded elsewhere through the same checks, conversion and
manifest as a download. The real copies come from `../shared/data` (skipped, with the
reason, where absent); the refusals use files written here."""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import socket
import tarfile
import urllib.request
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from conftest import SHARED_DATA, shared_data
from mirror_server import MirrorServer, shared_copies

from pytest_tom import families
from pytest_tom.catalogue.fetch_folder import ACCEPTED, MANIFEST
from pytest_tom.catalogue.fetch_from import match
from pytest_tom.catalogue.fetching import FetchError, fetch
from pytest_tom.cli import main

DECLARED = families.downloads()
OPENTOM_LONG = ["meta_data_long.json", "location_cg_fo.json", "location_cg_so.json",
                "location_fg_fo_new.json", "location_fg_so_new.json", "multihop_fo.json",
                "multihop_so.json", "attitude.json"]


def fetch_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["fetch", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any attempt to reach a server fails the test."""
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError(f"network access: {args}")
    monkeypatch.setattr(urllib.request, "urlopen", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def test_list_gives_each_url_size_and_pin_and_the_folder_without_network(
        no_network: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "data"
    code, out, err = fetch_cli(capsys, "hitom-full", "tomato-full", "simpletom-full",
                               "tomi-full", "--list", "--dir", str(target))
    assert code == 0, err
    assert err == ""
    blocks = dict(zip(["hitom-full", "tomato-full", "simpletom-full", "tomi-full"],
                      out.split("\n\n"), strict=True))
    hitom = DECLARED["hitom-full"].files[0]
    assert f"    {hitom.url}\n      Hi-ToM_data.json (2.3 MB, 2,267,625 bytes)\n" \
           f"      sha256 {hitom.sha256}\n" in blocks["hitom-full"]
    assert f"  installs into: {target / 'hitom-full'} (not fetched)" in blocks["hitom-full"]
    assert blocks["hitom-full"].endswith(
        f"then: pytest-tom fetch hitom-full --from FILE... --dir={target}")
    tomato = DECLARED["tomato-full"].files[0]
    assert f"      tomato.json (size unknown)\n      git blob id {tomato.git_blob} " \
        in blocks["tomato-full"]
    assert "1 file(s), size unknown:" in blocks["tomato-full"]
    assert "fetch with --accept-licence" in blocks["tomato-full"]
    assert blocks["tomato-full"].endswith(f"--dir={target} --accept-licence")
    simpletom = blocks["simpletom-full"]
    assert simpletom.count("      not pinned: no revision hash") == 3
    assert simpletom.count("(size unknown)") == 3
    assert "keep the folders of mental-state-qa/test.jsonl, behavior-qa/test.jsonl" in simpletom
    tomi = DECLARED["tomi-full"].files[0]
    assert f"      sha256 {tomi.sha256}\n      member taken out: tomi_balanced_story_types/" \
           f"fb_all_test.txt (sha256 {tomi.members[0].sha256})" in blocks["tomi-full"]
    assert not target.exists()  # a listing writes nothing
    code, out, _ = fetch_cli(capsys, "hitom-full", "--list", "--mirror", "http://m.invalid")
    assert code == 0
    assert ("      read from the mirror: http://m.invalid/raw.githubusercontent.com/ying-hui-he/"
            "Hi-ToM_dataset/56dda76") in out


def test_from_the_real_copies_installs_what_a_mirror_fetch_installs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """hitom-full (one file, given under another name: matched by its sha256) and
    opentom-long (eight files, non-commercial), in one command: the same suite files,
    upstream files and manifest as a fetch from the loopback mirror."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"upstream data not available: {SHARED_DATA} (only in the project's "
                    f"workspace)")
    names = ["hitom-full", "opentom-long"]
    by_mirror, by_file = tmp_path / "mirror", tmp_path / "from"
    with MirrorServer() as server:
        server.add_declared([DECLARED[n] for n in names], shared_copies(SHARED_DATA))
        code, _, err = fetch_cli(capsys, *names, "--dir", str(by_mirror), "--mirror",
                                 server.mirror, "--accept-licence")
    assert code == 0, err
    renamed = tmp_path / "downloads" / "Hi-ToM_data (1).json"
    renamed.parent.mkdir()
    shutil.copyfile(shared_data("hitom", "Hi-ToM_data.json"), renamed)
    given = [str(renamed), *(str(shared_data("opentom", f)) for f in OPENTOM_LONG)]
    # the licence is asked for as by a download, before anything is read
    code, _, err = fetch_cli(capsys, *names, "--dir", str(by_file), "--from", *given)
    assert code == 2 and "opentom-long restrict(s) the use" in err and "--accept-licence" in err
    assert not by_file.exists()
    code, out, err = fetch_cli(capsys, *names, "--dir", str(by_file), "--from", *given,
                               "--accept-licence")
    assert code == 0, err
    assert f"  Hi-ToM_data.json (2.3 MB) from {renamed}\n" in out
    assert "  fetched: opentom-long.tom.yaml, 2,300 items, in" in out
    for name in names:
        a, b = by_mirror / name, by_file / name
        files = sorted(p.relative_to(a) for p in a.rglob("*"))
        assert files == sorted(p.relative_to(b) for p in b.rglob("*"))
        for rel in files:
            if rel.name != MANIFEST and (a / rel).is_file():
                assert (a / rel).read_bytes() == (b / rel).read_bytes(), rel
        ma, mb = (json.loads((d / MANIFEST).read_text()) for d in (a, b))
        read_from = [f.pop("read_from") for f in mb["files"]]
        for f in ma["files"]:
            assert f.pop("read_from").startswith(server.mirror)
        ma.pop("fetched_at"), mb.pop("fetched_at")
        assert ma == mb
        assert all(r.startswith("file:///") for r in read_from)
    assert "opentom-long" in (by_file / ACCEPTED).read_text()
    # listed as installed, and nothing matched is read again from the network
    code, out, _ = fetch_cli(capsys, *names, "--list", "--dir", str(by_file))
    assert f"installs into: {by_file / 'hitom-full'} (fetched, up to date)" in out
    assert "NON-COMMERCIAL: research and other non-commercial use only (https://" in out
    assert "; accepted in this fetch folder\n" in out and "--accept-licence" not in out


def test_wrong_missing_unmatched_and_partial_files_are_refused_in_one_line(
        no_network: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "data"
    downloads = tmp_path / "downloads"
    downloads.mkdir()

    def refused(*args: str, code: int = 2) -> str:
        got, out, err = fetch_cli(capsys, *args, "--dir", str(target))
        assert got == code, (out, err)
        assert len(err.splitlines()) == 1, err
        assert not target.exists()  # nothing written, not even the fetch folder
        return err

    hitom = DECLARED["hitom-full"].files[0]
    wrong = downloads / "Hi-ToM_data.json"
    wrong.write_text('{"not": "the release"}')
    err = refused("hitom-full", "--from", str(wrong), code=1)
    assert err.startswith(f"pytest-tom fetch: hitom-full: Hi-ToM_data.json from {wrong} has "
                          f"sha256 ")
    assert (f"not the pinned {hitom.sha256}: refused, nothing written; it is not the file at "
            f"{hitom.url}: download that again") in err
    tomato = downloads / "tomato.json"
    tomato.write_text("[]")
    err = refused("tomato-full", "--from", str(tomato), "--accept-licence", code=1)
    assert f"tomato.json from {tomato} has git blob id " in err
    assert f"not the pinned {DECLARED['tomato-full'].files[0].git_blob}: refused" in err
    err = refused("hitom-full", "--from", str(downloads / "gone.json"))
    assert f"--from: {downloads / 'gone.json'}: no such file" in err
    notes = downloads / "notes.txt"
    notes.write_text("x")
    err = refused("hitom-full", "--from", str(notes))
    assert (f"--from: {notes} is none of the files of hitom-full, by its name or by the hash "
            f"pinned for each: Hi-ToM_data.json; give those") in err
    err = refused("mmtomqa-full", "--from", str(wrong))
    assert (f"--from: {wrong} is Hi-ToM_data.json of hitom-full, not of mmtomqa-full: add "
            f"hitom-full to the names") in err
    err = refused("hitom-full", "--from", str(downloads))
    assert f"--from: {downloads} is a folder: give the files in it" in err
    other = downloads / "Hi-ToM_data (1).json"
    shutil.copyfile(wrong, other)
    (downloads / "copy").mkdir()
    again = shutil.copyfile(wrong, downloads / "copy" / "Hi-ToM_data.json")
    err = refused("hitom-full", "--from", str(wrong), str(again))
    assert f"--from: {wrong} and {again} are both Hi-ToM_data.json of hitom-full: give one" in err
    # a partial set: named, with the command that lists the rest
    split = downloads / "location_cg_fo.json"
    split.write_text("{}")
    meta = downloads / "meta_data_long.json"
    meta.write_text("{}")
    err = refused("opentom-long", "--from", str(meta), str(split), "--accept-licence")
    assert ("--from: opentom-long needs 8 file(s), 2 given: missing location_cg_so.json, "
            "location_fg_fo_new.json, location_fg_so_new.json, multihop_fo.json, multihop_so.json"
            " and 1 more; download them too (pytest-tom fetch opentom-long --list") in err
    err = refused("opentom-full", "opentom-long", "--from", str(meta), str(split),
                  "--accept-licence")
    assert "opentom-full needs 8 file(s), 1 given: missing meta_data.json, " in err
    member = downloads / "fb_all_test.txt"
    member.write_text("x")
    err = refused("tomi-full", "--from", str(member), "--accept-licence")
    assert ("is tomi_balanced_story_types/fb_all_test.txt inside tomi_balanced_story_types.zip "
            "of tomi-full: give the archive as downloaded") in err
    flat = downloads / "test.jsonl"
    flat.write_text("{}")
    err = refused("simpletom-full", "--from", str(flat))
    assert ("could be any of mental-state-qa/test.jsonl, behavior-qa/test.jsonl, "
            "judgment-qa/test.jsonl of simpletom-full (they share its name): keep the folder")\
        in err
    assert "--from FILE... installs files of the names given first" in refused("--from",
                                                                              str(wrong))
    assert "not with --list" in refused("hitom-full", "--list", "--from", str(wrong))


def test_from_reads_archives_and_unpinned_files_through_the_download_path(
        tmp_path: Path) -> None:
    """FANToM's archive (built from the layout sample, pinned here by its own sha256): its
    member taken out and converted; SimpleToM's unpinned files, told apart by their folders,
    said NOT PINNED and guarded by the converter's count, as when downloaded."""
    sample = shared_data("fantom", "fantom_layout_sample.json").read_bytes()
    body = io.BytesIO()
    with tarfile.open(fileobj=body, mode="w:gz") as tf:
        info = tarfile.TarInfo("./fantom_v1.json")
        info.size = len(sample)
        tf.addfile(info, io.BytesIO(sample))
    archive = tmp_path / "fantom.tar.gz"
    archive.write_bytes(body.getvalue())
    declared = DECLARED["fantom-full"]
    with pytest.raises(FetchError, match=r"fantom.tar.gz from .* has sha256 \w+, not the pinned"):
        fetch(declared, tmp_path / "a", local=match([declared], [archive])["fantom-full"],
              say=lambda line: None)
    own = replace(declared, files=(replace(declared.files[0], sha256=hashlib.sha256(
        body.getvalue()).hexdigest()),))
    done = fetch(own, tmp_path / "b", local=match([own], [archive])["fantom-full"],
                 say=lambda line: None)
    assert [p.name for p in done.suites] == ["fantom-full.tom.yaml"] and done.items > 0
    assert [p.name for p in (done.folder / "upstream").iterdir()] == ["fantom_v1.json"]

    simpletom = DECLARED["simpletom-full"]
    folder = shared_data("simpletom", "layout-sample")
    given = sorted(folder.rglob("test.jsonl"))
    local = match([simpletom], given)["simpletom-full"]
    assert {url.split("/main/")[1]: str(p.relative_to(folder)) for url, p in local.items()} == {
        "mental-state-qa/test.jsonl": "mental-state-qa/test.jsonl",
        "behavior-qa/test.jsonl": "behavior-qa/test.jsonl",
        "judgment-qa/test.jsonl": "judgment-qa/test.jsonl"}
    lines: list[str] = []
    with pytest.raises(FetchError, match="failed"):
        fetch(simpletom, tmp_path / "c", local=local, say=lines.append)
    assert any("4 stories, not the 1147 expected" in line for line in lines)
    assert not (tmp_path / "c").exists()
    four = replace(simpletom, convert=(*simpletom.convert[:-1], "4"))
    lines.clear()
    done = fetch(four, tmp_path / "d", local=local, say=lines.append)
    assert done.items == 12
    assert sum("NOT PINNED" in line for line in lines) == 3
