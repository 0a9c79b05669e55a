"""Stopping a run early: rules that read the first requests of a run and say, in one line,
why going on would only waste time.

The runner asks its `EarlyStop` about every attempt of a request (`attempt`: the error, or
None for an answer) and every conversation that ends (`finished`: its completion). The
first rule that fires gives the reason; from then on the runner asks nothing more (every
attempt still to come fails at once with `NOT_ASKED` and the reason), and the plugin stops
pytest's loop with that one line (`session.shouldfail`), marks the report interrupted and
saves no baseline. A rule is a small object with those two methods, each returning a reason
or None; a new rule joins `rules_for`.

- `UnreachableServer`: the first attempts, from at least `conversations` different items,
  all failed with the same error and nothing has been answered: the server is down, the
  URL, model name or key is wrong. Retrying every item would take minutes against nothing.
  Once one answer came, the rule never fires: a server that has answered is retried as
  always. Only backends that call a server declare it (`Backend.server`).
- `CutOffAnswers` (`--tom-early-stop=on`, the default; every backend): most of the
  first answers of the run were cut off by the budget, mostly inside the thought (a
  reasoning model given a plain model's answer length): every item would end cut off,
  never scored. The line says how many, where they ran out and what to raise;
  `--tom-early-stop=off` runs to the end at the budget given (under `--tom-items=report`
  too, to measure a model at that budget).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from pytest_tom.engine.completion import Completion, cut_off_call

NOT_ASKED = "not asked: the run stopped early"


class StopRule(Protocol):
    """One reason to stop a run; each method returns the reason (one line) or None.
    `reads_attempts`: the rule reads each attempt (False: only `finished`, so the runner
    need not watch its sends)."""

    reads_attempts: bool

    def attempt(self, key: str, error: str | None, where: str | None = None) -> str | None:
        """An attempt of the request of conversation `key` ended (`error`: None, answered;
        `where`: the endpoint asked, when the model has several)."""
        ...

    def finished(self, comp: Completion) -> str | None:
        """A conversation ended (answered, failed or cut off)."""
        ...


@dataclass
class UnreachableServer:
    """The first attempts all failed the same way and nothing answered (module docstring).
    With several endpoints (`--tom-base-url "URL URL"`), each must have failed, each in one
    way, before the rule fires: a pool with one endpoint down is served by the others."""

    reads_attempts = True
    endpoints: int = 1
    conversations: int = 3  # distinct items whose attempts failed before the rule fires
    answered: bool = False
    errors: dict[str | None, str] = field(default_factory=dict)  # endpoint -> its one error
    keys: set[str] = field(default_factory=set)
    attempts: int = 0

    def attempt(self, key: str, error: str | None, where: str | None = None) -> str | None:
        if self.answered:
            return None
        if error is None:
            self.answered = True
            return None
        first = self.errors.setdefault(where, error)
        if error != first:  # not one cause: let the retries do their work
            self.answered = True
            return None
        self.keys.add(key)
        self.attempts += 1
        if len(self.keys) < self.conversations or len(self.errors) < self.endpoints:
            return None
        shown = next(iter(self.errors.values()))
        more = (f" (and the same at each of the {len(self.errors)} endpoints)"
                if len(self.errors) > 1 else "")
        return (f"the server never answered: the first {self.attempts} requests "
                f"({len(self.keys)} items) all failed the same way and none succeeded: "
                f"{shown}{more}; check that it is running, its --tom-base-url, the model name "
                f"and the key (a server that has answered once is retried as usual)")

    def finished(self, comp: Completion) -> str | None:
        if not comp.error and (comp.responses or comp.cached):
            self.answered = True  # answered (perhaps from the cache): never fire
        return None


@dataclass
class CutOffAnswers:
    """Most of the first `window` answered conversations were cut off by the budget
    (module docstring): fires as soon as more than half of the window is cut off, so
    never in a run of fewer items. `raise_with`: the options that give more room, in
    words (`engine/reasoning.raise_text`)."""

    raise_with: str
    window: int = 10
    reads_attempts = False
    seen: int = 0
    cut: int = 0
    in_thought: int = 0

    def attempt(self, key: str, error: str | None, where: str | None = None) -> str | None:
        return None

    def finished(self, comp: Completion) -> str | None:
        if self.seen >= self.window or comp.error or not comp.finish:
            return None
        self.seen += 1
        call = cut_off_call(comp.responses, comp.finish)
        if call is None:
            return None
        self.cut += 1
        if not (comp.responses[call] if call < len(comp.responses) else "").strip():
            self.in_thought += 1
        if 2 * self.cut <= self.window:
            return None
        where = ("all inside the thought" if self.in_thought == self.cut
                 else f"{self.in_thought} inside the thought" if self.in_thought
                 else "inside the answer")
        return (f"most first answers were cut off by the budget: {self.cut} of the first "
                f"{self.seen} ({where}), so nearly every item would end cut off, never scored; "
                f"{self.raise_with} (or --tom-early-stop=off to run to the end at this budget)")


class EarlyStop:
    """The stop rules of one runner and the first reason one gave (thread-safe: attempts
    end on the runner's loop, in-process answers on worker threads)."""

    def __init__(self, rules: Sequence[StopRule]):
        self.rules = list(rules)
        self.reason: str | None = None
        self._lock = threading.Lock()

    @property
    def watches_attempts(self) -> bool:
        """Some rule reads every attempt (the runner then tells it each one)."""
        return any(rule.reads_attempts for rule in self.rules)

    def attempt(self, key: str, error: str | None, where: str | None = None) -> None:
        self._ask(lambda rule: rule.attempt(key, error, where))

    def finished(self, comp: Completion) -> None:
        self._ask(lambda rule: rule.finished(comp))

    def _ask(self, ask: Callable[[StopRule], str | None]) -> None:
        with self._lock:
            if self.reason is not None:
                return
            for rule in self.rules:
                reason = ask(rule)
                if reason:
                    self.reason = reason
                    return


def rules_for(server: bool, endpoints: int = 1, cut_off: str | None = None) -> list[StopRule]:
    """The rules of a run: `server`, the backend calls a server (`Backend.server`) at
    `endpoints` endpoints; `cut_off`: what to raise when most first answers are cut off
    (None: no such rule, `--tom-early-stop=off`)."""
    rules: list[StopRule] = [UnreachableServer(endpoints=max(1, endpoints))] if server else []
    if cut_off:
        rules.append(CutOffAnswers(raise_with=cut_off))
    return rules
