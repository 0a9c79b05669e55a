"""Whole-run speed settings: the garbage collector around a large collection (pytest_tom.plugin.large_runs)
and the threads of embedding batches under xdist."""

from __future__ import annotations

import gc
import weakref

import pytest

from pytest_tom.plugin import large_runs as speed


def test_the_collected_tree_stays_frozen_until_the_next_session_collects() -> None:
    speed.release()  # a tree an in-process pytester run of this test session left frozen
    if gc.get_freeze_count():
        pytest.skip("something else in this process froze objects")
    try:
        with speed.collection_gc():
            assert not gc.isenabled()
            tree = [[i] for i in range(1000)]
        assert gc.isenabled()
        # counts are compared with what this test keeps alive, not with an earlier count:
        # frozen objects of other threads (a runner's event loop left by an in-process run)
        # may be freed meanwhile, which lowers the count by a few
        assert gc.get_freeze_count() >= len(tree)  # out of the collector's sight after collection
        gc.collect()
        assert gc.get_freeze_count() >= len(tree)  # ... and stays there (no unfreeze at the end)
        answers = [[i] for i in range(500)]  # what the request phase builds
        speed.freeze_more()
        assert gc.get_freeze_count() >= len(tree) + len(answers)
        with speed.submission_gc():  # every item's requests submitted: paused, then frozen
            assert not gc.isenabled()
            submitted = [[i] for i in range(300)]
        assert gc.isenabled()
        assert gc.get_freeze_count() >= len(tree) + len(answers) + len(submitted)
        with speed.collection_gc():  # a second session in this process gives it back first
            assert gc.get_freeze_count() == 0
    finally:
        speed.release()
    assert gc.get_freeze_count() == 0


class _Node:
    me: _Node | None = None


def test_the_test_loop_settles_every_thousand_items_its_garbage_collected_first() -> None:
    """settle_loop: every SETTLE_EVERY items the garbage made since the last step is collected
    (a reference cycle is not kept frozen) and what survives is frozen; nothing between two
    steps, and nothing at all when the collected tree is not frozen by large_runs."""
    speed.release()
    if gc.get_freeze_count():
        pytest.skip("something else in this process froze objects")
    was_enabled = gc.isenabled()
    try:
        with speed.collection_gc():
            tree = [[i] for i in range(10)]
        assert gc.get_freeze_count() >= len(tree)  # the collected tree: frozen by large_runs
        gc.disable()  # no collection of the collector's own in between
        node = _Node()
        node.me = node  # a cycle: only the cyclic collector frees it
        gone = weakref.ref(node)
        del node
        kept = [[i] for i in range(700)]  # records, reports: they live on
        before = gc.get_freeze_count()
        speed.settle_loop(speed.SETTLE_EVERY - 1)
        assert gone() is not None and gc.get_freeze_count() < before + len(kept)
        speed.settle_loop(speed.SETTLE_EVERY)
        assert gone() is None  # collected first, not frozen
        assert gc.get_freeze_count() >= before + len(kept)
        speed.release()
        more = [[i] for i in range(300)]
        speed.settle_loop(2 * speed.SETTLE_EVERY)  # another's freeze, or none: not ours
        assert gc.get_freeze_count() < len(more)
    finally:
        speed.release()
        if was_enabled:
            gc.enable()


def test_a_freeze_made_by_someone_else_is_never_undone() -> None:
    speed.release()
    if gc.get_freeze_count():
        pytest.skip("something else in this process froze objects")
    gc.freeze()  # e.g. an application that froze its start-up objects before forking
    try:
        before = gc.get_freeze_count()
        with speed.collection_gc():
            pass
        speed.freeze_more()
        speed.release()
        assert gc.get_freeze_count() >= before
    finally:
        gc.unfreeze()


def test_embedding_batches_share_the_cores_among_xdist_workers(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_tom.scoring import embeddings

    monkeypatch.setattr(embeddings.os, "sched_getaffinity", lambda pid: {0, 1, 2, 3}, raising=False)
    monkeypatch.delenv("PYTEST_XDIST_WORKER_COUNT", raising=False)
    assert embeddings.batch_threads() is None  # no xdist: torch's own default
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "2")
    assert embeddings.batch_threads() == 2
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "8")
    assert embeddings.batch_threads() == 1
