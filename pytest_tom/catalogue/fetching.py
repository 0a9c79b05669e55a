"""`pytest-tom fetch NAME`: download a benchmark's official files, check them, convert them
into the fetch folder (`catalogue/fetch_folder.py`).

For one declaration (`core/download.Download`): every file is downloaded over HTTP(S) (or
read from a `file:` mirror) into a temporary folder, its sha256 checked as the bytes
arrive, the declared members of an archive taken out (by name, never extracted whole) and
checked too; the family's converter runs there (`pytest-tom convert ...`, its own
arguments); every suite it wrote is loaded, to be sure it runs; then the folder is moved
into the fetch folder whole. Anything wrong stops the fetch with one line (`FetchError`)
and nothing is written: the fetch folder is not even created.

A mirror (`--mirror URL`, `$PYTEST_TOM_FETCH_MIRROR`) holds each file under its official
URL's host and path (`URL/raw.githubusercontent.com/owner/name/commit/path`, the layout of
`wget -x`): a machine without internet fetches from a copy, with the same checks. Or
the files are downloaded anywhere else and given as they are (`--from FILE...`,
`catalogue/fetch_from.py` tells which declared file each is): they are read in place of the
URLs and go through the same checks, conversion and filing.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import http.client
import io
import json
import os
import shutil
import tarfile
import tempfile
import time
import urllib.error
import urllib.request
import zipfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path, PurePosixPath
from typing import IO, Protocol, cast
from urllib.parse import urlsplit

import pytest_tom
from pytest_tom import families
from pytest_tom.catalogue.fetch_folder import (
    FORMAT,
    MANIFEST,
    SUITE_GLOB,
    UPSTREAM,
    LicenceJSON,
    Manifest,
    SuiteFileRow,
    read_manifest,
)
from pytest_tom.catalogue.load import load_suite
from pytest_tom.core.download import Download, Member, Remote
from pytest_tom.core.json_value import JSONObject
from pytest_tom.core.registry import RegistryError
from pytest_tom.families.base import Settings
from pytest_tom.suite.errors import SuiteError

MIRROR_ENV = "PYTEST_TOM_FETCH_MIRROR"
CHUNK = 1 << 20
MAX_BYTES = 2 << 30  # a file of unknown size stops here (a wrong URL serving forever)
Say = Callable[[str], None]


class FetchError(Exception):
    """A fetch that stopped; its message is one line, and nothing was written."""


@dataclass(frozen=True)
class Fetch:
    """What a fetch left: the folder, its suite files and their items."""

    download: Download
    folder: Path
    suites: tuple[Path, ...]
    items: int
    up_to_date: bool = False  # fetched before from the same declaration: nothing done


def source_url(remote: Remote, mirror: str | None) -> str:
    """Where `remote` is read from: its official URL, or the mirror's copy of it."""
    if not mirror:
        return remote.url
    parts = urlsplit(remote.url)
    return f"{mirror.rstrip('/')}/{parts.netloc}{parts.path}"


def declaration(download: Download) -> JSONObject:
    """The declaration as JSON data (what `fetched.json` keeps, to tell a stale fetch)."""
    data: JSONObject = json.loads(json.dumps(asdict(download)))
    return data


def size_text(size: int | None) -> str:
    if size is None:
        return "size unknown"
    return f"{size / 1e6:.1f} MB" if size >= 100_000 else f"{size / 1e3:.0f} kB"


def fetch(download: Download, root: Path, *, mirror: str | None = None,
          timeout: float = 60.0, say: Say = print,
          local: Mapping[str, Path] | None = None) -> Fetch:
    """Fetch `download` into `root/<name>/` (see the module's docstring). FetchError: one
    line, nothing written.

    `local` (`pytest-tom fetch NAME --from FILE...`): every declared file's URL -> a file
    downloaded elsewhere, read in place of the URL and then checked, taken apart, converted
    and filed exactly as a download is. Nothing earlier is reused then (neither an up-to-date
    fetch nor its kept files): the files given are the ones checked and installed."""
    dest = root / download.name
    if local is not None:
        missing = [r.filename for r in download.files if r.url not in local]
        if missing:
            raise FetchError(f"{download.name}: no file given for {', '.join(missing)}; "
                             f"nothing written")
    else:
        current = _up_to_date(dest, download)
        if current is not None:
            return current
    with tempfile.TemporaryDirectory(prefix="pytest-tom-fetch-") as tmp:
        stage = Path(tmp) / download.name
        upstream = stage / UPSTREAM
        upstream.mkdir(parents=True)
        kept = _kept_upstream(dest, download) if local is None else {}
        hashes: dict[str, str] = {}
        read_from: dict[str, str] = {}
        for remote in download.files:
            if all(name in kept for name in remote.files):
                for name in remote.files:
                    (upstream / name).parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(dest / UPSTREAM / name, upstream / name)
                    hashes[name] = kept[name]
                say(f"  {', '.join(remote.files)}: kept from the last fetch (sha256 checked)")
                read_from[remote.url] = source_url(remote, mirror)
                continue
            if local is not None:
                source: _Source = _LocalFile(download, remote, local[remote.url])
            else:
                source = _Url(download, remote, source_url(remote, mirror), timeout)
            read_from[remote.url] = source.read_from
            hashes.update(_obtain(download, remote, source, upstream, Path(tmp), say))
        suites = _convert(download, upstream, stage, say)
        described = _check_suites(download, suites, stage)
        items = sum(row["items"] for row in described)
        manifest: Manifest = {
            "format": FORMAT, "name": download.name, "benchmark": download.benchmark,
            "family": download.family, "what": download.what, "source": download.source,
            "licence": cast(LicenceJSON, asdict(download.licence)),
            "convert": download.convert_command(),
            "files": [{"url": r.url, "sha256": r.sha256, "git_blob": r.git_blob,
                       "read_from": read_from[r.url]} for r in download.files],
            "upstream": hashes, "suite_files": described, "items": items,
            "fetched_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "pytest_tom": pytest_tom.__version__,
            "declaration": declaration(download),
        }
        (stage / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
        _move_in(stage, dest)
    return Fetch(download, dest, tuple(dest / p.name for p in suites), items)


def state(download: Download, root: Path) -> str:
    """What `root` holds of `download`, for `--list`: read from its manifest, nothing
    downloaded or converted."""
    dest = root / download.name
    if _up_to_date(dest, download) is not None:
        return "fetched, up to date"
    if read_manifest(dest) is not None:
        return "fetched from another declaration or pytest-tom version: a fetch converts again"
    return "not fetched"


def _up_to_date(dest: Path, download: Download) -> Fetch | None:
    """The earlier fetch in `dest`, when it came from this declaration and this version."""
    manifest = read_manifest(dest)
    if manifest is None or manifest.get("declaration") != declaration(download) \
            or manifest.get("pytest_tom") != pytest_tom.__version__:
        return None
    suites = tuple(dest / row["file"] for row in manifest.get("suite_files", []))
    if not suites or not all(p.is_file() for p in suites):
        return None
    return Fetch(download, dest, suites, int(manifest.get("items", 0)), up_to_date=True)


def _kept_upstream(dest: Path, download: Download) -> dict[str, str]:
    """Upstream files an earlier fetch of the same files left in `dest/upstream/`, whose
    bytes still have the sha256 it recorded: name -> sha256."""
    manifest = read_manifest(dest)
    if manifest is None:
        return {}
    same = [{"url": f.get("url"), "sha256": f.get("sha256")} for f in manifest.get("files", [])]
    if same != [{"url": r.url, "sha256": r.sha256} for r in download.files]:
        return {}
    out = {}
    for name, sha256 in dict(manifest.get("upstream") or {}).items():
        path = dest / UPSTREAM / name
        if path.is_file() and sha256_of(path) == sha256:
            out[name] = sha256
    return out


def git_blob_of(path: Path) -> str:
    """The git blob id of a file: SHA-1 of `blob <size>\\0` and its bytes (what `git
    ls-tree` lists for it)."""
    digest = hashlib.sha1(f"blob {path.stat().st_size}\0".encode(), usedforsecurity=False)
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


class _Source(Protocol):
    """Where one declared file's bytes are read from: its URL (or a mirror's copy), or a
    file given with `--from`. `copy` fills `out` with at most `limit` + 1 bytes and gives
    (their sha256, their count); a failure is a FetchError of one line."""

    where: str  # for the messages: the URL or the path
    read_from: str  # for fetched.json
    fix: str  # appended to a refusal: what to do about it

    def copy(self, out: IO[bytes], limit: int) -> tuple[str, int]: ...


class _Url(_Source):
    def __init__(self, download: Download, remote: Remote, url: str, timeout: float):
        self.download, self.remote, self.timeout = download, remote, timeout
        self.where = self.read_from = url
        self.fix = ""

    def copy(self, out: IO[bytes], limit: int) -> tuple[str, int]:
        name, url = self.remote.filename, self.where
        try:
            request = urllib.request.Request(url, headers={
                "User-Agent": f"pytest-tom/{pytest_tom.__version__} (pytest-tom fetch)"})
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                got, size = _copy(response, out, limit)
                announced = response.headers.get("Content-Length", "")
            if announced.isdigit() and size < int(announced) and size <= limit:  # not cut by us
                raise OSError(f"the connection closed after {size:,} of {int(announced):,} "
                              f"bytes")
        except urllib.error.HTTPError as exc:
            raise FetchError(f"{self.download.name}: {name}: HTTP {exc.code} {exc.reason} from "
                             f"{url}; nothing written") from None
        except (urllib.error.URLError, http.client.HTTPException, OSError, ValueError) as exc:
            reason = getattr(exc, "reason", exc)
            raise FetchError(f"{self.download.name}: {name}: cannot be read from {url} "
                             f"({reason}); nothing written (no internet here? --mirror URL "
                             f"reads a copy; --from FILE... installs files downloaded "
                             f"elsewhere)") from None
        return got, size


class _LocalFile(_Source):
    def __init__(self, download: Download, remote: Remote, path: Path):
        self.download, self.remote, self.path = download, remote, path
        self.where = str(path)
        self.read_from = path.absolute().as_uri()
        self.fix = (f"; it is not the file at {remote.url}: download that again (pytest-tom "
                    f"fetch {download.name} --list shows each file and its pin)")

    def copy(self, out: IO[bytes], limit: int) -> tuple[str, int]:
        try:
            with self.path.open("rb") as source:
                return _copy(source, out, limit)
        except OSError as exc:
            raise FetchError(f"{self.download.name}: {self.remote.filename}: {self.path} cannot "
                             f"be read ({exc.strerror or exc}); nothing written") from None


def _obtain(download: Download, remote: Remote, source: _Source, upstream: Path, tmp: Path,
            say: Say) -> dict[str, str]:
    """Read `remote`'s bytes from `source`, check them against its pin, and leave its file
    (or its members) in `upstream`: the same checks whether the bytes came over the network
    or from a file downloaded elsewhere."""
    name = remote.filename
    say(f"  {name} ({size_text(remote.size)}) from {source.where}")
    target = (tmp / PurePosixPath(name).name) if remote.members else (upstream / name)
    target.parent.mkdir(parents=True, exist_ok=True)
    limit = remote.size if remote.size is not None else MAX_BYTES
    with target.open("wb") as out:
        got, size = source.copy(out, limit)
    over = f" (more than the {remote.size:,} bytes pinned)" if size > limit else ""
    if remote.sha256 and got != remote.sha256:
        raise FetchError(f"{download.name}: {name} from {source.where} has sha256 {got}{over}, "
                         f"not the pinned {remote.sha256}: refused, nothing written{source.fix}")
    if remote.git_blob:
        blob = git_blob_of(target)
        if blob != remote.git_blob:
            raise FetchError(f"{download.name}: {name} from {source.where} has git blob id "
                             f"{blob}{over}, not the pinned {remote.git_blob}: refused, nothing "
                             f"written{source.fix}")
    if not (remote.sha256 or remote.git_blob):
        say(f"  {name}: NOT PINNED ({remote.unpinned}); its sha256 {got} is recorded in "
            f"{MANIFEST}, and only the converter's checks guard its content")
    if not remote.members:
        return {name: got}
    return _take_members(download, remote, target, upstream)


def _copy(source: IO[bytes], out: IO[bytes], limit: int) -> tuple[str, int]:
    """Copy at most `limit` + 1 bytes; (sha256 of what came, bytes read)."""
    digest = hashlib.sha256()
    size = 0
    while size <= limit:
        chunk = source.read(min(CHUNK, limit + 1 - size))
        if not chunk:
            break
        size += len(chunk)
        digest.update(chunk)
        out.write(chunk)
    return digest.hexdigest(), size


def _take_members(download: Download, remote: Remote, archive: Path,
                  upstream: Path) -> dict[str, str]:
    """Copy each declared member of `archive` (zip or tar) into `upstream` under its base
    name, checking its sha256 where one is declared."""
    out = {}
    try:
        with _open_members(archive) as find:
            for member in remote.members:
                source = find(member)
                if source is None:
                    raise FetchError(f"{download.name}: {remote.filename} holds no "
                                     f"{member.path}: refused, nothing written")
                with source, (upstream / member.filename).open("wb") as f:
                    got, _ = _copy(source, f, MAX_BYTES)
                if member.sha256 is not None and got != member.sha256:
                    raise FetchError(f"{download.name}: {member.path} in {remote.filename} has "
                                     f"sha256 {got}, not the pinned {member.sha256}: refused, "
                                     f"nothing written")
                out[member.filename] = got
    except (zipfile.BadZipFile, tarfile.TarError, OSError) as exc:
        raise FetchError(f"{download.name}: {remote.filename} cannot be read as an archive "
                         f"({exc}); nothing written") from None
    return out


@contextlib.contextmanager
def _open_members(archive: Path) -> Iterator[Callable[[Member], IO[bytes] | None]]:
    """A function giving a member's bytes (None: no such regular file in the archive)."""
    def clean(path: str) -> str:
        return str(PurePosixPath(path.removeprefix("./")))

    if zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as zf:
            infos = {clean(i.filename): i for i in zf.infolist() if not i.is_dir()}
            yield lambda m: zf.open(infos[clean(m.path)]) if clean(m.path) in infos else None
        return
    with tarfile.open(archive, "r:*") as tf:
        members = {clean(t.name): t for t in tf.getmembers() if t.isfile()}
        yield lambda m: tf.extractfile(members[clean(m.path)]) \
            if clean(m.path) in members else None


def _convert(download: Download, upstream: Path, stage: Path, say: Say) -> list[Path]:
    """Run the declared converter on the downloaded files, writing into `stage`."""
    converter, source, *rest = download.convert
    try:
        module = families.converter(converter)
    except RegistryError as exc:
        raise FetchError(f"{download.name}: {exc} (pytest-tom convert lists them); "
                         f"nothing written") from exc
    parser = argparse.ArgumentParser(prog=f"pytest-tom convert {converter}")
    module.add_arguments(parser)
    args = parser.parse_args([str(upstream / source), "-o", str(stage), *rest])
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
        code = module.run(args)
    lines = [line.replace(str(stage), str(download.name)) for line in
             printed.getvalue().splitlines() if line.strip()]
    if code:
        for line in lines[-20:]:
            say(f"  | {line}")
        raise FetchError(f"{download.name}: `{download.convert_command()}` failed (exit "
                         f"{code}, its messages above); nothing written")
    for line in lines:
        say(f"  | {line}")
    suites = sorted(stage.glob(SUITE_GLOB))
    if not suites:
        raise FetchError(f"{download.name}: `{download.convert_command()}` wrote no suite "
                         f"file; nothing written")
    return suites


def _check_suites(download: Download, suites: list[Path], stage: Path) -> list[SuiteFileRow]:
    """Load every converted suite (it must run): what each holds, for `fetched.json`."""
    out: list[SuiteFileRow] = []
    for path in suites:
        try:
            suite = load_suite(path, Settings())
        except SuiteError as exc:
            first = str(exc).splitlines()[0].replace(str(stage), download.name)
            raise FetchError(f"{download.name}: the converted {path.name} does not load "
                             f"({first}); nothing written") from None
        out.append({"file": path.name, "suite": suite.name, "family": suite.family,
                    "scenarios": suite.scenario_count, "items": len(suite.items)})
    return out


def _move_in(stage: Path, dest: Path) -> None:
    """Put the finished folder at `dest`, replacing an earlier fetch only once it is whole."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    partial = dest.parent / f".{dest.name}.partial-{os.getpid()}"
    shutil.rmtree(partial, ignore_errors=True)
    shutil.copytree(stage, partial)
    old = None
    if dest.exists():
        old = dest.parent / f".{dest.name}.old-{os.getpid()}"
        shutil.rmtree(old, ignore_errors=True)
        os.replace(dest, old)
    os.replace(partial, dest)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
