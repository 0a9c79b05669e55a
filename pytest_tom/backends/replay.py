"""`replay:<file.jsonl>`: recorded responses, one JSON object a line.

A line is `{"id": "<scenario>::<question>", "response": "..."}`, optionally
with `"suite"` (to tell apart equal ids of different suites) and, for
multi-call methods, `"responses": [...]` (one per call). `--tom-record` writes
files in this format. A missing id is an error outcome of that item.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pytest_tom.backends import BackendSpecError
from pytest_tom.backends.base import Backend, BackendError, ModelReply, ModelRequest
from pytest_tom.core.outcome import MISSING_RESPONSE


class ReplayBackend(Backend):
    name = "replay"

    def __init__(self, path: Path, records: dict[tuple[str | None, str], list[str]]):
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
            return ModelReply(text=responses[0])
        if request.step >= len(responses):
            raise BackendError(f"{item.id!r}: no recorded response for call {request.step + 1}",
                               kind=MISSING_RESPONSE)
        return ModelReply(text=responses[request.step])


def load_records(path: Path) -> dict[tuple[str | None, str], list[str]]:
    records: dict[tuple[str | None, str], list[str]] = {}
    with path.open(encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
                key = (rec.get("suite"), str(rec["id"]))
                if "responses" in rec:
                    responses = [str(r) for r in rec["responses"]]
                else:
                    responses = [str(rec["response"])]
            except (ValueError, KeyError, TypeError, AttributeError) as exc:
                raise BackendSpecError(
                    f"{path}:{n}: not a replay record ({exc!s}); each line must be a JSON object "
                    f'like {{"id": "scenario::question", "response": "..."}}'
                ) from None
            records[key] = responses
    return records


def create(rest: str, options: dict[str, Any]) -> Backend:
    if not rest:
        raise BackendSpecError("--tom-model=replay:<file.jsonl>: give the path of the recorded responses")
    path = Path(rest)
    if not path.is_absolute() and options.get("rootdir") and not path.exists():
        path = Path(options["rootdir"]) / path
    if not path.exists():
        raise BackendSpecError(f"--tom-model=replay:{rest}: no such file {path}")
    return ReplayBackend(path, load_records(path))
