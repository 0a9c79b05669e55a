"""Helpers of the runner and cache tests: a generated suite whose right answers the test
server can compute from the prompt, so every figure of a run is known in advance.

Item i asks "Is the number i even?". The server answers correctly except for
every fifth number (i % 5 == 0), so a run of n items has exactly
`expected_right(n)` right answers, whatever failures, retries or caching happen
on the way. With a seed in the request (samples), sample s is also wrong where
(i + s) % 3 == 0, which gives each sample its own known accuracy.
"""

from __future__ import annotations

import asyncio
import re
import sqlite3
from pathlib import Path
from typing import Any

from chat_server import last_user_text

from pytest_tom.backends.base import (
    Backend,
    BackendAbilities,
    ModelReply,
    ModelRequest,
    SamplingParams,
)

NUMBER = re.compile(r"Is the number (\d+) even\?")


def numbers_suite(n: int, per_scenario: int = 4, name: str = "numbers") -> str:
    lines = [f"suite: {name}", "family: generic", "version: 1", "scenarios:"]
    for start in range(0, n, per_scenario):
        lines += [f"  - id: sc{start // per_scenario:04d}", "    context: A list of numbers.",
                  "    questions:"]
        for i in range(start, min(n, start + per_scenario)):
            gold = "yes" if i % 2 == 0 else "no"
            lines += [f"      - id: q{i:05d}", f"        ask: Is the number {i} even?",
                      f'        yes_no: "{gold}"']
    return "\n".join(lines) + "\n"


def number_of(body: dict[str, Any]) -> int:
    m = NUMBER.search(last_user_text(body))
    if m is None:
        raise ValueError("not a numbers prompt")
    return int(m.group(1))


def is_right(i: int, sample: int | None = None) -> bool:
    if i % 5 == 0:
        return False
    return not (sample is not None and (i + sample) % 3 == 0)


def respond(body: dict[str, Any]) -> str:
    """The test model: right except on the known subset (see the module docstring)."""
    i = number_of(body)
    seed = body.get("seed")
    even = i % 2 == 0
    if not is_right(i, seed if body.get("temperature", 0) > 0 else None):
        even = not even
    return "Yes." if even else "No."


def expected_right(n: int, sample: int | None = None) -> int:
    return sum(1 for i in range(n) if is_right(i, sample))


def cached_rows(cache_dir: Path) -> int:
    """Responses stored in a cache folder (read by another process while a run writes)."""
    db = cache_dir / "responses.sqlite3"
    if not db.exists():
        return 0
    try:
        con = sqlite3.connect(db, timeout=5)
        try:
            return int(con.execute("SELECT count(*) FROM responses").fetchone()[0])
        finally:
            con.close()
    except sqlite3.OperationalError:  # the table is not created yet
        return 0


def tom_args(server: Any, *extra: str) -> list[str]:
    """Command-line arguments of a run against the loopback server (fast retries)."""
    return ["--tom-model=openai:test-model", f"--tom-base-url={server.base_url}",
            "--tom-backoff=0.01", "-p", "no:cacheprovider", *extra]


class Echo(Backend):
    """Answers "echo:<prompt>"; cacheable like a real model (runner and cache tests)."""

    name = "echo"
    model = "echo"
    abilities = BackendAbilities(cacheable=True)

    async def acomplete(self, request: ModelRequest) -> ModelReply:
        await asyncio.sleep(0)
        return ModelReply(text=f"echo:{request.prompt}")


def one_call(prompt: str) -> Any:
    """A runner conversation of one request: asks `prompt` once, then is done."""
    request = ModelRequest(messages=[{"role": "user", "content": prompt}], params=SamplingParams())
    return lambda responses: None if responses else request
