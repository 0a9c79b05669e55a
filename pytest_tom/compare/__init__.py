"""Comparing saved runs: `pytest-tom compare A.json B.json [C.json ...]`, analysis only.

`runs` reads the JSON reports (through `results.saved_report`, the one reader) and labels
them, `paired` builds the comparison (every headline metric per run with its 95%
interval, the difference to the first run with a paired test on the shared items, the
flipped items) as a `comparison.Comparison`. Nothing here renders: `report/` writes it
as a terminal table or Markdown (`report/compare_text.py`) and as HTML
(`report/html`); `report/` may import `compare`, never the reverse.
"""
