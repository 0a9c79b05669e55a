"""The repository's own model: `--tom-model` specs answered by the `pytest_tom_backend` hook
(a `conftest.py` or a plugin) and `--tom-model=fixture:NAME` (a session fixture).

Both give an answerer object (`backends/base.Answerer`) that runs through the same runner
as every backend (`backends/in_process.py`). The object is made once per process that
makes model calls: in a plain run, in each xdist worker; never on the xdist controller
(it makes no calls: it shows the spec and "made in each xdist worker"), never per item
or per thread.

* The hook is called while pytest configures (so that a spec nobody answers is a usage
  error before anything runs); it is asked only for specs that name no built-in or
  registered backend.
* A fixture can only be made inside pytest's setup machinery: at the start of the test
  loop a probe item requesting the fixture is set up (under the first benchmark item's
  collector, so the conftest fixtures visible to the suites are visible to it) and torn
  down to the session level, which keeps the session fixture alive until pytest
  finalizes it after the last item. Only public pytest API is used for this
  (`pytest.Function(callobj=...)`, the runtest setup/teardown hooks), and the item's
  fixture values through `pytest_compat.fixture_value`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import pytest

from pytest_tom.backends import BackendSpecError, backend_kinds, create_backend
from pytest_tom.backends.base import (
    Backend,
    BackendError,
    BackendIdentity,
    ModelReply,
    ModelRequest,
)
from pytest_tom.backends.in_process import AnswererError, InProcessBackend
from pytest_tom.backends.options import BackendOptions
from pytest_tom.core.option_table import TomOptions
from pytest_tom.items.item import ItemEngine
from pytest_tom.pytest_compat import (
    collected_items,
    fixture_value,
    missing_fixture,
    on_xdist_controller,
)

FIXTURE = "fixture"
HOOK = "pytest_tom_backend"


class Deferred(Backend):
    """Stands for a model made elsewhere (xdist workers) or later (a fixture, at the start
    of the test loop): it names the spec and never answers (`ModelSlot.deferred`)."""

    def __init__(self, spec: str, why: str):
        self.name, _, self.model = spec.partition(":")
        self.spec = spec
        self.why = why

    def describe(self) -> str:
        return self.spec

    def details(self) -> str:
        return self.why

    def identity(self) -> BackendIdentity:
        return {"backend": self.name, "model": self.spec}

    async def acomplete(self, request: ModelRequest) -> ModelReply:
        raise BackendError(f"{self.spec}: {self.why}; this process makes no model calls")


class ModelSlot:
    """The run's model and the item engine made for it (`RunContext.backend`, `.engine`).

    Filled at configure time with what `make_backend` gives. For `--tom-model=fixture:NAME`
    that is a stand-in (`Deferred`): the fixture can only be made inside pytest's setup
    machinery, so `resolve_fixture` puts the model in its place at the start of the test
    loop (`settle`), once, and the item engine is made again for it (its answer lengths
    depend on the backend). The first call seals the slot (`seal`: the runner is made from
    its backend); a model can never change under a runner.
    """

    def __init__(self, backend: Backend, engine_for: Callable[[Backend], ItemEngine],
                 options: BackendOptions | None = None):
        self._engine_for = engine_for
        self.options = options or BackendOptions()  # what the model was (or is) made with
        self._backend = backend
        self._engine = engine_for(backend)
        self._sealed = False

    @property
    def backend(self) -> Backend:
        return self._backend

    @property
    def engine(self) -> ItemEngine:
        return self._engine

    @property
    def deferred(self) -> bool:
        """The model is made elsewhere (xdist workers) or later (a fixture): a stand-in
        holds its place, which names it and never answers."""
        return isinstance(self._backend, Deferred)

    def settle(self, backend: Backend) -> None:
        """Put the model made at the start of the test loop in place of its stand-in."""
        if not isinstance(self._backend, Deferred):
            raise RuntimeError(f"the model {self._backend.describe()} is made already")
        if self._sealed:
            raise RuntimeError("the runner was started before the model was made")
        self._backend = backend
        self._engine = self._engine_for(backend)

    def seal(self) -> Backend:
        """The backend the runner is made from; the slot does not change after this."""
        self._sealed = True
        return self._backend


def as_backend(obj: Any, spec: str, options: BackendOptions, made_by: str) -> Backend:
    """A Backend as is; anything else as an answerer, through the one adapter of objects
    pytest-tom did not make (`InProcessBackend`; a usage error when it is not one)."""
    if isinstance(obj, Backend):
        return obj
    kind = spec.partition(":")[0] or "model"
    try:
        return InProcessBackend(obj, name=kind, label=spec, spec=spec,
                                batch_size=options.batch_size)
    except AnswererError as exc:
        raise BackendSpecError(f"--tom-model={spec}: {made_by} gave {exc}") from None


def make_backend(config: pytest.Config, spec: str, options: BackendOptions) -> Backend:
    """The backend of `--tom-model=spec` in this process (a usage error when none)."""
    kind, _, rest = spec.partition(":")
    if kind == FIXTURE:
        if not rest.isidentifier():
            raise BackendSpecError(f"--tom-model={spec}: give the name of a session fixture, "
                                   f"e.g. --tom-model=fixture:my_model")
        where = ("made in each xdist worker" if on_xdist_controller(config)
                 else "a session fixture, made at the start of the test loop")
        return Deferred(spec, where)
    if kind in backend_kinds():  # a factory that gave an answerer: adapted as the hook's
        return as_backend(create_backend(spec, options), spec, options,
                          f"the {kind}: backend's factory")
    hook = getattr(config.hook, HOOK)
    if not hook.get_hookimpls():
        return create_backend(spec, options)  # the registry's "unknown backend" message
    if on_xdist_controller(config):
        return Deferred(spec, f"made by the {HOOK} hook in each xdist worker")
    obj = hook(config=config, spec=spec)
    if obj is None:
        places = ", ".join(sorted({impl.plugin_name.rpartition("/")[2] or impl.plugin_name
                                   for impl in hook.get_hookimpls()}))
        raise BackendSpecError(
            f"--tom-model={spec}: no {HOOK} hook answered this spec (implemented in {places}), "
            f"and it names no backend ({', '.join(f'{k}:' for k in backend_kinds())} ...)")
    return as_backend(obj, spec, options, f"the {HOOK} hook")


def _probe(name: str) -> Any:
    """A test function with one parameter, `name`: the fixture is requested by its name."""
    def probe(**_: Any) -> None:
        return None

    probe.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD)])
    return probe


def resolve_fixture(slot: ModelSlot, session: pytest.Session, options: TomOptions) -> None:
    """`--tom-model=fixture:NAME`: make the session fixture now (start of the test loop) and
    put its answerer in place of the stand-in in `slot`. A fixture that cannot be made is a
    usage error (exit 4) naming it."""
    backend = slot.backend
    if (not isinstance(backend, Deferred) or backend.name != FIXTURE
            or on_xdist_controller(session.config) or session.config.getoption("--collect-only")):
        return
    name = backend.model
    parent: Any = session
    first = next((item for item in collected_items(session) if hasattr(item, "spec")), None)
    if first is not None and first.parent is not None:
        parent = first.parent
    probe = pytest.Function.from_parent(parent, name=f"tom-model[{name}]", callobj=_probe(name))
    after = pytest.Function.from_parent(session, name="tom-model-made", callobj=_probe(name))
    try:
        probe.ihook.pytest_runtest_setup(item=probe)
        value = fixture_value(probe, name)
    except pytest.FixtureLookupError as exc:
        what = (f"no fixture named {name!r} is visible from the suites: define it with "
                f"@pytest.fixture(scope=\"session\") in a conftest.py above them or in a plugin"
                if missing_fixture(exc) == name
                else f"it asks for a fixture that is not found: {missing_fixture(exc)!r}")
        pytest.exit(f"--tom-model=fixture:{name}: {what}", returncode=pytest.ExitCode.USAGE_ERROR)
    except Exception as exc:
        first = (str(exc).strip().splitlines() or [""])[0]
        pytest.exit(f"--tom-model=fixture:{name}: the fixture raised {type(exc).__name__}: {first}",
                    returncode=pytest.ExitCode.USAGE_ERROR)
    finally:
        probe.ihook.pytest_runtest_teardown(item=probe, nextitem=after)  # down to the session
    if value is None:
        pytest.exit(f"--tom-model=fixture:{name}: the fixture returned None; return (or yield) "
                    f"the model object", returncode=pytest.ExitCode.USAGE_ERROR)
    try:
        made = as_backend(value, str(options.model), slot.options, f"fixture {name!r}")
    except BackendSpecError as exc:
        pytest.exit(str(exc), returncode=pytest.ExitCode.USAGE_ERROR)
    slot.settle(made)
