"""What a family's `options.py` imports: `from pytest_tom.families.option_kit import Opt`.

Apart from `families.kit` (which has `Opt` too) because the inert plugin, which every
pytest run loads, imports each family's `options.py` to register its `--tom-<name>-*`
options: this module loads the option table alone, while the kit loads the suite
toolkit, PyYAML and numpy (`tests/test_layers.py` checks that an inactive plugin imports
neither YAML nor a family).
"""

from pytest_tom.core.option_table import Opt

__all__ = ["Opt"]
