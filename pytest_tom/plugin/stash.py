"""The one object pytest-tom keeps in `config.stash`: the run's `TomSession`.

A module of its own so that the inert plugin can look it up without importing
the session (and through it the families and PyYAML).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pytest_tom.plugin.session import TomSession

STASH_KEY = pytest.StashKey["TomSession"]()


def get_session(config: pytest.Config) -> TomSession | None:
    """The active run's session, or None when the plugin is inert (no --tom-model)."""
    return config.stash.get(STASH_KEY, None)
