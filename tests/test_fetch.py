"""`pytest-tom fetch` (issue 34, item 4) against a real HTTP server on 127.0.0.1 serving
the shared copies of the upstream files (`tests/mirror_server.py`) at their official URLs'
paths: every declared file with a copy is fetched, checked, converted and then run by name;
a file whose bytes differ is refused with one line naming it and nothing is written; the
archives (ToMi's zip, FANToM's tar.gz) are built here from the copies of their members.
Skipped, with the reason, where `../shared/data` is absent."""

from __future__ import annotations

import hashlib
import io
import json
import re
import tarfile
import zipfile
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import SHARED_DATA, shared_data
from mirror_server import MirrorServer, mirror_path, shared_copies

from pytest_tom import families
from pytest_tom.catalogue import bundled
from pytest_tom.catalogue.fetch_folder import MANIFEST, cache_home, default_root, fetched
from pytest_tom.catalogue.fetching import FetchError, fetch, source_url
from pytest_tom.cli import main
from pytest_tom.core.download import Download, Remote, github_file

DECLARED = families.downloads()
# the pins of the declarations, as the shared data README gives them (short commits)
COMMITS = {"hitom-full": "56dda76", "mmtomqa-full": "cba94f3", "bigtom-full": "fe647d6",
           "opentom-full": "3f22b66", "opentom-long": "3f22b66", "tomi-full": "dea2bca"}
ITEMS = {"hitom-full": 1200, "mmtomqa-full": 600, "bigtom-full": 5000, "opentom-full": 13708,
         "opentom-long": 2300, "tomato-fb": 806}
ANSWERER = """\
def first(request):
    return "a" if request.item.choices else "no"
"""


@pytest.fixture(scope="module")
def copies() -> dict[str, Path]:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"upstream data not available: {SHARED_DATA} (only in the project's "
                    f"workspace)")
    return shared_copies(SHARED_DATA)


@pytest.fixture
def server(copies: dict[str, Path]) -> Iterator[MirrorServer]:
    """The mirror, serving every declared file that has a copy."""
    with MirrorServer() as srv:
        srv.add_declared(DECLARED.values(), copies)
        yield srv


def fetch_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["fetch", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_every_benchmark_is_declared_in_its_family_folder_and_pinned() -> None:
    assert {"hitom-full", "mmtomqa-full", "bigtom-full", "opentom-full", "opentom-long",
            "tomi-full", "fantom-full"} <= set(DECLARED)
    assert {d.family for d in DECLARED.values()} >= {"hitom", "mmtomqa", "bigtom", "opentom",
                                                     "generic", "fantom"}
    assert not set(DECLARED) & set(bundled.names())  # a fetched name never hides a bundled one
    for name, commit in COMMITS.items():
        for remote in DECLARED[name].files:
            assert re.search(rf"/{commit}[0-9a-f]{{33}}/", remote.url), remote.url
    for download in DECLARED.values():
        assert download.licence.url.startswith("https://")
        assert download.convert[0] in families.converters()
    non_commercial = {n for n, d in DECLARED.items() if not d.licence.commercial}
    assert {"opentom-full", "opentom-long", "tomi-full"} <= non_commercial
    assert not non_commercial & {"hitom-full", "mmtomqa-full", "bigtom-full", "fantom-full"}
    with pytest.raises(ValueError, match="full 40-digit hash"):
        github_file("a/b", "56dda76", "x.json", "0" * 64)


def test_the_pinned_sha256s_are_those_of_the_shared_copies(copies: dict[str, Path]) -> None:
    """Every pin of a file we have a copy of is that copy's sha256 (the copies are the
    upstream files at the pinned commits); the two archives are the files we have none of,
    and the members of ToMi's are."""
    without_copy = []
    for download in DECLARED.values():
        for remote in download.files:
            if remote.sha256 not in copies:
                without_copy.append(remote.filename)
            for member in remote.members:
                if member.sha256 is not None:
                    assert copies[member.sha256].name == member.filename
    # ToMATO's whole release is pinned by git blob id, SimpleToM's files by nothing (no
    # revision known offline; tests/families/simpletom covers what its fetch checks)
    assert sorted(without_copy) == ["behavior-qa/test.jsonl", "fantom.tar.gz",
                                    "judgment-qa/test.jsonl", "mental-state-qa/test.jsonl",
                                    "tomato.json", "tomi_balanced_story_types.zip"]
    assert DECLARED["fantom-full"].files[0].sha256_source  # said where its hash comes from


def test_fetch_from_the_loopback_mirror_converts_every_copy_and_prints_the_licences(
        server: MirrorServer, copies: dict[str, Path], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Every declared name whose files all have a copy (a family that adds a download.py
    is covered by it): fetched, converted, loaded, filed, its licence printed."""
    names = [n for n, d in DECLARED.items() if all(r.sha256 in copies for r in d.files)]
    assert set(ITEMS) <= set(names)
    target = tmp_path / "data"
    code, out, err = fetch_cli(capsys, *names, "--dir", str(target), "--mirror", server.mirror,
                               "--accept-licence")
    assert code == 0, err
    assert err == ""
    for name in names:
        count = f"{ITEMS[name]:,}" if name in ITEMS else r"[1-9][\d,]*"
        assert re.search(rf"  fetched: [^\n]*\.tom\.yaml, {count} items, in "
                         rf"{re.escape(str(target / name))}\n", out), name
        assert f"  licence: {DECLARED[name].licence.line()}" in out
    assert "licence: Apache-2.0 (https://github.com/ying-hui-he/Hi-ToM_dataset/blob/56dda76" \
        in out
    assert "licence: CC BY-NC 4.0 · NON-COMMERCIAL: research and other non-commercial use only" \
        in out
    assert "note: opentom-full, opentom-long may be used for non-commercial purposes only" in out
    assert (f"run: pytest --tom-suite={','.join(names)} --tom-model=SPEC "
            f"--tom-fetch-dir={target}") in out
    # every file came from the server, once: opentom-full and -long each fetch their own
    assert len(server.requests) == sum(len(DECLARED[n].files) for n in names)
    found = fetched(target)
    assert sorted(found) == sorted(names)
    manifest = json.loads((target / "hitom-full" / MANIFEST).read_text())
    assert manifest["upstream"] == {"Hi-ToM_data.json": DECLARED["hitom-full"].files[0].sha256}
    assert manifest["suite_files"] == [{"file": "hitom-full.tom.yaml", "suite": "hitom-full",
                                   "family": "hitom", "scenarios": 240, "items": 1200}]
    assert (target / "hitom-full" / "upstream" / "Hi-ToM_data.json").is_file()
    assert not [p for p in target.iterdir() if p.name.startswith(".")]  # no partial folder


def test_a_sha256_mismatch_is_refused_with_one_line_and_nothing_is_written(
        server: MirrorServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    remote = DECLARED["hitom-full"].files[0]
    body = bytearray(Path(server.files[mirror_path(remote.url)]).read_bytes())
    body[100] ^= 1
    server.put(remote.url, bytes(body))
    target = tmp_path / "data"
    code, out, err = fetch_cli(capsys, "hitom-full", "--dir", str(target),
                               "--mirror", server.mirror)
    assert code == 1
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("pytest-tom fetch: hitom-full: Hi-ToM_data.json from http://127.")
    assert f"has sha256 {hashlib.sha256(body).hexdigest()}, not the pinned {remote.sha256}: " \
           f"refused, nothing written" in lines[0]
    assert not target.exists()
    assert "fetched:" not in out and "run:" not in out
    # one file refused, the others fetched: its name alone fails
    code, out, err = fetch_cli(capsys, "hitom-full", "mmtomqa-full", "--dir", str(target),
                               "--mirror", server.mirror)
    assert code == 1 and len(err.splitlines()) == 1
    assert sorted(p.name for p in target.iterdir()) == ["mmtomqa-full"]


def test_a_longer_file_stops_at_its_pinned_size_a_cut_or_missing_one_is_one_line(
        server: MirrorServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    remote = DECLARED["mmtomqa-full"].files[0]
    server.put(remote.url, Path(server.files[mirror_path(remote.url)]).read_bytes() + b"x" * 5000)
    code, _, err = fetch_cli(capsys, "mmtomqa-full", "--dir", str(tmp_path / "d"),
                             "--mirror", server.mirror)
    assert code == 1 and len(err.splitlines()) == 1
    assert "(more than the 1,059,787 bytes pinned)" in err
    server.files[mirror_path(remote.url)] = b"x" * 1000
    server.cut.add(mirror_path(remote.url))
    code, _, err = fetch_cli(capsys, "mmtomqa-full", "--dir", str(tmp_path / "d"),
                             "--mirror", server.mirror)
    assert code == 1 and len(err.splitlines()) == 1
    assert "questions.json: cannot be read from http" in err and "nothing written" in err
    del server.files[mirror_path(remote.url)]
    code, _, err = fetch_cli(capsys, "mmtomqa-full", "--dir", str(tmp_path / "d"),
                             "--mirror", server.mirror)
    assert code == 1 and len(err.splitlines()) == 1
    assert "questions.json: HTTP 404" in err and "nothing written" in err
    assert not (tmp_path / "d").exists()


def test_fetching_again_is_up_to_date_and_a_newer_converter_reuses_the_files(
        server: MirrorServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "data"
    args = ("mmtomqa-full", "--dir", str(target), "--mirror", server.mirror)
    assert fetch_cli(capsys, *args)[0] == 0
    asked = len(server.requests)
    code, out, _ = fetch_cli(capsys, *args)
    assert code == 0 and "already fetched, up to date: mmtomqa-full.tom.yaml, 600 items" in out
    assert len(server.requests) == asked
    # another pytest-tom converted it: converted again from the kept file, no download
    manifest_path = target / "mmtomqa-full" / MANIFEST
    manifest = json.loads(manifest_path.read_text())
    manifest_path.write_text(json.dumps({**manifest, "pytest_tom": "0.0.1"}))
    (target / "mmtomqa-full" / "mmtomqa-full.tom.yaml").write_text("stale")
    code, out, _ = fetch_cli(capsys, *args)
    assert code == 0 and "questions.json: kept from the last fetch (sha256 checked)" in out
    assert len(server.requests) == asked
    assert "stale" not in (target / "mmtomqa-full" / "mmtomqa-full.tom.yaml").read_text()
    # a kept file whose bytes changed is not trusted: downloaded again
    manifest = json.loads(manifest_path.read_text())
    manifest_path.write_text(json.dumps({**manifest, "pytest_tom": "0.0.1"}))
    (target / "mmtomqa-full" / "upstream" / "questions.json").write_text("{}")
    assert fetch_cli(capsys, *args)[0] == 0
    assert len(server.requests) == asked + 1


def test_a_file_mirror_reads_a_folder_laid_out_as_the_urls(
        copies: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    remote = DECLARED["hitom-full"].files[0]
    local = tmp_path / "mirror" / mirror_path(remote.url).lstrip("/")
    local.parent.mkdir(parents=True)
    local.write_bytes(copies[remote.sha256].read_bytes())
    code, out, err = fetch_cli(capsys, "hitom-full", "--dir", str(tmp_path / "d"),
                               "--mirror", (tmp_path / "mirror").as_uri())
    assert code == 0, err
    assert "1,200 items" in out


def archive_download(name: str, body: bytes) -> Download:
    """The declaration of `name` with its archive's pin replaced by the sha256 of `body`
    (an archive built here: the members' own pins are kept)."""
    download = DECLARED[name]
    (remote,) = download.files
    return replace(download, files=(replace(remote, sha256=hashlib.sha256(body).hexdigest(),
                                            size=None),))


def zip_of(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return out.getvalue()


def test_tomi_comes_out_of_its_archive_each_member_checked(
        server: MirrorServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    txt = shared_data("tomi", "fb_all_test.txt").read_bytes()
    trace = shared_data("tomi", "fb_all_test.trace").read_bytes()
    folder = "tomi_balanced_story_types"
    body = zip_of({f"{folder}/fb_all_test.txt": txt, f"{folder}/fb_all_test.trace": trace,
                   f"{folder}/fb_all_train.txt": b"not taken"})
    (remote,) = DECLARED["tomi-full"].files
    server.put(remote.url, body)
    # the declaration pins the authors' archive: one built here is refused
    code, _, err = fetch_cli(capsys, "tomi-full", "--dir", str(tmp_path / "a"),
                             "--mirror", server.mirror, "--accept-licence")
    assert code == 1 and len(err.splitlines()) == 1
    assert "tomi_balanced_story_types.zip from http" in err and "refused" in err
    assert not (tmp_path / "a").exists()
    # with this archive's own sha256, the members are taken out, checked and converted
    lines: list[str] = []
    done = fetch(archive_download("tomi-full", body), tmp_path / "b", mirror=server.mirror,
                 say=lines.append)
    assert done.items == 5994
    assert sorted(p.name for p in (done.folder / "upstream").iterdir()) == [
        "fb_all_test.trace", "fb_all_test.txt"]
    # a member whose bytes differ is refused, naming it
    bad = zip_of({f"{folder}/fb_all_test.txt": txt, f"{folder}/fb_all_test.trace": trace[:-10]})
    server.put(remote.url, bad)
    with pytest.raises(FetchError, match=r"^tomi-full: tomi_balanced_story_types/"
                                         r"fb_all_test.trace in tomi_balanced_story_types.zip "
                                         r"has sha256 \w+, not the pinned \w+: refused"):
        fetch(archive_download("tomi-full", bad), tmp_path / "c", mirror=server.mirror,
              say=lines.append)
    assert not (tmp_path / "c").exists()


def test_fantom_comes_out_of_the_authors_archive(
        server: MirrorServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The authors' archive is not here: one built from the layout sample is refused by the
    authors' hash, and converts with its own (the sample's 5 sets)."""
    sample = shared_data("fantom", "fantom_layout_sample.json").read_bytes()
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tf:
        info = tarfile.TarInfo("./fantom_v1.json")
        info.size = len(sample)
        tf.addfile(info, io.BytesIO(sample))
    body = out.getvalue()
    (remote,) = DECLARED["fantom-full"].files
    server.put(remote.url, body)
    code, out_text, err = fetch_cli(capsys, "fantom-full", "--dir", str(tmp_path / "a"),
                                    "--mirror", server.mirror)
    assert code == 1 and len(err.splitlines()) == 1 and "fantom.tar.gz" in err
    assert "sha256 of fantom.tar.gz: the hash the authors' loader checks" in out_text
    assert "not checked against the archive by pytest-tom" in out_text
    assert not (tmp_path / "a").exists()
    done = fetch(archive_download("fantom-full", body), tmp_path / "b", mirror=server.mirror,
                 say=lambda line: None)
    assert [p.name for p in done.suites] == ["fantom-full.tom.yaml"] and done.items > 0
    assert source_url(remote, server.mirror) == \
        f"{server.mirror}/storage.googleapis.com/ai2-mosaic-public/projects/fantom/fantom.tar.gz"


def test_a_converter_failure_writes_nothing(server: MirrorServer, tmp_path: Path) -> None:
    broken = replace(DECLARED["hitom-full"], convert=("mmtomqa", "Hi-ToM_data.json"))
    lines: list[str] = []
    with pytest.raises(FetchError, match=r"`pytest-tom convert mmtomqa Hi-ToM_data.json -o DIR`"
                                         r" failed \(exit 1, its messages above\); nothing "
                                         r"written"):
        fetch(broken, tmp_path / "d", mirror=server.mirror, say=lines.append)
    assert any("not a JSON object" in line for line in lines)  # the converter's own words
    assert not (tmp_path / "d").exists()


def test_unknown_names_and_the_listing(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = fetch_cli(capsys, "hitom", "nope")
    assert code == 2
    assert "nothing to fetch named 'hitom', 'nope' (a bundled suite needs no fetch" in err
    code, out, _ = fetch_cli(capsys, "--dir", str(tmp_path))
    assert code == 0
    assert re.search(r"tomi-full +ToMi +generic +CC BY-NC 4.0 \(non-commercial\) +0.4 MB", out)
    assert f"fetch folder: {tmp_path} (nothing fetched)" in out


def test_the_fetch_folder_follows_the_platform_and_the_environment(tmp_path: Path) -> None:
    home = Path("/home/u")
    assert cache_home({}, "linux", home) == home / ".cache" / "pytest-tom"
    assert cache_home({"XDG_CACHE_HOME": "/x"}, "linux", home) == Path("/x/pytest-tom")
    assert cache_home({"XDG_CACHE_HOME": "rel"}, "linux", home) == home / ".cache" / "pytest-tom"
    assert cache_home({}, "darwin", home) == home / "Library" / "Caches" / "pytest-tom"
    assert cache_home({"LOCALAPPDATA": "C:/L"}, "win32", home) == Path("C:/L/pytest-tom/Cache")
    assert default_root({}, "linux", home) == home / ".cache" / "pytest-tom" / "fetched"
    assert default_root({"PYTEST_TOM_FETCH_DIR": str(tmp_path)}, "linux", home) == tmp_path


# -- the fetched suites run by name ------------------------------------------------------


@pytest.fixture(scope="module")
def fetched_dir(tmp_path_factory: pytest.TempPathFactory,
                copies: dict[str, Path]) -> Path:
    target = tmp_path_factory.mktemp("fetched-suites")
    with MirrorServer() as srv:
        srv.add_declared(DECLARED.values(), copies)
        for name in ("hitom-full", "mmtomqa-full"):
            fetch(DECLARED[name], target, mirror=srv.mirror, say=lambda line: None)
    return target


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(answer=ANSWERER)
    return pytester


def test_a_fetched_benchmark_runs_by_name_beside_a_bundled_one(
        project: pytest.Pytester, fetched_dir: Path) -> None:
    result = project.runpytest("--tom-model=python:answer.py:first",
                               "--tom-suite=hitom-full,mmtomqa-full,generic",
                               f"--tom-fetch-dir={fetched_dir}", "--co", "-q")
    ids = [line for line in result.outlines if "::" in line]
    files = {i.split("::")[0] for i in ids}
    assert files == {"hitom-full/hitom-full.tom.yaml", "mmtomqa-full/mmtomqa-full.tom.yaml",
                     "generic/classic-false-belief.tom.yaml"}
    assert len([i for i in ids if i.startswith("hitom-full/")]) == 1200
    assert len([i for i in ids if i.startswith("mmtomqa-full/")]) == 600


@pytest.mark.parametrize("xdist", [[], ["-n", "2"]], ids=["plain", "xdist"])
def test_a_fetched_run_scores_and_keeps_lf_in_the_project(
        project: pytest.Pytester, fetched_dir: Path, monkeypatch: pytest.MonkeyPatch,
        xdist: list[str]) -> None:
    monkeypatch.setenv("PYTEST_TOM_FETCH_DIR", str(fetched_dir))  # as fetch's default
    args = ["--tom-model=python:answer.py:first", "--tom-suite=hitom-full", "--tom-limit=10",
            "-p", "no:randomly"]
    first = project.runpytest_subprocess(*args, *xdist)
    first.stdout.fnmatch_lines([f"rootdir: {project.path}*",
                                f"tom: fetched suites hitom-full (from {fetched_dir})",
                                "*hitom-full*(family hitom, * items)*"])
    counts = first.parseoutcomes()
    assert counts["failed"] and counts["passed"]
    lastfailed = json.loads((project.path / ".pytest_cache" / "v" / "cache" / "lastfailed")
                            .read_text())
    assert len(lastfailed) == counts["failed"]
    assert all(k.startswith("hitom-full/hitom-full.tom.yaml::") for k in lastfailed)
    again = project.runpytest_subprocess(*args, *xdist, "--lf")
    assert again.parseoutcomes().get("failed") == counts["failed"]
    assert "passed" not in again.parseoutcomes()


def test_a_name_not_fetched_is_a_usage_error_giving_the_command(
        project: pytest.Pytester, tmp_path: Path) -> None:
    result = project.runpytest("--tom-model=python:answer.py:first", "--tom-suite=hitom-full")
    assert result.ret == 4
    result.stderr.fnmatch_lines(["*--tom-suite: hitom-full is not fetched yet (looked in *); "
                                 "fetch with: pytest-tom fetch hitom-full"])
    elsewhere = tmp_path / "elsewhere"
    result = project.runpytest("--tom-model=python:answer.py:first",
                               "--tom-suite=hitom,tomi-full,fantom-full",
                               f"--tom-fetch-dir={elsewhere}")
    assert result.ret == 4
    result.stderr.fnmatch_lines([f"*tomi-full, fantom-full are not fetched yet (looked in "
                                 f"{elsewhere}); fetch with: pytest-tom fetch tomi-full "
                                 f"fantom-full --dir={elsewhere}"])


def test_suites_lists_the_fetched_ones_and_where_they_are(
        fetched_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["suites", "--dir", str(fetched_dir)]) == 0
    out = capsys.readouterr().out
    assert re.search(r"hitom-full +hitom-full.tom.yaml +hitom-full +hitom +240 +1,200 +fetched",
                     out)
    assert re.search(r"generic +classic-false-belief.tom.yaml .* bundled", out)
    assert f"fetched (hitom-full, mmtomqa-full) in {fetched_dir}" in out
    assert main(["suites", "mmtomqa-full", "--dir", str(fetched_dir)]) == 0
    out = capsys.readouterr().out
    assert "mmtomqa-full" in out and "hitom-full" not in out
    assert main(["suites"]) == 0  # the default folder: this test's own, empty
    assert "fetched: none in" in capsys.readouterr().out


def test_a_declaration_is_checked_when_written() -> None:
    with pytest.raises(ValueError, match="64 lower-case hex"):
        Remote("https://example.org/x.json", "abc")
    with pytest.raises(ValueError, match="an official URL is https"):
        Remote("http://example.org/x.json", "0" * 64)
    remote = Remote("https://example.org/a%20b.json", "0" * 64)
    assert remote.filename == "a b.json"
    with pytest.raises(ValueError, match="two files are saved under one name"):
        Download("x-full", "X", "x", "x", (remote, remote), DECLARED["hitom-full"].licence,
                 ("hitom", "a b.json"))
    with pytest.raises(ValueError, match="pin the file by its sha256 or its git blob id"):
        Remote("https://example.org/x.json")
    with pytest.raises(ValueError, match="git blob id 'abc' is not 40"):
        Remote("https://example.org/x.json", git_blob="abc")
    with pytest.raises(ValueError, match="must stay inside the download folder"):
        Remote("https://example.org/x.json", "0" * 64, save_as="../x.json")
    kept = Remote("https://example.org/q/test.jsonl", unpinned="why", save_as="q/test.jsonl")
    assert kept.filename == "q/test.jsonl" and kept.pin == "not pinned"
