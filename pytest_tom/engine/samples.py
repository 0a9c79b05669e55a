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

from concurrent.futures import Future
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from pytest_tom.backends.base import SamplingParams
from pytest_tom.core.outcome import REQUEST_FAILED, Outcome
from pytest_tom.engine.runner import Completion

if TYPE_CHECKING:
    from pytest_tom.core.options import TomOptions
    from pytest_tom.items import TomItem


def sample_count(options: TomOptions) -> int:
    return max(1, int(options.samples or 1))


def sample_params(params: SamplingParams, sample: int) -> SamplingParams:
    if sample and params.seed is not None:
        return replace(params, seed=params.seed + sample)
    return params


def submit_samples(item: TomItem) -> list[Future[Completion]]:
    """Start (or find started) every sample of `item`."""
    tom = item.config.stash[_session_key()]
    runner = tom.runner
    return [runner.submit(item.request_key(s), item.conversation(s), s)
            for s in range(sample_count(tom.options))]


def _session_key() -> Any:
    from pytest_tom.session import STASH_KEY

    return STASH_KEY


def fetch_samples(item: TomItem) -> list[Completion]:
    """The completions of every sample of `item`, in sample order (waits for them)."""
    from pytest_tom.request_phase import wait_for

    return wait_for(item.config, submit_samples(item))


def score_samples(item: TomItem, first: Outcome | None = None) -> list[Outcome]:
    """An outcome per completion of `item`: its score, or the error of its request."""
    from pytest_tom import families

    tom = item.config.stash[_session_key()]
    family = families.get(item.spec.family)
    out = []
    for s, comp in enumerate(item.completions):
        if s == 0 and first is not None:
            out.append(first)
        elif comp.error:
            out.append(Outcome.failed(comp.error_kind or REQUEST_FAILED, comp.error))
        else:
            out.append(family.score(item.spec, comp.final, tom.scoring))
    return out


def call_fields(completions: list[Completion], outcomes: list[Outcome] | None) -> dict[str, Any]:
    """The request side of an item record: usage, requests, retries, cache hits (summed over
    samples), the model that answered, and the samples when there are several."""
    usage: dict[str, int] = {}
    cached_usage: dict[str, int] = {}
    for comp in completions:
        for into, src in ((usage, comp.usage), (cached_usage, comp.cached_usage)):
            for k, v in src.items():
                into[k] = into.get(k, 0) + v
    out: dict[str, Any] = {
        "usage": usage,
        "cached_usage": cached_usage,
        "requests": sum(c.requests for c in completions),
        "retries": sum(c.retries for c in completions),
        "cached": sum(c.cached for c in completions),
        "shared": sum(c.shared for c in completions),
        "model": next((c.model for c in completions if c.model), None),
    }
    if len(completions) > 1 and outcomes is not None:
        out["samples"] = [{"outcome": o.to_dict(), "responses": list(c.responses)}
                          for o, c in zip(outcomes, completions, strict=False)]
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
