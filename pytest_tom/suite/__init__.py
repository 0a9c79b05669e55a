"""The suite layer: safe YAML with positions, the schema toolkit, the data model.

Knows YAML and the data model only; `pytest_tom.loading` combines it with the
family registry to turn a file into items.
"""

from pytest_tom.suite.errors import Problem, SuiteError
from pytest_tom.suite.model import ItemSpec, Suite

__all__ = ["ItemSpec", "Problem", "Suite", "SuiteError"]
