"""numpy, imported at its first use rather than with the modules that use it.

The metrics and the reasoning figures compute with numpy; the families import the metric
declarations to declare theirs, so every process of an active run imported numpy (about
60 ms of CPU) although only the process that aggregates the records computes with it: an
xdist worker scores its items and hands the records over, and never does. A module that
computes with numpy imports `np` from here (`from pytest_tom.core.lazy_numpy import np`);
a type checker sees numpy itself.

At its first attribute read `np` imports numpy and copies its names, so every later read
(`np.bincount`, `np.ndarray` ...) is a plain attribute of this object, as fast as the
module's own.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any


class LazyModule:
    """A module imported at the first read of one of its attributes."""

    def __init__(self, name: str):
        self._lazy_name = name

    def __getattr__(self, attribute: str) -> Any:  # only for names not copied yet
        module = importlib.import_module(self._lazy_name)
        self.__dict__.update(vars(module))
        return getattr(module, attribute)


if TYPE_CHECKING:
    import numpy as np
else:
    np = LazyModule("numpy")
