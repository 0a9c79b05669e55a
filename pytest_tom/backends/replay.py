"""`replay:<file.jsonl>`: recorded responses, one JSON object a line.

A line is `{"id": "<scenario>::<question>", "response": "..."}`, optionally
with `"suite"` (to tell apart equal ids of different suites) and, for
multi-call methods, `"responses": [...]` (one per call). A reasoning model's run adds
`"thoughts"` and `"finish"` (one per call, as the record holds them), which the replay
gives back: the thought stays apart, and an answer the budget cut off stays cut off.
`--tom-record` writes files in this format. A missing id is an error outcome of that item.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pytest_tom.backends import BackendSpecError
from pytest_tom.backends.base import (
    Backend,
    BackendAbilities,
    BackendError,
    ModelReply,
    ModelRequest,
    finish_reason,
)
from pytest_tom.backends.options import BackendOptions
from pytest_tom.core.json_value import JSONObject
from pytest_tom.core.outcome import MISSING_RESPONSE

# what one line gives back: per call, (answer, thought, finish reason)
Recorded = list[tuple[str, str | None, str | None]]


class ReplayBackend(Backend):
    name = "replay"
    # recorded: cut-off answers replayed cost nothing, so the run is never stopped early
    abilities = BackendAbilities(recorded=True)

    def __init__(self, path: Path, records: dict[tuple[str | None, str], Recorded]):
        self.model = str(path)
        self.records = records

    async def acomplete(self, request: ModelRequest) -> ModelReply:
        item = request.item
        if item is None:
            raise BackendError("replay answers benchmark items only", kind=MISSING_RESPONSE)
        responses = self.records.get((item.suite, item.id)) or self.records.get((None, item.id))
        if responses is None:
            raise BackendError(f"no recorded response for {item.id!r} in {self.model}",
                               kind=MISSING_RESPONSE)
        if len(responses) == 1:
            text, thought, finish = responses[0]
        elif request.step >= len(responses):
            raise BackendError(f"{item.id!r}: no recorded response for call {request.step + 1}",
                               kind=MISSING_RESPONSE)
        else:
            text, thought, finish = responses[request.step]
        return ModelReply(text=text, thought=thought, finish_reason=finish)


def _per_call(rec: JSONObject, key: str, calls: int) -> list[Any]:
    """A line's `thoughts` or `finish`: one per call (None where it has none). `rec`: the
    line as read, before this check."""
    values = rec.get(key)
    if values is None:
        return [None] * calls
    if not isinstance(values, list) or len(values) != calls:
        raise TypeError(f"{key!r} must be a list with one entry per response")
    return values


def load_records(path: Path) -> dict[tuple[str | None, str], Recorded]:
    records: dict[tuple[str | None, str], Recorded] = {}
    with path.open(encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
                key = (rec.get("suite"), str(rec["id"]))
                if "responses" in rec:
                    texts = [str(r) for r in rec["responses"]]
                else:
                    texts = [str(rec["response"])]
                thoughts = _per_call(rec, "thoughts", len(texts))
                finishes = _per_call(rec, "finish", len(texts))
                responses = [(text, None if thought is None else str(thought),
                              finish_reason(finish))
                             for text, thought, finish in zip(texts, thoughts, finishes,
                                                              strict=True)]
            except (ValueError, KeyError, TypeError, AttributeError) as exc:
                raise BackendSpecError(
                    f"{path}:{n}: not a replay record ({exc!s}); each line must be a JSON object "
                    f'like {{"id": "scenario::question", "response": "..."}}'
                ) from None
            records[key] = responses
    return records


def create(rest: str, options: BackendOptions) -> Backend:
    if not rest:
        raise BackendSpecError("--tom-model=replay:<file.jsonl>: give the path of the recorded responses")
    path = Path(rest)
    if not path.is_absolute() and options.rootdir and not path.exists():
        path = Path(options.rootdir) / path
    if not path.exists():
        raise BackendSpecError(f"--tom-model=replay:{rest}: no such file {path}")
    return ReplayBackend(path, load_records(path))
