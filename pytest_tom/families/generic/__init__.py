"""The generic family (see family.py)."""
