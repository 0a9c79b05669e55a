"""The per-process state of a run, the one object kept in `config.stash`: options,
settings, the backend, the runner, the item engine, the gates, the xdist look-ahead
and (on the controller) the item records."""

from __future__ import annotations

import os
import time
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import pytest

from pytest_tom import families
from pytest_tom.backends import BackendSpecError
from pytest_tom.backends.base import SamplingParams
from pytest_tom.core.option_table import TomOptions
from pytest_tom.core.settings import Settings
from pytest_tom.engine.answer_length import header_text
from pytest_tom.engine.item import ItemEngine
from pytest_tom.engine.runner import Runner
from pytest_tom.engine.shards import Shard, ShardError, resolve_shard
from pytest_tom.engine.suite_names import SuiteNames
from pytest_tom.families.base import ScoringContext
from pytest_tom.plugin.own_model import make_backend
from pytest_tom.plugin.stash import STASH_KEY, get_session
from pytest_tom.pytest_compat import is_xdist_worker

if TYPE_CHECKING:
    from pytest_tom.backends.base import Backend, SamplingParams
    from pytest_tom.engine.runner import Runner
    from pytest_tom.gates.evaluate import GateState
    from pytest_tom.plugin.bundled import BundledSelection
    from pytest_tom.plugin.lookahead import WorkerLookahead
    from pytest_tom.plugin.streaming import StreamedRun

__all__ = ["STASH_KEY", "TomSession", "get_session", "project_dir"]


def project_dir(config: pytest.Config) -> Path:
    """Where the run's own files live (`.tom_cache/`, relative `python:` and `replay:`
    paths): the rootdir, when it is the invocation folder or a project holding it (an ini
    file or setup.py marks it); otherwise the paths given (suites outside the project) made
    pytest choose a rootdir elsewhere, and the invocation folder is the project."""
    root = config.rootpath
    here = config.invocation_params.dir
    if here == root:
        return root
    marked = config.inipath is not None or (root / "setup.py").is_file()
    return root if marked and root in here.parents else here


class TomSession:
    def __init__(self, config: pytest.Config, options: TomOptions):
        self.config = config
        self.options = options
        self.is_worker = is_xdist_worker(config)
        self.settings = Settings(method=options.method, seed=options.seed,
                                 options=MappingProxyType(options.as_dict()))
        self.params: SamplingParams = SamplingParams(
            temperature=options.temperature, max_tokens=options.max_tokens, seed=options.seed,
        )
        backend_options = {**options.as_dict(), "rootdir": str(project_dir(config))}
        try:
            self.backend: Backend = make_backend(config, str(options.model), backend_options)
        except BackendSpecError as exc:
            raise pytest.UsageError(str(exc)) from None
        try:
            self.shard: Shard | None = resolve_shard(options.shard, os.environ)
        except ShardError as exc:
            raise pytest.UsageError(str(exc)) from None
        # this shard and the selection it was cut from (plugin/selection.shard_items); under
        # xdist the workers cut, and the controller reads theirs at the end (hooks)
        self.shard_record: dict[str, Any] | None = None
        self.scoring = ScoringContext(self.settings)
        self.engine = ItemEngine(self.settings, self.params, self.scoring,
                                 family_max_tokens=bool(self.backend.family_max_tokens))
        self._runner: Runner | None = None
        self.records: list[dict[str, Any]] = []
        self.broken_suites: list[str] = []  # node ids of suite files that failed to load
        self.gates: GateState | None = None  # set by gating.configure_gates
        self.bundled: BundledSelection | None = None  # --tom-suite: plugin/bundled.py
        self.lookahead: WorkerLookahead | None = None  # xdist workers: lookahead.py
        self.stream: StreamedRun | None = None  # the default test loop: streaming.py
        self.prices: dict[str, tuple[float, float]] = {}  # --tom-prices, parsed
        self.window_index: dict[int, int] | None = None  # -x/--maxfail: request_phase
        self.deselected = 0  # items of the suites deselected (-k, -m, --lf, --tom-limit)
        self.markers: set[str] = set()  # item markers registered so far (tags, kinds ...)
        self.cache_notes: list[str] = []  # cache lines for the summary (repaired, turned off)

        self.suite_names = SuiteNames()  # suites collected so far (files sharing a name)
        self.notes: list[str] = []  # other lines for the end of the summary
        self.write_errors: list[str] = []  # files asked for that could not be written
        self.results: dict[str, Any] | None = None
        self.started = time.time()
        self.file_patterns = str(options.files).split()

    def use_backend(self, backend: Backend) -> None:
        """Put the model made at the start of the test loop (`fixture:NAME`) in place of its
        stand-in; before any call, so before the runner exists."""
        assert self._runner is None, "the runner was started before the model was made"
        self.backend = backend
        self.engine.family_max_tokens = bool(backend.family_max_tokens)

    @property
    def runner(self) -> Runner:
        if self._runner is None:
            self._runner = Runner.from_options(self.backend, self.options,
                                               project_dir(self.config))
        return self._runner

    def peek_runner(self) -> Runner | None:
        """The runner if one was started (never starts one)."""
        return self._runner

    def close(self) -> None:
        if self._runner is not None:
            self._runner.close()

    def max_tokens_text(self) -> str:
        """The answer length of the header: the option, the families' defaults, or the
        backend's own."""
        if self.params.max_tokens is not None:
            return f"max_tokens {self.params.max_tokens}"
        if not self.backend.family_max_tokens:
            return "max_tokens: the backend's default"

        return header_text([families.get(n) for n in families.BUILTIN], self.settings.method)

    def describe_settings(self) -> dict[str, Any]:
        """Settings fit for reports and headers: no secrets (keys are never options)."""
        return {
            "model": self.backend.describe(),
            "backend": self.backend.identity(),
            "method": self.settings.method,
            "seed": self.settings.seed,
            "temperature": self.params.temperature,
            "max_tokens": self.params.max_tokens,  # None: per family (openai) or the backend's
            "answer_length": self.max_tokens_text(),  # what was sent, in words
            "concurrency": self.options.concurrency,
            **self._recorded_extras(),
        }

    def _recorded_extras(self) -> dict[str, Any]:
        """What a report needs beyond the core settings to be scored again from its records
        (`pytest-tom merge`): family options that differ from their defaults, and the
        shard. Absent when there is nothing to say, so unsharded default runs keep their
        report as it was."""
        out: dict[str, Any] = {}
        changed = {o.name: self.options.family.get(o.name)
                   for o in families.declared_options()
                   if self.options.family.get(o.name, o.default) != o.default}
        if changed:
            out["options"] = changed
        if self.shard_record is not None:
            out["shard"] = self.shard_record
        return out
