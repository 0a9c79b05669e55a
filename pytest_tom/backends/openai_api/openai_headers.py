"""The headers of the direct POST (`direct_post`, `post_worker`): those the openai client
sends for the same request, so that a server or a proxy sees one request shape from
every request path. Imports neither openai nor aiohttp: the client's version is read
from the installed metadata, and the worker path's parent process, which makes the
headers once and hands them to its child, never loads the HTTP client."""

from __future__ import annotations

import platform
import sys
from importlib.metadata import PackageNotFoundError, version


def _client_version() -> str:
    try:
        return version("openai")
    except PackageNotFoundError:  # pragma: no cover - openai is a core dependency
        return "unknown"


def _os_name() -> str:
    name = platform.system().lower()
    return {"darwin": "MacOS", "linux": "Linux", "windows": "Windows", "freebsd": "FreeBSD",
            "openbsd": "OpenBSD", "android": "Android", "ios": "iOS"}.get(name, f"Other:{name}")


def _arch() -> str:
    machine = platform.machine().lower()
    if machine in ("arm64", "aarch64"):
        return "arm64"
    if machine in ("x86_64", "amd64"):
        return "x64"
    if machine == "arm":
        return "arm"
    return "x32" if sys.maxsize <= 2**32 else f"other:{machine}" if machine else "unknown"


def request_headers(api_key: str, timeout: float, organization: str | None = None,
                    project: str | None = None) -> dict[str, str]:
    """The headers of every request to one endpoint: those the async openai client sends
    for a chat completion with its own retries off (`x-stainless-retry-count: 0`; the
    runner's retries are new requests), the organization and project when set."""
    headers = {
        "Accept": "application/json",
        "Content-Type": "application/json",
        "User-Agent": f"AsyncOpenAI/Python {_client_version()}",
        "X-Stainless-Lang": "python",
        "X-Stainless-Package-Version": _client_version(),
        "X-Stainless-OS": _os_name(),
        "X-Stainless-Arch": _arch(),
        "X-Stainless-Runtime": platform.python_implementation(),
        "X-Stainless-Runtime-Version": platform.python_version(),
        "X-Stainless-Async": "async:asyncio",
        "Authorization": f"Bearer {api_key}",
        "x-stainless-retry-count": "0",
        "x-stainless-read-timeout": str(timeout),
        "Connection": "keep-alive",  # what the client's transports send (aiohttp alone does not)
    }
    if organization:
        headers["OpenAI-Organization"] = organization
    if project:
        headers["OpenAI-Project"] = project
    return headers
