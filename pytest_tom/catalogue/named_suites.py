"""`--tom-suite NAMES`: each name is a bundled suite (`catalogue/bundled.py`) or a benchmark
`pytest-tom fetch` fetched (`catalogue/fetch_folder.py`). A name that is declared for fetching but
not fetched yet is an error that gives the command to fetch it; an unknown name, one that
lists every name there is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pytest_tom import families
from pytest_tom.catalogue import bundled
from pytest_tom.catalogue import fetch_folder as fetched


@dataclass(frozen=True)
class NamedSuites:
    """The names selected, by where their suites are."""

    bundled: list[str] = field(default_factory=list)
    fetched: list[str] = field(default_factory=list)
    fetch_root: Path | None = None  # where the fetched ones are

    def roots(self) -> dict[Path, list[str]]:
        """Folder holding one sub-folder per name -> the names selected in it."""
        out: dict[Path, list[str]] = {}
        if self.bundled:
            out[bundled.bundled_root()] = self.bundled
        if self.fetched and self.fetch_root is not None:
            out[self.fetch_root] = self.fetched
        return out


def split(spec: str) -> list[str]:
    return [part.strip() for part in spec.replace(" ", ",").split(",") if part.strip()]


def resolve(spec: str, fetch_root: Path) -> NamedSuites:
    """`hitom,hitom-full` -> the bundled and the fetched names (`bundled`: every bundled
    one). ValueError names what is wrong and what to do; `bundled.BundledSuitesMissing`
    when a bundled name is asked of a package without its suites."""
    wanted = list(dict.fromkeys(split(spec)))
    try:
        known = bundled.names()
        missing: bundled.BundledSuitesMissing | None = None
    except bundled.BundledSuitesMissing as exc:
        known, missing = [], exc
    have = fetched.names(fetch_root)
    if not wanted:
        raise ValueError(f"--tom-suite: no name given; {_listing(known, have, fetch_root)}")
    if bundled.ALL in wanted:
        if missing is not None:
            raise missing
        wanted = [*known, *(w for w in wanted if w != bundled.ALL and w not in known)]
    unknown = [w for w in wanted if w not in known and w not in have]
    if unknown and missing is not None:
        raise missing
    if unknown:
        raise ValueError(_unknown(unknown, known, have, fetch_root))
    return NamedSuites([w for w in wanted if w in known], [w for w in wanted if w in have],
                       fetch_root)


def _listing(known: list[str], have: list[str], root: Path) -> str:
    text = f"bundled suites: {', '.join(known) or 'none'} (or {bundled.ALL} for all)"
    if have:
        text += f"; fetched in {root}: {', '.join(have)}"
    return text + "; `pytest-tom suites` lists them"


def _unknown(unknown: list[str], known: list[str], have: list[str], root: Path) -> str:
    """The error for names neither bundled nor fetched: a declared one says how to fetch it."""
    declared = families.downloads()
    to_fetch = [u for u in unknown if u in declared]
    other = [u for u in unknown if u not in declared]
    parts = []
    if other:
        parts.append(f"no suite named {', '.join(map(repr, other))}; "
                     f"{_listing(known, have, root)}; pytest-tom fetch NAME fetches "
                     f"{', '.join(declared)}")
    if to_fetch:
        parts.append(f"{', '.join(to_fetch)} {'is' if len(to_fetch) == 1 else 'are'} not "
                     f"fetched yet (looked in {root}); fetch with: pytest-tom fetch "
                     f"{' '.join(to_fetch)}{fetched.dir_option(root)}")
    return "--tom-suite: " + "; and ".join(parts)
