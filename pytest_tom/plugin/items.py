"""Suite files as pytest collectors, benchmark items as pytest items.

Node ids follow the item id: `suite.tom.yaml::<scenario>::<question>` (a
collector per `::` level), so `-k`, `-m`, `--lf`, node-id selection, xdist
and JUnit XML work as usual.

`SuiteFiles` is the hook object that collects them, and keeps what collection learns on
the way (the suites seen, the markers registered).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_tom.asking.completion import Completion
from pytest_tom.catalogue.load import load_suite
from pytest_tom.catalogue.suite_files import SuiteNames
from pytest_tom.core import probe
from pytest_tom.core.outcome import UNAVAILABLE, UNPARSEABLE, Outcome
from pytest_tom.core.record import Record
from pytest_tom.core.sweep import expand, node_name
from pytest_tom.items.item import NextRequest, build_record
from pytest_tom.items.probe_expand import probe_copies
from pytest_tom.items.sample_requests import call_fields, samples_text
from pytest_tom.items.transcript import call_messages, sent_messages
from pytest_tom.plugin.context import RunContext, run_context
from pytest_tom.plugin.large_runs import collection_gc, phase_hooks
from pytest_tom.plugin.request_phase import answers_of
from pytest_tom.pytest_compat import verbosity
from pytest_tom.report.item_outcome import xfail_reason
from pytest_tom.report.story import failure_text
from pytest_tom.suite import ItemSpec, SuiteError

_MARKER_OK = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class SuiteFiles:
    """Collects the suite files of the run (a hook object of every process) and keeps what
    collection learns: the suites collected so far (files sharing a suite name get
    distinct ids, one family) and the item markers registered so far (tags, kinds ...)."""

    def __init__(self, ctx: RunContext):
        self.ctx = ctx
        self.suite_names = SuiteNames()
        self.markers: set[str] = set()

    def pytest_collect_file(self, file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
        if self.ctx.is_suite_file(file_path):
            return TomFile.from_parent(parent, path=file_path)
        return None

    @pytest.hookimpl(wrapper=True)
    def pytest_collection(self, session: pytest.Session) -> Iterator[None]:
        with collection_gc():  # large suites: no GC passes over the tree being built
            return (yield)

    def register_marker(self, config: pytest.Config, name: str) -> None:
        if name not in self.markers:
            self.markers.add(name)
            config.addinivalue_line("markers", f"{name}: pytest-tom marker (tag or item kind)")


SUITES_KEY = pytest.StashKey[SuiteFiles]()


class TomFile(pytest.File):
    """One suite file. A broken suite is a collection error of this file alone."""

    def collect(self) -> Any:
        try:
            ctx = run_context(self.config)
            suite = load_suite(self.path, ctx.settings)
            self.config.stash[SUITES_KEY].suite_names.add(suite)
        except SuiteError as exc:
            raise self.CollectError(exc.render()) from None
        # --tom-sweep: each item once per value (core/sweep.py), named `q1[NAME=V]`
        specs = expand(suite.items, ctx.options.sweep)
        # --tom-probe: each item, then its probes' copies, named `q1[probe=no-story]`
        specs = probe_copies(specs, ctx.options)
        yield from _build_tree(self, [(_parts(spec), spec) for spec in specs])


class TomGroup(pytest.Collector):
    """A level of an item id (a scenario, a set ...)."""

    def __init__(self, *, entries: list[tuple[list[str], ItemSpec]], **kw: Any):
        super().__init__(**kw)
        self._entries = entries

    def collect(self) -> Any:
        yield from _build_tree(self, self._entries)


def _parts(spec: ItemSpec) -> list[str]:
    parts = spec.id.split("::")
    parts[-1] = probe.node_name(spec, node_name(spec, parts[-1]))
    return parts


def _build_tree(parent: pytest.Collector, entries: list[tuple[list[str], ItemSpec]]) -> Any:
    groups: dict[str, list[tuple[list[str], ItemSpec]]] = {}
    order: list[tuple[str, Any]] = []
    for parts, spec in entries:
        if len(parts) == 1:
            order.append(("item", (parts[0], spec)))
        else:
            if parts[0] not in groups:
                groups[parts[0]] = []
                order.append(("group", parts[0]))
            groups[parts[0]].append((parts[1:], spec))
    for kind, value in order:
        if kind == "item":
            name, spec = value
            yield TomItem.from_parent(parent, name=name, spec=spec)
        else:
            yield TomGroup.from_parent(parent, name=value, entries=groups[value])


class TomFailure(Exception):
    """A wrong answer: shown as a short text, not a traceback."""


class TomItem(pytest.Item):
    def __init__(self, *, spec: ItemSpec, **kw: Any):
        super().__init__(**kw)
        self.spec = spec
        self.outcome: Outcome | None = None
        self.completion: Completion | None = None
        self.completions: list[Completion] = []  # one per sample (--tom-samples)
        self.sample_outcomes: list[Outcome] | None = None
        # set during the run, declared here so the item's attributes never grow then
        self._calls: tuple[Completion, list[Any]] | None = None
        self.record_sent = False  # the record went out on a report (once per item)
        # why its suite stopped early, when the item was never asked (skipped, no record)
        self.suite_stop: str | None = None
        # (phase, text) of the first attempt's failure: a rerun (pytest-rerunfailures) gives
        # the same verdict again from it, without asking the model (see `rerun`)
        self.verdict: tuple[str, str] | None = None
        files = self.config.stash[SUITES_KEY]
        for name in item_markers(spec):
            files.register_marker(self.config, name)
            self.add_marker(name)

    @property
    def ihook(self) -> Any:
        """pytest's hooks for this item, its set-up, call and tear-down without pytest's
        output and log capture where only pytest-tom's code runs (`large_runs`)."""
        return phase_hooks(self, super().ihook)

    # -- the model side -------------------------------------------------------------
    # The steps themselves are pytest-free (`items.item.ItemEngine`); this class maps
    # them onto pytest's setup (its answers, from `request_phase.ANSWERS_KEY`), call
    # (scoring) and report (record).
    def conversation(self, sample: int = 0) -> NextRequest:
        return run_context(self.config).engine.conversation(self.spec, sample)

    def setup(self) -> None:
        if self.record_sent:  # pytest-rerunfailures runs the item again: see `rerun`
            self.rerun("setup")
            return
        engine = run_context(self.config).engine
        reason = engine.unavailable(self.spec)
        if reason:
            self.outcome = Outcome(correct=None, error=UNAVAILABLE, detail=reason)
            pytest.skip(reason)
        self.completions = answers_of(self.config).completions(self.spec)  # asked ahead
        self.completion = self.completions[0]
        error = self.completion.error
        if error is not None and error.suite_stop:
            # its suite stopped early (asking/early_stop.py): never asked, no record
            self.suite_stop = error.suite_stop
            pytest.skip(error.message)
        if error is not None:
            self.outcome = error.outcome()
            if len(self.completions) > 1:
                self.sample_outcomes = engine.score_samples(self.spec, self.completions,
                                                            self.outcome)
            # an error of the item (not a wrong answer): shown without a traceback
            self.verdict = ("setup", self.story())
            pytest.fail(self.verdict[1], pytrace=False)

    def rerun(self, phase: str) -> None:
        """A rerun of this item (pytest-rerunfailures): the score of a benchmark item is its
        first answer, so a rerun asks the model nothing and gives the first attempt's verdict
        again (asking until it passes would make accuracy a best-of-N). Transient request
        failures are retried within the attempt (`--tom-retries`)."""
        if self.verdict is None or self.verdict[0] != phase:
            return
        if phase == "call" and self.outcome is not None and self.outcome.error in (None,
                                                                                   UNPARSEABLE):
            if run_context(self.config).options.items == "report":
                pytest.xfail(self.verdict[1])
            raise TomFailure()  # a wrong answer again
        pytest.fail(self.verdict[1], pytrace=False)  # an error of the item again

    def runtest(self) -> None:
        if self.record_sent:
            self.rerun("call")
            return
        ctx = run_context(self.config)
        assert self.completion is not None
        # only the answer is scored; an answer the budget cut off is a cut-off outcome
        self.outcome = ctx.engine.score_completion(self.spec, self.completion)
        if len(self.completions) > 1:  # --tom-samples: fails when any sample is wrong
            self.sample_outcomes = ctx.engine.score_samples(self.spec, self.completions,
                                                            self.outcome)
        if self.outcome.correct is False or any(
                o.correct is False for o in self.sample_outcomes or ()):
            if ctx.options.items == "report":  # gates decide: a wrong answer is an xfail
                self.verdict = ("call", xfail_reason(self.spec, self.outcome))
                pytest.xfail(self.verdict[1])
            self.verdict = ("call", "\n".join(filter(None, [self.story(),
                                                          samples_text(self.sample_outcomes)])))
            raise TomFailure()

    # -- reporting ------------------------------------------------------------------
    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, TomFailure) and self.verdict is not None:
            return self.verdict[1]
        if isinstance(excinfo.value, pytest.xfail.Exception):
            # a wrong answer under --tom-items report: pytest asks for the failure's text
            # before it turns the report into an xfail; the reason is all it shows, so no
            # traceback is built (that made each xfail ~15x the cost of a failure)
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def calls(self) -> list[list[dict[str, str]]]:
        """The messages of every call this item made (sample 0), rebuilt from its answers
        through the engine's conversation; once per completion (the failure text and the
        record both show them)."""
        comp = self.completion
        if comp is None:
            return []
        cached = self._calls
        if cached is not None and cached[0] is comp:
            return cached[1]
        calls = sent_messages(comp.sent, comp.responses, failed=bool(comp.error))
        if calls is None:
            calls = call_messages(self.conversation(), comp.responses, failed=bool(comp.error))
        self._calls = (comp, calls)
        return calls

    def story(self) -> str:
        """The failure text: what the model saw, its answer, why it is wrong (-v: whole)."""
        return failure_text(self.spec, self.outcome, self.completion, self.calls(),
                            verbose=verbosity(self.config) > 0)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, max(self.spec.line - 1, 0), f"tom {self.spec.kind}: {self.spec.id}"

    def record(self) -> Record | None:
        """The plain-data record of this item for aggregation (None before an outcome)."""
        if self.outcome is None:
            return None
        comp = self.completion
        return build_record(self.spec, self.outcome, comp.responses if comp else [],
                            messages=self.calls(),  # what the model saw, call by call
                            seconds=round(comp.seconds, 4) if comp else 0.0,
                            **call_fields(self.completions, self.sample_outcomes))

    def release_answers(self) -> None:
        """Once the record is made it holds all a report needs: the item lets go of its
        completions and messages (100,000 items would otherwise keep them twice)."""
        self.completions = []
        self.completion = None
        self._calls = None


def item_markers(spec: ItemSpec) -> list[str]:
    names = ["tom", f"tom_{spec.family}", *spec.tags, *spec.markers]
    return [n for n in dict.fromkeys(names) if _MARKER_OK.match(n)]


