"""What `pytest-tom fetch` downloads: a benchmark's official files, declared by its family.

A family declares its downloads in `families/<name>/download.py` (`DOWNLOADS`, the
family's `download` part): for each fetched name (`hitom-full` ...),
the upstream files, each at a URL pinned to a commit and with the sha256 of its bytes;
the licence; and the `pytest-tom convert` command that turns the files into suites. The
declaration is plain data: `catalogue/fetching.py` downloads, checks, converts and files them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath
from urllib.parse import quote, unquote, urlsplit

SHA256 = re.compile(r"^[0-9a-f]{64}$")
COMMIT = re.compile(r"^[0-9a-f]{40}$")
GIT_BLOB = re.compile(r"^[0-9a-f]{40}$")
NAME = re.compile(r"^[a-z0-9][a-z0-9-]*$")
GITHUB_RAW = "https://raw.githubusercontent.com"


def _check_sha256(sha256: str, what: str) -> None:
    if not SHA256.match(sha256):
        raise ValueError(f"{what}: sha256 {sha256!r} is not 64 lower-case hex digits")


@dataclass(frozen=True)
class Member:
    """One file taken out of a downloaded archive (zip or tar), saved under its base name."""

    path: str  # its path inside the archive ("dir/file.txt"; a leading "./" is ignored)
    sha256: str | None = None  # None: only the archive's own sha256 vouches for it

    def __post_init__(self) -> None:
        if self.sha256 is not None:
            _check_sha256(self.sha256, self.path)

    @property
    def filename(self) -> str:
        return PurePosixPath(self.path).name


@dataclass(frozen=True)
class Remote:
    """One file to download: its official URL, what pins its bytes, and, for an archive,
    the members to take out of it (the archive itself is not kept).

    The pin is the sha256 of the bytes; where nobody here has had the file to compute it,
    its git blob id (SHA-1 of `blob <size>\\0` and the bytes, what `git ls-tree` lists,
    so a repository's listing pins a file no one has downloaded); where neither can be
    known offline, `unpinned` says why, and the bytes that came are recorded, not checked
    (the converter's own checks, a row count, are then the only guard)."""

    url: str
    sha256: str = ""
    size: int | None = None  # bytes, when known (shown before the download)
    members: tuple[Member, ...] = ()
    # where the sha256 comes from when it was not computed from a copy of the file (e.g.
    # the hash the authors' own loader checks); empty: computed from the file at its commit
    sha256_source: str = ""
    git_blob: str = ""  # the file's git blob id at the pinned commit (40 hex digits)
    unpinned: str = ""  # why neither hash can be given (then the fetch records, not checks)
    # the path it is saved under in the download folder (default: the URL's file name);
    # a release whose files share a name (`qa/test.jsonl`, `story/test.jsonl`) keeps its
    # folders, as the converter expects them
    save_as: str = ""

    def __post_init__(self) -> None:
        if self.sha256:
            _check_sha256(self.sha256, self.url)
        if self.git_blob and not GIT_BLOB.match(self.git_blob):
            raise ValueError(f"{self.url}: git blob id {self.git_blob!r} is not 40 lower-case "
                             f"hex digits")
        if not (self.sha256 or self.git_blob or self.unpinned):
            raise ValueError(f"{self.url}: pin the file by its sha256 or its git blob id, or "
                             f"say in `unpinned` why neither can be known")
        if urlsplit(self.url).scheme != "https":
            raise ValueError(f"{self.url}: an official URL is https")
        if self.save_as and (self.save_as.startswith("/") or ".." in self.save_as.split("/")):
            raise ValueError(f"{self.url}: save_as {self.save_as!r} must stay inside the "
                             f"download folder")

    @property
    def pin(self) -> str:
        """How the bytes are pinned, for the terminal."""
        if self.sha256:
            return f"sha256 {self.sha256[:12]}..."
        if self.git_blob:
            return f"git blob {self.git_blob[:12]}..."
        return "not pinned"

    @property
    def filename(self) -> str:
        """The file's name in the download folder: `save_as`, else the last part of the
        URL's path, decoded."""
        return self.save_as or unquote(PurePosixPath(urlsplit(self.url).path).name)

    @property
    def files(self) -> tuple[str, ...]:
        """The names this download leaves in the download folder."""
        return tuple(m.filename for m in self.members) if self.members else (self.filename,)


def github_page(repository: str, commit: str, path: str) -> str:
    """The web page of a file of a GitHub repository at one commit (a licence's text)."""
    return f"https://github.com/{repository}/blob/{commit}/{quote(path)}"


def github_file(repository: str, commit: str, path: str, sha256: str = "",
                size: int | None = None, members: tuple[Member, ...] = (),
                git_blob: str = "") -> Remote:
    """A file of a GitHub repository at one commit (`owner/name`, the full 40-digit hash),
    pinned by its sha256 or, where that is not known, its git blob id."""
    if not COMMIT.match(commit):
        raise ValueError(f"{repository}: commit {commit!r} is not a full 40-digit hash: a "
                         f"download is pinned to one commit")
    return Remote(f"{GITHUB_RAW}/{repository}/{commit}/{quote(path)}", sha256, size, members,
                  git_blob=git_blob)


@dataclass(frozen=True)
class Licence:
    """The licence the upstream files are published under."""

    name: str  # "MIT", "Apache-2.0", "CC BY-NC 4.0"
    url: str  # its text, at the pinned commit where the repository has one
    commercial: bool = True  # False: non-commercial use only (printed as such)
    note: str = ""  # what else the authors ask ("for evaluation only" ...)
    # the licence itself restricts the use to evaluation (no training, no fine-tuning)
    evaluation_only: bool = False

    @property
    def needs_acceptance(self) -> bool:
        """A restricting licence (non-commercial, evaluation only): `pytest-tom fetch`
        asks for `--accept-licence` once before it downloads."""
        return not self.commercial or self.evaluation_only

    def line(self) -> str:
        """One line for the terminal: the name, NON-COMMERCIAL or EVALUATION ONLY where it
        is, the note, the URL."""
        parts = [self.name]
        if not self.commercial:
            parts.append("NON-COMMERCIAL: research and other non-commercial use only")
        if self.evaluation_only:
            parts.append("EVALUATION ONLY: no training or fine-tuning on the data")
        if self.note:
            parts.append(self.note)
        return f"{' · '.join(parts)} ({self.url})"


@dataclass(frozen=True)
class Download:
    """One name `pytest-tom fetch NAME` fetches and `--tom-suite NAME` runs."""

    name: str  # "hitom-full": not a bundled suite's name
    benchmark: str  # "Hi-ToM"
    what: str  # one line: what the suites hold ("1,200 questions, the whole release")
    source: str  # where the files come from: "owner/name @ commit" or the authors' page
    files: tuple[Remote, ...]
    licence: Licence
    # `pytest-tom convert` arguments: the converter, its input (a file or folder of the
    # download, `.` for the folder itself), then any options; `-o DIR` is added
    convert: tuple[str, ...]
    family: str = ""  # the family whose folder declares it (set by `families.downloads()`)

    def __post_init__(self) -> None:
        if not NAME.match(self.name):
            raise ValueError(f"download {self.name!r}: use lower-case letters, digits and -")
        if len(self.convert) < 2:
            raise ValueError(f"download {self.name!r}: convert names the converter and its "
                             f"input")
        names = [f for remote in self.files for f in remote.files]
        if len(set(names)) != len(names):
            raise ValueError(f"download {self.name!r}: two files are saved under one name")

    @property
    def upstream_files(self) -> tuple[str, ...]:
        """Every file the download leaves (archives' members in place of the archives)."""
        return tuple(f for remote in self.files for f in remote.files)

    def convert_command(self, out: str = "DIR") -> str:
        converter, source, *rest = self.convert
        return " ".join(["pytest-tom convert", converter, source, "-o", out, *rest])


@dataclass(frozen=True)
class GitHubRelease:
    """A benchmark's GitHub repository at one commit (`owner/name`, the full 40-digit hash):
    its files and pages there, and the downloads made of them, each saying where it comes
    from the same way (`owner/name @ 1234567`)."""

    repository: str
    commit: str

    def file(self, path: str, sha256: str = "", size: int | None = None,
             members: tuple[Member, ...] = (), git_blob: str = "") -> Remote:
        """The file at `path` (see `github_file`)."""
        return github_file(self.repository, self.commit, path, sha256, size, members, git_blob)

    def page(self, path: str) -> str:
        """The web page of the file at `path` (a licence's text)."""
        return github_page(self.repository, self.commit, path)

    def source(self, note: str = "") -> str:
        """`owner/name @ 1234567`, with `note` in brackets where given."""
        return f"{self.repository} @ {self.commit[:7]}" + (f" ({note})" if note else "")

    def download(self, name: str, benchmark: str, what: str, files: tuple[Remote, ...],
                 licence: Licence, convert: tuple[str, ...], note: str = "") -> Download:
        """A `Download` of `files` of this repository (its fields in their order; `note`
        goes after the source)."""
        return Download(name, benchmark, what, self.source(note), files, licence, convert)
