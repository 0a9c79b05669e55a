"""Several files may make up one suite (they share its `suite:` name and aggregate
together), but never with the same item ids or different families.

Items are known by `suite::id` in the runner, the records, the JSON report and
the gates, so two files of one suite that produce the same id would mix their
items (and, before request keys held a hash of the prompt, share one answer).
Each file is checked against the files of the same suite loaded before it, in
collection (and `pytest-tom validate`) order; the problem names both files.
"""

from __future__ import annotations

from pathlib import Path

from pytest_tom.core.model import Suite
from pytest_tom.suite.errors import Problem, SuiteError


class SuiteNames:
    """The suites seen so far in a session: their family, and which file has each id."""

    def __init__(self) -> None:
        self._family: dict[str, tuple[str, str]] = {}  # suite -> (family, first file)
        self._ids: dict[str, dict[str, tuple[str, int]]] = {}  # suite -> id -> (file, line)

    def add(self, suite: Suite) -> None:
        """Take `suite` in, or raise SuiteError (on its file) naming the other file."""
        path = str(suite.path)
        family, first = self._family.setdefault(suite.name, (suite.family, path))
        if Path(first) == Path(path):
            first = path
        if family != suite.family and first != path:
            raise SuiteError(path, [Problem(path, 1, 1, (
                f"suite {suite.name!r} is family {suite.family} here but {family} in {first}: "
                f"files that share a suite name aggregate together and must be of one family; "
                f"rename the suite of one of {first} and {path}"))])
        ids = self._ids.setdefault(suite.name, {})
        clashes = []
        for item in suite.items:
            other = ids.get(item.id)
            if other is not None and other[0] != path:
                clashes.append(Problem(path, item.line or 1, 1, (
                    f"item id {item.id!r} of suite {suite.name!r} is also in {other[0]} (line "
                    f"{other[1]}): files that share a suite name need distinct ids; rename the "
                    f"scenario in one of {other[0]} and {path}")))
        if clashes:
            raise SuiteError(path, clashes[:20])
        for item in suite.items:
            ids[item.id] = (path, item.line)
