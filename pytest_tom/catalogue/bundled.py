"""The bundled suites: where they are, their names, what each holds.

The repository's top-level `suites/` is their one source. A wheel carries it as the
data folder `pytest_tom/bundled_suites/` (setup.py maps the folder, nothing is copied
by hand); a checkout or an editable install reads `suites/` beside the package. Each
sub-folder is one name for `--tom-suite` and `pytest-tom suites` (`fantom`, `bigtom`
...); `bundled` means all of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import pytest_tom
from pytest_tom.catalogue.load import load_suite
from pytest_tom.families.base import Settings

ALL = "bundled"  # --tom-suite=bundled: every bundled suite
SUITE_GLOB = "*.tom.yaml"
PACKAGED = "bundled_suites"  # the folder inside an installed package


class BundledSuitesMissing(LookupError):
    """Neither an installed package's `bundled_suites/` nor a checkout's `suites/`."""


def _has_suites(folder: Path) -> bool:
    return folder.is_dir() and any(folder.glob(f"*/{SUITE_GLOB}"))


def bundled_root() -> Path:
    """The folder holding one sub-folder per bundled name (an installed wheel's
    `pytest_tom/bundled_suites/`, else a checkout's `suites/`)."""
    package = Path(str(resources.files(pytest_tom)))
    packaged = package / PACKAGED
    if _has_suites(packaged):
        return packaged
    checkout = package.parent / "suites"
    if _has_suites(checkout) and (package.parent / "pyproject.toml").is_file():
        return checkout
    raise BundledSuitesMissing(
        f"the bundled suites are not installed: neither {packaged} nor a checkout's "
        f"{checkout} holds {SUITE_GLOB} files (reinstall pytest-tom from a wheel or "
        f"a clone of its repository)")


def where() -> str:
    """Where the suites come from, for `pytest-tom suites`."""
    root = bundled_root()
    kind = "installed package" if root.name == PACKAGED else "repository checkout"
    return f"{root} ({kind})"


def names() -> list[str]:
    """The bundled names (one per sub-folder holding suites), sorted."""
    root = bundled_root()
    return sorted(p.name for p in root.iterdir() if _has_suites_here(p))


def _has_suites_here(folder: Path) -> bool:
    return folder.is_dir() and any(folder.glob(SUITE_GLOB))


def resolve(spec: str) -> list[str]:
    """`fantom,bigtom` -> those names; `bundled` -> all. ValueError names the unknown ones
    and lists what exists."""
    wanted = [part.strip() for part in spec.replace(" ", ",").split(",") if part.strip()]
    known = names()
    if not wanted:
        raise ValueError(f"--tom-suite: no name given; bundled suites: {', '.join(known)} "
                         f"(or {ALL} for all)")
    if ALL in wanted:
        return known
    unknown = [w for w in wanted if w not in known]
    if unknown:
        raise ValueError(f"--tom-suite: no bundled suite named {', '.join(map(repr, unknown))}; "
                         f"bundled suites: {', '.join(known)} (or {ALL} for all; "
                         f"`pytest-tom suites` lists them)")
    return list(dict.fromkeys(wanted))


def files(selected: list[str] | None = None) -> list[Path]:
    """The suite files of the selected names (default: all), in name then file order."""
    root = bundled_root()
    out: list[Path] = []
    for name in selected or names():
        out.extend(sorted((root / name).glob(SUITE_GLOB)))
    return out


@dataclass(frozen=True)
class BundledSuite:
    """One bundled suite file, as `pytest-tom suites` lists it."""

    name: str  # the --tom-suite name (its folder)
    suite: str  # the suite's own name (`suite:` in the file)
    family: str
    scenarios: int
    items: int
    path: Path

    @property
    def relative(self) -> str:
        return f"{self.name}/{self.path.name}"


def describe(selected: list[str] | None = None) -> list[BundledSuite]:
    """Load each selected file (default vanilla settings) and count what it holds."""
    out = []
    for path in files(selected):
        suite = load_suite(path, Settings())
        out.append(BundledSuite(path.parent.name, suite.name, suite.family,
                                suite.scenario_count, len(suite.items), path))
    return out
