"""Every private or undocumented pytest (and pytest-xdist) name pytest-tom relies on, in
one module.

pytest-tom supports pytest from the oldest version `pyproject.toml` allows to the newest.
Each function below names the pytest internal it touches, why, and the pytest versions
its behaviour was checked on: `tests/test_pytest_compat.py` runs on the newest pytest
(`bash scripts/install.sh`) and on the oldest allowed (`bash scripts/install.sh --oldest`;
`.ci/run` runs both). When an internal is missing the function falls back to pytest's own
behaviour, never to silence.

Nothing else in the package imports `_pytest`, reads an underscore attribute of a pytest
object, or names an undocumented attribute, cache key, option destination or plugin
(`lfplugin`, `"cache/lastfailed"`, `config.option.xmlpath`, `stats`, `"dsession"`,
`workeroutput` ...): `tests/test_pytest_compat.py` greps for every name it knows. pytest's
own options are read elsewhere only by their flag (`config.getoption("--junitxml")`, the
form `Config.getoption` documents), never by their undocumented destination.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

import pytest

try:  # the stash key of pytest's JUnit XML writer (private, see junit_xml)
    from _pytest.junitxml import xml_key
except ImportError:  # pragma: no cover - a pytest without it
    xml_key = None
try:  # pytest's JUnit XML writer itself (private, see write_junit)
    from _pytest.junitxml import LogXML
except ImportError:  # pragma: no cover - a pytest without it
    LogXML = None

# the pytest versions every function below was checked on (oldest and newest allowed)
CHECKED_ON = ("7.4.0", "9.2.0")
# the pytest-xdist versions the xdist functions below were checked on (oldest and newest)
XDIST_CHECKED_ON = ("3.6.1", "3.8.0")


def junit_xml(config: pytest.Config) -> Any:
    """pytest's JUnit XML writer of this run (`--junitxml`), or None.

    Private: `_pytest.junitxml.xml_key`, the stash key of the `LogXML` object, and its
    `pytest_runtest_logreport` (the gates are handed to it as test cases). Checked on
    pytest 7.4.0 and 9.2.0. A pytest without the key: None (no gate cases in the XML; the
    gates still print and set the exit status).
    """
    return None if xml_key is None else config.stash.get(xml_key, None)


def write_junit(path: str, hand_over: Callable[[Any], int], suite_name: str = "pytest") -> int:
    """A JUnit XML file written by pytest's own writer outside a pytest run (`pytest-tom
    gate --junitxml`): `hand_over(writer)` gives it test reports; returns what it returns.

    Private: `_pytest.junitxml.LogXML` (constructor, `pytest_sessionstart`,
    `pytest_runtest_logreport`, `pytest_sessionfinish`), so that the gate cases are those
    a live run's `--junitxml` holds. Checked on pytest 7.4.0 and 9.2.0. A pytest without
    it: RuntimeError naming the option (never a file silently left out).
    """
    if LogXML is None:  # pragma: no cover - a pytest without it
        raise RuntimeError("--junitxml: this pytest has no JUnit XML writer pytest-tom can use")
    xml = LogXML(path, None, suite_name=suite_name, family="xunit2")
    xml.pytest_sessionstart()
    count = hand_over(xml)
    xml.pytest_sessionfinish()
    return count


def add_last_failed_paths(config: pytest.Config, paths: list[Path]) -> bool:
    """Tell `--lf` that `paths` (and their folders) hold last-failed tests.

    pytest's --lf plugin (`_pytest.cacheprovider.LFPlugin`, registered as "lfplugin")
    keeps the files of the last failures in the private `_last_failed_paths`, made at
    configure time as `rootpath / nodeid-path`. Once it has collected one failure it
    skips every file not in that set, so a file collected from outside the rootdir
    (the bundled suites, whose node ids are relative to their own folder) would be
    skipped although its failures are in `lastfailed`. Returns False (pytest's own
    behaviour kept) when the set is not there. Checked on pytest 7.4.0 and 9.2.0.
    """
    plugin = config.pluginmanager.get_plugin("lfplugin")
    known = getattr(plugin, "_last_failed_paths", None)
    if not isinstance(known, set):
        return False
    for path in paths:
        known.add(path)
        known.update(path.parents)
    return True


def last_failed_nodeids(config: pytest.Config) -> list[str]:
    """The node ids `--lf` would run again, as the last run saved them ([] without a cache).

    Undocumented: the cache key `"cache/lastfailed"` (a dict of node id -> True) that
    pytest's --lf plugin reads and writes; `Config.cache.get` itself is public. Checked on
    pytest 7.4.0 and 9.2.0.
    """
    cache = getattr(config, "cache", None)
    if cache is None:
        return []
    failed = cache.get("cache/lastfailed", {})
    return [str(nodeid) for nodeid in failed] if isinstance(failed, dict) else []


def mark_last_failed(config: pytest.Config, report: Any) -> bool:
    """Count `report`'s test as failed for the next `--lf` although pytest saw no failure (a
    wrong answer reported as an xfail under `--tom-items report`).

    Undocumented: the `lastfailed` dict of pytest's --lf plugin (registered as "lfplugin"),
    which it saves under `"cache/lastfailed"` at the end of the session; its keys are node
    id strings up to pytest 9.1 and `NodeId` objects (`report.id`) from 9.2, so the key is
    the one the plugin itself uses for this report. Returns False (nothing marked, pytest's
    own behaviour) without the plugin or the dict. Checked on pytest 7.4.0 and 9.2.0.
    """
    plugin = config.pluginmanager.get_plugin("lfplugin")
    failed = getattr(plugin, "lastfailed", None)
    if not isinstance(failed, dict):
        return False
    failed[_report_key(report)] = True
    return True


def was_xfail(report: Any) -> bool:
    """Whether `report` is an expected failure (pytest.xfail or an xfail marker).

    Undocumented: the `wasxfail` attribute the skipping plugin sets on the report (a
    comment in `TestReport`, no API entry). Checked on pytest 7.4.0 and 9.2.0.
    """
    return getattr(report, "wasxfail", None) is not None


def terminal_reporter(config: pytest.Config) -> Any:
    """pytest's terminal reporter of this run, or None (`-p no:terminal`, an xdist worker).

    Undocumented: the plugin name "terminalreporter" under which pytest registers it.
    Checked on pytest 7.4.0 and 9.2.0.
    """
    return config.pluginmanager.get_plugin("terminalreporter")


def unprefix_xdist_stop(config: pytest.Config, start: str) -> bool:
    """Under xdist, a run stopped by a worker (`session.shouldfail`) ends on the controller
    with `xdist.dsession.Interrupted`, whose name pytest's terminal prints before the reason:
    "!!! xdist.dsession.Interrupted: tom: the run stopped early ...". When the reason starts
    with `start`, the line is made the one a plain run prints ("!!! tom: the run stopped
    early ..."). Returns whether it was changed.

    Private: the terminal reporter's `_keyboardinterrupt_memo` (an `ExceptionChainRepr`
    whose `reprcrash.message` its `pytest_unconfigure` prints); call it from a
    `pytest_keyboard_interrupt` hook that runs after the terminal's (trylast). Checked on
    pytest 7.4.0 and 9.2.0 with pytest-xdist 3.6.1 and 3.8.0. Missing: pytest's own line.
    """
    crash = getattr(getattr(terminal_reporter(config), "_keyboardinterrupt_memo", None),
                    "reprcrash", None)
    message = getattr(crash, "message", None)
    prefix = "xdist.dsession.Interrupted: "
    if not isinstance(message, str) or not message.startswith(prefix + start):
        return False
    try:
        crash.message = message[len(prefix):]  # type: ignore[union-attr]
    except (AttributeError, TypeError):  # pragma: no cover - a frozen repr
        return False
    return True


def capturing_plugins(config: pytest.Config) -> tuple[Any, Any]:
    """(pytest's capture manager, its logging plugin), each None when it is not there
    (`-p no:capture`, `-p no:logging`): the two plugins that capture each phase of a test.

    Undocumented: the plugin names "capturemanager" and "logging-plugin" under which pytest
    registers them. Checked on pytest 7.4.0 and 9.2.0.
    """
    pm = config.pluginmanager
    return pm.get_plugin("capturemanager"), pm.get_plugin("logging-plugin")


def is_tty(reporter: Any) -> bool:
    """Whether the terminal reporter writes to a terminal (a line can be redrawn).

    Undocumented: `TerminalReporter.isatty`, a bool in pytest 7.4 and a callable bool from
    pytest 8; both are true or false as such. Checked on pytest 7.4.0 and 9.2.0.
    """
    return bool(getattr(reporter, "isatty", False))


def output_uncaptured(config: pytest.Config) -> Any:
    """A context manager in which writing to the terminal is not captured (the live line of
    the request phase, drawn while pytest captures a test's output).

    Undocumented: the capture plugin ("capturemanager") and its
    `global_and_fixture_disabled()`, what the public `capsys.disabled()` uses. Without it,
    nothing is changed. Checked on pytest 7.4.0 and 9.2.0.
    """
    capman = config.pluginmanager.get_plugin("capturemanager")
    disabled = getattr(capman, "global_and_fixture_disabled", None)
    return disabled() if callable(disabled) else nullcontext()


def drop_quiet_report(reporter: Any, report: Any) -> bool:
    """Let go of a passed set-up or tear-down report with no output as soon as pytest's
    terminal reporter has logged it; True when it was let go.

    Undocumented: `TerminalReporter.stats[""]`, where the reporter keeps every passed
    set-up and tear-down report (two per item) to the end of the run; only a tear-down's
    captured output is ever read from there, so a report without output is not needed.
    Only the last one logged is removed, and only when it is `report`. Checked on pytest
    7.4.0 and 9.2.0.
    """
    quiet = reporter.stats.get("") if reporter is not None else None
    if quiet and quiet[-1] is report:
        quiet.pop()
        return True
    return False


def junit_path(config: pytest.Config) -> str | None:
    """The `--junitxml` path of this run, or None.

    Public: `Config.getoption` by the option's flag (its destination, `xmlpath`, is not
    documented). Checked on pytest 7.4.0 and 9.2.0.
    """
    path = config.getoption("--junitxml", None)
    return path if isinstance(path, str) and path else None


def fixture_value(item: pytest.Function, name: str) -> Any:
    """The value of the fixture `name` of an item that has been set up.

    Undocumented: `Function.funcargs`, the dict pytest's setup fills with the values of the
    item's fixtures. Checked on pytest 7.4.0 and 9.2.0.
    """
    return item.funcargs[name]


def missing_fixture(exc: BaseException) -> str | None:
    """The fixture name a `pytest.FixtureLookupError` could not find (None if it does not
    say). Undocumented: its `argname`. Checked on pytest 7.4.0 and 9.2.0."""
    name = getattr(exc, "argname", None)
    return name if isinstance(name, str) else None


def stop_rewriting(pluginmanager: pytest.PytestPluginManager | None, package: str) -> bool:
    """Let the modules of `package` imported from now on load as plain Python, not through
    pytest's assertion rewriter; True if pytest's rewriter was told.

    Why: pytest rewrites the asserts of every module of a distribution that registers a
    `pytest11` entry point, so each pytest-tom module went through the rewriter (parse,
    rewrite, compile) instead of loading its ordinary bytecode. The rewritten code is cached
    only where pytest may write bytecode: with PYTHONDONTWRITEBYTECODE (common in container
    images) or a read-only site-packages, every pytest process and every xdist worker paid
    about a second to rewrite the ~200 modules an active run imports, which is most of
    pytest-tom's start-up. The package's asserts only narrow types; nothing is lost. The
    modules already imported stay rewritten.

    `pluginmanager` None: the rewriters on `sys.meta_path`, for the entry point while it is
    imported (before any hook has the plugin manager): pytest installs its rewriter there
    before it imports the `pytest11` entry points and `-p` plugins, so what the entry point
    imports at its top loads plain too (the option table and the family registry, which
    every pytest process imports: about 12 ms of rewriting per process). The entry
    point's `pytest_addhooks` tells the run's own rewriter again: a process that imported
    the package before (an in-process pytester run) has a new one for each run.

    Undocumented: the rewriter's set of marked names (`_must_rewrite`, a set of module
    names whose submodules are rewritten too) on `PytestPluginManager.rewrite_hook`, the
    object pytest puts on `sys.meta_path`. Without it (another pytest, `--assert=plain`)
    nothing changes. Checked on pytest 7.4.0 and 9.2.0.
    """
    if pluginmanager is not None:
        hooks = [getattr(pluginmanager, "rewrite_hook", None)]
    else:
        hooks = list(sys.meta_path)
    told = False
    for hook in hooks:
        marked = getattr(hook, "_must_rewrite", None)
        if not isinstance(marked, set):
            continue
        for name in [n for n in marked if n == package or n.startswith(package + ".")]:
            marked.discard(name)
        told = True
    return told


# -- pytest-xdist ---------------------------------------------------------------------------
def is_xdist_worker(config: pytest.Config) -> bool:
    """This process is an xdist worker. Documented by pytest-xdist (`workerinput` on a
    worker's config); here so that every xdist name is in one place. Checked on pytest-xdist
    3.6.1 and 3.8.0."""
    return hasattr(config, "workerinput")


def on_xdist_controller(config: pytest.Config) -> bool:
    """The xdist controller (it hands items to workers and makes no model calls).

    Undocumented: the plugin name "dsession" (xdist's `DSession`) and the options `--dist`
    and `--tx` (read by flag). The options are read too because xdist registers its
    `DSession` in a trylast `pytest_configure`, which may run after ours (the entry points
    load in another order with a checkout on PYTHONPATH). `--collect-only` distributes
    nothing. Checked on pytest-xdist 3.6.1 and 3.8.0.
    """
    if is_xdist_worker(config):
        return False
    if config.pluginmanager.has_plugin("dsession"):
        return True
    if config.getoption("--collect-only", False):
        return False
    return config.getoption("--dist", "no") != "no" and bool(config.getoption("--tx", None))


def send_to_controller(config: pytest.Config, key: str, value: Any) -> bool:
    """On an xdist worker: hand `value` to the controller (it arrives as the node's output
    in `pytest_testnodedown`); False elsewhere.

    pytest-xdist's `workeroutput` dict, sent when the worker finishes. Checked on
    pytest-xdist 3.6.1 and 3.8.0.
    """
    output = getattr(config, "workeroutput", None)
    if not isinstance(output, dict):
        return False
    output[key] = value
    return True


def sent_by_worker(node: Any, key: str) -> Any:
    """On the controller (`pytest_testnodedown`): what the worker `node` handed over under
    `key` (`send_to_controller`), or None. Checked on pytest-xdist 3.6.1 and 3.8.0."""
    output = getattr(node, "workeroutput", None)
    return output.get(key) if isinstance(output, dict) else None


class WorkerQueue:
    """The indices of `session.items` xdist has sent this worker and it has not run yet.

    Undocumented: xdist's worker plugin (`WorkerInteractor`), its queue `torun` (with a
    `lock()` context giving the deque of indices) and `nextitem_index`. When they cannot be
    read (another xdist), `pending()` gives None from then on, and the caller falls back to
    the current and the next item. Checked on pytest-xdist 3.8.0 (read); a queue without
    `lock()` (older xdist) gives None: the fallback.
    """

    def __init__(self, config: pytest.Config):
        self.interactor: Any = next(
            (plugin for plugin in config.pluginmanager.get_plugins()
             if type(plugin).__name__ == "WorkerInteractor" and hasattr(plugin, "torun")),
            None)

    def pending(self) -> list[int] | None:
        it = self.interactor
        if it is None:
            return None
        try:
            with it.torun.lock() as queue:
                snapshot = list(queue)
            nxt = it.nextitem_index
        except Exception:  # a different xdist: fall back to nextitem
            self.interactor = None
            return None
        out = [i for i in snapshot if isinstance(i, int)]
        if isinstance(nxt, int):
            out.insert(0, nxt)
        return out


def verbosity(config: pytest.Config) -> int:
    """The run's verbosity (`-v` 1, `-q` -1, ...).

    Public from pytest 8.0: `Config.get_verbosity()`; pytest 7.4 has only
    `config.option.verbose` (the same number). Checked on pytest 7.4.0 and 9.2.0.
    """
    get = getattr(config, "get_verbosity", None)
    return int(get()) if get is not None else int(config.option.verbose)


def collected_items(session: pytest.Session) -> list[Any]:
    """The items the session collected ([] when it collected nothing).

    Public: `Session.items`. pytest 8.0 sets it to [] when the session starts; pytest 7.4
    only once it collects, so the xdist controller (which leaves collection to its
    workers) has none. Checked on pytest 7.4.0 and 9.2.0.
    """
    return getattr(session, "items", [])


def terminal_width(config: pytest.Config) -> int:
    """The terminal's width in columns as pytest measures it (0 when unknown).

    Public: `Config.get_terminal_writer()` and `TerminalWriter.fullwidth` (documented
    since pytest 6); here so that no caller reaches for `TerminalReporter._tw`. Checked on
    pytest 7.4.0 and 9.2.0.
    """
    if config.pluginmanager.get_plugin("terminalreporter") is None:
        return 0
    try:
        return int(config.get_terminal_writer().fullwidth)
    except (AttributeError, AssertionError):
        return 0


def reports_of(tr: Any, key: str) -> list[Any]:
    """The reports pytest's summary counts under `key` ("failed", "error", "xfailed" ...).

    Undocumented: `TerminalReporter.stats`, the dict of report lists pytest's summary
    sections and last line ("3 failed, 2 passed") are written from. Checked on pytest
    7.4.0 and 9.2.0.
    """
    return list(tr.stats.get(key, []))


def set_reports(tr: Any, key: str, reports: list[Any]) -> None:
    """Make `reports` what pytest's summary writes under `key` (see `reports_of`)."""
    tr.stats[key] = reports


def count_in_last_line(tr: Any, key: str, entries: list[Any]) -> None:
    """Add `entries` under `key` to `TerminalReporter.stats`, so pytest's last line counts
    them ("2 tom gates failed"); an unknown key is written in the line as it is. Checked on
    pytest 7.4.0 and 9.2.0."""
    tr.stats.setdefault(key, []).extend(entries)


@contextmanager
def collection_errors_set_aside(session: pytest.Session, count: int) -> Iterator[int]:
    """Up to `count` collection errors do not stop the test loop while inside the block.

    Undocumented: `Session.testsfailed`. pytest counts collection errors there and its
    `pytest_runtestloop` refuses to run anything ("Interrupted: N errors during
    collection") while it is non-zero. The errors are counted again when the block ends,
    so the exit status and the last line still report them. With `--maxfail` set nothing is
    set aside (pytest's own stop rule holds). Yields how many were set aside. Checked on
    pytest 7.4.0 and 9.2.0.
    """
    held = 0 if session.config.option.maxfail else min(count, session.testsfailed)
    session.testsfailed -= held
    try:
        yield held
    finally:
        session.testsfailed += held


def _shown_in_pdb(report: Any) -> bool:
    """pytest marks a report already shown in a `--pdb` session with `_pdbshown` (private;
    `TerminalReporter.getreports` leaves those out). Checked on pytest 7.4.0 and 9.2.0."""
    return hasattr(report, "_pdbshown")


def _report_key(report: Any) -> Any:
    """What pytest's teardown lookup compares: `report.id` (a `NodeId`) from pytest 9.2,
    the `nodeid` string before."""
    return getattr(report, "id", None) or report.nodeid


class TeardownIndex:
    """pytest's teardown-report lookup for the failure summary, without its quadratic cost.

    Private: `TerminalReporter._get_teardown_reports(node_id)`. For each failed test the
    failure summary (`--tb` other than `line`/`no`) prints the captured output of its
    teardown, which pytest finds by scanning every passed report of the run: with
    thousands of wrong answers among thousands of items that is millions of comparisons
    (`benchmarks/teardown_lookup.py`: 1,000 failures among 2,000 items cost 1-2 s, 5,000
    among 10,000 half a minute). The index keeps the teardown reports of `stats[""]` by
    the key pytest compares (`report.id` from 9.2, `report.nodeid` before), read
    incrementally as reports arrive: the same reports in the same order.

    Checked on pytest 7.4.0 and 9.2.0 with a failing test that prints in its teardown
    (`tests/test_pytest_compat.py`). On any pytest, the first `VERIFY` lookups also run
    pytest's own method and compare: a difference (a pytest that changed the lookup again)
    puts pytest's own method back for the rest of the run, so output is never dropped.
    """

    VERIFY = 3

    def __init__(self, reporter: Any, original: Callable[[Any], list[Any]]):
        self.reporter = reporter
        self.original = original
        self.verified = 0
        self.gave_up = False
        self._index: dict[Any, list[Any]] = {}
        self._read = 0

    def lookup(self, node_id: Any) -> list[Any]:
        reports = self.reporter.stats.get("", [])
        if len(reports) < self._read:  # the list was replaced: index it again
            self._index.clear()
            self._read = 0
        for report in reports[self._read:]:
            if getattr(report, "when", None) == "teardown":
                self._index.setdefault(_report_key(report), []).append(report)
        self._read = len(reports)
        return [r for r in self._index.get(node_id, ()) if not _shown_in_pdb(r)]

    def __call__(self, node_id: Any) -> list[Any]:
        if self.gave_up:
            return self.original(node_id)
        found = self.lookup(node_id)
        if self.verified < self.VERIFY:
            self.verified += 1
            expected = self.original(node_id)
            if [id(r) for r in found] != [id(r) for r in expected]:
                self.gave_up = True  # this pytest looks reports up another way: use its own
                self.reporter._get_teardown_reports = self.original
                return expected
        return found


def install_teardown_index(config: pytest.Config) -> TeardownIndex | None:
    """Give the terminal reporter the indexed teardown lookup; None when this pytest has no
    `_get_teardown_reports` to replace (then pytest's own summary runs unchanged)."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    original = getattr(reporter, "_get_teardown_reports", None)
    if reporter is None or not callable(original):
        return None
    index = TeardownIndex(reporter, original)
    reporter._get_teardown_reports = index
    return index
