"""Fetched suites: the folder `pytest-tom fetch` fills, and the names they run by.

The folder (the *fetch folder*) holds one sub-folder per fetched name, as the bundled
folder does: `<name>/` has the converted suite files (`*.tom.yaml`), `fetched.json` (what
was fetched: the declaration, each file's URL and sha256, the licence, when, by which
pytest-tom) and `upstream/` (the verified upstream files, so that fetching again with a
newer pytest-tom converts them again without a download). A sub-folder without a readable
`fetched.json` is not a fetched suite (a fetch in progress writes elsewhere and moves its
folder in whole).

Where it is: `--dir` (`pytest-tom fetch`) or `--tom-fetch-dir` / `tom_fetch_dir` (a run),
else `$PYTEST_TOM_FETCH_DIR`, else the platform's per-user cache folder:
`$XDG_CACHE_HOME/pytest-tom/fetched` (default `~/.cache/...`) on Linux and other POSIX
systems, `~/Library/Caches/pytest-tom/fetched` on macOS,
`%LOCALAPPDATA%\\pytest-tom\\Cache\\fetched` on Windows.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict, cast

from pytest_tom.core.json_value import JSONObject

ENV = "PYTEST_TOM_FETCH_DIR"
MANIFEST = "fetched.json"
FORMAT = "pytest-tom-fetched/1"
UPSTREAM = "upstream"
SUITE_GLOB = "*.tom.yaml"


def cache_home(environ: Mapping[str, str], platform: str, home: Path) -> Path:
    """pytest-tom's per-user cache folder, by the platform's convention."""
    if platform == "win32":
        local = environ.get("LOCALAPPDATA")
        return (Path(local) if local else home / "AppData" / "Local") / "pytest-tom" / "Cache"
    if platform == "darwin":
        return home / "Library" / "Caches" / "pytest-tom"
    xdg = environ.get("XDG_CACHE_HOME", "")
    # the XDG rule: a relative value is invalid and ignored
    return (Path(xdg) if xdg and Path(xdg).is_absolute() else home / ".cache") / "pytest-tom"


def default_root(environ: Mapping[str, str] | None = None, platform: str | None = None,
                 home: Path | None = None) -> Path:
    """The fetch folder when none is given: `$PYTEST_TOM_FETCH_DIR`, else the cache's."""
    env = os.environ if environ is None else environ
    if env.get(ENV):
        return Path(env[ENV]).expanduser().absolute()
    return cache_home(env, platform or sys.platform, home or Path.home()) / "fetched"


def root_of(given: str | Path | None, base: Path | None = None) -> Path:
    """The fetch folder: `given` (`~` expanded, a relative path taken from `base`, default
    the current folder), else the default."""
    if given is None or not str(given).strip():
        return default_root()
    path = Path(given).expanduser()
    return path if path.is_absolute() else (base or Path.cwd()) / path


def dir_option(root: Path, flag: str = "--dir") -> str:
    """` --dir ROOT` when `root` is not the default fetch folder (for the commands printed),
    else nothing."""
    return "" if root == default_root() else f" {flag}={root}"


class SuiteFileRow(TypedDict):
    """What one converted suite file holds, as the fetch found when it loaded it."""

    file: str  # its name in the fetched folder
    suite: str
    family: str
    scenarios: int
    items: int


class LicenceJSON(TypedDict, total=False):
    """`core.download.Licence` as the manifest keeps it (`dataclasses.asdict`)."""

    name: str
    url: str
    commercial: bool
    note: str
    evaluation_only: bool


class FetchedFileJSON(TypedDict):
    """One declared file of a fetch: its URL, hashes and where it was read from (the URL, a
    mirror's copy or a local file)."""

    url: str
    sha256: str
    git_blob: str
    read_from: str


class Manifest(TypedDict, total=False):
    """`fetched.json`: what a fetch wrote in its folder (`catalogue.fetching.fetch`). Read
    back from the file it is checked for its `format` only: a reader of its other keys
    takes them with `.get` (an older or hand-edited manifest reads as not up to date)."""

    format: str
    name: str
    benchmark: str
    family: str
    what: str
    source: str
    licence: LicenceJSON
    convert: str
    files: list[FetchedFileJSON]
    upstream: dict[str, str]  # file name in upstream/ -> sha256
    suite_files: list[SuiteFileRow]
    items: int
    fetched_at: str
    pytest_tom: str  # the version that converted
    declaration: JSONObject  # the declaration as JSON (`fetching.declaration`)


class Acceptance(TypedDict):
    """One accepted licence in `ACCEPTED`."""

    key: str  # `licence_key`
    name: str
    licence: str  # the licence's name
    url: str
    accepted_at: str


@dataclass(frozen=True)
class Fetched:
    """One fetched name: its folder and what its `fetched.json` says."""

    name: str
    folder: Path
    manifest: Manifest

    @property
    def files(self) -> list[Path]:
        return sorted(self.folder.glob(SUITE_GLOB))

    @property
    def licence(self) -> LicenceJSON:
        return (self.manifest.get("licence") or LicenceJSON()).copy()

    def suites(self) -> list[SuiteFileRow]:
        """What each suite file holds, as the fetch found when it loaded them (`file`,
        `suite`, `family`, `scenarios`, `items`): listing them loads nothing."""
        return [row.copy() for row in self.manifest.get("suite_files", []) if isinstance(row, dict)
                and (self.folder / str(row.get("file", ""))).is_file()]


def read_manifest(folder: Path) -> Manifest | None:
    """`folder/fetched.json` when it is a manifest of this format, else None."""
    try:
        data = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return None
    return cast(Manifest, data)  # this format's: its other keys are read with .get


def fetched(root: Path) -> dict[str, Fetched]:
    """Every fetched name in `root` (a sub-folder with a manifest and suite files), sorted."""
    if not root.is_dir():
        return {}
    out: dict[str, Fetched] = {}
    for folder in sorted(root.iterdir()):
        if not folder.is_dir() or folder.name.startswith("."):
            continue
        manifest = read_manifest(folder)
        if manifest is not None and manifest.get("name") == folder.name \
                and any(folder.glob(SUITE_GLOB)):
            out[folder.name] = Fetched(folder.name, folder, manifest)
    return out


def names(root: Path) -> list[str]:
    return list(fetched(root))


ACCEPTED = "accepted-licences.json"


def licence_key(name: str, licence: Mapping[str, Any]) -> str:
    """What an acceptance is of: the fetched name and its licence's name and text URL (a
    declaration that changes its licence asks again)."""
    return f"{name} | {licence.get('name', '')} | {licence.get('url', '')}"


def accepted(root: Path) -> set[str]:
    """The licences accepted in this fetch folder (`licence_key`s), from `ACCEPTED`."""
    try:
        data = json.loads((root / ACCEPTED).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    rows = data.get("accepted") if isinstance(data, dict) else None
    return {str(r.get("key")) for r in rows or [] if isinstance(r, dict)}


def record_acceptance(root: Path, rows: list[Acceptance]) -> None:
    """Add the acceptances `rows` (each with its `key`, the name, the licence and when) to
    the folder's `ACCEPTED` file, keeping the earlier ones."""
    path = root / ACCEPTED
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        old = [r for r in data.get("accepted", []) if isinstance(r, dict)]
    except (OSError, ValueError, AttributeError):
        old = []
    keys = {r.get("key") for r in rows}
    root.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"accepted": [*(r for r in old if r.get("key") not in keys),
                                             *rows]}, indent=2) + "\n", encoding="utf-8")
