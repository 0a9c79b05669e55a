"""The `embedder` fixture: FANToM's embedding model loaded once in this process, before any
in-process pytester run.

An in-process run (`pytester.runpytest`) drops the modules it imported when it ends, and
torch must not be imported twice; loaded here first, the model and its module stay, and
every in-process run of FANToM's free answers reuses it instead of loading it again (about
16 s each on this machine). Runs in subprocesses and xdist workers load their own.
"""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture(scope="session")
def embedder() -> Any:
    """The default embedding model (skips the test when none is installed)."""
    from pytest_tom.scoring.embeddings import EmbedderError, get_embedder  # noqa: PLC0415

    try:
        return get_embedder(None)
    except EmbedderError as exc:
        pytest.skip(f"no embedding model: {exc}")
