"""One registry kind (core/registry.py) for backends and families: lazy targets, built-ins
found by their folder, entry points of other packages, one clear error for an unknown name
(what exists) and one for a broken target (which package)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import REPO
from family_support import forget_package

from pytest_tom import backends, families
from pytest_tom.backends import BackendSpecError, create_backend
from pytest_tom.backends.options import BackendOptions
from pytest_tom.catalogue.load import load_suite
from pytest_tom.core.registry import BrokenTarget, Registry, UnknownName, folder_targets
from pytest_tom.families.base import Settings
from pytest_tom.suite.errors import SuiteError

BUILT_IN_FAMILIES = ["bigtom", "fantom", "generic", "opentom", "robustness"]


def install(site: Path, distribution: str, group: str, lines: str,
            monkeypatch: pytest.MonkeyPatch) -> None:
    """A `.dist-info` of `distribution` declaring `lines` in the entry-point `group`."""
    info = site / f"{distribution.replace('-', '_')}-0.3.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {distribution}\nVersion: 0.3\n")
    (info / "entry_points.txt").write_text(f"[{group}]\n{lines}\n")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setattr(families, "_cache", {})


def test_backends_and_families_are_one_registry_kind() -> None:
    assert type(families.REGISTRY) is Registry and type(backends.REGISTRY) is Registry
    assert list(backends.REGISTRY.targets())[:5] == ["openai", "python", "replay", "local", "hf"]


def test_a_built_in_family_is_found_by_its_folder() -> None:
    found = folder_targets(REPO / "pytest_tom" / "families", "pytest_tom.families", "family")
    assert set(BUILT_IN_FAMILIES) <= set(found) and found == families.BUILTIN
    assert found["fantom"] == "pytest_tom.families.fantom.family"
    assert type(families.get("fantom")).__name__ == "FantomFamily"


def test_folder_targets_takes_folders_holding_the_module_only(tmp_path: Path) -> None:
    for folder in ("zeta", "alpha", "no_module", "__pycache__", "not-an-identifier"):
        (tmp_path / folder).mkdir()
    for folder in ("zeta", "alpha", "not-an-identifier"):
        (tmp_path / folder / "family.py").write_text("")
    (tmp_path / "loose.py").write_text("")
    assert folder_targets(tmp_path, "pkg", "family") == {"alpha": "pkg.alpha.family",
                                                         "zeta": "pkg.zeta.family"}


def test_an_unknown_family_lists_the_installed_ones() -> None:
    with pytest.raises(UnknownName) as err:
        families.get("fantomm")
    text = str(err.value)
    assert text.startswith("unknown family 'fantomm' (did you mean 'fantom'?); installed families: ")
    assert all(name in text for name in BUILT_IN_FAMILIES)
    assert isinstance(err.value, KeyError)  # callers that skip an unknown family still do


def test_an_unknown_backend_lists_the_installed_ones() -> None:
    with pytest.raises(BackendSpecError) as err:
        create_backend("gpt4:x", BackendOptions())
    text = str(err.value)
    assert text.startswith("--tom-model='gpt4:x': unknown backend 'gpt4'; installed backends: "
                           "openai, python, replay, local, hf")
    assert "fixture:NAME" in text and "pytest_tom_backend" in text


def test_a_suite_of_an_unknown_family_says_what_exists(tmp_path: Path) -> None:
    path = tmp_path / "s.tom.yaml"
    path.write_text("suite: s\nfamily: generik\nversion: 1\nscenarios: []\n")
    with pytest.raises(SuiteError) as err:
        load_suite(path, Settings())
    assert "s.tom.yaml:2" in err.value.render()
    assert ("family: unknown family 'generik' (did you mean 'generic'?); installed families: "
            + ", ".join(families.available())) in err.value.render()


BROKEN_FAMILY = '''
"""A family module whose class is named as no entry point."""
from pytest_tom.api import Family


class Other(Family):
    name = "other"
'''


@pytest.fixture
def broken_site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """One distribution with a family whose module does not exist, one whose module has no
    class of its name (written as a module alone), and a backend whose factory is missing."""
    site = tmp_path / "site"
    (site / "broken_tom").mkdir(parents=True)
    (site / "broken_tom" / "__init__.py").write_text("")
    (site / "broken_tom" / "family.py").write_text(textwrap.dedent(BROKEN_FAMILY))
    (site / "broken_tom" / "backend.py").write_text("def make(spec, options):\n    return None\n")
    install(site, "broken-tom", "pytest_tom.families",
            "gone = broken_tom.nowhere:GoneFamily\nnamed = broken_tom.family", monkeypatch)
    install(site / "b", "broken-backend", "pytest_tom.backends",
            "brk = broken_tom.backend:create", monkeypatch)
    yield site
    forget_package("broken_tom")


def test_entry_points_are_listed_without_importing_them(broken_site: Path) -> None:
    assert families.available()["gone"] == "broken_tom.nowhere:GoneFamily"
    assert families.available()["named"] == "broken_tom.family"
    assert "brk" in backends.backend_kinds()
    assert "broken_tom.family" not in sys.modules  # listed, not loaded


def test_a_broken_family_entry_point_names_its_package(broken_site: Path) -> None:
    with pytest.raises(BrokenTarget) as err:
        families.get("gone")
    text = str(err.value)
    assert "family 'gone'" in text and "the package broken-tom 0.3" in text
    assert "gone = broken_tom.nowhere:GoneFamily" in text and "ModuleNotFoundError" in text
    assert not isinstance(err.value, KeyError)  # not "unknown": installed and broken

    with pytest.raises(BrokenTarget) as err:
        families.get("named")  # a module alone: its class named as the entry point is taken
    assert "the package broken-tom 0.3" in str(err.value)
    assert "should define one Family subclass with name = 'named', and defines 0" in str(err.value)


def test_a_suite_of_a_broken_family_names_the_package(broken_site: Path, tmp_path: Path) -> None:
    path = tmp_path / "s.tom.yaml"
    path.write_text("suite: s\nfamily: gone\nversion: 1\nscenarios: []\n")
    with pytest.raises(SuiteError) as err:
        load_suite(path, Settings())
    assert "s.tom.yaml:2" in err.value.render() and "broken-tom 0.3" in err.value.render()


def test_a_broken_backend_entry_point_names_its_package(broken_site: Path) -> None:
    with pytest.raises(BackendSpecError) as err:
        create_backend("brk:model", BackendOptions())
    text = str(err.value)
    assert text.startswith("--tom-model='brk:model': backend 'brk', registered by the package "
                           "broken-backend 0.3 (entry point brk = broken_tom.backend:create")
    assert "AttributeError" in text


def test_a_module_alone_as_an_entry_point_gives_its_family(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site"
    (site / "solo_tom").mkdir(parents=True)
    (site / "solo_tom" / "__init__.py").write_text("")
    (site / "solo_tom" / "family.py").write_text(
        BROKEN_FAMILY + "\n\nclass SoloFamily(Family):\n    name = 'solo'\n")
    install(site, "solo-tom", "pytest_tom.families", "solo = solo_tom.family", monkeypatch)
    try:
        assert type(families.get("solo")).__name__ == "SoloFamily"
    finally:
        forget_package("solo_tom")


def test_a_built_in_name_wins_over_an_entry_point(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    install(tmp_path, "shadow-tom", "pytest_tom.families", "fantom = shadow:Fantom", monkeypatch)
    assert families.available()["fantom"] == "pytest_tom.families.fantom.family"


def test_listing_families_imports_none() -> None:
    code = ("import sys; from pytest_tom import families; names = list(families.available()); "
            "print(len(names), sorted(m for m in sys.modules if m.startswith('pytest_tom.families.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=REPO, check=True).stdout.split(maxsplit=1)
    assert int(out[0]) >= 5 and out[1].strip() == "[]"


def test_entry_points_are_read_again_only_when_sys_path_or_a_folder_on_it_changes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`group_entry_points`: a run looks its families up a dozen times before collection,
    one read serves them all; a distribution installed meanwhile into a folder already on
    sys.path (its mtime changes), or a folder put on sys.path, is found."""
    from pytest_tom.core import registry

    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    reads: list[str] = []
    real = registry.entry_points
    monkeypatch.setattr(registry, "entry_points",
                        lambda group: reads.append(group) or real(group=group))
    group = "pytest_tom.test_only_group"
    assert registry.group_entry_points(group) == ()
    assert registry.group_entry_points(group) == ()
    assert reads == [group]
    info = site / "late_pkg-0.1.dist-info"  # installed into the folder, sys.path unchanged
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: late-pkg\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[{group}]\nlate = late_pkg:thing\n")
    assert [ep.name for ep in registry.group_entry_points(group)] == ["late"]
    assert reads == [group, group]
    install(tmp_path / "other", "other-pkg", group, "other = other_pkg:thing", monkeypatch)
    assert sorted(ep.name for ep in registry.group_entry_points(group)) == ["late", "other"]
    assert len(reads) == 3


def test_package_versions_are_read_again_only_when_sys_path_or_a_folder_on_it_changes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`run_report.package_versions` (the report's `versions`): a process that makes
    several runs reads the distributions' metadata once, also when each run writes its
    report into a folder on sys.path (as a pytester run does), and again when a package
    was installed or upgraded meanwhile (here: a newer tabulate put first on sys.path)."""
    from importlib.metadata import version

    from pytest_tom.results import run_report

    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    reads: list[str] = []
    monkeypatch.setattr(run_report, "version", lambda name: reads.append(name) or version(name))
    first = run_report.package_versions()
    first["pytest"] = "changed by a caller"
    (site / "r.json").write_text("{}")  # a report, not a distribution
    second = run_report.package_versions()
    assert reads == list(run_report.PACKAGES)  # one read of each, for both calls
    assert second["pytest"] == version("pytest") and second["tabulate"] == version("tabulate")
    assert second["python"] == sys.version.split()[0]
    info = site / "tabulate-99.0.dist-info"  # installed into the folder, sys.path unchanged
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tabulate\nVersion: 99.0\n")
    assert run_report.package_versions()["tabulate"] == "99.0"
    assert reads == 2 * list(run_report.PACKAGES)
