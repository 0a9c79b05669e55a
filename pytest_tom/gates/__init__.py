"""Quality gates: threshold and baseline specs and their evaluation (no pytest, no files)."""
