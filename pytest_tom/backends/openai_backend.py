"""`openai:<model>`: any OpenAI-compatible chat-completions endpoint via the official client.

The key comes from OPENAI_API_KEY only (never from an option, so it cannot
leak into reports); the endpoint from --tom-base-url or OPENAI_BASE_URL
(vLLM, Ollama, llama.cpp servers ...). A local endpoint needs no key. The
client's own retries are off: the runner retries with its own policy.
"""

from __future__ import annotations

import os
from typing import Any

from pytest_tom.backends.base import Backend, BackendError, ModelReply, ModelRequest, redact_url

RETRYABLE_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}


class OpenAIBackend(Backend):
    name = "openai"
    family_max_tokens = True  # a server's own limit is often the whole context

    def __init__(self, model: str, base_url: str | None, api_key: str, timeout: float):
        import openai  # imported here: only runs that use this backend pay for it

        self.model = model
        self.base_url = base_url
        self._openai = openai
        self._secrets = [s for s in _url_secrets(base_url) + [api_key] if s and len(s) > 3]
        self.timeout = timeout
        self.client = openai.AsyncOpenAI(api_key=api_key, base_url=base_url, max_retries=0,
                                         timeout=timeout)

    def identity(self) -> dict[str, Any]:
        return {"backend": self.name, "model": self.model, "base_url": redact_url(self.base_url)}

    def describe(self) -> str:
        where = redact_url(self.base_url) or "api.openai.com"
        return f"openai:{self.model} @ {where}"

    async def acomplete(self, request: ModelRequest) -> ModelReply:
        kwargs: dict[str, Any] = {"model": self.model, "messages": request.messages,
                                  "temperature": request.params.temperature}
        if request.params.max_tokens is not None:
            kwargs["max_tokens"] = request.params.max_tokens
        if request.params.seed is not None:
            kwargs["seed"] = request.params.seed
        try:
            return await self._complete(kwargs)
        except BackendError as exc:
            message = str(exc)
            for secret in self._secrets:
                message = message.replace(secret, "***")
            if message == str(exc):
                raise
            raise BackendError(message, kind=exc.kind, retryable=exc.retryable, status=exc.status,
                               retry_after=exc.retry_after, timed_out=exc.timed_out) from None

    async def _complete(self, kwargs: dict[str, Any]) -> ModelReply:
        oa = self._openai
        try:
            resp = await self.client.chat.completions.create(**kwargs)
        except oa.APIStatusError as exc:
            retry_after = _retry_after(exc)
            raise BackendError(f"HTTP {exc.status_code}: {_short(exc)}", status=exc.status_code,
                               retryable=exc.status_code in RETRYABLE_STATUS or exc.status_code >= 500,
                               retry_after=retry_after) from None
        except oa.APITimeoutError:
            raise BackendError(f"timed out after {self.timeout:g}s (--tom-timeout)",
                               retryable=True, timed_out=True) from None
        except oa.APIConnectionError as exc:
            raise BackendError(f"connection failed: {exc}", retryable=True) from None
        except oa.OpenAIError as exc:
            raise BackendError(f"{type(exc).__name__}: {exc}") from None
        if not resp.choices:
            raise BackendError("the server returned no choices")
        text = resp.choices[0].message.content
        if text is None or not text.strip():
            raise BackendError("the server returned an empty completion", retryable=False)
        usage = None
        if resp.usage is not None:
            usage = {"prompt_tokens": resp.usage.prompt_tokens or 0,
                     "completion_tokens": resp.usage.completion_tokens or 0,
                     "total_tokens": resp.usage.total_tokens or 0}
        return ModelReply(text=text, usage=usage, model=resp.model)

    async def aclose(self) -> None:
        await self.client.close()


def _url_secrets(url: str | None) -> list[str]:
    """Parts of a base URL that may be credentials (password, user, query values)."""
    if not url:
        return []
    from urllib.parse import parse_qsl, urlsplit

    parts = urlsplit(url)
    found = [parts.password or "", parts.username or ""]
    found += [v for _, v in parse_qsl(parts.query)]
    return found


def _short(exc: Exception) -> str:
    msg = str(getattr(exc, "message", "") or exc)
    return msg if len(msg) < 300 else msg[:300] + "..."


def _retry_after(exc: Any) -> float | None:
    try:
        value = exc.response.headers.get("retry-after")
        return float(value) if value is not None else None
    except (AttributeError, TypeError, ValueError):
        return None


def create(rest: str, options: dict[str, Any]) -> Backend:
    from pytest_tom.backends import BackendSpecError

    if not rest:
        raise BackendSpecError("--tom-model=openai:<model>: name the model, e.g. openai:gpt-4o-mini")
    base_url = options.get("base_url") or os.environ.get("OPENAI_BASE_URL") or None
    key = os.environ.get("OPENAI_API_KEY")
    if not key:
        if not base_url:
            raise BackendSpecError(
                "--tom-model=openai:...: OPENAI_API_KEY is not set; export it, or point "
                "--tom-base-url at a local OpenAI-compatible server (vLLM, Ollama, llama.cpp)"
            )
        key = "not-needed"  # local servers ignore the key
    return OpenAIBackend(rest, base_url, key, timeout=float(options.get("timeout") or 120.0))
