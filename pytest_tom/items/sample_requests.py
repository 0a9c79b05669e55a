"""`--tom-samples k`: k answers per item, each its own request and cache key.

Sample 0 is the ordinary run (same parameters, same cache key as without
samples), so `--tom-samples 5` after a plain run asks only for samples 1-4.
Sample s > 0 sends seed + s (when a seed is set) so that a server honouring
the seed does not return the same answer k times. Every sample is scored; the
item's outcome is the one of sample 0 and all k travel on the record as
`samples`, from which aggregation reports each metric's mean and spread. An
item passes only when no sample is wrong.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from pytest_tom.asking.runner import Completion, Runner
from pytest_tom.backends.base import STOP
from pytest_tom.core.interruptible import LatchedFuture
from pytest_tom.core.model import ItemSpec
from pytest_tom.core.outcome import Outcome
from pytest_tom.items.item import ItemEngine, ReplyParts, RequestFields, sample_params

if TYPE_CHECKING:
    from pytest_tom.core.option_table import TomOptions

__all__ = ["call_fields", "reply_parts", "sample_count", "sample_params", "samples_text",
           "submit_samples", "take_samples", "wait_all"]


def sample_count(options: TomOptions) -> int:
    return max(1, int(options.samples or 1))


def submit_samples(runner: Runner, engine: ItemEngine, spec: ItemSpec,
                   count: int) -> list[LatchedFuture[Completion]]:
    """Start (or find started) every sample of an item; the conversation of a sample is built
    only when it was not started yet (an item's set-up finds the prefetched one)."""
    futures = []
    for s in range(count):
        key = engine.known_key(spec, s)
        fut = runner.started(key) if key is not None else None
        if fut is None:
            key, conversation = engine.submission(spec, s)
            fut = runner.submit(key, conversation, s)
        futures.append(fut)
    return futures


def take_samples(runner: Runner, engine: ItemEngine, spec: ItemSpec, count: int,
                 while_waiting: Callable[[], None] | None = None) -> list[Completion]:
    """The completions of every sample of an item (waits for them); the runner then
    forgets them: the item keeps what it needs."""
    done = wait_all(submit_samples(runner, engine, spec, count), while_waiting)
    runner.forget([engine.request_key(spec, s) for s in range(count)])
    return done


def wait_all(futures: Sequence[LatchedFuture[Completion]],
             while_waiting: Callable[[], None] | None = None) -> list[Completion]:
    """The completions of `futures`, in order; `while_waiting` is called every 50 ms until
    each is in (an xdist worker keeps submitting its queue meanwhile)."""
    for fut in futures:  # waits that Ctrl-C ends cleanly (core/interruptible)
        if while_waiting is None:
            fut.wait()
        else:
            while not fut.wait(0.05):
                while_waiting()
    return [f.result() for f in futures]


def call_fields(completions: list[Completion], outcomes: list[Outcome] | None) -> RequestFields:
    """The request side of an item record: usage, requests, retries, cache hits (summed over
    samples), the model that answered, and the samples when there are several."""
    usage: dict[str, int] = {}
    cached_usage: dict[str, int] = {}
    for comp in completions:
        for into, src in ((usage, comp.usage), (cached_usage, comp.cached_usage)):
            for k, v in src.items():
                into[k] = into.get(k, 0) + v
    out: RequestFields = {
        "usage": usage,
        "cached_usage": cached_usage,
        "requests": sum(c.requests for c in completions),
        "retries": sum(c.retries for c in completions),
        "cached": sum(c.cached for c in completions),
        "shared": sum(c.shared for c in completions),
        "model": next((c.model for c in completions if c.model), None),
    }
    endpoints = endpoint_counts(a for c in completions for a in _runs(c.attempts))
    if endpoints:
        out["endpoints"] = endpoints
    if completions:
        out.update(reply_parts(completions[0]))
    if len(completions) > 1 and outcomes is not None:
        out["samples"] = [{"outcome": o.to_dict(), "responses": c.responses,
                           **reply_parts(c)}
                          for o, c in zip(outcomes, completions, strict=False)]
    return out


def reply_parts(comp: Completion) -> ReplyParts:
    """The record's `thoughts` and `finish` of one completion: the thoughts when some reply
    had one, the finish reasons then too, or when one is not "stop" (a plain model whose
    every reply ended, and the reports made before, lack both; a missing finish reads as
    not cut off)."""
    out: ReplyParts = {}
    replies = comp.replies
    thought = any(r.thought is not None for r in replies)
    if thought:
        out["thoughts"] = [r.thought for r in replies]
    if thought or any(r.finish_reason is not None and r.finish_reason != STOP for r in replies):
        out["finish"] = [r.finish_reason for r in replies]
    return out


def _runs(attempts: list[tuple[str, bool]]) -> list[tuple[str, bool, bool]]:
    """(endpoint, answered, its retry went to another endpoint) of each attempt of one call
    after another (a completion's attempts, in order)."""
    out = []
    for i, (endpoint, answered) in enumerate(attempts):
        moved = not answered and i + 1 < len(attempts) and attempts[i + 1][0] != endpoint
        out.append((endpoint, answered, moved))
    return out


def endpoint_counts(attempts: Iterable[tuple[str, bool, bool]]) -> dict[str, dict[str, int]]:
    """Per endpoint (redacted URL): requests, failures, and failures whose retry was moved to
    another endpoint (`moved`), in the order the endpoints were first asked."""
    out: dict[str, dict[str, int]] = {}
    for endpoint, answered, moved in attempts:
        row = out.setdefault(endpoint, {"requests": 0, "failures": 0, "moved": 0})
        row["requests"] += 1
        row["failures"] += not answered
        row["moved"] += moved
    return out


def samples_text(outcomes: list[Outcome] | None) -> str:
    """One line for the failure text: how each sample did."""
    if not outcomes or len(outcomes) < 2:
        return ""
    right = sum(1 for o in outcomes if o.correct)
    marks = []
    for s, o in enumerate(outcomes):
        mark = ("right" if o.correct else "measured" if o.correct is None and not o.error
                else o.error or "wrong")
        marks.append(f"{s}: {mark}")
    return f"  samples:  {right}/{len(outcomes)} right ({', '.join(marks)})"
