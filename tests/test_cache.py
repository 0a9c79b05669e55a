"""The response cache: keys, modes, claims between processes, concurrent writers."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_tom.asking.cache import ResponseCache, clear, request_key
from pytest_tom.backends.base import SamplingParams
from pytest_tom.backends.options import BackendOptions

IDENTITY = {"backend": "openai", "model": "m", "base_url": "http://127.0.0.1:1/v1"}
MESSAGES = [{"role": "user", "content": "Where is the ball?"}]
PARAMS = SamplingParams(temperature=0.0, max_tokens=None, seed=0).to_dict()


def test_the_key_covers_backend_messages_params_and_sample() -> None:
    base = request_key(IDENTITY, MESSAGES, PARAMS, 0)
    assert base == request_key(dict(reversed(IDENTITY.items())), MESSAGES, dict(PARAMS), 0)
    variants = [
        request_key({**IDENTITY, "model": "other"}, MESSAGES, PARAMS, 0),
        request_key({**IDENTITY, "base_url": "http://127.0.0.1:2/v1"}, MESSAGES, PARAMS, 0),
        request_key({**IDENTITY, "backend": "local"}, MESSAGES, PARAMS, 0),
        request_key(IDENTITY, [{"role": "user", "content": "Where is the ball now?"}], PARAMS, 0),
        request_key(IDENTITY, MESSAGES, {**PARAMS, "temperature": 0.7}, 0),
        request_key(IDENTITY, MESSAGES, {**PARAMS, "max_tokens": 5}, 0),
        request_key(IDENTITY, MESSAGES, {**PARAMS, "seed": 1}, 0),
        request_key(IDENTITY, MESSAGES, PARAMS, 1),
    ]
    assert len({base, *variants}) == len(variants) + 1


SECRET_URL = "http://user:pw-secret@127.0.0.1:9/v1?k=q-secret"


def test_the_api_key_never_reaches_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_tom.asking.runner import Runner
    from pytest_tom.backends import create_backend

    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-value-123")
    backend = create_backend("openai:m", BackendOptions(base_url=SECRET_URL))
    identity = backend.identity()
    assert "secret" not in repr(identity)
    runner = Runner(backend, cache=ResponseCache(tmp_path, mode="on"))
    runner.close()
    # two different keys give the same cache key: the key is not part of it
    monkeypatch.setenv("OPENAI_API_KEY", "sk-another")
    other = create_backend("openai:m", BackendOptions(base_url=SECRET_URL))
    assert request_key(other.identity(), MESSAGES, PARAMS) == request_key(identity, MESSAGES, PARAMS)


def test_put_get_and_the_modes(tmp_path: Path) -> None:
    on = ResponseCache(tmp_path, mode="on")
    on.put("k1", "a) the box", {"prompt_tokens": 5}, "m-1")
    got = on.get("k1")
    assert got is not None and (got.text, got.usage, got.model) == ("a) the box", {"prompt_tokens": 5}, "m-1")
    assert on.get("missing") is None
    read = ResponseCache(tmp_path, mode="read")
    read.put("k2", "ignored", None, None)
    assert read.get("k1") is not None and read.get("k2") is None
    write = ResponseCache(tmp_path, mode="write")
    assert write.get("k1") is None  # never reads: refreshes
    write.put("k1", "b) the basket", None, None)
    assert on.get("k1").text == "b) the basket"
    off = ResponseCache(tmp_path / "off", mode="off")
    off.put("k", "x", None, None)
    assert off.get("k") is None and not (tmp_path / "off").exists()
    for c in (on, read, write, off):
        c.close()
    assert clear(tmp_path) == 1
    assert ResponseCache(tmp_path).count() == 0
    with pytest.raises(ValueError):
        ResponseCache(tmp_path, mode="sometimes")


def test_many_keys_are_read_in_a_few_queries_with_what_get_reads(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_tom.asking import cache as cache_module

    monkeypatch.setattr(cache_module, "MANY", 3)  # 10 keys: 4 queries
    on = ResponseCache(tmp_path, mode="on")
    for i in range(7):
        on.put(f"k{i}", f"answer {i}", {"prompt_tokens": i} if i % 2 else None, f"m-{i}")
    keys = [f"k{i}" for i in range(7)] + ["missing", "k3", "also missing"]
    got = asyncio.run(on.aget_many(keys))
    assert got == {f"k{i}": on.get(f"k{i}") for i in range(7)}
    assert got["k3"].usage == {"prompt_tokens": 3} and got["k2"].usage is None
    assert asyncio.run(on.aget_many([])) == {}
    write = ResponseCache(tmp_path, mode="write")  # never reads
    assert asyncio.run(write.aget_many(keys)) == {}
    for c in (on, write):
        c.close()


def test_the_folder_is_ignored_by_git(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / ".tom_cache")
    cache.close()
    assert (tmp_path / ".tom_cache" / ".gitignore").read_text().strip().endswith("*")
    assert (tmp_path / ".tom_cache" / "CACHEDIR.TAG").exists()


def test_a_claim_held_by_a_live_process_blocks_and_a_dead_ones_is_taken_over(tmp_path: Path) -> None:
    a, b = ResponseCache(tmp_path), ResponseCache(tmp_path)
    assert a.claim("k")
    assert not b.claim("k")  # a (alive: this very process) is asking
    a.put("k", "answer", None, None)  # answering drops the claim
    assert b.get("k").text == "answer"
    assert a.claim("k2")
    a.release("k2")
    assert b.claim("k2")
    # a claim left by a process killed meanwhile is taken over
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    pid = int(dead.stdout)
    b._db.execute("INSERT INTO claims (key, owner, host, pid, started) VALUES (?, ?, ?, ?, 0)",
                  ("k3", "gone", b.host, pid))
    assert a.claim("k3")
    # claims of a closed cache are gone
    b.close()
    assert a.claim("k2")
    a.close()


def _writer(path: str, start: int) -> None:
    cache = ResponseCache(path)
    for i in range(start, start + 200):
        assert cache.claim(f"k{i % 250}") in (True, False)
        cache.put(f"k{i}", f"text {i}", {"total_tokens": i}, "m")
        assert cache.get(f"k{i}").text == f"text {i}"
    cache.close()


def test_processes_write_concurrently(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("spawn" if os.name != "posix" else "fork")
    procs = [ctx.Process(target=_writer, args=(str(tmp_path), n * 100)) for n in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert [p.exitcode for p in procs] == [0, 0, 0]
    cache = ResponseCache(tmp_path)
    assert cache.count() == 400  # k0 .. k399, overlaps written twice with the same text
    assert cache.get("k150").text == "text 150"
    cache.close()
