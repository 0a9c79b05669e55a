"""The fantom family (see family.py)."""
