"""Reliability under faults: slow servers, dead runs' claims, hostile answerers and suites,
broken caches and disks, interrupts, bad option values.

Each test reproduces one failure of issue 14 with a fault injected on purpose
(the loopback chat server, a damaged cache file, a Python answerer that exits
or hangs ...) and is bounded in time: a regression fails, it does not hang.
"""

from __future__ import annotations

import fnmatch
import multiprocessing
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest
from chat_server import ChatServer
from conftest import load_report
from runner_support import Echo, cached_rows, numbers_suite, one_call, respond, tom_args

from pytest_tom.asking.cache import PROCESS, ResponseCache, process_start, request_key
from pytest_tom.asking.runner import Runner
from pytest_tom.backends.base import ModelRequest, SamplingParams


# -- 1. --tom-timeout bounds a whole attempt --------------------------------------------------
def test_a_trickling_server_times_out_after_the_timeout_not_per_read(
        pytester: pytest.Pytester) -> None:
    pytester.makefile(".tom.yaml", numbers=numbers_suite(1))
    with ChatServer(respond, trickle=0.05) as server:  # ~300 bytes: 15 s for the whole body
        start = time.monotonic()
        result = pytester.runpytest(*tom_args(server, "--tom-timeout=2", "--tom-retries=0",
                                              "--tom-report=r.json"))
        elapsed = time.monotonic() - start
    result.assert_outcomes(errors=1)
    item = load_report(pytester.path / "r.json")["items"][0]
    assert item["outcome"]["error"] == "request_failed"
    assert "timed out after 2s (--tom-timeout)" in item["outcome"]["detail"]
    assert elapsed < 12  # not the 15 s the body takes (a loose bound: only "no hang")


# -- 8. option values that cannot work are usage errors before anything runs -----------------
def test_impossible_numbers_are_usage_errors(pytester: pytest.Pytester) -> None:
    pytester.makefile(".tom.yaml", numbers=numbers_suite(2))
    runs = [  # every problem of a command line is reported at once
        (["--tom-timeout=0", "--tom-temperature=nan", "--tom-max-tokens=0", "--tom-deadline=inf"],
         ["--tom-timeout 0.0: * must be a positive number", "--tom-deadline inf*",
          "--tom-temperature nan: must be a finite number*", "--tom-max-tokens 0: must be at least 1*"]),
        (["--tom-timeout=nan", "--tom-temperature=-0.5", "--tom-max-tokens=-3"],
         ["--tom-timeout nan*", "--tom-temperature -0.5*", "--tom-max-tokens -3*"]),
        (["--tom-timeout=-1", "--tom-temperature=inf"], ["--tom-timeout -1.0*", "--tom-temperature inf*"]),
    ]
    with ChatServer(respond) as server:
        for options, messages in runs:
            result = pytester.runpytest(*tom_args(server, *options))
            assert result.ret == pytest.ExitCode.USAGE_ERROR, options
            err = result.stderr.str().replace("ERROR: ", "")
            for words in messages:
                assert any(fnmatch.fnmatch(part.strip(), words + "*") for part in err.split(";")), (words, err)
        assert server.requests == 0


# -- 3. a Python answerer that exits, interrupts or hangs ----------------------------------
HOSTILE_ANSWERER = """\
import sys, time

def answer(request):
    prompt = request.prompt
    if "number 1 " in prompt:
        sys.exit(3)
    if "number 2 " in prompt:
        raise KeyboardInterrupt
    if "number 3 " in prompt:
        time.sleep(3600)  # hangs: abandoned at the deadline, and must not keep the process alive
    return "Yes." if int(prompt.split("number ")[1].split()[0]) % 2 == 0 else "No."
"""


def test_an_answerer_that_exits_interrupts_or_hangs_errors_its_item_only(
        pytester: pytest.Pytester) -> None:
    pytester.makefile(".tom.yaml", numbers=numbers_suite(6))
    pytester.makepyfile(hostile=HOSTILE_ANSWERER)
    # a subprocess: the test is that the process ends (pytester kills it after 60 s)
    result = pytester.runpytest_subprocess("--tom-model=python:hostile:answer", "--tom-deadline=2",
                                           "-p", "no:cacheprovider", "--tom-report=r.json",
                                           timeout=60)
    result.assert_outcomes(passed=3, errors=3)
    details = {r["item"]["id"]: r["outcome"]["detail"]
               for r in load_report(pytester.path / "r.json")["items"] if r["outcome"]["error"]}
    assert "hostile:answer raised SystemExit: 3" in details["sc0000::q00001"]
    assert "hostile:answer raised KeyboardInterrupt" in details["sc0000::q00002"]
    assert "deadline of 2s" in details["sc0000::q00003"]


def test_an_async_answerer_raising_system_exit_is_an_item_error() -> None:
    from pytest_tom.backends.in_process import InProcessBackend

    async def leave(request: ModelRequest) -> str:
        raise SystemExit("bye")

    runner = Runner(InProcessBackend(leave, name="python", label="mod:leave"), retries=0)
    request = ModelRequest(messages=[{"role": "user", "content": "hi"}], params=SamplingParams())
    try:
        comp = runner.submit("k", lambda rs: None if rs else request).result(timeout=30)
    finally:
        runner.close()
    assert comp.error is not None and comp.error.message == "mod:leave raised SystemExit: bye"


# -- 5. cache faults: one line naming the file and the fix, then no cache, never a crash -------
def damage(cache_dir: Path, how: str) -> Path:
    """Put a broken cache file in `cache_dir` (`how`: garbage, truncated, foreign, directory)."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    db = cache_dir / "responses.sqlite3"
    if how == "garbage":
        db.write_bytes(b"this is not a database, just some text " * 200)
    elif how == "truncated":
        good = ResponseCache(cache_dir)
        for i in range(200):
            good.put(f"k{i}", "an answer " * 50, None, "m")
        good.close()
        data = db.read_bytes()
        db.write_bytes(data[: len(data) // 3])
    elif how == "foreign":
        con = sqlite3.connect(db)
        con.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, amount REAL)")
        con.commit()
        con.close()
    elif how == "directory":
        db.mkdir()
    return db


def ask_through(cache: ResponseCache, prompts: list[str]) -> tuple[Runner, dict[str, Any]]:
    backend = Echo()
    runner = Runner(backend, cache=cache, retries=0, poll=0.01)
    try:
        futures = {p: runner.submit(p, one_call(p)) for p in prompts}
        answers = {p: f.result(timeout=30) for p, f in futures.items()}
    finally:
        runner.close()
    return runner, answers


@pytest.mark.parametrize("how", ["garbage", "truncated", "foreign", "directory"])
def test_a_broken_cache_file_turns_the_cache_off_with_one_line(tmp_path: Path, how: str) -> None:
    db = damage(tmp_path / "c", how)
    for mode in ("on", "read", "write"):
        runner, answers = ask_through(ResponseCache(tmp_path / "c", mode=mode), ["p1", "p2"])
        assert {p: c.final for p, c in answers.items()} == {"p1": "echo:p1", "p2": "echo:p2"}
        assert not any(c.error for c in answers.values())
        problem = runner.cache_problem
        assert problem is not None and str(db) in problem and "--tom-cache off" in problem, mode
        assert "\n" not in problem
        if how == "directory":
            assert "is a directory" in problem
        elif how != "truncated" or mode != "read":  # a truncated file may still open read-only
            assert "delete it or run once with --tom-cache-clear" in problem


def test_a_full_disk_keeps_the_answer_and_is_not_masked_by_rollback(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    pages = cache._db.execute("PRAGMA page_count").fetchone()[0]
    cache._db.execute(f"PRAGMA max_page_count = {pages}")  # the next page: SQLITE_FULL
    runner, answers = ask_through(cache, ["x" * 20000])
    comp = answers["x" * 20000]
    assert comp.error is None and comp.final == "echo:" + "x" * 20000
    assert "the disk is full (database or disk is full)" in runner.cache_problem
    assert "rollback" not in runner.cache_problem


def _unprivileged(path: str, mode: str, out: Any) -> None:
    if os.getuid() == 0:
        os.setuid(65534)  # root ignores file modes: be nobody in this forked child
    runner, answers = ask_through(ResponseCache(Path(path), mode=mode), ["p1", "p2"])
    out.put(f"{sorted(c.final for c in answers.values())} {runner.cache_problem}")


def run_unprivileged(path: Path, mode: str) -> str:
    """Use a read-only cache in a process that file permissions apply to."""
    ctx = multiprocessing.get_context("fork")
    out = ctx.Queue()
    proc = ctx.Process(target=_unprivileged, args=(str(path), mode, out))
    proc.start()
    try:
        return str(out.get(timeout=60))
    finally:
        proc.join(10)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="POSIX permissions, fork")
def test_a_read_only_cache_folder_or_file(tmp_path: Path) -> None:
    base = Path(tempfile.mkdtemp(prefix="tom-ro-"))  # outside root's private pytest folder
    try:
        base.chmod(0o755)
        full = ResponseCache(base / "c")
        full.put(request_key(Echo().identity(), one_call("p1")([]).messages,
                             SamplingParams().to_dict()), "cached:p1", None, None)
        full.close()
        (base / "c" / "responses.sqlite3").chmod(0o444)
        out = run_unprivileged(base / "c", "on")  # a read-only file
        assert "['echo:p1', 'echo:p2']" in out and "cannot be written" in out
        for name in ("responses.sqlite3-wal", "responses.sqlite3-shm"):
            (base / "c" / name).unlink(missing_ok=True)
        (base / "c").chmod(0o555)  # a read-only folder, also for --tom-cache read
        out = run_unprivileged(base / "c", "on")
        assert "['echo:p1', 'echo:p2']" in out and "cannot be written" in out
        assert "--tom-cache off" in out
        assert run_unprivileged(base / "c", "read") == "['cached:p1', 'echo:p2'] None"
    finally:
        (base / "c").chmod(0o755)
        shutil.rmtree(base)


def test_broken_caches_in_a_run_one_line_and_every_answer_scored(pytester: pytest.Pytester) -> None:
    pytester.makefile(".tom.yaml", numbers=numbers_suite(8))
    damage(pytester.path / ".tom_cache", "garbage")
    damage(pytester.path / "dir_cache", "directory")
    with ChatServer(respond) as server:
        for extra in ([], ["--tom-cache-dir=dir_cache", "-n", "2"], ["--tom-cache=read"]):
            result = pytester.runpytest(*tom_args(server), *extra)
            result.assert_outcomes(passed=6, failed=2)  # every answer asked and scored
            lines = [ln for ln in result.outlines if ln.startswith("tom cache:")]
            assert len(lines) == 1, (extra, result.outlines)
            assert "--tom-cache off" in lines[0] and "INTERNALERROR" not in result.stdout.str()
        assert server.requests == 3 * 8
        # --tom-cache-clear repairs the garbage file: this run fills a new cache
        result = pytester.runpytest(*tom_args(server, "--tom-cache-clear"))
        result.stdout.fnmatch_lines(["tom cache: *responses.sqlite3 was not a usable cache*"
                                     "deleted by --tom-cache-clear*"])
        assert server.requests == 4 * 8
    assert cached_rows(pytester.path / ".tom_cache") == 8


# -- 2. a dead run's claims are taken over, even when the new process has its pid -------------
def test_claims_know_a_dead_run_from_a_live_one_with_the_same_pid(tmp_path: Path) -> None:
    ours = ResponseCache(tmp_path)

    def claimed_by(key: str, pid: int, process: str, pstart: str) -> None:
        ours._db.execute("INSERT INTO claims (key, owner, host, pid, started, process, pstart, "
                         "boot) VALUES (?, 'other', ?, ?, ?, ?, ?, ?)",
                         (key, ours.host, pid, time.time(), process, pstart, PROCESS.boot))

    # a killed run that had this very pid (every run is PID 1 in a container)
    claimed_by("same-pid", os.getpid(), "a-dead-run", "1")
    assert ours.claim("same-pid")
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        # a live process is waited for; a later process that got a dead one's pid is not
        claimed_by("live", sleeper.pid, "the-sleeper", process_start(sleeper.pid))
        claimed_by("reused-pid", sleeper.pid, "a-dead-run", "1")
        assert not ours.claim("live")
        assert ours.claim("reused-pid")
    finally:
        sleeper.kill()
        sleeper.wait()
    assert ours.claim("live")  # it is gone now
    # another runner of this very process: alive (its claim is respected)
    sibling = ResponseCache(tmp_path)
    assert sibling.claim("mine") and not ours.claim("mine")
    sibling.close()
    ours.close()


# -- 4. Ctrl-C or a crash never leaves an empty report over a good one ----------------------
RIGHT_ANSWERER = """\
def answer(request):
    n = int(request.prompt.split("number ")[1].split()[0])
    return "Yes." if n % 2 == 0 else "No."
"""
INTERRUPT_AT = """\
def pytest_runtest_call(item):
    if item.name == {name!r}:
        raise KeyboardInterrupt
"""


def test_an_interrupted_run_marks_its_report_and_is_never_a_baseline(
        pytester: pytest.Pytester) -> None:
    pytester.makefile(".tom.yaml", numbers=numbers_suite(6))
    pytester.makepyfile(right=RIGHT_ANSWERER)
    args = ["--tom-model=python:right:answer", "-p", "no:cacheprovider"]
    result = pytester.runpytest(*args, "--tom-report=r.json", "--tom-save-baseline=b.json")
    result.assert_outcomes(passed=6)
    complete = (pytester.path / "b.json").read_text()
    # Ctrl-C at the fourth item: the report holds the three scored, marked interrupted
    pytester.makeconftest(INTERRUPT_AT.format(name="q00003"))
    result = pytester.runpytest(*args, "--tom-report=r.json", "--tom-save-baseline=b.json",
                                no_reraise_ctrlc=True)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    rep = load_report(pytester.path / "r.json")
    assert rep["status"] == "interrupted" and len(rep["items"]) == 3
    assert (pytester.path / "b.json").read_text() == complete  # the baseline is not replaced
    # Ctrl-C before anything was scored: the previous report stays as it was
    pytester.makeconftest(INTERRUPT_AT.format(name="q00000"))
    result = pytester.runpytest(*args, "--tom-report=b.json", no_reraise_ctrlc=True)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert (pytester.path / "b.json").read_text() == complete
    result.stdout.fnmatch_lines(["tom report not written: the run was interrupted before any "
                                 "item was scored (b.json is left as it was)"])
    # an interrupted report is refused as a baseline, before anything runs
    pytester.makeconftest("")
    result = pytester.runpytest(*args, "--tom-baseline=r.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--tom-baseline r.json: the report is of an interrupted run "
                                 "(3 items scored before it stopped): a baseline must be a "
                                 "complete run*"])


# -- 6. a report that cannot be written: the summary, then one line, a non-zero status --------
def test_an_unwritable_report_prints_the_summary_then_one_line(pytester: pytest.Pytester) -> None:
    pytester.makefile(".tom.yaml", numbers=numbers_suite(4))
    # the path is free at the start (checked then: test_output_paths.py) and taken by a
    # directory during the run, as a disk can fill up or a folder change meanwhile
    pytester.makepyfile(right="import os\n" + RIGHT_ANSWERER.replace(
        "def answer(request):\n", "def answer(request):\n    os.makedirs('taken', exist_ok=True)\n"))
    result = pytester.runpytest("--tom-model=python:right:answer", "-p", "no:cacheprovider",
                                "--tom-report=taken", "--tom-save-baseline=taken")
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # every item passed: the files failed
    out = result.stdout.str()
    assert "INTERNALERROR" not in out and "Traceback" not in out
    result.stdout.fnmatch_lines(["*tom totals: 4 items*",
                                 "tom report NOT written to taken: * the path is a directory*",
                                 "tom baseline NOT written to taken: *directory*",
                                 "*4 passed*"])


# -- 9. two files of one suite with the same ids: a collection error, never shared answers ----
def test_two_files_of_one_suite_with_the_same_ids(pytester: pytest.Pytester,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makefile(".tom.yaml", a=numbers_suite(4))
    pytester.makefile(".tom.yaml", b=numbers_suite(4).replace("number ", "number 1"))  # 10..13
    pytester.makefile(".tom.yaml", c=numbers_suite(4).replace("id: sc", "id: other"))  # new ids
    with ChatServer(respond) as server:
        result = pytester.runpytest(*tom_args(server))
        # a and c (one suite over two files: its ids differ) run, b is refused
        result.assert_outcomes(passed=6, failed=2, errors=1)
        result.stdout.fnmatch_lines(["*b.tom.yaml:8:1: item id 'sc0000::q00000' of suite "
                                     "'numbers' is also in *a.tom.yaml (line 8): files that "
                                     "share a suite name need distinct ids; rename the scenario "
                                     "in one of *a.tom.yaml and *b.tom.yaml"])
        assert server.requests == 4  # c asks what a asked: shared, as identical calls are
        # even when both run (the check taken away), each item gets the answer to its question
        from pytest_tom.catalogue.suite_files import SuiteNames

        monkeypatch.setattr(SuiteNames, "add", lambda self, suite: None)
        result = pytester.runpytest(*tom_args(server, "--tom-cache=off"), "a.tom.yaml", "b.tom.yaml")
        result.assert_outcomes(passed=6, failed=2)  # 0 and 10 are answered wrong
        assert server.requests == 4 + 8


# -- 10. no credentials in tracebacks with locals; no terminal escapes from suite text ---------
BUG_IN_A_FAMILY = """\
import pytest_tom.families.generic.family as generic

ORIGINAL = generic.GenericFamily.expand


def expand(self, suite, data, settings, line_of):
    if suite.name == "broken":
        raise RuntimeError("a bug in a family")
    return ORIGINAL(self, suite, data, settings, line_of)


def pytest_configure(config):
    generic.GenericFamily.expand = expand


def pytest_unconfigure(config):
    generic.GenericFamily.expand = ORIGINAL
"""
ESCAPING_SUITE = """\
suite: escapes
family: generic
version: 1
scenarios:
  - id: s1
    context: "Ann leaves.\\e[2J"
    questions:
      - id: q
        ask: "Is the number 1 even?\\e[31m"
        yes_no: "yes"
"""


@pytest.mark.parametrize("transport", [[], ["--tom-transport=httpx"]],
                         ids=["default-transport", "httpx"])
def test_no_secret_in_locals_and_no_escape_in_failures(pytester: pytest.Pytester,
                                                      monkeypatch: pytest.MonkeyPatch,
                                                      transport: list[str]) -> None:
    from pytest_tom.backends.base import RedactedUrl, Secret

    monkeypatch.setenv("OPENAI_API_KEY", "sk-KEY-0123456789")
    pytester.makefile(".tom.yaml", broken=numbers_suite(2, name="broken"), escapes=ESCAPING_SUITE)
    pytester.makeconftest(BUG_IN_A_FAMILY)
    with ChatServer(respond) as server:
        url = server.base_url.replace("http://", "http://ann:PASSWORD-1@")
        # the default transport (aiohttp when installed) must send such a URL too
        result = pytester.runpytest("--tom-model=openai:m", f"--tom-base-url={url}",
                                    *transport, "-p", "no:cacheprovider",
                                    "--full-trace", "-l")
        served = server.requests
    out = result.stdout.str() + result.stderr.str()
    assert served > 0  # the requests reached the server: the credentials did not stop them
    result.assert_outcomes(failed=1, errors=1)
    assert "settings = Settings(" in out and "a bug in a family" in out  # locals were shown
    for secret in ("PASSWORD-1", "sk-KEY-0123456789"):
        assert secret not in out
    assert "\x1b[" not in out and "question: Is the number 1 even?\\x1b[31m" in out
    assert repr(Secret("sk-x")) == "'***'" and Secret("sk-x") == "sk-x"
    assert repr(RedactedUrl("http://a:b@h/v1?k=s")) == "'http://h/v1'"


# -- 7. hostile YAML: refused at once with file:line:col, the good suites still run -----------
def laughs(levels: int = 9) -> str:
    """A "billion laughs" suite: 9 levels of 9 aliases expand to 9**9 values."""
    lines = ["suite: laughs", "family: generic", "version: 1",
             'lol0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"lol{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" for i in range(1, levels + 1)]
    return "\n".join(lines) + "\nscenarios: [*l9]\n"


HOSTILE = {
    "laughs": (laughs(), "laughs.tom.yaml:9:12: aliases expand to more than 100,000 values"),
    "itself": ("suite: itself\nfamily: generic\nversion: 1\nscenarios: &s [*s]\n",
               "itself.tom.yaml:4:16: alias *s refers to a collection that contains it"),
    "deep": ("suite: deep\nfamily: generic\nversion: 1\nscenarios: " + "[" * 5000 + "]" * 5000
             + "\n", "deep.tom.yaml:4:75: nested more than 64 levels deep"),
}
MEMORY_CAP = """\
import resource

resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))  # a regression fails, not the machine
"""


def test_hostile_yaml_is_refused_in_runs_and_in_validate(pytester: pytest.Pytester) -> None:
    for name, (text, _) in HOSTILE.items():
        pytester.makefile(".tom.yaml", **{name: text})
    pytester.makefile(".tom.yaml", good=numbers_suite(2))
    pytester.makepyfile(right=RIGHT_ANSWERER)
    pytester.makeconftest(MEMORY_CAP)
    result = pytester.runpytest_subprocess("--tom-model=python:right:answer", "-p",
                                           "no:cacheprovider", timeout=60)
    result.assert_outcomes(passed=2, errors=3)  # the good suite ran
    for _, message in HOSTILE.values():
        result.stdout.fnmatch_lines([f"*{message}*"])
    code = MEMORY_CAP + "import sys\nfrom pytest_tom.cli import main\nsys.exit(main(sys.argv[1:]))\n"
    out = subprocess.run([sys.executable, "-c", code, "validate", "."], cwd=pytester.path,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 1
    for _, message in HOSTILE.values():
        assert message in out.stderr
    assert "good.tom.yaml: ok" in out.stdout


def test_a_url_with_credentials_picks_httpx_and_never_names_the_password() -> None:
    pytest.importorskip("aiohttp")
    from pytest_tom.backends import BackendSpecError
    from pytest_tom.backends.openai_api.openai_backend import aiohttp_available, pick_transport

    url = "http://ann:PASSWORD-2@127.0.0.1:9/v1"
    assert pick_transport("auto", url) == "httpx"
    assert pick_transport("auto", "http://127.0.0.1:9/v1") == (
        "aiohttp" if aiohttp_available() else "httpx")
    if aiohttp_available():
        with pytest.raises(BackendSpecError) as err:
            pick_transport("aiohttp", url)
        assert "--tom-transport=httpx" in str(err.value) and "PASSWORD-2" not in str(err.value)
