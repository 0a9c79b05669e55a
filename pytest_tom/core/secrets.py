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


# names of request fields (and of keys inside their values) that may hold a credential
SECRET_WORDS = ("key", "token", "secret", "password", "passwd", "auth", "credential",
                "bearer", "signature", "cookie", "session")


def is_secret_name(name: str) -> bool:
    """Whether a field named `name` may hold a credential (api_key, access_token, Authorization
    ...): its value is shown as `***`."""
    low = str(name).lower()
    return any(word in low for word in SECRET_WORDS)


def redact_fields(value: object, name: str = "") -> object:
    """A copy of request fields fit for reports, headers and logs: the value of every key
    that may hold a credential (`is_secret_name`), at any depth, is `***`."""
    if name and is_secret_name(name):
        return "***"
    if isinstance(value, dict):
        return {k: redact_fields(v, str(k)) for k, v in value.items()}
    if isinstance(value, list):
        return [redact_fields(v) for v in value]
    return value


def secret_values(value: object, name: str = "") -> list[str]:
    """The strings under the keys `redact_fields` hides (to scrub them from a server's error
    message that echoes the request)."""
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in secret_values(v, str(k))]
    if isinstance(value, list):
        return [s for v in value for s in secret_values(v, name)]
    if name and is_secret_name(name) and value is not None:
        text = str(value)
        return [text] if len(text) > 3 else []
    return []
