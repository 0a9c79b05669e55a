"""`openai:<model>`: any OpenAI-compatible chat-completions endpoint.

The key comes from OPENAI_API_KEY only (never from an option, so it cannot
leak into reports); the endpoint from --tom-base-url or OPENAI_BASE_URL
(vLLM, Ollama, llama.cpp servers ...). A local endpoint needs no key. The
client's own retries are off: the runner retries with its own policy.
Several URLs (replicas of one model) make one `OpenAIBackend` each behind an
`EndpointPool` (backends/openai_api/endpoint_pool.py), which picks the endpoint of each request.

Two request paths (`--tom-openai-transport`, decided once per endpoint, `pick_path`):

- `worker` (the default when aiohttp is installed): pytest-tom POSTs the JSON body itself
  (backends/openai_api/direct_post.py: one aiohttp session, the URL, headers and encoder
  made once per endpoint);
- `sdk`: the official openai client (backends/openai_api/client_post.py), for what
  pytest-tom's own POST does not do (a base URL with user:password, which goes through
  httpx, or with a query string such as Azure's `?api-version=`; no aiohttp installed)
  and as an option; its HTTP transport is below.

Either runs in a child process fed through a pipe (backends/openai_api/post_worker.py, one
per endpoint), so that its HTTP work runs on another core than pytest's item loop and this
process imports neither aiohttp nor openai; the sdk path runs the client in this process
only where no interpreter can be started (`sys.executable` empty: an embedded Python).

All read the answer with the same function (`reply_parts.chat_reply`), raise the same
errors and are bounded, redacted, retried and cached alike: the path is not part of the
cache key.

SDK transport: the openai client's aiohttp transport (`openai.DefaultAioHttpClient`,
installed with the `openai[aiohttp]` extra) when it can be imported, else the
client's default httpx transport; `--tom-transport httpx|aiohttp` forces one.
A base URL with credentials (`http://user:password@host/v1`) goes through httpx:
aiohttp refuses userinfo in a URL next to the Authorization header the client
always sends ("Cannot combine AUTHORIZATION header with AUTH argument"), while
httpx sends it as HTTP Basic auth.
On a loopback server aiohttp costs about a third less CPU per request.

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
import os
import sys
from importlib.util import find_spec
from pathlib import Path
from typing import Protocol, cast
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
)
from pytest_tom.backends.openai_api.client_post import ClientPost, ClientReplies
from pytest_tom.backends.openai_api.connect import DEFAULT_CONNECT_TIMEOUT
from pytest_tom.backends.openai_api.endpoint_pool import EndpointPool
from pytest_tom.backends.openai_api.openai_headers import request_headers
from pytest_tom.backends.openai_api.post_worker import PostWorker, client_poster, direct_poster
from pytest_tom.backends.options import BackendOptions
from pytest_tom.backends.reply_parts import DEFAULT_TAGS, ThinkTags
from pytest_tom.core.bounded import within
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


class Replies(Protocol):
    """What makes an endpoint's requests: `post_worker.PostWorker` (a request process) or
    `client_post.ClientReplies` (the client in this process)."""

    async def ready(self) -> None: ...

    async def reply(self, body: ChatBody) -> ModelReply: ...

    async def close(self) -> None: ...


class OpenAIBackend(Backend):
    name = "openai"
    # cacheable: keyed by the model and the endpoint (identity), answers per request;
    # server: when it is unreachable the run stops early (asking/early_stop.py);
    # family_max_tokens: a server's own limit is often the whole context; warms: the
    # request process (`warm`); opens_connections: new connections are opened a few
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
        # the path's `PostWorker` (or, without an interpreter to start, `ClientReplies`),
        # made at the first call or warm-up (`poster`)
        self._poster: Replies | None = None

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
    def poster(self) -> Replies:
        """What makes this endpoint's requests, made at the first use: a `PostWorker` whose
        child runs `DirectPost` (the worker path) or `ClientPost` (the sdk path); the sdk
        path's `ClientReplies` in this process where no interpreter can be started."""
        if self._poster is None:
            if self.path == "worker":
                headers = request_headers(
                    self._api_key, self.timeout, os.environ.get("OPENAI_ORG_ID"),
                    os.environ.get("OPENAI_PROJECT_ID"))
                spec = direct_poster(self.base_url, headers, self.connect_timeout)
                self._poster = PostWorker(spec, self.tags)
            elif sys.executable:
                spec = client_poster(self.base_url, self._api_key, self.timeout,
                                     self.connect_timeout, self.transport)
                self._poster = PostWorker(spec, self.tags)
            else:
                self._poster = ClientReplies(ClientPost(
                    self.base_url, self._api_key, self.timeout, self.connect_timeout,
                    self.transport), self.tags)
        return self._poster

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
            poster = self.poster
            await poster.ready()  # started outside the attempt's timeout
            attempt = poster.reply(kwargs)
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
        """The request process started (openai imported there, on the sdk path) while the
        run collects and builds its requests. The client in this process (no interpreter to
        start) is made at the first request instead: a fully cached rerun never imports
        openai, and an import here would hold the interpreter lock that collection needs."""
        poster = self.poster
        if isinstance(poster, PostWorker):
            with contextlib.suppress(BackendError):  # the first request says it again
                await poster.ready()

    async def aclose(self) -> None:
        if self._poster is not None:
            await self._poster.close()


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
    where = " in a worker process" if sys.executable else ""
    return f"openai client over {transport}{where}"


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
