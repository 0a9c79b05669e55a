"""`hf:PATH`: a Hugging Face transformers causal LM in this process (the `hf` extra).

PATH is a local model directory (what `save_pretrained` writes: config, weights,
tokenizer with its chat template), or a hub name (`hf:org/name`, `hf:org/name@REV`)
when the machine has network access. The model is an answerer of the one protocol
(`backends/base.Answerer`, `backends/in_process.py`), so it runs through the same
runner as `openai:`: cache, deadline, progress, token usage, xdist.

Choices that matter for honest results:

* **Loaded once per process**, at its first call (a module-level registry keyed by
  path, device and dtype): the xdist controller, which makes no calls, never loads
  it; each worker loads its own. Calls run on one worker thread (the model is not
  thread-safe); torch uses its own intra-op threads (`--tom-threads` sets them).
* **The prompt** is the tokenizer's chat template with the generation prompt, the
  messages as the families built them, and the request's `chat_template_kwargs`
  (`--tom-thinking on|off` is `enable_thinking`, as a server hands it to its template).
* **The reply** is the decoded text split as a server's content is
  (`backends/reply_parts.split_thought`, `--tom-think-tags`): a thought kept apart, its
  tokens counted by the tokenizer; a row that stopped at `max_new_tokens` without end of
  sequence has finish reason "length" (the budget ran out), "stop" otherwise.
* **Greedy decoding at temperature 0**, stopping at the EOS token (the tokenizer's and
  the generation config's) or at `max_new_tokens`: `--tom-max-tokens`, else the
  families' own answer lengths (`asking/answer_length.py`), as for `openai:`.
  At a temperature above 0 each request is sampled alone, seeded from `--tom-seed`
  and the prompt, so that its answer never depends on its neighbours.
* **Batches** (`--tom-batch-size`, default 8) are padded on the left with an
  attention mask, so every row continues its own prompt; each row is cut at its own
  EOS and its own `max_new_tokens`. Answers are the same at every batch size: the
  tests compare batch 1 and 8 on the bundled generic suite (see docs/own-model.md
  for what was measured and why padding does not change the greedy tokens here).
* **Identity** (the cache key and the header): the path, the revision (the hub
  commit, or for a directory a fingerprint of its files: the small files' contents,
  the weights' sizes and modification times), the dtype, the device type and the
  transformers version.
"""

from __future__ import annotations

import hashlib
import importlib.util
import threading
import time
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, TypedDict

from pytest_tom.backends import BackendSpecError
from pytest_tom.backends.base import (
    LENGTH,
    STOP,
    Backend,
    BackendError,
    ModelReply,
    ModelRequest,
    PerProcess,
)
from pytest_tom.backends.in_process import AnswererError, InProcessBackend
from pytest_tom.backends.options import BackendOptions
from pytest_tom.backends.reply_parts import DEFAULT_TAGS, ThinkTags, split_thought
from pytest_tom.core.json_value import JSONObject

INSTALL = "pip install 'pytest-tom[hf]'  (transformers, accelerate, torch)"
DEFAULT_BATCH = 8
# used only when a request carries no max_tokens (a family always gives one: see
# Backend.family_max_tokens); a free call through the tom_model fixture may not
FALLBACK_MAX_TOKENS = 256
BIG_FILE = 16 * 1024 * 1024  # weights: fingerprinted by size and time, not read
DTYPES = ("auto", "float32", "bfloat16", "float16")


class GenerateArgs(TypedDict, total=False):
    """What `model.generate` gets besides the encoded prompts (transformers' names)."""

    max_new_tokens: int
    eos_token_id: list[int]
    pad_token_id: int | None
    do_sample: bool
    temperature: float | None  # None: greedy (the model's own default is not used)
    top_k: int | None
    top_p: float | None


class HFMissing(Exception):
    """The extra is not installed, or the model is not where the spec says."""


def transformers_version() -> str:
    for name in ("transformers", "torch"):
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):  # e.g. sys.modules[name] = None
            found = False
        if not found:
            raise HFMissing(f"--tom-model=hf:... runs Hugging Face models with transformers, "
                            f"and {name} is not installed: {INSTALL}")
    try:
        return version("transformers")
    except PackageNotFoundError:
        return "unknown"


def directory_fingerprint(path: Path) -> str:
    """A short hash of a model directory: small files by content, big ones by size and time."""
    digest = hashlib.sha256()
    for file in sorted(p for p in path.rglob("*") if p.is_file()):
        rel = file.relative_to(path).as_posix()
        if rel.startswith("."):
            continue
        stat = file.stat()
        digest.update(rel.encode() + b"\0")
        if stat.st_size > BIG_FILE:
            digest.update(f"{stat.st_size}:{stat.st_mtime_ns}".encode())
        else:
            digest.update(file.read_bytes())
    return digest.hexdigest()[:16]


def hub_revision(name: str, revision: str | None) -> str:
    """The commit a hub name (and optional branch or tag) resolves to now (needs network)."""
    try:
        from huggingface_hub import HfApi  # noqa: PLC0415 optional (hf extra), network
        return str(HfApi().model_info(name, revision=revision).sha)
    except Exception as exc:
        raise HFMissing(f"--tom-model=hf:{name}: not a local directory, and the hub did not "
                        f"answer for it ({type(exc).__name__}: {exc}); give a model directory "
                        f"or check the name and the network") from None


@dataclass(frozen=True)
class LoadSpec:
    source: str  # a directory or a hub name
    revision: str | None  # hub commit (None for a directory)
    device: str
    dtype: str


class LoadedModel:
    """The tokenizer and the model of one LoadSpec: loaded at the first call."""

    def __init__(self, spec: LoadSpec):
        self.spec = spec
        self._lock = threading.Lock()
        self._parts: tuple[Any, Any, Any] | None = None
        self._error: str | None = None
        self.load_seconds: float | None = None

    def parts(self) -> tuple[Any, Any, Any]:
        """(torch, tokenizer, model)."""
        with self._lock:
            if self._parts is None and self._error is None:
                self._load()
            if self._error is not None:
                raise BackendError(self._error)
            assert self._parts is not None
            return self._parts

    def _load(self) -> None:
        start = time.perf_counter()
        try:
            import torch  # noqa: PLC0415 optional (hf extra), heavy
            from transformers import AutoModelForCausalLM, AutoTokenizer  # noqa: PLC0415 optional (hf extra), heavy
        except ImportError as exc:
            self._error = f"cannot import transformers/torch ({exc}): {INSTALL}"
            return
        spec = self.spec
        dtype: Any = "auto" if spec.dtype == "auto" else getattr(torch, spec.dtype)
        try:
            tokenizer = AutoTokenizer.from_pretrained(spec.source, revision=spec.revision)
            model = AutoModelForCausalLM.from_pretrained(spec.source, revision=spec.revision,
                                                         dtype=dtype)
            model.to(spec.device)
            model.eval()
        except Exception as exc:
            self._error = (f"transformers could not load {spec.source}: {type(exc).__name__}: "
                           f"{exc}")
            return
        tokenizer.padding_side = "left"  # every row ends where its answer starts
        if tokenizer.pad_token_id is None:
            tokenizer.pad_token = tokenizer.eos_token
        if getattr(tokenizer, "chat_template", None) is None:
            self._error = (f"{spec.source} has no chat template (tokenizer_config.json or "
                           f"chat_template.jinja): hf: builds prompts with it; use an "
                           f"instruction-tuned model or add a template")
            return
        self._parts = (torch, tokenizer, model)
        self.load_seconds = time.perf_counter() - start


_MODELS: PerProcess[LoadSpec, LoadedModel] = PerProcess(LoadedModel)


def loaded_model(spec: LoadSpec) -> LoadedModel:
    """The process-wide model of `spec` (made on first request, loaded on first call)."""
    return _MODELS.get(spec)


class HFModel:
    """The answerer: batches of chat requests to greedy generations."""

    thread_safe = False  # one worker thread: the model and its caches are shared state
    family_max_tokens = True  # a model generates until EOS: the families' lengths apply
    batch_size = DEFAULT_BATCH

    def __init__(self, spec: LoadSpec, label: str, revision_text: str, runtime: str,
                 threads: int | None = None, tags: ThinkTags | None = DEFAULT_TAGS):
        self.spec = spec
        self.tags = tags  # --tom-think-tags: how a thought is split off the decoded text
        self.label = label
        self.revision_text = revision_text
        self.runtime = runtime
        self.threads = threads
        self.batches = 0

    @property
    def loaded(self) -> LoadedModel:
        return loaded_model(self.spec)

    def identity(self) -> str:
        tags = "" if self.tags == DEFAULT_TAGS else \
            f" · think tags {self.tags.text() if self.tags else 'off'}"
        return (f"{self.label} rev {self.revision_text} · {self.spec.dtype} on "
                f"{self.spec.device.split(':')[0]} · transformers {self.runtime}{tags}")

    def answer(self, request: ModelRequest) -> ModelReply:
        return self.answer_batch([request])[0]

    def answer_batch(self, requests: list[ModelRequest]) -> list[ModelReply]:
        torch, tokenizer, model = self.loaded.parts()
        if self.threads:
            torch.set_num_threads(self.threads)
        greedy = [r for r in requests if r.params.temperature <= 0]
        out: dict[int, ModelReply] = {}
        if greedy:
            for r, reply in zip(greedy, self._generate(torch, tokenizer, model, greedy,
                                                       sample=False), strict=True):
                out[id(r)] = reply
        for r in requests:
            if r.params.temperature > 0:  # alone, seeded: never depends on its neighbours
                seed = int.from_bytes(hashlib.sha256(
                    f"{r.params.seed}\0{r.messages}".encode()).digest()[:4], "big")
                torch.manual_seed(seed)
                out[id(r)] = self._generate(torch, tokenizer, model, [r], sample=True)[0]
        return [out[id(r)] for r in requests]

    def _generate(self, torch: Any, tokenizer: Any, model: Any, requests: list[ModelRequest],
                  sample: bool) -> list[ModelReply]:
        self.batches += 1
        try:
            prompts = [tokenizer.apply_chat_template(r.messages, tokenize=False,
                                                     add_generation_prompt=True,
                                                     **template_kwargs(r))
                       for r in requests]
        except Exception as exc:
            raise BackendError(f"the chat template of {self.label} failed: {exc}") from None
        limits = [r.params.max_tokens if r.params.max_tokens is not None
                  else FALLBACK_MAX_TOKENS for r in requests]
        enc = tokenizer(prompts, return_tensors="pt", padding=True, add_special_tokens=False)
        enc = {k: v.to(model.device) for k, v in enc.items()}
        stops = self._stop_ids(tokenizer, model)
        kwargs: GenerateArgs = {"max_new_tokens": max(limits), "eos_token_id": stops,
                                "pad_token_id": tokenizer.pad_token_id}
        if sample:
            kwargs.update({"do_sample": True, "temperature": requests[0].params.temperature,
                           "top_k": 0, "top_p": 1.0})
        else:
            kwargs.update({"do_sample": False, "temperature": None, "top_p": None,
                           "top_k": None})
        with torch.inference_mode():
            try:
                generated = model.generate(**enc, **kwargs)
            except Exception as exc:
                raise BackendError(f"{self.label}: generation failed: {type(exc).__name__}: "
                                   f"{exc}") from None
        width = enc["input_ids"].shape[1]
        replies = []
        for row, limit in enumerate(limits):
            tokens = generated[row, width:].tolist()[:limit]
            ended = next((i for i, t in enumerate(tokens) if t in stops), None)
            if ended is not None:
                tokens = tokens[:ended]
            text = tokenizer.decode(tokens, skip_special_tokens=True).strip()
            answer, thought = split_thought(text, self.tags)
            prompt_tokens = int(enc["attention_mask"][row].sum())
            completion = len(tokens) + (1 if ended is not None else 0)
            usage = {"prompt_tokens": prompt_tokens, "completion_tokens": completion,
                     "total_tokens": prompt_tokens + completion}
            if thought is not None:  # counted by the model's own tokenizer
                usage["reasoning_tokens"] = len(tokenizer(thought, add_special_tokens=False)
                                                ["input_ids"])
            # no end of sequence: stopped at max_new_tokens, the budget ran out
            replies.append(ModelReply(text=answer, model=self.label, usage=usage,
                                      thought=thought,
                                      finish_reason=STOP if ended is not None else LENGTH))
        return replies

    @staticmethod
    def _stop_ids(tokenizer: Any, model: Any) -> list[int]:
        ids = {tokenizer.eos_token_id}
        configured = getattr(getattr(model, "generation_config", None), "eos_token_id", None)
        if isinstance(configured, int):
            ids.add(configured)
        elif isinstance(configured, (list, tuple)):
            ids.update(configured)
        return sorted(i for i in ids if isinstance(i, int))


def template_kwargs(request: ModelRequest) -> JSONObject:
    """What the chat template gets besides the messages: the request's
    `chat_template_kwargs` (`--tom-thinking on|off` as `enable_thinking`, or given with
    `--tom-request-field`), as a server hands them to its template."""
    kwargs = request.params.request_fields().get("chat_template_kwargs") if \
        request.params.fields else None
    return dict(kwargs) if isinstance(kwargs, dict) else {}


def default_device() -> str:
    try:
        import torch  # noqa: PLC0415 optional (hf extra), heavy: only to ask for a GPU
    except ImportError:
        return "cpu"
    return "cuda" if torch.cuda.is_available() else "cpu"


def create(rest: str, options: BackendOptions) -> Backend:
    """`hf:DIR`, `hf:org/name[@REV]`: checks the extra and the path now; loads at the first
    call."""
    text = rest.strip()
    if not text:
        raise BackendSpecError("--tom-model=hf:PATH: give a model directory (save_pretrained's "
                               "output) or a hub name, e.g. hf:./checkpoints/final")
    try:
        runtime = transformers_version()
        device = options.hf_device or default_device()
        dtype = options.hf_dtype or ("float32" if device == "cpu" else "auto")
        if dtype not in DTYPES:
            raise HFMissing(f"--tom-hf-dtype={dtype}: use one of {', '.join(DTYPES)}")
        path = Path(text).expanduser()
        rootdir = options.rootdir
        if not path.is_absolute() and not path.exists() and rootdir:
            path = Path(rootdir) / path
        if path.exists():
            if not path.is_dir() or not (path / "config.json").is_file():
                raise HFMissing(f"--tom-model=hf:{text}: {path} is not a model directory "
                                f"(no config.json); give what save_pretrained wrote")
            source, revision = str(path.resolve()), None
            revision_text = directory_fingerprint(path)
        elif text.startswith((".", "/", "~")) or text.count("/") > 1:
            raise HFMissing(f"--tom-model=hf:{text}: no model directory at {path}")
        else:
            name, _, pinned = text.partition("@")
            source, revision = name, hub_revision(name, pinned or None)
            revision_text = revision
    except HFMissing as exc:
        raise BackendSpecError(str(exc)) from None
    threads = options.threads
    model = HFModel(LoadSpec(source, revision, device, dtype), label=source,
                    revision_text=revision_text, runtime=runtime,
                    threads=int(threads) if threads else None,
                    tags=options.tags)
    try:
        return InProcessBackend(model, name="hf", label=source, spec=f"hf:{text}",
                                batch_size=options.batch_size)
    except AnswererError as exc:
        raise BackendSpecError(f"--tom-model=hf:{text}: {exc}") from None
