"""The openai client's POST (`--tom-openai-transport=sdk`): the chat-completions body sent
through the official client, its answer's JSON returned, its failures raised as the
`BackendError`s every path raises.

It has the interface of `direct_post.DirectPost` (`post`, `probe`, `close`), so that the
worker process (post_worker.py) runs either: the sdk path's requests are made in that
child process too, on the other core, wherever an interpreter can be started; in this
process (`ClientReplies`) only where none can (an embedded Python). Issue 47: in pytest's
process the client's `import openai` (about 0.4 s) came after collection, before the
first request, and its transport's CPU per request shared pytest's core and GIL; over
httpx, a fresh server with a listen backlog of 5 took its run's request phase to
1.30-1.39 × the ideal.

SDK transport: the client's aiohttp transport (`openai.DefaultAioHttpClient`, installed
with the `openai[aiohttp]` extra) when `pick_transport` chose it, else the client's
default httpx transport (see openai_backend.py for the choice). Each call goes through the
client's generic `post(..., cast_to=object)`: the client's request machinery (headers,
timeouts, errors as `openai.APIStatusError` ...) without its per-call parameter transform
and response model, which cost as much CPU as the transport itself.
"""

from __future__ import annotations

import asyncio
import importlib
import itertools
import urllib.request
import uuid
from typing import Any
from urllib.parse import urlsplit

from pytest_tom.backends.base import BackendError, ChatBody, ModelReply, retryable_status
from pytest_tom.backends.openai_api.connect import (
    aiohttp_connector,
    connect_message,
    is_connect_stall,
    socket_options,
)
from pytest_tom.backends.openai_api.connection_gate import ConnectionGate
from pytest_tom.backends.reply_parts import ThinkTags, chat_reply
from pytest_tom.core.paused_gc import paused_gc

__all__ = ["ClientPost", "ClientReplies"]


def _openai() -> Any:
    """The openai package, imported at the first request (or the request process's start):
    `import openai` takes about half a second, which a run whose answers are all cached
    never needs to spend in pytest's process."""
    import openai  # noqa: PLC0415 the one place it is imported

    return openai


class ClientPost:
    """POSTs chat-completions bodies to one endpoint through an `openai.AsyncOpenAI` client
    and returns the decoded JSON answer (`DirectPost`'s interface)."""

    def __init__(self, base_url: str | None, api_key: str, timeout: float,
                 connect_timeout: float, transport: str):
        self.base_url = base_url
        self.timeout = timeout
        self.connect_timeout = connect_timeout
        self.transport = transport  # "aiohttp" or "httpx"; httpx when aiohttp's cannot be made
        self._api_key = api_key
        # new connections opened a few probes at a time, each shown taken by the server
        self._gate = ConnectionGate(self.probe)
        self._client: Any = None
        self._models_url = ""  # `probe`'s request, joined once with the client's base URL
        self._url = "/chat/completions"  # made absolute once with the client (see `client`)
        # the client makes an idempotency key per request, a fresh uuid4 (os.urandom and its
        # formatting: about 3% of a run's CPU at latency 0), sent only by clients that
        # declare an idempotency header (AsyncOpenAI 3.x declares none): one uuid4 per
        # endpoint and a counter make a key as unique, passed through the public `options=`
        self._key_prefix = f"stainless-python-retry-{uuid.uuid4()}-"
        self._key_count = itertools.count()
        self._errors: tuple[Any, ...] = ()

    @property
    def client(self) -> Any:
        """The `openai.AsyncOpenAI` client, made at the first use; the garbage collector is
        paused meanwhile (`core/paused_gc.py`: `import openai` makes tens of thousands of
        long-lived objects)."""
        if self._client is None:
            with paused_gc():
                self._make_client()
        return self._client

    def _make_client(self) -> None:
        """The client and what is joined once with its base URL (`client`)."""
        openai = _openai()

        http_client = None
        if self.transport == "aiohttp":
            make = getattr(openai, "DefaultAioHttpClient", None)
            if make is None:  # an openai release older than its aiohttp transport
                self.transport = "httpx"
            else:
                http_client = _aiohttp_client(make, self.connect_timeout, self.base_url)
        if self.transport == "httpx":
            http_client = _httpx_client(openai, self.connect_timeout, self.base_url)
        # each read bounded by --tom-timeout (the whole attempt is bounded by the backend's
        # `within`), the connect by --tom-connect-timeout
        timeout = openai.Timeout(self.timeout, connect=self.connect_timeout)
        client = openai.AsyncOpenAI(api_key=self._api_key, base_url=self.base_url,
                                    max_retries=0, timeout=timeout,
                                    http_client=http_client)
        # the client joins a relative path to its base URL on every request (two URL
        # parses); an absolute URL, joined once here exactly as the client joins it
        # (its base URL's raw path, which ends with "/", + the path), is used as is
        base = client.base_url
        self._url = str(base.copy_with(raw_path=base.raw_path + b"chat/completions"))
        self._errors = (openai.APIStatusError, openai.APITimeoutError,
                        openai.APIConnectionError, openai.OpenAIError)
        self._models_url = str(base.copy_with(raw_path=base.raw_path + b"models"))
        self._client = client

    async def post(self, body: ChatBody) -> Any:
        """The answer's JSON (a dict when it is a chat completion); a `BackendError` for an
        error status, a failed connection or a read timed out."""
        client = self.client
        status_error, timeout_error, connection_error, openai_error = self._errors
        key = f"{self._key_prefix}{next(self._key_count)}"
        gate = self._gate
        own = await gate.enter()  # a connection the server took is free, or one is opened
        lost = True  # broken or cancelled: the gate counts one connection fewer
        try:
            data = await client.post(self._url, body=body, cast_to=object,
                                     options={"idempotency_key": key})
            lost = False
        except status_error as exc:
            lost = False
            raise BackendError(f"HTTP {exc.status_code}: {_short(exc)}", status=exc.status_code,
                               retryable=retryable_status(exc.status_code),
                               retry_after=_retry_after(exc)) from None
        except (timeout_error, connection_error) as exc:
            if is_connect_stall(exc):  # not connected in time: tried again on a fresh one
                raise BackendError(connect_message(self.connect_timeout), retryable=True,
                                   connect=True) from None
            if not isinstance(exc, timeout_error):
                raise BackendError(f"connection failed: {exc}", retryable=True) from None
            if _refused(exc):  # aiohttp reports a refused connection as a connect timeout
                raise BackendError(f"connection failed: {_root(exc)}", retryable=True) from None
            raise BackendError(f"timed out after {self.timeout:g}s (--tom-timeout)",
                               retryable=True, timed_out=True) from None
        except openai_error as exc:
            raise BackendError(f"{type(exc).__name__}: {exc}") from None
        finally:
            gate.leave(lost, own)
        return data

    async def probe(self) -> bool | None:
        """A new connection shown taken by the server (connection_gate.py): the model list
        (`GET <base URL>/models`) through the client, answered within the connect timeout
        (any status: an error status is an answer too). True: the client's pool keeps the
        connection (the client does not say when a server closes one); None: no answer."""
        client = self.client
        status_error = self._errors[0]
        try:
            await asyncio.wait_for(client.get(self._models_url, cast_to=object),
                                   self.connect_timeout)
        except status_error:
            return True
        except Exception:  # noqa: BLE001 the client's connection errors and the timeout
            return None
        return True

    async def close(self) -> None:
        self._gate.close()
        if self._client is not None:
            client, self._client = self._client, None
            await client.close()


class ClientReplies:
    """The sdk path in this process, where no request process can be started (no
    `sys.executable`): `PostWorker`'s interface (`ready`, `reply`, `close`) over a
    `ClientPost`."""

    def __init__(self, post: ClientPost, tags: ThinkTags | None):
        self.post = post
        self.tags = tags

    async def ready(self) -> None:
        self.post.client  # noqa: B018 - made (openai imported) outside the attempt's timeout

    async def reply(self, body: ChatBody) -> ModelReply:
        return chat_reply(await self.post.post(body), self.tags)

    async def close(self) -> None:
        await self.post.close()


def _aiohttp_client(make: Any, connect_timeout: float, base_url: str | None) -> Any:
    """The openai client's aiohttp transport (`DefaultAioHttpClient`) on a session whose
    sockets carry the connect timeout's socket option (`connect.socket_options`) and whose
    connector keeps every connection alive for reuse, with no limit of its own; the client's
    own transport where its transport class cannot be given a session (an older release)
    or where the environment names a proxy for the endpoint (the client follows those only
    with its own transport); the connect timeout applies either way, through the client's
    timeout."""
    if env_proxied(base_url):
        return make()
    transport_class = None
    for module in ("openai._vendor.httpx_aiohttp.transport", "httpx_aiohttp.transport",
                   "httpx_aiohttp"):
        try:
            transport_class = getattr(importlib.import_module(module), "AiohttpTransport", None)
        except ImportError:
            continue
        if transport_class is not None:
            break
    if transport_class is None:
        return make()

    made: list[Any] = []

    def session() -> Any:  # with the SSL context the transport made (certifi, SSL_CERT_FILE)
        import aiohttp  # noqa: PLC0415 the transport's own dependency

        ssl = getattr(made[0], "ssl_context", None) or True
        return aiohttp.ClientSession(connector=aiohttp_connector(connect_timeout, ssl))

    try:
        made.append(transport_class(client=session))
    except TypeError:
        return make()
    return make(transport=made[0])


def _httpx_client(openai: Any, connect_timeout: float, base_url: str | None) -> Any:
    """The openai client's httpx client (`DefaultAsyncHttpxClient`: its timeout and
    redirects) on a transport whose sockets carry the connect timeout's socket option and
    that keeps up to 1,000 connections alive (the client's own keeps 100: a run at a
    --tom-concurrency above that would close and reopen connections); None (the client's
    own) where that cannot be given (an httpx older than `socket_options`) or where the
    environment names a proxy for the endpoint (httpx follows the environment's proxies only
    with its own transport; the connect timeout still applies)."""
    make = getattr(openai, "DefaultAsyncHttpxClient", None)
    if make is None or env_proxied(base_url):
        return None
    bases = [c for c in make.__mro__ if c.__name__ == "AsyncClient"]  # httpx's or httpx2's
    if not bases:
        return None
    httpx = importlib.import_module(bases[0].__module__.split(".")[0])
    try:
        transport = httpx.AsyncHTTPTransport(
            socket_options=socket_options(connect_timeout) or None,
            limits=httpx.Limits(max_connections=1000, max_keepalive_connections=1000))
    except TypeError:
        return None
    return make(transport=transport)


def env_proxied(base_url: str | None) -> bool:
    """True when the environment names a proxy for `base_url` (HTTP_PROXY, HTTPS_PROXY,
    ALL_PROXY, less NO_PROXY's exceptions, as urllib reads them)."""
    parts = urlsplit(str(base_url or "https://api.openai.com/v1"))
    proxies = urllib.request.getproxies()
    found = proxies.get(parts.scheme) or proxies.get("all")
    return bool(found) and not urllib.request.proxy_bypass(parts.hostname or "")


def _causes(exc: BaseException) -> list[BaseException]:
    out: list[BaseException] = []
    cur: BaseException | None = exc
    while cur is not None and len(out) < 10:
        out.append(cur)
        cur = cur.__cause__ or cur.__context__
    return out


def _refused(exc: BaseException) -> bool:
    """A connection that could not be made or was dropped, which the aiohttp transport
    reports as a (connect) timeout: an OSError or an aiohttp error, and no timeout, among
    the causes."""
    chain = _causes(exc)[1:]
    if any(isinstance(e, TimeoutError) for e in chain):
        return False
    return any(isinstance(e, OSError) or type(e).__module__.split(".")[0] == "aiohttp"
               for e in chain)


def _root(exc: BaseException) -> str:
    return str(_causes(exc)[-1]) or type(_causes(exc)[-1]).__name__


def _short(exc: Exception) -> str:
    msg = str(getattr(exc, "message", "") or exc)
    return msg if len(msg) < 300 else msg[:300] + "..."


def _retry_after(exc: Any) -> float | None:
    try:
        value = exc.response.headers.get("retry-after")
        return float(value) if value is not None else None
    except (AttributeError, TypeError, ValueError):
        return None
