"""The suite layer: safe YAML with positions, the schema toolkit, the data model.

Knows YAML and the data model only; `pytest_tom.catalogue.load` combines it with the
family registry to turn a file into items.
"""

from pytest_tom.core.model import ItemSpec, Suite
from pytest_tom.suite.errors import Problem, SuiteError

__all__ = ["ItemSpec", "Problem", "Suite", "SuiteError"]
