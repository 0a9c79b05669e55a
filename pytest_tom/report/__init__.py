"""Reporting: the terminal `tom scores` section and the JSON report."""
