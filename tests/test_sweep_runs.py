"""`--tom-sweep thinking-tokens=16,4096` in whole runs of the plugin (issue 46 item 1's
"Done when"), against a loopback server that thinks 400 tokens before each answer
(tests/thinking_server.py), over bundled BigToM and Hi-ToM: each item runs once per value;
at 16 every item is cut off and none is wrong; at 4096 every verdict is that of a plain
model giving the same final answers (scored here without a run); the per-value figures
and paired tests are in the JSON report and the terminal; the same under `-n 2`. The
parts as units: tests/test_sweep.py."""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

import pytest
from chat_server import ChatServer
from thinking_server import plain_answer, responder

from pytest_tom.catalogue import bundled
from pytest_tom.catalogue.load import load_suite
from pytest_tom.items.offline import score_records

SUITES = "bigtom,hitom"


def plain_verdicts() -> dict[tuple[str, str], tuple[Any, Any]]:
    """(suite, id) -> (correct, error) of the plain model on every item of the suites."""
    out = {}
    for path in bundled.files(SUITES.split(",")):
        suite = load_suite(path)
        for rec in score_records(suite.items, lambda r: plain_answer({"messages": r.messages})):
            out[(rec["item"]["suite"], rec["item"]["id"])] = (rec["outcome"]["correct"],
                                                              rec["outcome"].get("error"))
    return out


def sweep_run(pytester: pytest.Pytester, url: str, *extra: str) -> tuple[dict[str, Any], str]:
    result = pytester.runpytest(  # in process: the -n 2 workers are processes anyway
        "--tom-model=openai:m", f"--tom-base-url={url}", f"--tom-suite={SUITES}",
        "--tom-limit=3", "--tom-items=report", "--tom-report=r.json", "--tom-cache=off",
        "-p", "no:cacheprovider", "--tom-sweep", "thinking-tokens=16,4096", *extra)
    out = result.stdout.str()
    assert result.ret == 0, out[-3000:]
    return json.loads((pytester.path / "r.json").read_text(encoding="utf-8")), out


def test_a_sweep_runs_each_item_once_per_value_plainly_and_under_xdist(
        pytester: pytest.Pytester) -> None:
    with ChatServer(responder("reasoning_content")) as server:
        report, out = sweep_run(pytester, server.base_url, "--junitxml=j.xml",
                                "--tom-html=r.html")
        xreport, xout = sweep_run(pytester, server.base_url, "-n", "2")
    reference = plain_verdicts()
    for rep, text in ((report, out), (xreport, xout)):
        items = rep["items"]
        seen = Counter((r["sweep"]["suite"], r["item"]["id"], r["sweep"]["value"])
                       for r in items)
        assert set(seen.values()) == {1}  # each (item, value) once
        ids = {(s, i) for s, i, _ in seen}
        assert {(s, i, v) for s, i in ids for v in (16, 4096)} == set(seen)
        assert {r["sweep"]["suite"].split("-")[0] for r in items} == {"bigtom", "hitom"}
        for r in items:
            assert r["item"]["suite"] == f"{r['sweep']['suite']}[thinking-tokens=" \
                                         f"{r['sweep']['value']}]"
            outcome = r["outcome"]
            if r["sweep"]["value"] == 16:  # cut off, never wrong
                assert outcome["error"] == "cut_off", outcome
            else:
                key = (r["sweep"]["suite"], r["item"]["id"])
                assert (outcome["correct"], outcome.get("error")) == reference[key]
        verdicts = [r["outcome"]["correct"] for r in items if r["sweep"]["value"] == 4096]
        assert any(verdicts) and not all(verdicts)  # right and wrong both compared
        assert rep["settings"]["asked"]["sweep"] == {"setting": "thinking-tokens",
                                                     "values": [16, 4096],
                                                     "request_field": False}
        for base, block in rep["sweep"]["suites"].items():
            low, high = block["values"]
            assert low["cut_off"] == low["items"] and low["wrong"] == 0
            assert high["cut_off"] == 0 and high["thought_mean"] == 400
            assert block["paired"][0]["turn"]["n"] == low["items"]
            assert f"{base} · sweep of thinking-tokens" in text
        assert "tom: sweep thinking-tokens over 2 values" in text
        assert "McNemar p" in text and "accuracy on the answered items" in text
        assert "[thinking-tokens=16]" in text  # the suites per value
    assert xreport["sweep"] == report["sweep"]  # xdist: the same figures
    # the HTML: the tables side by side, the outcome plot and the thought-length plot
    html = (pytester.path / "r.html").read_text(encoding="utf-8")
    section = html[html.index('<section id="sweep"'):]
    section = section[:section.index("</section>")]
    assert section.count("<table") == 2 and "McNemar p" in section
    assert section.count("<svg") == 2 * 2  # outcomes, and thought length (at 4096)
    assert "Outcomes and accuracy by thinking-tokens" in section
    # each (item, value) its own test, named by its value
    junit = (pytester.path / "j.xml").read_text(encoding="utf-8")
    names = re.findall(r'<testcase [^>]*name="([^"]+)"', junit)
    assert len(names) == len(report["items"])
    assert Counter(n[n.index("["):] for n in names) == {"[thinking-tokens=16]": len(names) // 2,
                                                       "[thinking-tokens=4096]": len(names) // 2}

