"""Scoring primitives on plain strings: no knowledge of families, items or pytest."""
