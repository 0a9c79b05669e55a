"""Nouns shared by every layer: items, suites, outcomes, settings. Imports nothing else."""
