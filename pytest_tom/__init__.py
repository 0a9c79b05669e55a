"""pytest-tom: Theory-of-Mind benchmark items as pytest tests."""

__version__ = "0.1.0"
