"""pytest_compat: the one module that touches pytest's private names, checked on the pytest
running the tests (`.ci/run` runs them on the newest and on the oldest allowed pytest)."""

from __future__ import annotations

import re

import pytest
from conftest import REPO
from runner_support import numbers_suite

from pytest_tom import pytest_compat
from pytest_tom.pytest_compat import TeardownIndex

PLAIN = """
import pytest

@pytest.fixture
def noisy():
    yield
    print("TEARDOWN-OUTPUT of", __name__)

def test_fails_with_teardown_output(noisy):
    assert False

def test_passes_with_teardown_output(noisy):
    pass
"""

ANSWER = """
def answer(req):
    return "No."
"""


CHECK_INDEX = """
import pytest
from pytest_tom.pytest_compat import TeardownIndex

@pytest.hookimpl(trylast=True)
def pytest_terminal_summary(terminalreporter):
    index = terminalreporter._get_teardown_reports
    assert isinstance(index, TeardownIndex), index
    print(f"INDEX verified={index.verified} gave_up={index.gave_up}")
"""


def test_teardown_sections_of_failures_are_still_shown(pytester: pytest.Pytester) -> None:
    """A failing user test that prints in its teardown keeps that output in the failure
    summary, and the index agreed with pytest's own lookup on every comparison."""
    pytester.makefile(".tom.yaml", numbers=numbers_suite(6))
    pytester.makepyfile(test_plain=PLAIN, answerer=ANSWER, conftest=CHECK_INDEX)
    pytester.syspathinsert()
    result = pytester.runpytest("--tom-model=python:answerer:answer", "-p", "no:cacheprovider",
                                "-p", "no:randomly")
    result.assert_outcomes(passed=4, failed=4)  # 3 even numbers answered "No." + the plain one
    out = result.stdout.str()
    # the failing plain test's teardown output, once, under its failure
    assert out.count("Captured stdout teardown") == 1
    result.stdout.fnmatch_lines(["*_ test_fails_with_teardown_output _*", "*assert False*",
                                 "*Captured stdout teardown*", "TEARDOWN-OUTPUT of test_plain"])
    # 4 failures looked up, the first 3 also with pytest's own method: the same reports
    assert f"INDEX verified={TeardownIndex.VERIFY} gave_up=False" in out


def test_the_index_gives_way_to_a_pytest_that_looks_up_differently() -> None:
    """A pytest whose lookup compares something else: its own answer, and its method back."""
    reporter = Reporter()
    reports = reporter.stats.setdefault("", [])
    reports += [Report("a", "teardown"), Report("b", "teardown")]

    def other_lookup(node_id: str) -> list[Report]:  # a future pytest keyed by upper case
        return [r for r in reporter.stats[""] if r.nodeid.upper() == node_id]

    index = TeardownIndex(reporter, other_lookup)
    reporter._get_teardown_reports = index
    assert index("A") == [reports[0]]
    assert index.gave_up and reporter._get_teardown_reports is other_lookup
    assert index("B") == [reports[1]]


# Every undocumented name of pytest (and pytest-xdist) the package relies on: attributes,
# cache keys, option destinations, plugin names. Only pytest_compat.py may name them (code,
# comments and docstrings alike, so that `grep` finds none elsewhere); a name found
# anywhere else goes through a function there, checked on the oldest and newest pytest.
UNDOCUMENTED = {
    "pytest's private modules": r"\b_pytest\b",
    "underscore attributes of pytest objects":
        r"\._(inicache|tw|get_teardown_reports|pdbshown|last_failed_paths|request|"
        r"fixturemanager|opt2dest)\b",
    "Session.testsfailed": r"\btestsfailed\b",
    "TerminalReporter.stats": r"\bstats\s*(\[\s*[\"']|\.(get|setdefault|pop)\()",
    "TerminalReporter.isatty": r"\.isatty\b(?!\()|[\"']isatty[\"']",
    "the --lf plugin's dict and its cache key": r"\blfplugin\b|\blastfailed\b",
    # pytest's options are read by their flag (`getoption("--junitxml")`, as documented),
    # never by their destination (`config.option.xmlpath`, `getoption("collectonly")`)
    "option destinations": r"\.option\b|getoption\(\s*f?[\"'](?!-|tom_)|\.getvalue\(\s*[\"']",
    "--junitxml's destination": r"\bxmlpath\b",
    "--tb's and -r's destinations": r"\btbstyle\b|\breportchars\b",
    "pytest's and xdist's plugin names":
        r"[\"'](terminalreporter|capturemanager|logging-plugin|lfplugin|dsession)[\"']",
    "the capture plugin's switch": r"\bglobal_and_fixture_disabled\b",
    "Function.funcargs": r"\bfuncargs\b",
    "FixtureLookupError.argname": r"\bargname\b",
    "TestReport.wasxfail": r"\bwasxfail\b",
    "pytest-xdist's worker input and output": r"\bworkerinput\b|\bworkeroutput\b",
    "pytest-xdist's worker queue": r"\bWorkerInteractor\b|\btorun\b|\bnextitem_index\b",
    "the assertion rewriter's marked names": r"\brewrite_hook\b|\b_must_rewrite\b",
}
PATTERNS = {what: re.compile(pattern) for what, pattern in UNDOCUMENTED.items()}


def undocumented_names(text: str) -> list[tuple[int, str, str]]:
    """(line, what, line's text) of every undocumented pytest name in `text`."""
    return [(n, what, line.strip()) for n, line in enumerate(text.splitlines(), 1)
            for what, pattern in PATTERNS.items() if pattern.search(line)]


def test_no_undocumented_pytest_name_outside_pytest_compat() -> None:
    found = [f"{path.relative_to(REPO)}:{n}: [{what}] {line}"
             for path in sorted((REPO / "pytest_tom").rglob("*.py"))
             if path.name != "pytest_compat.py"
             for n, what, line in undocumented_names(path.read_text(encoding="utf-8"))]
    assert not found, ("undocumented pytest names belong in pytest_tom/pytest_compat.py:\n"
                       + "\n".join(found))


# what the code held before every name went through pytest_compat (one line per kind)
OLD_LINES = {
    "pytest's private modules": "from _pytest.junitxml import xml_key",
    "underscore attributes of pytest objects": "reporter._get_teardown_reports = index",
    "Session.testsfailed": "session.testsfailed -= held",
    "TerminalReporter.stats": 'quiet = self._reporter.stats.get("") if self._reporter else None',
    "TerminalReporter.isatty": 'self.live = bool(self.enabled and getattr(self.tr, "isatty", False))',
    "the --lf plugin's dict and its cache key": 'failed = config.cache.get("cache/lastfailed", {})',
    "option destinations": 'if config.getoption("collectonly", False):',
    "--junitxml's destination": 'self.junit = bool(getattr(tom.config.option, "xmlpath", None))',
    "--tb's and -r's destinations": 'return config.option.tbstyle != "auto"',
    "pytest's and xdist's plugin names": 'if config.pluginmanager.has_plugin("dsession"):',
    "the capture plugin's switch": "return capman.global_and_fixture_disabled()",
    "Function.funcargs": "value = probe.funcargs[name]",
    "FixtureLookupError.argname": "if exc.argname == name",
    "TestReport.wasxfail": 'if getattr(report, "wasxfail", None) is not None:',
    "pytest-xdist's worker input and output": 'self.is_worker = hasattr(config, "workerinput")',
    "pytest-xdist's worker queue": "with it.torun.lock() as queue:",
    "the assertion rewriter's marked names": 'pluginmanager.rewrite_hook._must_rewrite.discard(name)',
}


@pytest.mark.parametrize("what", sorted(UNDOCUMENTED))
def test_the_guard_catches_each_kind(what: str) -> None:
    """Each entry finds the line the code held before it went through pytest_compat."""
    assert what in {w for _, w, _ in undocumented_names(OLD_LINES[what])}


@pytest.mark.parametrize("line", [
    'config.getoption("--junitxml")', 'config.getoption(f"tom_{name}", None)',
    "self.runner.stats.requests", "text = buf.getvalue()", "sys.stdout.isatty()",
    "stats = np.sort(stats[~np.isnan(stats)])", "tom.options.items",
])
def test_the_guard_leaves_documented_names_alone(line: str) -> None:
    assert undocumented_names(line) == []


def test_the_oldest_checked_pytest_is_the_oldest_allowed() -> None:
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    minimum = re.search(r'"pytest>=([0-9.]+)"', text).group(1)
    oldest = pytest_compat.CHECKED_ON[0]
    assert tuple(map(int, oldest.split("."))) == tuple(map(int, (minimum + ".0").split(".")[:3]))


class Report:
    def __init__(self, nodeid: str, when: str, pdb: bool = False):
        self.nodeid, self.when = nodeid, when
        if pdb:
            self._pdbshown = True


class Reporter:
    def __init__(self) -> None:
        self.stats: dict[str, list[Report]] = {}

    def _get_teardown_reports(self, nodeid: str) -> list[Report]:  # pytest's own definition
        return [r for r in self.stats.get("", ()) if not hasattr(r, "_pdbshown")
                and r.when == "teardown" and r.nodeid == nodeid]


def test_the_index_returns_what_the_scan_returns_as_reports_arrive() -> None:
    reporter = Reporter()
    index = TeardownIndex(reporter, reporter._get_teardown_reports)
    assert index("a") == []
    reports = reporter.stats.setdefault("", [])
    for i in range(50):
        node = f"n{i % 7}"
        reports += [Report(node, "setup"), Report(node, "teardown", pdb=i % 11 == 0)]
        for probe in ("n0", "n3", "n6", "missing"):
            assert index.lookup(probe) == reporter._get_teardown_reports(probe)
    reporter.stats[""] = reports[:10]  # replaced by a shorter list: indexed again
    assert index.lookup("n1") == reporter._get_teardown_reports("n1")
    assert not index.gave_up


def test_lf_takes_paths_outside_the_rootdir(pytester: pytest.Pytester) -> None:
    """The running pytest still keeps --lf's last-failed files where `add_last_failed_paths`
    adds to them (else the bundled suites' failures would be skipped under --lf)."""
    outside = pytester.mkdir("elsewhere") / "x.tom.yaml"
    outside.write_text("")
    pytester.makeconftest(f"""
from pathlib import Path
from pytest_tom import pytest_compat

def pytest_sessionstart(session):
    added = pytest_compat.add_last_failed_paths(session.config, [Path({str(outside)!r})])
    plugin = session.config.pluginmanager.get_plugin("lfplugin")
    print("ADDED", added, Path({str(outside)!r}) in plugin._last_failed_paths)
""")
    pytester.makepyfile(test_a="def test_x():\n    assert False\n")
    pytester.runpytest()
    result = pytester.runpytest("--lf", "-s")
    result.stdout.fnmatch_lines(["ADDED True True"])


LOADERS = """
import sys

def pytest_sessionfinish(session):
    for name in ("pytest_tom.plugin", "pytest_tom.core.option_table", "pytest_tom.families.generic",
                 "pytest_tom.plugin.activate"):
        module = sys.modules.get(name)
        print("LOADER", name, type(getattr(module, "__loader__", None)).__name__)
"""


# A wheel's record as pytest reads it to mark a plugin's distribution for assertion
# rewriting (an editable install records only its finder, so pytest marks nothing there)
WHEEL = {"METADATA": "Metadata-Version: 2.1\nName: tom-as-a-wheel\nVersion: 1.0\n",
         "entry_points.txt": "[pytest11]\ntom = pytest_tom.plugin\n",
         "RECORD": "pytest_tom/__init__.py,,\npytest_tom/plugin/__init__.py,,\n"}


@pytest.mark.parametrize("load", ["entry point of a wheel", "-p pytest_tom.plugin"])
def test_the_package_loads_as_plain_bytecode_and_tests_are_still_rewritten(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, load: str) -> None:
    """`stop_rewriting`: past the entry point, the modules of an active run load through
    Python's own loader, although pytest marked them for assertion rewriting (which cost
    about a second per process where bytecode is not cached), and so do those the entry
    point imports at its top (the option table: every pytest process imports it); the
    entry point itself shows the rewriter was at work in that process, and a test file's
    assert still gets pytest's detailed message."""
    pytester.makeconftest(LOADERS)
    pytester.makepyfile(answers=ANSWER, test_a="def test_x():\n    assert [1, 2] == [1, 3]\n")
    (pytester.path / "n.tom.yaml").write_text(numbers_suite(4))
    args: list[str] = []
    if load.startswith("-p"):
        monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
        args = ["-p", "pytest_tom.plugin"]
    else:  # found on sys.path (the run's folder) like the wheel's own record
        record = pytester.mkdir("tom_as_a_wheel-1.0.dist-info")
        for name, text in WHEEL.items():
            (record / name).write_text(text)
    result = pytester.runpytest_subprocess(*args, "--tom-model=python:answers.py:answer", "-s",
                                           "-p", "no:cacheprovider", "--tom-cache=off")
    result.stdout.fnmatch_lines([
        "LOADER pytest_tom.plugin AssertionRewritingHook",
        "LOADER pytest_tom.core.option_table SourceFileLoader",
        "LOADER pytest_tom.families.generic SourceFileLoader",
        "LOADER pytest_tom.plugin.activate SourceFileLoader",
        "*At index 1 diff: 2 != 3*",
    ])


LF_CONFTEST = """
from pytest_tom import pytest_compat

def pytest_sessionstart(session):
    print("LAST-FAILED", sorted(pytest_compat.last_failed_nodeids(session.config)))

def pytest_runtest_logreport(report):
    if report.when == "call" and pytest_compat.was_xfail(report):
        print("MARKED", pytest_compat.mark_last_failed(CONFIG[0], report))

CONFIG = []

def pytest_configure(config):
    CONFIG.append(config)
"""


def test_an_xfail_marked_as_last_failed_runs_again_under_lf(pytester: pytest.Pytester) -> None:
    """`mark_last_failed` writes where --lf reads (`last_failed_nodeids`): the xfail runs
    again with the real failure, the passing test does not."""
    pytester.makeconftest(LF_CONFTEST)
    pytester.makepyfile(test_a="""
import pytest

def test_pass():
    pass

def test_fail():
    assert False

def test_xfail():
    pytest.xfail("a wrong answer")
""")
    first = pytester.runpytest("-s")
    first.assert_outcomes(passed=1, failed=1, xfailed=1)
    first.stdout.fnmatch_lines(["LAST-FAILED []", "*MARKED True*"])
    second = pytester.runpytest("--lf", "-s")
    second.stdout.fnmatch_lines(["LAST-FAILED ['test_a.py::test_fail', 'test_a.py::test_xfail']",
                                 "run-last-failure: rerun previous 2 failures*"])
    second.assert_outcomes(failed=1, xfailed=1)


def test_without_the_cache_plugin_nothing_is_marked(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(LF_CONFTEST)
    pytester.makepyfile(test_a="import pytest\ndef test_x():\n    pytest.xfail('no')\n")
    result = pytester.runpytest("-s", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["LAST-FAILED []", "*MARKED False*"])


REPORTER_CONFTEST = """
import pytest
from pytest_tom import pytest_compat

DROPPED = []

@pytest.hookimpl(trylast=True)
def pytest_runtest_logreport(report):
    reporter = pytest_compat.terminal_reporter(CONFIG[0])
    if report.when != "call" and report.passed and not report.sections:
        DROPPED.append(pytest_compat.drop_quiet_report(reporter, report))

CONFIG = []

def pytest_configure(config):
    CONFIG.append(config)

def pytest_terminal_summary(terminalreporter, config):
    print("REPORTER", pytest_compat.terminal_reporter(config) is terminalreporter,
          "TTY", pytest_compat.is_tty(terminalreporter))
    print("DROPPED", DROPPED.count(True), "KEPT", len(pytest_compat.reports_of(terminalreporter, "")))
    print("JUNIT", pytest_compat.junit_path(config))
"""


def test_quiet_reports_are_let_go_and_the_reporter_is_found(pytester: pytest.Pytester) -> None:
    """Set-up and tear-down reports without output leave the terminal reporter's list; the
    one with captured tear-down output stays (its failure summary may print it)."""
    pytester.makeconftest(REPORTER_CONFTEST)
    pytester.makepyfile(test_a=PLAIN)
    result = pytester.runpytest("--junitxml=out/j.xml", "-p", "no:randomly")
    result.assert_outcomes(passed=1, failed=1)
    # 2 set-ups without output let go; the tear-downs print, so they are kept
    result.stdout.fnmatch_lines(["*Captured stdout teardown*", "TEARDOWN-OUTPUT*",
                                 "REPORTER True TTY False", "DROPPED 2 KEPT 2", "JUNIT out/j.xml"])
    assert "JUNIT None" in pytester.runpytest("-p", "no:randomly").stdout.str()


def test_output_uncaptured_reaches_the_terminal_while_a_test_is_captured(
        pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_a="""
import pytest
from pytest_tom import pytest_compat

def test_draws(request):
    print("CAPTURED-LINE")
    with pytest_compat.output_uncaptured(request.config):
        print("LIVE-LINE")
""")
    result = pytester.runpytest_subprocess()
    result.assert_outcomes(passed=1)
    assert "LIVE-LINE" in result.stdout.str() and "CAPTURED-LINE" not in result.stdout.str()


def test_a_fixture_value_and_a_missing_fixture_are_read(pytester: pytest.Pytester) -> None:
    pytester.makeconftest("""
import pytest
from pytest_tom import pytest_compat

@pytest.fixture
def answer():
    return 42

@pytest.fixture
def broken(nowhere):
    return 1

@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    outcome = yield
    if item.name == "test_value":
        print("VALUE", pytest_compat.fixture_value(item, "answer"))
    elif outcome.excinfo and isinstance(outcome.excinfo[1], pytest.FixtureLookupError):
        print("MISSING", pytest_compat.missing_fixture(outcome.excinfo[1]))
""")
    pytester.makepyfile(test_a="""
def test_value(answer):
    pass

def test_missing(broken):
    pass
""")
    result = pytester.runpytest("-s", "-p", "no:randomly")
    result.stdout.fnmatch_lines(["*VALUE 42*", "*MISSING nowhere*"])


XDIST_CONFTEST = """
import pytest
from pytest_tom import pytest_compat

def pytest_configure(config):
    CONFIG.append(config)
    if not pytest_compat.is_xdist_worker(config):
        print("CONTROLLER", pytest_compat.on_xdist_controller(config))

CONFIG = []
SEEN = []

@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item):
    SEEN.append(pytest_compat.WorkerQueue(item.config).pending())

def pytest_sessionfinish(session):
    if pytest_compat.is_xdist_worker(session.config):
        pytest_compat.send_to_controller(session.config, "seen", SEEN)

@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node):
    seen = pytest_compat.sent_by_worker(node, "seen")
    print("WORKER", all(isinstance(s, list) for s in seen), len(seen),
          pytest_compat.sent_by_worker(node, "nothing"))
"""


def test_xdist_names_are_read_on_workers_and_controller(pytester: pytest.Pytester) -> None:
    """What a worker sends reaches the controller, the controller knows it is one, and on
    each worker the queue of item indices is readable (a list) from pytest-xdist 3.8; 3.5's
    queue has no lock, so there `pending()` is None (the look-ahead's fallback)."""
    xdist = pytest.importorskip("xdist")
    version = tuple(int(x) for x in xdist.__version__.split(".")[:2])
    pytester.makeconftest(XDIST_CONFTEST)
    pytester.makepyfile(test_a="\n".join(f"def test_{i}():\n    pass\n" for i in range(6)))
    result = pytester.runpytest_subprocess("-n", "2", "-s", "-p", "no:randomly")
    result.assert_outcomes(passed=6)
    out = result.stdout.str()
    assert "CONTROLLER True" in out
    workers = re.findall(r"WORKER (\w+) (\d+) (\w+)", out)
    readable = {ok for ok, _, _ in workers}
    assert readable == ({"True"} if version >= (3, 8) else {"False"} if version < (3, 6)
                        else readable), out
    assert [nothing for _, _, nothing in workers] == ["None"] * 2, out
    assert sum(int(n) for _, n, _ in workers) == 6


def test_without_xdist_nothing_is_sent_and_no_controller(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(XDIST_CONFTEST)
    pytester.makepyfile(test_a="def test_x():\n    pass\n")
    result = pytester.runpytest("-s", "-p", "no:xdist")
    result.stdout.fnmatch_lines(["CONTROLLER False"])
