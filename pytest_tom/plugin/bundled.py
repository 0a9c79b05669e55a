"""`--tom-suite NAMES`: the bundled suites collected by name, from any folder.

The bundled folder (`engine/bundled.bundled_root()`) is added to pytest's arguments
after pytest has chosen the rootdir and read the ini file, so the rootdir, `.pytest_cache/`
(and with it `--lf`), and `.tom_cache/` stay in the user's project. pytest names a file
outside the rootdir relative to the argument it came from, so the node ids read
`fantom/smalltalk.tom.yaml::...`; the names not selected are ignored at collection.

Which paths run: `--tom-suite` on the command line without paths runs the named suites
alone (as `pytest PATH` would); with paths, both; `tom_suite` in the ini file adds the
suites to what pytest collects anyway (the paths given, `testpaths` or the folder).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_tom.core.option_table import TomOptions
from pytest_tom.engine.bundled import SUITE_GLOB, BundledSuitesMissing, bundled_root, resolve
from pytest_tom.pytest_compat import add_last_failed_paths, last_failed_nodeids


class BundledSelection:
    """Collects the selected bundled names and ignores the other bundled folders."""

    def __init__(self, root: Path, selected: list[str]):
        self.root = root
        self.selected = selected
        # collected whatever --tom-files says (it names the user's own suite files)
        self.pattern = str(root / "*" / SUITE_GLOB)

    def _name_of(self, path: Path) -> str | None:
        try:
            parts = path.relative_to(self.root).parts
        except ValueError:
            return None
        return parts[0] if parts else None

    def pytest_ignore_collect(self, collection_path: Path) -> bool | None:
        name = self._name_of(collection_path)
        if name is not None and name not in self.selected:
            return True
        return None

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        """`--lf`: the bundled files of the last failures count as last-failed files
        (pytest looks for them under the rootdir, where they are not)."""
        config = session.config
        if not config.getoption("--lf", False):
            return
        paths = {self.root / nodeid.split("::")[0] for nodeid in last_failed_nodeids(config)}
        existing = sorted(p for p in paths if self._name_of(p) in self.selected and p.is_file())
        if existing:
            add_last_failed_paths(config, existing)

    def header(self) -> str:
        return f"tom: bundled suites {', '.join(self.selected)} (from {self.root})"


def configure_bundled(config: pytest.Config, options: TomOptions) -> BundledSelection | None:
    """Resolve `--tom-suite` (a usage error for an unknown name, listing the names) and add
    the bundled folder to the paths pytest collects."""
    if not options.suite:
        return None
    try:
        selected = resolve(options.suite)
        root = bundled_root()
    except (ValueError, BundledSuitesMissing) as exc:
        raise pytest.UsageError(str(exc)) from None
    if not any(Path(str(arg).split("::")[0]).resolve() == root for arg in config.args):
        on_command_line = config.getoption("tom_suite", None) is not None
        if on_command_line and config.args_source != pytest.Config.ArgsSource.ARGS:
            config.args[:] = [str(root)]  # no paths given: the named suites alone
        else:
            config.args.append(str(root))
    selection = BundledSelection(root, selected)
    config.pluginmanager.register(selection, "tom-bundled")
    return selection
