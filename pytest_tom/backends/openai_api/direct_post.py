"""pytest-tom's own POST of `openai:`, made by the worker request path's child process
(`backends/openai_api/post_worker.py`, `--tom-openai-transport=worker`): one POST per call.

Per endpoint, everything that does not change between requests is made once: the URL
(joined from the base URL exactly as the openai client joins it), the headers (the
names and values the openai client sends for the same request, so that a server or a
proxy sees one request shape whichever path is used), the key's Authorization header
and the JSON encoder. Each call then encodes its body, POSTs it on one aiohttp session
(made on the child's event loop at the first call, closed by `close`) and reads the
answer with the checks of the client path. A new connection is opened for a POST only
through the gate (`connection_gate.ConnectionGate`, `probe`): a few at a time, each shown
taken by the server before the POST uses it.

- a status of 400 or more is a `BackendError` "HTTP <status>: <the server's message>"
  (the body's error.message when it has one, else its text, cut at 300 characters),
  retryable for 408, 409, 425, 429 and 5xx, with the Retry-After header's seconds;
- a connection that cannot be made or breaks is "connection failed: ..." (retryable); one
  not made within the connect timeout, or whose request the server's machine never
  acknowledged, is marked `connect` (backends/openai_api/connect.py);
- a body that is not JSON is handed on as text: `reply_parts.chat_reply`, the one
  decoding of a chat completion of both paths, says it is not a chat completion.

Nothing here imports the openai package (about a second, per process and xdist
worker): the client's version for its headers is read from the installed metadata
(`openai_headers`, which imports no aiohttp either: the worker path's parent process
needs the headers, not the HTTP client).
The attempt's timeout, the redaction of secrets, retries and endpoint failover stay
with the backend, the runner and the pool, the same for both paths.
"""

from __future__ import annotations

import asyncio
import base64
import json
import urllib.request
from typing import Any

import aiohttp
from yarl import URL

from pytest_tom.backends.base import BackendError, ChatBody, retryable_status
from pytest_tom.backends.openai_api.connect import (
    DEFAULT_CONNECT_TIMEOUT,
    aiohttp_connector,
    connect_message,
    is_connect_stall,
)
from pytest_tom.backends.openai_api.connection_gate import ConnectionGate, kept_alive

DEFAULT_BASE_URL = "https://api.openai.com/v1"
_MAX_MESSAGE = 300


def chat_url(base_url: str | None) -> str:
    """The chat-completions URL of a base URL without a query string (one with a query
    goes through the openai client), joined as the client joins it: `chat/completions`
    after the base's path, with one slash between."""
    return endpoint_url(base_url, "chat/completions")


def endpoint_url(base_url: str | None, path: str) -> str:
    """`path` (no leading slash) joined to a base URL without a query string as the client
    joins it: after the base's path, with one slash between."""
    base = base_url or DEFAULT_BASE_URL
    return (base if base.endswith("/") else base + "/") + path


class DirectPost:
    """POSTs chat-completions bodies to one endpoint and returns the decoded JSON answer."""

    def __init__(self, base_url: str | None, headers: dict[str, str],
                 connect_timeout: float = DEFAULT_CONNECT_TIMEOUT):
        self.url = URL(chat_url(base_url))
        self.models_url = URL(endpoint_url(base_url, "models"))  # `probe`'s cheap request
        self.connect_timeout = connect_timeout
        self.headers = headers
        self.proxy, self.proxy_headers = env_proxy(self.url)
        if self.proxy_headers and self.url.scheme == "http":  # forwarded: it reads the request's
            self.headers, self.proxy_headers = {**headers, **self.proxy_headers}, None
        self._encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"),
                                        allow_nan=False).encode
        self._session: aiohttp.ClientSession | None = None
        # new connections opened one probe at a time, each shown taken by the server
        self._gate = ConnectionGate(self.probe)

    def _open(self) -> aiohttp.ClientSession:
        """The session, made on the running loop (the runner's) at the first call. No limit
        of its own on connections (the runner's slots bound the requests in flight; new ones
        open a few at a time through the gate: connection_gate.py), each kept alive for the
        next request; no timeout of its own but the connect timeout (the backend bounds each whole
        attempt; backends/openai_api/connect.py says why a connection gets a short one). The proxy of the
        environment is looked up once (`env_proxy`), not by the session for every request
        (aiohttp's trust_env: two trips to a thread per request, about as much CPU as the
        request itself)."""
        self._session = aiohttp.ClientSession(
            connector=aiohttp_connector(self.connect_timeout),
            timeout=aiohttp.ClientTimeout(total=None, sock_connect=self.connect_timeout))
        return self._session

    async def post(self, body: ChatBody) -> Any:
        """The answer's JSON (a dict when it is a chat completion), or its text when it is not
        JSON; a `BackendError` for an error status or a failed connection."""
        session = self._session or self._open()
        data = self._encode(body).encode()
        gate = self._gate
        own = await gate.enter()  # a connection the server took is free, or one is opened
        lost = True  # broken, cancelled or closed by the server: the gate counts one fewer
        try:
            async with session.post(self.url, data=data, headers=self.headers, proxy=self.proxy,
                                    proxy_headers=self.proxy_headers) as response:
                raw = await response.read()
                status = response.status
                retry_after = response.headers.get("retry-after")
                lost = not _keeps_connection(response)
        except (aiohttp.ClientError, OSError) as exc:
            if is_connect_stall(exc):
                raise BackendError(connect_message(self.connect_timeout), retryable=True,
                                   connect=True) from None
            raise BackendError(f"connection failed: {_describe(exc)}", retryable=True) from None
        finally:
            gate.leave(lost, own)
        text = raw.decode("utf-8", errors="replace")
        if status >= 400:
            raise BackendError(f"HTTP {status}: {_server_message(text)}", status=status,
                               retryable=retryable_status(status),
                               retry_after=_seconds(retry_after))
        try:
            return json.loads(text)
        except ValueError:
            return text

    async def probe(self) -> bool | None:
        """A new connection shown taken by the server (backends/openai_api/connection_gate.py):
        `GET <base URL>/models` with the request headers, answered within the connect timeout
        (any status) and read, which leaves the connection idle in the pool. True when the
        server keeps it open, False when it closes it, None when no answer came in time."""
        session = self._session or self._open()
        try:
            return await asyncio.wait_for(self._models(session), self.connect_timeout)
        except (aiohttp.ClientError, OSError, asyncio.TimeoutError):
            return None

    async def _models(self, session: aiohttp.ClientSession) -> bool:
        async with session.get(self.models_url, headers=self.headers, proxy=self.proxy,
                               proxy_headers=self.proxy_headers,
                               allow_redirects=False) as response:  # this connection's answer
            await response.read()
            return _keeps_connection(response)

    async def close(self) -> None:
        self._gate.close()
        if self._session is not None:
            session, self._session = self._session, None
            await session.close()


def _keeps_connection(response: aiohttp.ClientResponse) -> bool:
    """Whether the server keeps the connection of this answer open (`kept_alive`)."""
    return kept_alive(response.version >= (1, 1), response.headers.get("Connection"))


def env_proxy(url: URL) -> tuple[URL | None, dict[str, str] | None]:
    """The proxy the environment names for `url` (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY, and
    NO_PROXY's exceptions, as urllib reads them: what the openai client's transports
    follow) and its credentials as a Proxy-Authorization header; (None, None) for none."""
    proxies = urllib.request.getproxies()
    proxy = proxies.get(url.scheme) or proxies.get("all")
    if not proxy or urllib.request.proxy_bypass(url.host or ""):
        return None, None
    found = URL(proxy if "://" in proxy else f"http://{proxy}")
    if not found.user:
        return found, None
    pair = f"{found.user}:{found.password or ''}".encode()
    return found.with_user(None), {"Proxy-Authorization": "Basic " + base64.b64encode(pair).decode()}


def _describe(exc: BaseException) -> str:
    return str(exc) or type(exc).__name__


def _server_message(text: str) -> str:
    """What an error body says: its error.message (or message) when it is JSON that has
    one, else the body's text; at most 300 characters."""
    message = text.strip()
    try:
        body = json.loads(message)
    except ValueError:
        body = None
    if isinstance(body, dict):
        error = body.get("error", body)
        found = error.get("message") if isinstance(error, dict) else error
        if isinstance(found, str) and found:
            message = found
    if not message:
        message = "(no body)"
    return message if len(message) < _MAX_MESSAGE else message[:_MAX_MESSAGE] + "..."


def _seconds(value: str | None) -> float | None:
    """Retry-After in seconds, as the client path reads it (a date is not read: None)."""
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None
