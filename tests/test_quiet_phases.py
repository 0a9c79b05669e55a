"""Suite items' phases without pytest's per-test capture where only pytest-tom's code runs
(`--tom-item-capture=auto`, plugin/large_runs.py; issue 35).

What a phase prints shows whether pytest captured it: a passing test's captured output
is never shown, what is not captured reaches the terminal at once. A conftest prints in
each phase of each suite item; two suite files and a Python test with a session fixture
run in one session, plainly and under xdist. Every run is real (pytester, the
`python:` backend)."""

from __future__ import annotations

import pytest
from runner_support import numbers_suite

ANSWERS = """\
def answer(request):
    n = int(request.prompt.split("number ")[1].split()[0])
    if n == {wrong}:
        return "Maybe."
    return "Yes." if n % 2 == 0 else "No."
"""

PRINTING_CONFTEST = """\
def pytest_runtest_setup(item):
    if hasattr(item, "spec"):
        print("SETUP-OUT", item.path.name, item.name)


def pytest_runtest_call(item):
    if hasattr(item, "spec"):
        print("CALL-OUT", item.path.name, item.name)


def pytest_runtest_teardown(item, nextitem):
    if hasattr(item, "spec"):
        print("TEARDOWN-OUT", item.path.name, item.name)
"""

SESSION_FIXTURE = """\
import pytest


@pytest.fixture(scope="session")
def resource():
    print("SESSION-START")
    yield 1
    print("SESSION-END")


def test_uses_it(resource):
    assert resource == 1
"""

ITEMS = {"a.tom.yaml": ["q00000", "q00001", "q00002"], "b.tom.yaml": ["q00000", "q00001",
                                                                       "q00002"]}


def _session(pytester: pytest.Pytester, wrong: int = -1) -> list[str]:
    pytester.makepyfile(answers=ANSWERS.format(wrong=wrong), conftest=PRINTING_CONFTEST,
                        test_mixed=SESSION_FIXTURE)
    for name in ITEMS:
        stem = name.split(".")[0]
        pytester.makefile(".tom.yaml", **{stem: numbers_suite(3, name=f"numbers-{stem}")})
    # the Python test first: its session fixture is finalized by the last suite item
    return ["test_mixed.py", *ITEMS, "--tom-model=python:answers.py:answer",
            "-p", "no:cacheprovider", "-q"]


def _shown(lines: list[str], word: str) -> set[tuple[str, str]]:
    """(file, item) of each `word` line shown (after pytest's progress dots, if any)."""
    found = set()
    for ln in lines:
        if word in ln:
            parts = ln[ln.index(word):].split()
            found.add((parts[1], parts[2]))
    return found


@pytest.mark.parametrize("mode", ["auto", "pytest"])
def test_only_pytest_tom_s_own_phases_go_uncaptured(pytester: pytest.Pytester,
                                                     mode: str) -> None:
    args = _session(pytester)
    result = pytester.runpytest(*args, f"--tom-item-capture={mode}")
    result.assert_outcomes(passed=7)
    lines = result.outlines
    every = {(f, q) for f, qs in ITEMS.items() for q in qs}
    if mode == "pytest":  # every phase captured: nothing of a passing test is shown
        assert not [ln for ln in lines if "-OUT " in ln], lines
    else:
        # set-up: captured for each file's first item (collectors above it are set up then)
        assert _shown(lines, "SETUP-OUT") == {(f, q) for f, qs in ITEMS.items()
                                              for q in qs[1:]}
        assert _shown(lines, "CALL-OUT") == every
        # tear-down: captured for each file's last item (finalizers above it run then)
        assert _shown(lines, "TEARDOWN-OUT") == {(f, q) for f, qs in ITEMS.items()
                                                 for q in qs[:-1]}
    # the user's code keeps pytest's capture: the session fixture's set-up (in the Python
    # test) and its finalizer (in the last suite item's tear-down)
    assert "SESSION-START" not in result.stdout.str()
    assert "SESSION-END" not in result.stdout.str()


def test_a_failure_still_shows_what_its_captured_phases_printed(
        pytester: pytest.Pytester) -> None:
    args = _session(pytester, wrong=0)  # the first item of each file is answered wrongly
    result = pytester.runpytest(*args, "-rf")
    result.assert_outcomes(passed=5, failed=2)
    out = result.stdout.str()
    # each failing item is its file's first: its set-up was captured and is shown with it
    assert out.count("Captured stdout setup") == 2, out
    result.stdout.fnmatch_lines(["*Captured stdout setup*", "SETUP-OUT a.tom.yaml q00000"])
    assert "ERROR" not in out  # pytest's logging plugin saw matching phases


def test_under_xdist_every_phase_runs_and_nothing_errors(pytester: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    args = _session(pytester, wrong=1)
    result = pytester.runpytest(*args, "-n", "2", "--tom-report=r.json")
    result.assert_outcomes(passed=5, failed=2)
    assert (pytester.path / "r.json").exists()


LATE_CONFTEST = """\
from pathlib import Path


def pytest_runtest_setup(item):
    with open(Path(__file__).parent.parent / "seen.txt", "a") as fh:
        fh.write(item.nodeid + "\\n")
"""


def test_a_conftest_of_another_folder_never_runs_for_suite_items(
        pytester: pytest.Pytester) -> None:
    """pytest leaves out a conftest's hooks for items outside its folder, also one collected
    after the suite (the item's hooks are not kept from collection time)."""
    pytester.makepyfile(answers=ANSWERS.format(wrong=-1))
    for folder in ("a_other", "c_late"):
        pytester.mkdir(folder)
    (pytester.path / "a_other" / "conftest.py").write_text("def pytest_runtest_setup(item):\n"
                                                           "    pass\n")
    pytester.mkdir("b_suite")
    (pytester.path / "b_suite" / "numbers.tom.yaml").write_text(numbers_suite(3))
    (pytester.path / "c_late" / "conftest.py").write_text(LATE_CONFTEST)
    (pytester.path / "c_late" / "test_late.py").write_text("def test_late():\n    pass\n")
    # no paths given: each folder's conftest is loaded as collection reaches the folder
    result = pytester.runpytest("-p", "no:cacheprovider", "--tom-model=python:answers.py:answer")
    result.assert_outcomes(passed=4)
    assert (pytester.path / "seen.txt").read_text().split() == ["c_late/test_late.py::test_late"]
