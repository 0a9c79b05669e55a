"""`openai:<model>`: any OpenAI-compatible chat-completions endpoint.

The key comes from OPENAI_API_KEY only (never from an option, so it cannot
leak into reports); the endpoint from --tom-base-url or OPENAI_BASE_URL
(vLLM, Ollama, llama.cpp servers ...). A local endpoint needs no key. The
client's own retries are off: the runner retries with its own policy.
Several URLs (replicas of one model) make one `OpenAIBackend` each behind an
`EndpointPool` (backends/openai_api/endpoint_pool.py), which picks the endpoint of each request.

Two request paths (`--tom-openai-transport`, decided once per endpoint, `pick_path`):

- `worker` (the default when aiohttp is installed): pytest-tom POSTs the JSON body itself
  (backends/openai_api/direct_post.py: one aiohttp session, the URL, headers and encoder made once
  per endpoint) in a child process fed through a pipe (backends/openai_api/post_worker.py), so that
  its HTTP work runs on another core than pytest's item loop; this process imports
  neither aiohttp nor openai;
- `sdk`: the official openai client, for what the worker's POST does not do (a base URL
  with user:password, which goes through httpx, or with a query string such as Azure's
  `?api-version=`; the client's httpx transport) and as an option; its HTTP transport is
  below.

All read the answer with the same function (`_reply`), raise the same errors and are
bounded, redacted, retried and cached alike: the path is not part of the cache key.

SDK transport: the openai client's aiohttp transport (`openai.DefaultAioHttpClient`,
installed with the `openai[aiohttp]` extra) when it can be imported, else the
client's default httpx transport; `--tom-transport httpx|aiohttp` forces one.
A base URL with credentials (`http://user:password@host/v1`) goes through httpx:
aiohttp refuses userinfo in a URL next to the Authorization header the client
always sends ("Cannot combine AUTHORIZATION header with AUTH argument"), while
httpx sends it as HTTP Basic auth.
On a loopback server aiohttp costs about a third less CPU per request, which is
what bounds the request phase on a small machine. Each call goes through the
client's generic `post(..., cast_to=object)`: the client's request machinery
(headers, timeouts, errors as `openai.APIStatusError` ...) without its per-call
parameter transform and response model, which cost as much CPU as the transport
itself; the answer is read from the plain JSON (see `_reply`).

`--tom-timeout` bounds a whole attempt, not each read: httpx applies a float
timeout to every socket read, so a server trickling its answer a byte at a
time would otherwise hold an attempt for as long as it likes.

`--tom-connect-timeout` (default 5 s) bounds the making of a connection on every path,
apart from the time a model may take: the connect itself and, on Linux, the server's
machine acknowledging the request (backends/openai_api/connect.py: a server whose listen queue
overflowed never does). A connection not made in time is a retryable error marked
`connect`, tried again on a fresh connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import itertools
import os
import sys
import urllib.request
import uuid
from importlib.util import find_spec
from pathlib import Path
from typing import Any, cast
from urllib.parse import parse_qsl, urlsplit

from pytest_tom.backends import BackendSpecError
from pytest_tom.backends.base import (
    Backend,
    BackendAbilities,
    BackendError,
    BackendIdentity,
    ChatBody,
    ModelReply,
    ModelRequest,
    Secret,
    redact_url,
    retryable_status,
)
from pytest_tom.backends.openai_api.connect import (
    DEFAULT_CONNECT_TIMEOUT,
    aiohttp_connector,
    connect_message,
    is_connect_stall,
    socket_options,
)
from pytest_tom.backends.openai_api.connection_gate import ConnectionGate
from pytest_tom.backends.openai_api.endpoint_pool import EndpointPool
from pytest_tom.backends.openai_api.openai_headers import request_headers
from pytest_tom.backends.options import BackendOptions
from pytest_tom.backends.reply_parts import DEFAULT_TAGS, ThinkTags, chat_reply
from pytest_tom.core.bounded import within
from pytest_tom.core.paused_gc import paused_gc
from pytest_tom.core.secrets import secret_values, url_list

TRANSPORTS = ("auto", "aiohttp", "httpx")
PATHS = ("auto", "worker", "sdk")
# the in-process direct POST, a third path until issue 44: the worker runs the same POST
# on the other core, so asking for it is a usage error that names what to ask instead
REMOVED_PATHS = {"direct": "worker (the same direct POST, in a child process) or sdk"}
# the default of --tom-openai-transport when it is auto (the project's CI runs the tests of
# the request path on both paths with it)
PATH_ENV = "PYTEST_TOM_OPENAI_TRANSPORT"


def aiohttp_available() -> bool:
    """True when the openai client's aiohttp transport can be used (`openai[aiohttp]`).

    Looked up without importing anything: importing openai takes about a second,
    which a run whose answers are all cached never needs to spend."""
    try:
        if find_spec("aiohttp") is None:
            return False
        spec = find_spec("openai")
    except (ImportError, ValueError, AttributeError):  # e.g. sys.modules["aiohttp"] = None
        return False
    if spec is None:
        return False
    vendored = any(Path(loc, "_vendor", "httpx_aiohttp").is_dir()
                   for loc in spec.submodule_search_locations or ())
    if vendored:
        return True
    try:
        return find_spec("httpx_aiohttp") is not None  # releases that use the separate package
    except (ImportError, ValueError, AttributeError):
        return False


def _openai() -> Any:
    """The openai package, imported at the first request: `import openai` takes about half a
    second, which fully cached reruns never pay."""
    import openai  # noqa: PLC0415 the one place it is imported

    return openai


class OpenAIBackend(Backend):
    name = "openai"
    # cacheable: keyed by the model and the endpoint (identity), answers per request;
    # server: when it is unreachable the run stops early (asking/early_stop.py);
    # family_max_tokens: a server's own limit is often the whole context; warms: the worker
    # path's request process (`warm`); opens_connections: new connections are opened a few
    # probes at a time, each shown taken by the server (connection_gate.py), on both paths:
    # the runner does not ramp them up
    abilities = BackendAbilities(cacheable=True, server=True, family_max_tokens=True, warms=True,
                                 opens_connections=True)

    def __init__(self, model: str, base_url: str | None, api_key: str, timeout: float,
                 transport: str = "auto", tags: ThinkTags | None = DEFAULT_TAGS,
                 path: str = "auto", connect_timeout: float = DEFAULT_CONNECT_TIMEOUT):
        self.model = model
        self.connect_timeout = connect_timeout
        self.tags = tags  # --tom-think-tags: how a thought is split off the content
        self.base_url = base_url
        self.timeout = timeout
        self._api_key = api_key
        self._secrets = [Secret(s) for s in _url_secrets(base_url) + [api_key] if s and len(s) > 3]
        self.transport = pick_transport(transport, base_url)
        self.path = pick_path(path, self.transport, base_url)
        # the client path's gate of new connections (the worker path's is in its child)
        self._gate = ConnectionGate(self._probe)
        self._direct: Any = None  # backends.openai_api.post_worker.PostWorker, made at the first call
        self._client: Any = None
        self._models_url = ""  # the gate's probe (`_probe`), joined once with the client's
        self._url = "/chat/completions"  # made absolute once with the client (see `client`)
        # the client makes an idempotency key per request, a fresh uuid4 (os.urandom and its
        # formatting: about 3% of a run's CPU at latency 0), sent only by clients that
        # declare an idempotency header (AsyncOpenAI 3.x declares none): one uuid4 per
        # backend and a counter make a key as unique, passed through the public `options=`
        self._key_prefix = f"stainless-python-retry-{uuid.uuid4()}-"
        self._key_count = itertools.count()
        self._errors: tuple[Any, ...] = ()

    @property
    def client(self) -> Any:
        """The `openai.AsyncOpenAI` client, made at the first call: `import openai` (about half
        a second) is paid only by runs that send a request, not by fully cached reruns; the
        garbage collector is paused meanwhile (`core/paused_gc.py`)."""
        if self._client is None:
            with paused_gc():  # import openai: tens of thousands of long-lived objects
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
        # each read bounded by --tom-timeout (the whole attempt is bounded by `within`),
        # the connect by --tom-connect-timeout
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

    def identity(self) -> BackendIdentity:
        out: BackendIdentity = {"backend": self.name, "model": self.model,
                                "base_url": redact_url(self.base_url)}
        if self.tags != DEFAULT_TAGS:  # other tags read other answers: another cache key
            out["think_tags"] = self.tags.text() if self.tags else "off"
        return out

    def describe(self) -> str:
        where = redact_url(self.base_url) or "api.openai.com"
        return f"openai:{self.model} @ {where}"

    def details(self) -> str:
        return self.request_path()

    def request_path(self) -> str:
        return request_path_text(self.path, self.transport)

    @property
    def direct(self) -> Any:
        """The worker path's `PostWorker` (aiohttp only in its child), made at the first
        call."""
        if self._direct is None:
            headers = request_headers(
                self._api_key, self.timeout, os.environ.get("OPENAI_ORG_ID"),
                os.environ.get("OPENAI_PROJECT_ID"))
            from pytest_tom.backends.openai_api.post_worker import PostWorker  # noqa: PLC0415 only when asked

            self._direct = PostWorker(self.base_url, headers, self.tags, self.connect_timeout)
        return self._direct

    async def acomplete(self, request: ModelRequest) -> ModelReply:
        kwargs: ChatBody = {"model": self.model, "messages": request.messages,
                            "temperature": request.params.temperature}
        if request.params.max_tokens is not None:
            kwargs["max_tokens"] = request.params.max_tokens
        if request.params.seed is not None:
            kwargs["seed"] = request.params.seed
        if request.params.fields:  # --tom-request-field, --tom-reasoning-effort, --tom-thinking
            kwargs.update(cast(ChatBody, request.params.request_fields()))  # free-form
        try:
            if self.path == "worker":
                await self.direct.ready()  # started outside the attempt's timeout
                attempt = self.direct.reply(kwargs)
            else:
                self.client  # noqa: B018 - made (openai imported) outside the attempt's timeout
                attempt = self._complete(kwargs)
            try:
                return await within(attempt, self.timeout)
            except asyncio.TimeoutError:
                # the same words as the client's own timeout: the whole answer was not in
                raise BackendError(f"timed out after {self.timeout:g}s (--tom-timeout)",
                                   retryable=True, timed_out=True) from None
        except BackendError as exc:
            message = str(exc)
            # a server's error may echo the request: credentials in its fields are hidden too
            for secret in [*self._secrets, *secret_values(kwargs)]:
                message = message.replace(secret, "***")
            if message == str(exc):
                raise
            raise BackendError(message, kind=exc.kind, retryable=exc.retryable, status=exc.status,
                               retry_after=exc.retry_after, timed_out=exc.timed_out,
                               connect=exc.connect) from None

    async def warm(self) -> None:
        """The worker path's child process, started while the run builds its requests."""
        if self.path == "worker":
            with contextlib.suppress(BackendError):  # the first request says it again
                await self.direct.ready()

    async def _complete(self, kwargs: ChatBody) -> ModelReply:
        """One attempt through the openai client."""
        client = self.client
        status_error, timeout_error, connection_error, openai_error = self._errors
        key = f"{self._key_prefix}{next(self._key_count)}"
        gate = self._gate
        own = await gate.enter()  # a connection the server took is free, or one is opened
        lost = True  # broken or cancelled: the gate counts one connection fewer
        try:
            data = await client.post(self._url, body=kwargs, cast_to=object,
                                     options={"idempotency_key": key})
            lost = False
        except status_error as exc:
            lost = False
            retry_after = _retry_after(exc)
            raise BackendError(f"HTTP {exc.status_code}: {_short(exc)}", status=exc.status_code,
                               retryable=retryable_status(exc.status_code),
                               retry_after=retry_after) from None
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
        return _reply(data, self.tags)

    async def _probe(self) -> bool | None:
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

    async def aclose(self) -> None:
        self._gate.close()
        if self._direct is not None:
            await self._direct.close()
        if self._client is not None:
            await self._client.close()


def _aiohttp_client(make: Any, connect_timeout: float, base_url: str | None) -> Any:
    """The openai client's aiohttp transport (`DefaultAioHttpClient`) on a session whose
    sockets carry the connect timeout's socket option (`connect.socket_options`) and whose
    connector keeps every connection alive for reuse, with no limit of its own; the client's
    own transport where its transport class cannot be given a session (an older release)
    or where the environment names a proxy for the endpoint (the client follows those only
    with its own transport); the connect timeout applies either way, through the client's
    timeout."""
    if _env_proxied(base_url):
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
    if make is None or _env_proxied(base_url):
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


def _env_proxied(base_url: str | None) -> bool:
    """True when the environment names a proxy for `base_url` (HTTP_PROXY, HTTPS_PROXY,
    ALL_PROXY, less NO_PROXY's exceptions, as urllib reads them)."""
    parts = urlsplit(str(base_url or "https://api.openai.com/v1"))
    proxies = urllib.request.getproxies()
    found = proxies.get(parts.scheme) or proxies.get("all")
    return bool(found) and not urllib.request.proxy_bypass(parts.hostname or "")


def pick_path(wanted: str | None, transport: str, base_url: str | None = None) -> str:
    """"worker" or "sdk" (`--tom-openai-transport`), given the HTTP transport picked for the
    client (`pick_transport`). `auto` (the default) takes $PYTEST_TOM_OPENAI_TRANSPORT when
    it is set, and the worker process wherever the direct POST can be used: the transport is
    aiohttp (installed, no user:password in the base URL), the base URL has no query string
    (Azure's `?api-version=`: the client joins its path in its own way, which differs
    between its releases) and an interpreter can be started (`sys.executable`: not in an
    embedded Python); else sdk. `worker` asked where it cannot be used is a usage error, and
    so is a path that no longer exists (`REMOVED_PATHS`)."""
    possible = transport == "aiohttp" and not urlsplit(str(base_url or "")).query
    wanted = (wanted or "auto").strip().lower()
    _check_path(wanted, "--tom-openai-transport")
    if wanted == "auto":
        wanted = (os.environ.get(PATH_ENV) or "auto").strip().lower()
        _check_path(wanted, f"${PATH_ENV}")
        if wanted != "sdk":  # auto, or the worker where it can be had
            return "worker" if possible and sys.executable else "sdk"
    if wanted == "worker" and not (possible and sys.executable):  # the URL is never named:
        raise BackendSpecError(  # it may hold a password
            "--tom-openai-transport=worker needs aiohttp (pip install 'pytest-tom[aiohttp]'), "
            "a base URL without user:password@ or a query string, no --tom-transport=httpx, "
            "and an interpreter to start; use --tom-openai-transport=sdk (or auto)")
    return wanted


def _check_path(wanted: str, where: str) -> None:
    if wanted in REMOVED_PATHS:
        raise BackendSpecError(f"{where}={wanted!r} is no longer a request path: use "
                               f"{REMOVED_PATHS[wanted]}")
    if wanted not in PATHS:
        raise BackendSpecError(f"{where}={wanted!r}: use one of {', '.join(PATHS)}")


def request_path_text(path: str, transport: str) -> str:
    """How requests are made, for the header and the report's settings."""
    if path == "worker":
        return "direct POST over aiohttp in a worker process"
    return f"openai client over {transport}"


def pick_transport(wanted: str | None, base_url: str | None = None) -> str:
    """"aiohttp" or "httpx": `auto` (the default) takes aiohttp when it is installed and
    the base URL carries no credentials (aiohttp cannot send those, see above)."""
    wanted = (wanted or "auto").lower()
    if wanted not in TRANSPORTS:
        raise BackendSpecError(f"--tom-transport={wanted!r}: use one of {', '.join(TRANSPORTS)}")
    if wanted == "httpx":
        return "httpx"
    if has_userinfo(base_url):
        if wanted == "aiohttp":  # the URL itself is never named: it holds a password

            raise BackendSpecError("--tom-transport=aiohttp cannot send a base URL with "
                                   "user:password@ (aiohttp refuses it next to the API key's "
                                   "Authorization header): use --tom-transport=httpx or auto")
        return "httpx"
    if aiohttp_available():
        return "aiohttp"
    if wanted == "aiohttp":
        raise BackendSpecError("--tom-transport=aiohttp: aiohttp is not installed; "
                               "pip install 'openai[aiohttp]' (or pytest-tom[aiohttp])")
    return "httpx"


def _reply(data: Any, tags: ThinkTags | None = DEFAULT_TAGS) -> ModelReply:
    """The reply of a chat-completions JSON body (a dict): `backends/reply_parts.chat_reply`
    (answer, thought, finish reason, usage, model; a final error for what is none)."""
    return chat_reply(data, tags)


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


def has_userinfo(url: str | None) -> bool:
    """True when `url` has a `user[:password]@` part."""
    if not url:
        return False

    return "@" in urlsplit(str(url)).netloc


def _url_secrets(url: str | None) -> list[str]:
    """Parts of a base URL that may be credentials (password, user, query values)."""
    if not url:
        return []

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


def create(rest: str, options: BackendOptions) -> Backend:
    """One `OpenAIBackend`, or an `EndpointPool` of one per URL when --tom-base-url (or
    $OPENAI_BASE_URL) names several replicas of the model."""
    if not rest:
        raise BackendSpecError("--tom-model=openai:<model>: name the model, e.g. openai:gpt-4o-mini")
    urls = options.base_url or url_list(os.environ.get("OPENAI_BASE_URL"))
    repeated = sorted({redact_url(u) or "" for u in urls if urls.count(u) > 1})
    if repeated:  # redacted: the URL may hold a password
        raise BackendSpecError(f"--tom-base-url: {', '.join(repeated)} is listed more than once; "
                               f"list each replica once")
    key = os.environ.get("OPENAI_API_KEY")
    key = Secret(key) if key else key
    if not key:
        if not urls:
            raise BackendSpecError(
                "--tom-model=openai:...: OPENAI_API_KEY is not set; export it, or point "
                "--tom-base-url at a local OpenAI-compatible server (vLLM, Ollama, llama.cpp)"
            )
        key = "not-needed"  # local servers ignore the key
    backends = [OpenAIBackend(rest, url, key, timeout=options.timeout,
                              transport=options.transport, tags=options.tags,
                              path=options.openai_transport,
                              connect_timeout=options.connect_timeout)
                for url in urls or [None]]
    return backends[0] if len(backends) == 1 else EndpointPool(backends)
