"""How `openai:` opens its connections: a short connect timeout of its own, on every path.

A model may take minutes to answer (`--tom-timeout`, default 120 s); a connection takes
milliseconds to make, or it is not going to be made. Two ways a connection stalls, both
seen against a freshly started server whose listen backlog is small (5: cpp-httplib's
default and Python's `http.server`'s) when many connections are opened at once:

- the server's kernel drops the SYN (its accept queue is full): `connect()` itself waits,
  retried by the kernel after 1, 3, 7 ... s. The connect timeout (`--tom-connect-timeout`,
  default 5 s, the openai client's own default) ends it: aiohttp's
  `ClientTimeout(sock_connect=)`, httpx's `Timeout(connect=)`;
- the server's kernel answers the SYN but drops the handshake's last ACK (its accept queue
  is full): here `connect()` succeeds, the request is sent, and the server's kernel never
  acknowledges it, since for it there is no connection yet. The attempt would wait for
  `--tom-timeout`. The same number of seconds is set as the socket's TCP_USER_TIMEOUT
  (Linux): data the server's machine has not acknowledged within it ends the connection
  with ETIMEDOUT. A connected server's kernel acknowledges a request within milliseconds
  however long the model takes to answer it, so a slow answer never trips it.

Either is a retryable `BackendError` with `connect=True` ("connection failed: not
connected within 5s (--tom-connect-timeout)"): the retry policy tries again on a fresh
connection after the usual short backoff, the runner counts it (`RunnerStats.connect_retries`,
shown on the terminal's requests line) and the adaptive limit takes it as a sign of a
crowded server (asking/runner.py; the new connections themselves are opened a few at a
time: connection_gate.py).
"""

from __future__ import annotations

import contextlib
import errno
import socket
from typing import Any

# --tom-connect-timeout's default, for the parts made without options (a run passes the
# option's value): a literal, as the request process imports this module and not the
# option table (5 ms of its start); tests/test_backend_abilities.py checks that they agree
DEFAULT_CONNECT_TIMEOUT = 5.0
_USER_TIMEOUT = getattr(socket, "TCP_USER_TIMEOUT", None)  # Linux; elsewhere the connect timeout alone


def socket_options(seconds: float | None) -> list[tuple[int, int, int]]:
    """The socket options of a connection of `openai:`: TCP_USER_TIMEOUT of `seconds` where
    the platform has it (an empty list elsewhere, or for no timeout)."""
    if _USER_TIMEOUT is None or not seconds:
        return []
    return [(socket.IPPROTO_TCP, _USER_TIMEOUT, max(1, int(seconds * 1000)))]


def aiohttp_connector(seconds: float | None, ssl: Any = True) -> Any:
    """An aiohttp `TCPConnector` with no limit of its own (the runner's slots bound the
    requests in flight; every connection released is kept alive for the next request) whose
    sockets carry `socket_options`. An aiohttp older than `socket_factory` (3.12) gets the
    connector without them: the connect timeout still applies. `ssl`: aiohttp's `ssl`
    argument (True: its default context)."""
    import aiohttp  # noqa: PLC0415 only the paths that use aiohttp import it

    options = socket_options(seconds)
    if not options:
        return aiohttp.TCPConnector(limit=0, ssl=ssl)

    def make_socket(addr_info: Any) -> socket.socket:
        family, kind, proto = addr_info[0], addr_info[1], addr_info[2]
        sock = socket.socket(family=family, type=kind, proto=proto)
        for level, name, value in options:
            with contextlib.suppress(OSError):  # a socket without it: the connect timeout alone
                sock.setsockopt(level, name, value)
        return sock

    try:
        return aiohttp.TCPConnector(limit=0, ssl=ssl, socket_factory=make_socket)
    except TypeError:  # aiohttp < 3.12
        return aiohttp.TCPConnector(limit=0, ssl=ssl)


def connect_message(seconds: float) -> str:
    return f"connection failed: not connected within {seconds:g}s (--tom-connect-timeout)"


def is_connect_stall(exc: BaseException) -> bool:
    """True when `exc` (or what it wraps) says a connection was not made in time: a connect
    timeout of aiohttp or httpx, or ETIMEDOUT (the socket's TCP_USER_TIMEOUT: the request was
    never acknowledged). Read from the innermost cause outwards: the openai client's aiohttp
    transport reports a refused connection as a connect timeout too, and the refusal's own
    OSError, deeper down, says what it was."""
    chain: list[BaseException] = []
    cur: BaseException | None = exc
    while cur is not None and len(chain) < 10:
        chain.append(cur)
        cur = cur.__cause__ or cur.__context__
    for cur in reversed(chain):
        if isinstance(cur, OSError) and cur.errno is not None:
            return cur.errno == errno.ETIMEDOUT
        name = type(cur).__name__
        if name in ("ConnectionTimeoutError", "ConnectTimeout"):  # aiohttp, httpx (httpcore)
            return True
        if name == "ServerTimeoutError" and "connect" in str(cur).lower():  # aiohttp < 3.10
            return True
    return False
