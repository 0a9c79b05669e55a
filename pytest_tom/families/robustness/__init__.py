"""The robustness family (see family.py)."""
