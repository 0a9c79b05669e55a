"""Problems found in a suite file, reported all at once with file:line:column."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a suite file, located at a line and column (1-based)."""

    path: str
    line: int
    column: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}: {self.message}"


class SuiteError(Exception):
    """A suite file that cannot be used; carries every problem found in it."""

    def __init__(self, path: str | Path, problems: list[Problem]):
        self.path = str(path)
        self.problems = sorted(problems, key=lambda p: (p.line, p.column, p.message))
        super().__init__(self.render())

    def render(self) -> str:
        n = len(self.problems)
        head = f"{self.path}: {n} problem{'s' if n != 1 else ''} in this suite file"
        return "\n".join([head, *(f"  {p}" for p in self.problems)])
