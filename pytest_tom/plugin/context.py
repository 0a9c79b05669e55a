"""The run context: what a run is, built once at configure time and never changed.

Options (resolved: `--tom-items` follows the gates), settings, sampling parameters, the
scoring context, the model and its item engine (`own_model.ModelSlot`), the shard, the
bundled selection, where the run's files go and what a suite file is called. Every
phase (the request phase, the streamed loop, the xdist look-ahead, the gates, the
selection bookkeeping, the records and outputs) reads it and owns its own state
elsewhere; nothing writes to it.

The one part that is not fixed at configure time is said so by its type: the model of
`--tom-model=fixture:NAME` can only be made inside pytest's setup machinery, at the start
of the test loop. Its slot holds a stand-in until then, and `own_model.resolve_fixture`
puts the made model in its place once, before any call (the first call seals it).
"""

from __future__ import annotations

import fnmatch
import time
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

import pytest

from pytest_tom import families
from pytest_tom.asking.answer_length import NO_MAX_TOKENS, header_text
from pytest_tom.asking.reasoning import budget_text, request_fields, shown_fields, thinking_budget
from pytest_tom.backends import BackendSpecError
from pytest_tom.backends.base import Backend, SamplingParams
from pytest_tom.backends.options import BackendOptions
from pytest_tom.core.option_table import TomOptions
from pytest_tom.core.settings import Settings
from pytest_tom.core.sweep import value_options
from pytest_tom.families.base import ScoringContext
from pytest_tom.items.item import ItemEngine
from pytest_tom.items.shards import Shard, ShardError, resolve_shard
from pytest_tom.plugin.own_model import ModelSlot, make_backend
from pytest_tom.plugin.suite_option import BundledSelection
from pytest_tom.pytest_compat import is_xdist_worker
from pytest_tom.results.asked import AskedJSON, asked_block
from pytest_tom.results.run_report import SelectionJSON, SettingsJSON, ShardJSON


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


def run_settings(options: TomOptions) -> Settings:
    """The settings every family reads (method, seed, every option by name)."""
    return Settings(method=options.method, seed=options.seed,
                    options=MappingProxyType(options.as_dict()))


def model_slot(config: pytest.Config, options: TomOptions, settings: Settings) -> ModelSlot:
    """The model of `--tom-model` in this process and the item engine made for it (a usage
    error when no backend answers the spec)."""
    params = SamplingParams(temperature=options.temperature, max_tokens=options.max_tokens,
                            seed=options.seed, fields=request_fields(options))
    scoring = ScoringContext(settings)

    variants = {}
    if options.sweep is not None:  # each value's requests: its params and thought's room
        for point in options.sweep.points(""):
            opts = value_options(options, point)
            variants[point.label] = (SamplingParams(
                temperature=opts.temperature, max_tokens=opts.max_tokens, seed=opts.seed,
                fields=request_fields(opts)), thinking_budget(opts))

    def engine_for(backend: Backend) -> ItemEngine:
        return ItemEngine(settings, params, scoring,
                          family_max_tokens=backend.abilities.family_max_tokens,
                          thinking_tokens=thinking_budget(options), variants=variants)

    backend_options = BackendOptions.from_options(options, rootdir=project_dir(config))
    try:
        return ModelSlot(make_backend(config, str(options.model), backend_options), engine_for,
                         backend_options)
    except BackendSpecError as exc:
        raise pytest.UsageError(str(exc)) from None


def run_shard(options: TomOptions, environ: dict[str, str]) -> Shard | None:
    """`--tom-shard K/N|auto` resolved (a usage error when the CI's variables are wrong)."""
    try:
        return resolve_shard(options.shard, environ)
    except ShardError as exc:
        raise pytest.UsageError(str(exc)) from None


@dataclass(frozen=True)
class RunContext:
    """One run in one process (see the module docstring). Frozen: a phase that needs state
    keeps it in its own object."""

    config: pytest.Config
    options: TomOptions
    settings: Settings
    model: ModelSlot
    shard: Shard | None
    bundled: BundledSelection | None  # --tom-suite: plugin/suite_option.py
    file_patterns: tuple[str, ...]  # --tom-files, and the bundled folder's suites
    is_worker: bool  # an xdist worker (the controller aggregates, workers answer)
    project_dir: Path
    started: float  # when the run was configured (the report's start time)

    @classmethod
    def build(cls, config: pytest.Config, options: TomOptions, settings: Settings,
              model: ModelSlot, shard: Shard | None,
              bundled: BundledSelection | None) -> RunContext:
        patterns = str(options.files).split()
        if bundled is not None:
            patterns.extend(bundled.patterns)
        return cls(config=config, options=options, settings=settings, model=model,
                   shard=shard, bundled=bundled, file_patterns=tuple(patterns),
                   is_worker=is_xdist_worker(config), project_dir=project_dir(config),
                   started=time.time())

    @property
    def backend(self) -> Backend:
        return self.model.backend

    @property
    def engine(self) -> ItemEngine:
        """The steps of an item without pytest (conversation, scoring, record)."""
        return self.model.engine

    @property
    def params(self) -> SamplingParams:
        return self.engine.params

    @property
    def scoring(self) -> ScoringContext:
        """Services a family's scoring shares across items (an embedding model, say)."""
        return self.engine.scoring

    def is_suite_file(self, path: Path) -> bool:
        """Whether `path` is collected as a suite (`--tom-files` patterns, bundled suites)."""
        return any(fnmatch.fnmatch(path.name, p) or fnmatch.fnmatch(str(path), p)
                   for p in self.file_patterns)

    def thought_room(self) -> bool:
        """Whether some call gets room for a thought: the run's, or a sweep value's (then
        the calls carry the families' lengths, even to an answerer that chooses its own)."""
        return bool(self.engine.thinking_tokens
                    or any(room for _, room in self.engine.variants.values()))

    def max_tokens_text(self) -> str:
        """The answer length of the header: the option, else each family's answer length
        (plus the thought's room, asking/reasoning.py), else none sent (an answerer that
        does not ask for the families' lengths chooses its own)."""
        if self.params.max_tokens is not None:
            return f"max_tokens {self.params.max_tokens}"
        if not self.backend.abilities.family_max_tokens and not self.thought_room():
            return NO_MAX_TOKENS
        return budget_text(self.options, header_text([families.get(n) for n in families.BUILTIN],
                                                     self.settings.method))

    def asked(self) -> AskedJSON:
        """The settings that decide what the model is asked, as fields (results/asked.py)."""
        return asked_block(self.options, [families.get(n) for n in families.BUILTIN],
                           self.settings.method,
                           self.backend.abilities.family_max_tokens or self.thought_room())

    def describe_settings(self, shard_record: ShardJSON | None = None,
                          selection_record: SelectionJSON | None = None) -> SettingsJSON:
        """Settings fit for reports and headers: no secrets (keys are never options).
        `shard_record`: this shard and the selection it was cut from; how the
        items that ran were selected, when not all ran (`selection_record`; both
        `selection.py`)."""
        settings: SettingsJSON = {
            "model": self.backend.describe(),
            "backend": self.backend.identity(),
            "method": self.settings.method,
            "seed": self.settings.seed,
            "temperature": self.params.temperature,
            "max_tokens": self.params.max_tokens,  # None: per family, or none sent (answer_length)
            "answer_length": self.max_tokens_text(),  # what was sent, in words
            "asked": self.asked(),  # ... and as fields (results/asked.py)
            "concurrency": self.options.concurrency,
            **self._recorded_extras(shard_record, selection_record),
        }
        return settings

    def _recorded_extras(self, shard_record: ShardJSON | None,
                         selection_record: SelectionJSON | None = None) -> SettingsJSON:
        """What a report needs beyond the core settings to be scored again from its records
        (`pytest-tom merge`): family options that differ from their defaults, and the
        shard. Absent when there is nothing to say, so unsharded default runs keep their
        report as it was."""
        out: SettingsJSON = {}
        changed = {o.name: self.options.family.get(o.name)
                   for o in families.declared_options()
                   if self.options.family.get(o.name, o.default) != o.default}
        if changed:
            out["options"] = changed
        if shard_record is not None:
            out["shard"] = shard_record
        if self.params.fields:  # credentials redacted
            out["request_fields"] = shown_fields(self.params.fields)
        if selection_record is not None:
            out["selection"] = selection_record
        path = self.backend.request_path()
        if path:  # openai: how its requests went (--tom-openai-transport, --tom-transport)
            out["request_path"] = path
        return out


CONTEXT_KEY = pytest.StashKey[RunContext]()


def run_context(config: pytest.Config) -> RunContext:
    """The active run's context (collectors and items exist only in an active run)."""
    ctx = config.stash.get(CONTEXT_KEY, None)
    if ctx is None:  # pragma: no cover - the plugin's nodes exist only when it is active
        raise RuntimeError("pytest-tom is not active (no --tom-model)")
    return ctx
