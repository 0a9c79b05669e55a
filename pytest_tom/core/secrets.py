"""Credentials that must never be printed: in reports, caches, logs, or tracebacks.

A base URL may carry a user and password (`http://user:pass@host/v1`) or a key in
its query string; the API key is a credential outright. Both are kept in `str`
subclasses whose `repr` is redacted, so that a traceback with locals
(`--full-trace -l`, `--showlocals`) or the repr of the options or settings shows
`'http://host/v1'` and `'***'` while the code that connects uses the real value.
"""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit


class Secret(str):
    """A string that is a credential: used as itself, shown as `'***'` by repr, so that a
    traceback with locals (`--full-trace -l`, `--showlocals`) or a repr of the settings never
    prints it."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "'***'"


class RedactedUrl(str):
    """A base URL that may carry credentials (user:password@, ?key=...): used as itself,
    shown redacted by repr."""

    __slots__ = ()

    def __repr__(self) -> str:
        return repr(redact_url(str(self)))


def url_list(value: str | list[str] | tuple[str, ...] | None) -> tuple[RedactedUrl, ...]:
    """The URLs of `--tom-base-url` (and its ini key, and $OPENAI_BASE_URL): separated by
    spaces or newlines in one value, or the option repeated (a list), in the order given."""
    if value is None:
        return ()
    parts = [value] if isinstance(value, str) else list(value)
    return tuple(RedactedUrl(u) for part in parts for u in str(part).split())


def redact_url(url: str | None) -> str | None:
    """A base URL fit for reports: user info and query strings removed (they may hold keys)."""
    if not url:
        return url
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparseable url>"
    netloc = parts.hostname or ""
    if parts.port:
        netloc += f":{parts.port}"
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))
