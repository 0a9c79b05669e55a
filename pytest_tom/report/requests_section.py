"""The `tom requests` section of the terminal summary: requests, cache hits, tokens,
cost and the items without an answer (figures from `results/token_usage.py`)."""

from __future__ import annotations

import textwrap
from typing import Any

from tabulate import tabulate

from pytest_tom.core.printable import escape_controls
from pytest_tom.results.token_usage import EndpointUsage, RequestUsage

WIDTH = 120  # no line of the section is wider (as the scores: report/terminal.WIDTH)


def _n(v: int) -> str:
    return f"{v:,}"


def write_usage(tr: Any, usage: RequestUsage, prices: dict[str, tuple[float, float]],
                max_failed: int = 10, model_name: str = "", unscored: int = 0,
                made: int = 0) -> None:
    """The `tom requests` section of the terminal summary, from the run's request figures
    (`token_usage.request_usage`). `unscored`: requests made for items that were never
    scored (a run stopped by -x or Ctrl-C), counted apart; `made`: every request of the
    run (the requests line's), which the table and they add up to."""
    models = usage.models
    if not models:
        return
    tr.write_sep("-", "tom requests")
    any_tokens = any(m.tokens or m.cached_tokens for m in models)
    headers = ["model", "items", "requests", "retries", "from cache", "shared", "errors"]
    if any_tokens:
        headers += ["prompt tok", "completion tok", "cached tok"]
    if prices:
        headers.append("cost")
    rows = []
    for m in models:
        row = [m.model, m.items, m.requests, m.retries, m.cached, m.shared, m.errors]
        if any_tokens:
            row += [_n(m.tokens.get("prompt_tokens", 0)), _n(m.tokens.get("completion_tokens", 0)),
                    _n(m.cached_tokens.get("total_tokens", 0))]
        if prices:
            cost = m.cost(prices)
            row.append("n/a (no price)" if cost is None else f"${cost:.4f}")
        rows.append(row)
    tr.write_line(narrow_table(rows, headers))
    if not any_tokens:
        tr.write_line("(the backend reported no token usage)")
    write_endpoints(tr, usage.endpoints)
    served = sorted({s for m in models for s in m.served})
    if served and served != [model_name]:
        for line in textwrap.wrap(f"the server answered as: {', '.join(served)}", WIDTH,
                                  subsequent_indent="  "):
            tr.write_line(line)
    if any(m.shared for m in models):
        tr.write_line("shared: answered by an identical request of this run (asked once)")
    if unscored > 0:
        whole = f"; {made} in all, as on the tom requests line" if made else ""
        tr.write_line(f"{unscored} further request(s) for items that were not scored "
                      f"(the run stopped early{whole})")
    failed = usage.failed
    if failed:
        tr.write_line(f"{len(failed)} item(s) without an answer (error outcomes, counted as wrong):")
        for item, err in failed[:max_failed]:
            for line in textwrap.wrap(escape_controls(f"  {item}: {err}"), WIDTH,  # no ANSI
                                      subsequent_indent="      ", drop_whitespace=False):
                tr.write_line(line.rstrip())
        if len(failed) > max_failed:
            tr.write_line(f"  ... and {len(failed) - max_failed} more (see the JSON report)")


def narrow_table(rows: list[list[Any]], headers: list[str], width: int = WIDTH) -> str:
    """The table, its first column (a model's long path, an endpoint's URL) wrapped over
    several lines, down to 48 characters, when the table would be wider than `width`."""
    text = tabulate(rows, headers=headers, tablefmt="simple", disable_numparse=True)
    over = max(map(len, text.splitlines()), default=0) - width
    if over <= 0 or not rows:
        return text
    first = max(len(str(r[0])) for r in rows)
    keep = max(48, first - over)  # a usual name and URL stays on its line
    return tabulate(rows, headers=headers, tablefmt="simple", disable_numparse=True,
                    maxcolwidths=[keep, *([None] * (len(headers) - 1))])


def write_endpoints(tr: Any, endpoints: dict[str, EndpointUsage]) -> None:
    """One row per endpoint when the model has several (`--tom-base-url "URL URL"`)."""
    if not endpoints:
        return
    rows = [[name, _n(c.requests), _n(c.failures), _n(c.moved)]
            for name, c in endpoints.items()]
    tr.write_line(narrow_table(rows, ["endpoint", "requests", "failures", "moved elsewhere"]))
    tr.write_line("moved elsewhere: failures whose retry went to another endpoint")
