"""What family and backend authors need, in one import: `from pytest_tom.api import ...`.

Every name of `pytest_tom.families.kit` (what a family's modules import; a family inside
the package imports the kit itself, which sits in its layer) and the backend and run
helpers. A family's `options.py` imports `Opt` from `pytest_tom.families.option_kit`
instead: the inert plugin reads it, and this module loads the suite toolkit (and PyYAML).
See docs/adding-a-family.md and docs/backends.md.
"""

from pytest_tom.backends.base import (
    Answerer,
    Backend,
    BackendAbilities,
    BackendError,
    BackendIdentity,
    ItemView,
    ModelReply,
    ModelRequest,
    SamplingParams,
)
from pytest_tom.backends.in_process import InProcessBackend
from pytest_tom.backends.options import BackendOptions
from pytest_tom.catalogue.load import load_suite
from pytest_tom.families.kit import *  # noqa: F403  # every name of the kit, listed below
from pytest_tom.families.kit import __all__ as _kit_names
from pytest_tom.items.offline import score_records

__all__ = [*_kit_names, "Answerer", "Backend", "BackendAbilities", "BackendError",
           "BackendIdentity", "BackendOptions", "InProcessBackend", "ItemView", "ModelReply",
           "ModelRequest", "SamplingParams", "load_suite", "score_records"]
