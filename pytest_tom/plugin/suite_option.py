"""`--tom-suite NAMES`: the bundled suites, and the benchmarks `pytest-tom fetch` fetched,
collected by name from any folder.

The bundled folder (`catalogue/bundled.bundled_root()`) and, for fetched names, the fetch
folder (`catalogue/fetch_folder.py`: `--tom-fetch-dir`, else the default) are added to pytest's
arguments after pytest has chosen the rootdir and read the ini file, so the rootdir,
`.pytest_cache/` (and with it `--lf`), and `.tom_cache/` stay in the user's project.
pytest names a file outside the rootdir relative to the argument it came from, so the node
ids read `fantom/smalltalk.tom.yaml::...` and `hitom-full/hitom-full.tom.yaml::...`; the
names not selected are ignored at collection.

Which paths run: `--tom-suite` on the command line without paths runs the named suites
alone (as `pytest PATH` would); with paths, both; `tom_suite` in the ini file adds the
suites to what pytest collects anyway (the paths given, `testpaths` or the folder).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_tom.catalogue import fetch_folder as fetched
from pytest_tom.catalogue.bundled import SUITE_GLOB, BundledSuitesMissing, bundled_root
from pytest_tom.catalogue.named_suites import NamedSuites, resolve
from pytest_tom.core.option_table import TomOptions
from pytest_tom.pytest_compat import add_last_failed_paths, last_failed_nodeids


class BundledSelection:
    """Collects the selected names of each folder (the bundled one, the fetch folder) and
    ignores the other names' sub-folders there."""

    def __init__(self, named: NamedSuites):
        self.named = named
        self.roots = named.roots()
        # collected whatever --tom-files says (it names the user's own suite files)
        self.patterns = tuple(str(root / "*" / SUITE_GLOB) for root in self.roots)

    def _name_of(self, path: Path) -> tuple[Path, str] | None:
        for root in self.roots:
            try:
                parts = path.relative_to(root).parts
            except ValueError:
                continue
            if parts:
                return root, parts[0]
        return None

    def _selected(self, path: Path) -> bool:
        found = self._name_of(path)
        return found is not None and found[1] in self.roots[found[0]]

    def pytest_ignore_collect(self, collection_path: Path) -> bool | None:
        if self._name_of(collection_path) is not None and not self._selected(collection_path):
            return True
        return None

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        """`--lf`: the files of the last failures among the named suites count as last-failed
        files (pytest looks for them under the rootdir, where they are not)."""
        config = session.config
        if not config.getoption("--lf", False):
            return
        files = {nodeid.split("::")[0] for nodeid in last_failed_nodeids(config)}
        paths = {root / name for root in self.roots for name in files}
        existing = sorted(p for p in paths if self._selected(p) and p.is_file())
        if existing:
            add_last_failed_paths(config, existing)

    def header(self) -> list[str]:
        """One header line per kind of folder: the bundled names, the fetched ones."""
        lines = []
        if self.named.bundled:
            lines.append(f"tom: bundled suites {', '.join(self.named.bundled)} (from "
                         f"{bundled_root()})")
        if self.named.fetched:
            lines.append(f"tom: fetched suites {', '.join(self.named.fetched)} (from "
                         f"{self.named.fetch_root})")
        return lines


def configure_bundled(config: pytest.Config, options: TomOptions) -> BundledSelection | None:
    """Resolve `--tom-suite` (a usage error for an unknown name, listing the names, or for a
    name not fetched yet, giving the command) and add the folders to the paths pytest
    collects."""
    if not options.suite:
        return None
    try:
        root = fetched.root_of(options.fetch_dir, config.invocation_params.dir)
        selection = BundledSelection(resolve(options.suite, root))
    except (ValueError, BundledSuitesMissing) as exc:
        raise pytest.UsageError(str(exc)) from None
    on_command_line = config.getoption("tom_suite", None) is not None
    alone = on_command_line and config.args_source != pytest.Config.ArgsSource.ARGS
    for folder in selection.roots:
        if any(Path(str(arg).split("::")[0]).resolve() == folder.resolve()
               for arg in config.args):
            continue
        if alone:
            config.args[:] = [str(folder)]  # no paths given: the named suites alone
            alone = False
        else:
            config.args.append(str(folder))
    config.pluginmanager.register(selection, "tom-bundled")
    return selection
