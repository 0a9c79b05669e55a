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
  always. Only backends that call a server declare it (`BackendAbilities.server`).
- `CutOffAnswers` (`--tom-early-stop=on`, the default; every backend): most of the
  first answers of one suite were cut off by that suite's budget, mostly inside the
  thought (a reasoning model given a plain model's answer length): every item of the
  suite would end cut off, never scored. Each family has its own answer length (BigToM
  64 tokens, FANToM 128 ...), so one budget for the thought may leave one suite no room
  and the others plenty: the rule keeps a window per suite and stops only that suite
  (`EarlyStop.suites`): its items not yet asked are never asked (the plugin skips them,
  saying why) while the other suites run on. Its line names the suite, how many, where
  they ran out, the budget its calls had and what to raise; `--tom-early-stop=off` runs
  to the end at the budget given (under `--tom-items=report` too, to measure a model at
  that budget).

A rule that stops the run (`per_suite` False) makes `EarlyStop.reason`; one that stops a
suite (`per_suite` True) adds to `EarlyStop.suites`, and the run goes on.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from pytest_tom.asking.completion import Completion, cut_off_call
from pytest_tom.backends.base import BackendError

NOT_ASKED = "not asked: the run stopped early"


def suite_not_asked(suite: str, reason: str) -> str:
    """The error of a request of suite `suite` never made because the suite stopped early."""
    return f"not asked: suite {suite} stopped early ({reason})"


class NotAsked(BackendError):
    """A call never made because the run (`suite` None) or its suite stopped early: the
    runner counts its conversation as cut short, not as failed, and (a suite's) the item
    is skipped with `reason` (`CallError.suite_stop`)."""

    def __init__(self, reason: str, suite: str | None = None):
        super().__init__(f"{NOT_ASKED} ({reason})" if suite is None
                         else suite_not_asked(suite, reason))
        self.reason = reason
        self.suite = suite


class StopRule(Protocol):
    """One reason to stop a run; each method returns the reason (one line) or None.
    `reads_attempts`: the rule reads each attempt (False: only `finished`, so the runner
    need not watch its sends); `per_suite`: its reason stops the suite of the conversation
    that fired it, not the run."""

    reads_attempts: bool
    per_suite: bool

    def attempt(self, key: str, error: str | None, where: str | None = None) -> str | None:
        """An attempt of the request of conversation `key` ended (`error`: None, answered;
        `where`: the endpoint asked, when the model has several)."""
        ...

    def finished(self, comp: Completion, suite: str = "", budget: int | None = None
                 ) -> str | None:
        """A conversation of suite `suite` ended (answered, failed or cut off); `budget`: the
        max_tokens its last call was sent with (None: none was sent)."""
        ...


@dataclass
class UnreachableServer:
    """The first attempts all failed the same way and nothing answered (module docstring).
    With several endpoints (`--tom-base-url "URL URL"`), each must have failed, each in one
    way, before the rule fires: a pool with one endpoint down is served by the others."""

    per_suite = False
    endpoints: int = 1
    conversations: int = 3  # distinct items whose attempts failed before the rule fires
    answered: bool = False
    errors: dict[str | None, str] = field(default_factory=dict)  # endpoint -> its one error
    keys: set[str] = field(default_factory=set)
    attempts: int = 0

    @property
    def reads_attempts(self) -> bool:
        """Until the first answer: after it, an attempt changes nothing here."""
        return not self.answered

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

    def finished(self, comp: Completion, suite: str = "", budget: int | None = None
                 ) -> str | None:
        if not comp.error and (comp.replies or comp.cached):
            self.answered = True  # answered (perhaps from the cache): never fire
        return None


@dataclass
class SuiteWindow:
    """The first answered conversations of one suite, as `CutOffAnswers` counts them."""

    seen: int = 0
    cut: int = 0
    in_thought: int = 0
    shown: bool = False  # some reply showed a thought
    budgets: set[int | None] = field(default_factory=set)


@dataclass
class CutOffAnswers:
    """Most of the first `window` answered conversations of one suite were cut off by its
    budget (module docstring): fires for that suite as soon as more than half of its window
    is cut off, so never for a suite of fewer items. `raise_with`: the options that give
    more room, in words (`asking/reasoning.raise_text`)."""

    raise_with: str
    window: int = 10
    # what to raise once a reply of the window showed a thought (None: `raise_with`)
    raise_when_shown: str | None = None
    reads_attempts = False
    per_suite = True
    suites: dict[str, SuiteWindow] = field(default_factory=dict)

    def attempt(self, key: str, error: str | None, where: str | None = None) -> str | None:
        return None

    def finished(self, comp: Completion, suite: str = "", budget: int | None = None
                 ) -> str | None:
        replies = comp.replies
        if comp.error or not replies:
            return None
        w = self.suites.setdefault(suite, SuiteWindow())
        if w.seen >= self.window:
            return None
        w.seen += 1
        w.shown = w.shown or any(r.thought for r in replies)
        call = cut_off_call(replies)
        if call is None:
            return None
        w.cut += 1
        w.budgets.add(budget)
        if not replies[call].text.strip():
            w.in_thought += 1
        if 2 * w.cut <= self.window:
            return None
        where = ("all inside the thought" if w.in_thought == w.cut
                 else f"{w.in_thought} inside the thought" if w.in_thought
                 else "inside the answer")
        sent = sorted(b for b in w.budgets if b is not None)
        raise_with = (self.raise_when_shown if w.shown and self.raise_when_shown
                      else self.raise_with)
        budget_words = (f"max_tokens {'/'.join(map(str, sent))}" if sent
                        else "the answerer's own length")
        return (f"{w.cut} of its first {w.seen} answers cut off by the budget "
                f"({budget_words}, {where}); nearly every item would end cut off, never "
                f"scored; {raise_with} (or --tom-early-stop=off to run to the end at "
                f"this budget)")


class EarlyStop:
    """The stop rules of one runner and the first reason one gave (thread-safe: attempts
    end on the runner's loop, in-process answers on worker threads)."""

    def __init__(self, rules: Sequence[StopRule]):
        self.rules = list(rules)
        self.reason: str | None = None  # the run stopped
        self.suites: dict[str, str] = {}  # suite -> why it stopped (the run goes on)
        self._lock = threading.Lock()
        # some rule may still act on an attempt (False once the run stopped or no rule reads
        # attempts any more, e.g. after the first answer): the runner then tells it none, as
        # `attempt` would do nothing (read without the lock: it only ever turns False)
        self.listening = self.watches_attempts

    @property
    def watches_attempts(self) -> bool:
        """Some rule reads every attempt (the runner then tells it each one)."""
        return any(rule.reads_attempts for rule in self.rules)

    def attempt(self, key: str, error: str | None, where: str | None = None) -> None:
        self._ask(lambda rule: rule.attempt(key, error, where))
        if self.listening:
            self._relisten()

    def finished(self, comp: Completion, suite: str = "", budget: int | None = None) -> None:
        self._ask(lambda rule: rule.finished(comp, suite, budget), suite)
        if self.listening:
            self._relisten()

    def _relisten(self) -> None:
        self.listening = self.reason is None and self.watches_attempts

    def suite_stop(self, suite: str) -> str | None:
        """Why suite `suite` stopped (its requests are no longer made), or None."""
        return self.suites.get(suite) if self.suites else None

    def _ask(self, ask: Callable[[StopRule], str | None], suite: str = "") -> None:
        with self._lock:
            if self.reason is not None:
                return
            for rule in self.rules:
                if rule.per_suite and suite in self.suites:
                    continue
                reason = ask(rule)
                if not reason:
                    continue
                if rule.per_suite:
                    self.suites[suite] = reason
                else:
                    self.reason = reason
                    return


def rules_for(server: bool, endpoints: int = 1, cut_off: str | None = None,
              cut_off_shown: str | None = None) -> list[StopRule]:
    """The rules of a run: `server`, the backend calls a server (`BackendAbilities.server`)
    at `endpoints` endpoints; `cut_off`: what to raise when most first answers of a suite are
    cut off (None: no such rule, `--tom-early-stop=off`), `cut_off_shown`: when their
    replies showed a thought (default: `cut_off`)."""
    rules: list[StopRule] = [UnreachableServer(endpoints=max(1, endpoints))] if server else []
    if cut_off:
        rules.append(CutOffAnswers(raise_with=cut_off, raise_when_shown=cut_off_shown))
    return rules
