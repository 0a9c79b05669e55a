"""The opentom family (see family.py)."""
