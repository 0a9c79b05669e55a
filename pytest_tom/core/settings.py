"""The run settings that shape items, prompts and scoring (not backend connection details)."""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

# the method every family runs: a family runs it where it does not offer the method asked
# (`families.base.method_for`), so a run with it needs no family loaded to know where it applies
FALLBACK_METHOD = "vanilla"


@dataclass(frozen=True)
class Settings:
    """Method, seed, and the option values by name (families read their own options here)."""

    method: str = FALLBACK_METHOD
    seed: int = 0
    options: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    def rng(self, *key: object) -> random.Random:
        """A random source fixed by the seed and the key (stable across processes)."""
        return random.Random(":".join([str(self.seed), *map(str, key)]))
