"""`--tom-probe no-story,no-options,shuffle` in whole runs of the plugin (issue 46 item 2),
plain and under `-n 2`, over bundled BigToM (two options: each order shows the gold at the other place) with an answerer that always picks the first
option: every probe copy is its own test named by its probe, beside its base item; the
JSON report's `probes` block shows position bias and consistency 0 and the same figures
under xdist; the terminal, the Markdown and the HTML show the table. The parts as units:
tests/test_probes.py."""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

import pytest

ANSWERER = """\
def first(req):
    return "A"
"""


def probe_run(pytester: pytest.Pytester, *extra: str) -> tuple[dict[str, Any], str]:
    result = pytester.runpytest(  # in process: the -n 2 workers are processes anyway
        "--tom-model=python:answer.py:first", "--tom-suite=bigtom", "--tom-limit=4",
        "--tom-items=report", "--tom-report=r.json", "--tom-cache=off", "-p", "no:cacheprovider",
        "--tom-probe", "no-story,no-options,shuffle", "--tom-probe-orders", "2", *extra)
    out = result.stdout.str()
    assert result.ret == 0, out[-3000:]
    return json.loads((pytester.path / "r.json").read_text(encoding="utf-8")), out


def test_probes_run_beside_the_base_items_plainly_and_under_xdist(
        pytester: pytest.Pytester) -> None:
    pytester.makepyfile(answer=ANSWERER)
    report, out = probe_run(pytester, "--junitxml=j.xml", "--tom-markdown=s.md",
                            "--tom-html=r.html")
    xreport, xout = probe_run(pytester, "-n", "2")
    for rep, text in ((report, out), (xreport, xout)):
        items = rep["items"]
        base = [r for r in items if "probe" not in r]
        labels = Counter(r["probe"]["label"] for r in items if "probe" in r)
        assert labels == {f"probe={p}": len(base) for p in
                          ("no-story", "no-options", "shuffle-1", "shuffle-2")}
        for r in items:
            if "probe" in r:
                assert r["item"]["suite"] == f"{r['probe']['suite']}[{r['probe']['label']}]"
            if r.get("probe", {}).get("probe") == "no-options":  # "A" names no option's text
                assert r["outcome"]["error"] == "unparseable"
        assert rep["settings"]["asked"]["probes"] == {
            "probes": ["no-story", "no-options", "shuffle"], "orders": 2}
        (suite,) = rep["probes"]["suites"]
        assert suite["base"]["n"] == len(base)
        shuffle = suite["shuffle"]
        assert shuffle["consistency"] == 0.0 and shuffle["items"] == len(base)
        first, second = shuffle["by_position"]  # right only where the gold was first
        assert (first["position"], first["right"]) == (1, first["n"]) and first["n"] > 0
        assert (second["position"], second["right"]) == (2, 0) and second["n"] > 0
        assert "tom: probes no-story,no-options,shuffle (shuffle: 2 orders)" in text
        assert "shortcut probes beside the base" in text and "McNemar p" in text
        assert "shuffle: right in all 2 orders: 0.0%" in text
    assert xreport["probes"] == report["probes"]  # xdist: the same figures
    assert "### Shortcut probes" in (pytester.path / "s.md").read_text(encoding="utf-8")
    html = (pytester.path / "r.html").read_text(encoding="utf-8")
    section = html[html.index('<section id="probes"'):]
    section = section[:section.index("</section>")]
    assert section.count("<table") == 1 and "McNemar p" in section
    assert "right in all 2 orders: 0.0%" in section
    junit = (pytester.path / "j.xml").read_text(encoding="utf-8")
    names = re.findall(r'<testcase [^>]*name="([^"]+)"', junit)
    assert len(names) == len(report["items"])
    assert sum(1 for n in names if n.endswith("[probe=no-story]")) == len(names) // 5
