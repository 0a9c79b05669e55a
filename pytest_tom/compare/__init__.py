"""Comparing saved runs: `pytest-tom compare A.json B.json [C.json ...]`.

`runs` loads and checks the JSON reports, `paired` builds the comparison (every
headline metric per run with its 95% interval, the difference to the first run with a
paired test on the shared items, the flipped items), `render` prints it as a terminal
table or Markdown; the HTML report (`pytest_tom.report.html`) shows the same data.
"""
