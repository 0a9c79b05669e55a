"""What a backend is made with: `BackendOptions`, the typed options `create_backend` and
every backend factory receive (an entry point's `create(rest, options)` too).

Built once per process from the resolved `--tom-*` values (`from_options`) and the
project's folder; read by attribute. Each default is the one the option table declares
(`core.option_table.declared_default`), so that a backend never sets a default again (the
120 s timeout once stood in both places). A default that depends on the machine (the
local model's threads, hf:'s device and dtype) stays None here and is decided by the
backend that needs it. The server-specific request fields (`--tom-request-field`) are not
here: they travel with each request (`SamplingParams.fields`), a JSON boundary.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path

from pytest_tom.backends.reply_parts import ThinkTags, think_tags
from pytest_tom.core.option_table import TomOptions, declared_default
from pytest_tom.core.secrets import RedactedUrl, url_list


@dataclass(frozen=True)
class BackendOptions:
    """The options a backend may read. Given a URL text or a list, `base_url` is split as
    `--tom-base-url` is (`url_list`), so that code outside the option table (tests,
    benchmarks, a user's conftest) may write `BackendOptions(base_url="http://...")`."""

    # openai: the endpoints (one per replica; none: $OPENAI_BASE_URL, else api.openai.com)
    base_url: tuple[RedactedUrl, ...] = declared_default("base_url")
    timeout: float = declared_default("timeout")  # seconds one attempt may take
    connect_timeout: float = declared_default("connect_timeout")
    transport: str = declared_default("transport")  # openai: auto, aiohttp or httpx
    openai_transport: str = declared_default("openai_transport")  # auto, direct, worker, sdk
    think_tags: str = declared_default("think_tags")  # OPEN,CLOSE or off (`tags`)
    # local: prompt threads (None: the idle cores, backends/local.default_threads) and context
    threads: int | None = declared_default("threads")
    local_ctx: int = declared_default("local_ctx")
    # answerers (python:, the hook, fixture:, hf:): None, the object's own preference
    batch_size: int | None = declared_default("batch_size")
    hf_device: str | None = declared_default("hf_device")  # None: cuda when there is one
    hf_dtype: str | None = declared_default("hf_dtype")  # None: float32 on cpu, else auto
    # the project's folder, where relative paths of a spec are also looked for (python:
    # files and modules, replay: files, local: and hf: models); None: the current folder
    rootdir: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.base_url, tuple) or not all(
                isinstance(u, RedactedUrl) for u in self.base_url):
            object.__setattr__(self, "base_url", url_list(self.base_url))  # type: ignore[arg-type]

    @property
    def tags(self) -> ThinkTags | None:
        """The tags around a thought in a reply's text (None: `off`, never split)."""
        return think_tags(self.think_tags)

    @classmethod
    def from_options(cls, options: TomOptions, rootdir: str | Path | None = None) -> BackendOptions:
        """The backend's options of a run: its resolved `--tom-*` values, and the project's
        folder (`rootdir`)."""
        values = {f.name: getattr(options, f.name) for f in fields(cls) if f.name != "rootdir"}
        return cls(**values, rootdir=None if rootdir is None else str(rootdir))
