"""Every output path is checked before the first request (issue 24, point 2).

`--tom-report`, `--tom-html`, `--tom-markdown`, `--tom-record`,
`--tom-save-baseline` and `--junitxml` given a directory, a folder under a file,
or a folder nobody may write: a usage error (exit 4) naming the option and the
path, and the loopback server saw no request. Before, each of these ran every
item and then said the file was NOT written (or, for `--junitxml`, crashed at
the end). A missing folder is created, as the write at the end would.

The unwritable folder is proven, not chmod-ed: root (CI containers) ignores file
modes, so the tests use `/proc` (no new file there, even for root) and a check
made as `nobody` (a forked child) of a folder that only root may write.
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from chat_server import ChatServer
from runner_support import numbers_suite, respond, tom_args

from pytest_tom.report.atomic import unwritable
from pytest_tom.report.html import missing

OUTPUTS = ("--tom-report", "--tom-html", "--tom-markdown", "--tom-record",
           "--tom-save-baseline", "--junitxml")


def run_with(pytester: pytest.Pytester, server: ChatServer, option: str,
             path: str) -> pytest.RunResult:
    return pytester.runpytest(*tom_args(server, f"{option}={path}"))


@pytest.mark.parametrize("option", OUTPUTS)
def test_a_directory_is_a_usage_error_before_any_request(pytester: pytest.Pytester,
                                                         option: str) -> None:
    pytester.makefile(".tom.yaml", numbers=numbers_suite(3))
    pytester.mkdir("out")
    with ChatServer(respond) as server:
        result = run_with(pytester, server, option, "out")
        assert result.ret == pytest.ExitCode.USAGE_ERROR, result.outlines
        assert server.requests == 0
    if option == "--junitxml":  # pytest's own check of a directory comes first
        result.stderr.fnmatch_lines(["*--junitxml must be a filename, given: out*"])
    else:
        result.stderr.fnmatch_lines([f"*{option} out: is a directory: give a file name*"])


@pytest.mark.parametrize("option", OUTPUTS)
def test_a_folder_under_a_file_or_in_proc_is_a_usage_error(pytester: pytest.Pytester,
                                                            option: str) -> None:
    pytester.makefile(".tom.yaml", numbers=numbers_suite(3))
    pytester.makefile(".txt", notes="a file, not a folder")
    with ChatServer(respond) as server:
        result = run_with(pytester, server, option, "notes.txt/sub/out.file")
        assert result.ret == pytest.ExitCode.USAGE_ERROR, result.outlines
        result.stderr.fnmatch_lines([f"*{option} notes.txt/sub/out.file: *notes.txt is a file, "
                                     f"not a folder*"])
        result = run_with(pytester, server, option, "/proc/tom-out.file")  # root cannot either
        assert result.ret == pytest.ExitCode.USAGE_ERROR, result.outlines
        result.stderr.fnmatch_lines([f"*{option} /proc/tom-out.file: its folder /proc cannot "
                                     f"be written*"])
        assert server.requests == 0


def test_every_problem_at_once_and_a_missing_folder_is_created(pytester: pytest.Pytester) -> None:
    pytester.makefile(".tom.yaml", numbers=numbers_suite(3))
    pytester.mkdir("out")
    with ChatServer(respond) as server:
        result = pytester.runpytest(*tom_args(server, "--tom-report=out", "--tom-record=out",
                                              "--junitxml=/proc/j.xml"))
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        assert server.requests == 0
        result.stderr.fnmatch_lines(["*--tom-report out: is a directory*",
                                     "*--tom-record out: is a directory*",
                                     "*--junitxml /proc/j.xml: its folder /proc cannot be written*"])
        outputs = [f"{opt}=new/{i}/f" for i, opt in enumerate(OUTPUTS)
                   if opt != "--tom-html" or _html_extra()]
        result = pytester.runpytest(*tom_args(server, *outputs))
        assert server.requests == 3
    # --tom-save-baseline among the outputs: report mode, the wrong answer is an xfail
    result.assert_outcomes(passed=2, xfailed=1)
    for i, opt in enumerate(OUTPUTS):
        if opt != "--tom-html" or _html_extra():
            assert (pytester.path / "new" / str(i) / "f").is_file(), opt


def _html_extra() -> bool:
    return not missing()


def _as_nobody(path: str, out: Any) -> None:
    os.setuid(65534)  # root ignores file modes: be nobody in this forked child
    out.put(str(unwritable(path)))


@pytest.mark.skipif(not hasattr(os, "fork") or os.getuid() != 0,
                    reason="drops root's privileges in a forked child (modes do not stop root)")
def test_a_read_only_folder_for_an_unprivileged_user() -> None:
    base = Path(tempfile.mkdtemp(prefix="tom-out-"))  # outside root's private pytest folder
    try:
        base.chmod(0o755)
        (base / "locked").mkdir(mode=0o755)  # root's: nobody may not add a file
        ctx = multiprocessing.get_context("fork")
        out = ctx.Queue()
        proc = ctx.Process(target=_as_nobody, args=(str(base / "locked" / "r.json"), out))
        proc.start()
        try:
            why = out.get(timeout=60)
        finally:
            proc.join(10)
        assert why == f"its folder {base / 'locked'} cannot be written (Permission denied)"
        assert list((base / "locked").iterdir()) == []  # no probe left behind
        assert unwritable(base / "locked" / "r.json") is None  # root may
    finally:
        shutil.rmtree(base)


def test_paths_from_the_ini_file_are_relative_to_the_rootdir(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """As pytest's cache_dir: `tom_report` (and every output and baseline path of the ini)
    goes to the rootdir, wherever pytest runs from; the command line's paths stay relative
    to the current folder."""
    pytester.makeini("[pytest]\ntom_report = out/ini.json\ntom_markdown = out/ini.md\n")
    sub = pytester.mkdir("sub")
    answers = pytester.makepyfile(tom_answers="def answer(req):\n    return 'a)'\n")
    suite = Path(__file__).resolve().parents[1] / "suites" / "generic"
    shutil.copy(suite / "classic-false-belief.tom.yaml", sub / "classic.tom.yaml")
    monkeypatch.chdir(sub)
    result = pytester.runpytest_subprocess(f"--tom-model=python:{answers}:answer",
                                           "--tom-limit=3", "-p", "no:cacheprovider")
    assert result.ret == 1
    assert (pytester.path / "out" / "ini.json").is_file()
    assert (pytester.path / "out" / "ini.md").is_file()
    assert not (sub / "out").exists()
    result.stdout.fnmatch_lines(["tom report: ../out/ini.json"])
    here = pytester.runpytest_subprocess(f"--tom-model=python:{answers}:answer", "--tom-limit=3",
                                         "-p", "no:cacheprovider", "--tom-report=cli.json")
    assert here.ret == 1 and (sub / "cli.json").is_file()
