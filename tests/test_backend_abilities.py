"""What a backend can do is one typed description (`BackendAbilities`), read once by the
runner, and a backend is made with typed options (`BackendOptions`) whose defaults are the
option table's. Unit tests: no server, no pytest run."""

from __future__ import annotations

import ast
import asyncio
from dataclasses import fields
from pathlib import Path

import pytest
from conftest import REPO

from pytest_tom.asking.runner import Runner
from pytest_tom.backends import create_backend
from pytest_tom.backends.base import (
    Backend,
    BackendAbilities,
    ModelReply,
    ModelRequest,
    SamplingParams,
)
from pytest_tom.backends.in_process import InProcessBackend
from pytest_tom.backends.local import LocalBackend
from pytest_tom.backends.openai_api.connect import DEFAULT_CONNECT_TIMEOUT
from pytest_tom.backends.options import BackendOptions
from pytest_tom.backends.replay import ReplayBackend
from pytest_tom.core.option_table import TomOptions, build_options

PACKAGE = REPO / "pytest_tom"
# the one module that reads optional attributes of objects pytest-tom did not make
ADAPTER = PACKAGE / "backends" / "in_process.py"


def test_each_builtin_backend_declares_what_it_can_do() -> None:
    one = create_backend("openai:m", BackendOptions(base_url="http://127.0.0.1:9/v1"))
    assert one.abilities == BackendAbilities(cacheable=True, server=True,
                                             family_max_tokens=True, warms=True,
                                             opens_connections=True)
    pool = create_backend("openai:m",
                          BackendOptions(base_url="http://127.0.0.1:9/v1 http://127.0.0.1:8/v1"))
    assert pool.abilities == BackendAbilities(cacheable=True, server=True, endpoints=2,
                                              family_max_tokens=True, warms=True,
                                              opens_connections=True)
    assert ReplayBackend.abilities == BackendAbilities(recorded=True)
    assert LocalBackend.abilities == BackendAbilities(cacheable=True, family_max_tokens=True)


def test_the_adapter_describes_an_answerer_once() -> None:
    def plain(request: ModelRequest) -> str:
        return "yes"

    assert InProcessBackend(plain, name="python", label="m:plain").abilities == BackendAbilities(
        answerer=True, one_at_a_time=True)

    class Batching:
        batch_size = 4
        family_max_tokens = True

        def identity(self) -> str:
            return "batching rev 1"

        def answer_batch(self, requests: list[ModelRequest]) -> list[str]:
            return ["yes"] * len(requests)

    model = Batching()
    backend = InProcessBackend(model, name="python", label="m:model")
    assert backend.abilities == BackendAbilities(answerer=True, cacheable=True,
                                                 family_max_tokens=True, batch_size=4,
                                                 one_at_a_time=True)
    model.batch_size = 64  # read once, when the backend was made
    assert backend.abilities.in_flight(2) == 8  # two batches of 4
    assert InProcessBackend(model, name="python", label="m:model",
                            batch_size=1).abilities.batch_size == 1  # answer_batch only


@pytest.mark.parametrize(("abilities", "asked", "in_flight"), [
    (BackendAbilities(), 16, 16),
    (BackendAbilities(one_at_a_time=True), 16, 1),
    (BackendAbilities(batch_size=8), 4, 16),
    (BackendAbilities(batch_size=8, one_at_a_time=True), 32, 32),
])
def test_in_flight(abilities: BackendAbilities, asked: int, in_flight: int) -> None:
    assert abilities.in_flight(asked) == in_flight


def test_a_flat_declaration_of_before_is_refused_with_the_fix() -> None:
    with pytest.raises(TypeError, match=r"declares cacheable, server: .*"
                                        r"abilities = BackendAbilities\(cacheable=\.\.\., "
                                        r"server=\.\.\.\)"):
        class Old(Backend):
            cacheable = True
            server = True

    with pytest.raises(TypeError, match="declares in_flight"):
        class Batches(Backend):
            def in_flight(self, asked: int) -> int:
                return asked


def test_a_warm_up_of_its_own_is_declared_by_itself() -> None:
    class Warming(Backend):
        abilities = BackendAbilities(cacheable=True)

        async def warm(self) -> None:
            pass

    class Plain(Backend):
        pass

    assert Warming.abilities == BackendAbilities(cacheable=True, warms=True)
    assert Plain.abilities == BackendAbilities()


def test_the_runner_reads_the_description_once_not_per_request() -> None:
    class Counted(Backend):
        reads = 0
        warmed = 0

        @property
        def abilities(self) -> BackendAbilities:  # type: ignore[override]
            type(self).reads += 1
            return BackendAbilities(cacheable=True, server=True, warms=True)

        async def warm(self) -> None:
            type(self).warmed += 1

        async def acomplete(self, request: ModelRequest) -> ModelReply:
            await asyncio.sleep(0)
            return ModelReply(text=f"ok:{request.prompt}")

    backend = Counted()
    runner = Runner(backend, concurrency=8)
    try:
        futures = []
        for i in range(20):
            request = ModelRequest(messages=[{"role": "user", "content": f"p{i}"}],
                                   params=SamplingParams())
            futures.append(runner.submit(f"k{i}", lambda rs, r=request: None if rs else r))
        assert [f.result(10).final for f in futures] == [f"ok:p{i}" for i in range(20)]
    finally:
        runner.close()
    assert Counted.reads == 1 and Counted.warmed == 1
    assert runner.calls is not None  # cacheable: behind the shared calls
    assert runner.limiter.limit <= 8 and runner.early_stop.rules  # a server's rules


def test_the_backend_options_take_the_tables_defaults() -> None:
    table = TomOptions()
    for f in fields(BackendOptions):
        if f.name != "rootdir":
            assert f.default == getattr(table, f.name), f.name
    assert BackendOptions().timeout == 120.0 and BackendOptions().local_ctx == 8192
    assert table.connect_timeout == DEFAULT_CONNECT_TIMEOUT  # the request process's literal


def test_the_backend_options_are_built_once_from_the_run_options(tmp_path: Path) -> None:
    options = build_options({"base_url": "http://a:1/v1 http://b:2/v1", "timeout": "30",
                             "think_tags": "off", "batch_size": "4", "threads": "2"})
    made = BackendOptions.from_options(options, rootdir=tmp_path)
    assert made == BackendOptions(base_url=("http://a:1/v1", "http://b:2/v1"), timeout=30.0,
                                  think_tags="off", batch_size=4, threads=2,
                                  rootdir=str(tmp_path))
    assert made.tags is None  # off: a thought only from the server's field
    backend = create_backend("openai:m", made)
    assert [ep.backend.timeout for ep in backend.endpoints] == [30.0, 30.0]


def _calls(path: Path) -> list[ast.Call]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [node for node in ast.walk(tree) if isinstance(node, ast.Call)]


def test_no_backend_is_probed_for_attributes() -> None:
    """No getattr/hasattr whose object is a backend, outside the answerer adapter."""
    found = []
    for path in PACKAGE.rglob("*.py"):
        if path == ADAPTER:
            continue
        for call in _calls(path):
            if isinstance(call.func, ast.Name) and call.func.id in ("getattr", "hasattr") \
                    and call.args and "backend" in ast.unparse(call.args[0]).lower():
                found.append(f"{path.relative_to(REPO)}:{call.lineno}")
    assert found == []


def test_no_backend_reads_an_option_by_string_key() -> None:
    found = []
    for path in (PACKAGE / "backends").rglob("*.py"):
        for call in _calls(path):
            func = call.func
            if isinstance(func, ast.Attribute) and func.attr == "get" \
                    and "option" in ast.unparse(func.value) \
                    and call.args and isinstance(call.args[0], ast.Constant):
                found.append(f"{path.name}:{call.lineno}")
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += [f"{path.name}:{node.lineno}" for node in ast.walk(tree)
                  if isinstance(node, ast.Subscript) and "option" in ast.unparse(node.value)
                  and isinstance(node.slice, ast.Constant)]
    assert found == []


def test_a_registered_factory_that_gives_an_answerer_is_adapted(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """An entry point's factory may give an object not derived from Backend: the one
    adapter describes it (or says, naming the spec, why it is no answerer)."""
    from pytest_tom import backends
    from pytest_tom.plugin.own_model import make_backend

    class Answers:
        def identity(self) -> str:
            return "answers 1"

        def answer(self, request: ModelRequest) -> str:
            return "yes"

    made = {"answers": Answers(), "nothing": object()}
    monkeypatch.setattr(backends.REGISTRY, "targets", lambda: ["answers", "nothing"])
    monkeypatch.setattr(backends.REGISTRY, "load",
                        lambda kind: lambda rest, options: made[kind])
    backend = make_backend(None, "answers:x", BackendOptions())  # type: ignore[arg-type]
    assert backend.abilities == BackendAbilities(answerer=True, cacheable=True,
                                                 one_at_a_time=True)
    with pytest.raises(backends.BackendSpecError,
                       match=r"--tom-model=nothing:x: the nothing: backend's factory gave "
                             r"nothing:x: object is not an answerer"):
        make_backend(None, "nothing:x", BackendOptions())  # type: ignore[arg-type]
