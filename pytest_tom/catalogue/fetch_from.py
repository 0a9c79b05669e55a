"""`pytest-tom fetch NAME... --from FILE...`: which declared file each file given is.

A file downloaded elsewhere keeps the name its URL gives it (`Hi-ToM_data.json`), or the
folder and name its declaration saves it under where several files share a name
(`mental-state-qa/test.jsonl`): it is matched by that name, the end of its path (the
longest such end wins). A file saved under another name (`Hi-ToM_data (1).json`) is
matched by its content: the sha256 or git blob id its declaration pins. Matching only
decides which file is which; whether the bytes are right is checked by the fetch itself
(`catalogue/fetching.py`), exactly as for a download.

Refused before anything is read into the fetch folder, each with one line naming the file
and the fix (`FetchError`): a path that is no file; a file that is none of the names'
declared files; two files given for one; a name whose files are not all given.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlsplit

from pytest_tom.catalogue.fetching import FetchError, git_blob_of, sha256_of
from pytest_tom.core.download import Download, Remote

SHOWN = 5  # files named in a refusal before "and N more"


def match(downloads: Sequence[Download], given: Sequence[str | Path],
          declared: Sequence[Download] = ()) -> dict[str, dict[str, Path]]:
    """name -> {declared URL -> the file given for it}, every declared file of every name
    covered (see the module's docstring); FetchError otherwise. `declared`: every name
    that can be fetched, so that a file of a name not given says which name it is of."""
    names = " ".join(d.name for d in downloads)
    paths = list(dict.fromkeys(Path(p).expanduser().absolute() for p in given))
    for path in paths:
        if path.is_dir():
            raise FetchError(f"--from: {path} is a folder: give the files in it ({path}/*), "
                             f"or, laid out as the URLs, read it with --mirror {path.as_uri()}; "
                             f"nothing written")
        if not path.is_file():
            raise FetchError(f"--from: {path}: no such file; give the files you downloaded "
                             f"(pytest-tom fetch {names} --list shows them); nothing written")
    out: dict[str, dict[str, Path]] = {d.name: {} for d in downloads}
    for path in paths:
        content = _Content(path)
        found = False
        for download in downloads:
            for remote in _which(download, path, content):
                earlier = out[download.name].get(remote.url)
                if earlier is not None and earlier != path:
                    raise FetchError(f"--from: {earlier} and {path} are both {remote.filename} "
                                     f"of {download.name}: give one; nothing written")
                out[download.name][remote.url] = path
                found = True
        if not found:
            raise FetchError(_unmatched(downloads, declared, path, names))
    for download in downloads:
        missing = [r for r in download.files if r.url not in out[download.name]]
        if missing:
            where = f" ({missing[0].url})" if len(missing) == 1 else ""
            raise FetchError(f"--from: {download.name} needs {len(download.files)} file(s), "
                             f"{len(download.files) - len(missing)} given: missing "
                             f"{_some([r.filename for r in missing])}{where}; download them too "
                             f"(pytest-tom fetch {download.name} --list shows each URL) and "
                             f"give them all; nothing written")
    return out


class _Content:
    """A given file's sha256 and git blob id, computed once and only when asked."""

    def __init__(self, path: Path):
        self.path = path
        self._sha256 = ""
        self._blob = ""

    def pins(self, remote: Remote) -> bool:
        if remote.sha256:
            self._sha256 = self._sha256 or sha256_of(self.path)
            return self._sha256 == remote.sha256
        if remote.git_blob:
            self._blob = self._blob or git_blob_of(self.path)
            return self._blob == remote.git_blob
        return False


def _ends_with(path: Path, name: str) -> int:
    """How many parts of `name` end `path` (0: it does not end with `name`)."""
    parts = PurePosixPath(name).parts
    if not parts or len(path.parts) < len(parts):
        return 0
    return len(parts) if tuple(unquote(p) for p in path.parts[-len(parts):]) == parts else 0


def _which(download: Download, path: Path, content: _Content, by_content: bool = True
           ) -> list[Remote]:
    """The declared files of `download` that `path` is: by name, else by content."""
    scored = []
    for remote in download.files:
        url_name = unquote(PurePosixPath(urlsplit(remote.url).path).name)
        score = max(_ends_with(path, remote.filename), _ends_with(path, url_name))
        if score:
            scored.append((score, remote))
    if scored:
        best = max(score for score, _ in scored)
        named = [remote for score, remote in scored if score == best]
        if len(named) == 1:
            return named
        pinned = [r for r in named if content.pins(r)]
        if pinned:
            return pinned
        raise FetchError(f"--from: {path} could be any of {', '.join(r.filename for r in named)} "
                         f"of {download.name} (they share its name): keep the folder each is "
                         f"saved under (.../{named[0].filename}), as pytest-tom fetch "
                         f"{download.name} --list shows; nothing written")
    return [r for r in download.files if content.pins(r)] if by_content else []


def _unmatched(downloads: Sequence[Download], declared: Sequence[Download], path: Path,
               names: str) -> str:
    for other in declared:
        if other.name in names.split():
            continue
        try:
            remotes = _which(other, path, _Content(path), by_content=False)
        except FetchError:
            continue
        if remotes:
            return (f"--from: {path} is {remotes[0].filename} of {other.name}, not of {names}: "
                    f"add {other.name} to the names (pytest-tom fetch {names} {other.name} "
                    f"--from ...); nothing written")
    for download in downloads:
        for remote in download.files:
            for member in remote.members:
                if member.filename == path.name:
                    return (f"--from: {path} is {member.path} inside {remote.filename} of "
                            f"{download.name}: give the archive as downloaded ({remote.url}); "
                            f"nothing written")
    declared = list(dict.fromkeys(r.filename for d in downloads for r in d.files))
    return (f"--from: {path} is none of the files of {names}, by its name or by the hash "
            f"pinned for each: {_some(declared)}; give those (pytest-tom fetch {names} --list "
            f"shows their URLs and pins); nothing written")


def _some(names: list[str]) -> str:
    shown = ", ".join(names[:SHOWN])
    return shown if len(names) <= SHOWN else f"{shown} and {len(names) - SHOWN} more"
