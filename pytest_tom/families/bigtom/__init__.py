"""The bigtom family (see family.py)."""
