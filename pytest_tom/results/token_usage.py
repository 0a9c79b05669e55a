"""Requests, token usage and cost of a run, from the item records (so xdist runs count too).

Token counts are what the server reports (`usage` of each completion). Calls
answered by the response cache cost nothing in this run: their tokens are shown
apart. Prices come from `--tom-prices`: `IN/OUT` (USD per million prompt /
completion tokens) for every model, or `MODEL=IN/OUT,MODEL=IN/OUT`, where a
model matches the name the server reports or the start of it
(`gpt-4o-mini=0.15/0.6` prices `gpt-4o-mini-2024-07-18`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields

from pytest_tom.core.outcome import ERROR, status
from pytest_tom.core.record import Record
from pytest_tom.core.record_view import RecordView

PRICE_HELP = ("--tom-prices: expected IN/OUT (USD per million prompt/completion tokens, e.g. "
              "0.15/0.6) or MODEL=IN/OUT,MODEL=IN/OUT (e.g. gpt-4o-mini=0.15/0.6,gpt-4o=2.5/10)")


class PriceError(ValueError):
    pass


def parse_prices(text: str | None) -> dict[str, tuple[float, float]]:
    """`{model or "*": (usd per M prompt tokens, usd per M completion tokens)}`."""
    prices: dict[str, tuple[float, float]] = {}
    if not text or not str(text).strip():
        return prices
    for part in str(text).split(","):
        part = part.strip()
        if not part:
            continue
        model, sep, pair = part.rpartition("=")
        model = model.strip() if sep else "*"
        if sep and not model:
            raise PriceError(f"{PRICE_HELP}; {part!r} names no model")
        a, slash, b = pair.partition("/")
        try:
            p_in = float(a)
            p_out = float(b) if slash else p_in
        except ValueError:
            raise PriceError(f"{PRICE_HELP}; {part!r} is not a price") from None
        if p_in < 0 or p_out < 0:
            raise PriceError(f"{PRICE_HELP}; {part!r} is negative")
        prices[model] = (p_in, p_out)
    return prices


def price_of(model: str, prices: dict[str, tuple[float, float]]) -> tuple[float, float] | None:
    if model in prices:
        return prices[model]
    prefixes = [m for m in prices if m != "*" and model.startswith(m)]
    if prefixes:
        return prices[max(prefixes, key=len)]
    return prices.get("*")


@dataclass
class ModelUsage:
    model: str  # the model as configured (--tom-model), one row per configured model
    items: int = 0
    requests: int = 0
    retries: int = 0
    cached: int = 0
    shared: int = 0
    errors: int = 0
    tokens: dict[str, int] = field(default_factory=dict)
    cached_tokens: dict[str, int] = field(default_factory=dict)
    served: set[str] = field(default_factory=set)  # the names the server answered as
    name: str = ""  # the configured model's own name (for prices), e.g. gpt-4o-mini

    def cost(self, prices: dict[str, tuple[float, float]]) -> float | None:
        price = None
        for candidate in [*sorted(self.served), self.name, self.model]:
            price = price_of(candidate, prices) if candidate else None
            if price is not None:
                break
        if price is None:
            return None
        return (self.tokens.get("prompt_tokens", 0) * price[0]
                + self.tokens.get("completion_tokens", 0) * price[1]) / 1e6


def _add(into: dict[str, int], usage: Mapping[str, int] | None) -> None:
    for k, v in (usage or {}).items():
        if isinstance(v, int | float):
            into[k] = into.get(k, 0) + int(v)


@dataclass(frozen=True)
class EndpointUsage:
    """Requests to one endpoint, those that failed, and the retries moved elsewhere (a
    report's `endpoints`: `results.run_report.EndpointJSON`)."""

    requests: int = 0
    failures: int = 0
    moved: int = 0


@dataclass(frozen=True)
class RequestUsage:
    """The request figures of a run, from one pass over its records: one row per configured
    model, the counts per endpoint (several endpoints of one model; empty otherwise), and
    (item, error) of every item whose model call finally failed. The terminal's requests
    section, the JSON report and the Markdown summary read the one made at the end of the
    run (`plugin/outputs.RunOutputs.usage`)."""

    models: list[ModelUsage]
    endpoints: dict[str, EndpointUsage]
    failed: list[tuple[str, str]]
    # records whose outcome carries an error of any kind (a failed request, an unparseable
    # or cut-off answer, a skipped item): under -q the requests section shows only then
    flagged: int = 0


def request_usage(records: Iterable[Record], default_model: str,
                  model_name: str = "") -> RequestUsage:
    """`RequestUsage` of `records`, each read once. The name a server answers as
    (`gpt-4o-mini-2024-07-18`, a GGUF path) is kept beside the configured model, not as a
    row of its own: items from the cache, errors and skipped items carry no such name, and
    a row per name split one model in two. Endpoints are sorted by URL (records arrive in
    any order under xdist)."""
    names = [f.name for f in fields(EndpointUsage)]
    models: dict[str, ModelUsage] = {}
    endpoints: dict[str, dict[str, int]] = {}
    failed = []
    flagged = 0
    for rec in records:
        mu = models.setdefault(default_model, ModelUsage(default_model, name=model_name))
        view = RecordView(rec)
        if view.model:
            mu.served.add(str(view.model))
        mu.items += 1
        mu.requests += view.requests
        mu.retries += view.retries
        mu.cached += view.cached
        mu.shared += view.shared
        if view.error:
            flagged += 1
        if status(view.outcome_or_none or {}) == ERROR:
            mu.errors += 1
            failed.append((f"{view.suite}::{view.id}", view.detail))
        _add(mu.tokens, view.usage)
        _add(mu.cached_tokens, view.cached_usage)
        for endpoint, counts in view.endpoints.items():
            row = endpoints.setdefault(str(endpoint), dict.fromkeys(names, 0))
            for k in row:
                row[k] += int((counts or {}).get(k) or 0)
    return RequestUsage(sorted(models.values(), key=lambda m: m.model),
                        {name: EndpointUsage(**row) for name, row in sorted(endpoints.items())},
                        sorted(failed), flagged)


def usage_by_endpoint(records: Iterable[Record]) -> dict[str, EndpointUsage]:
    """Requests, failures and retries moved elsewhere per endpoint (redacted URL), summed
    over the item records that carry them; empty otherwise (`request_usage`'s, for a
    report built without one)."""
    return request_usage(records, "").endpoints
