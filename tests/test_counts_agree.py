"""The counts of every terminal section agree with each other and with the JSON report
(issue 33 point 8): on a normal run, against a dead server and on a run stopped by Ctrl-C.

Found: against a dead server "0 wrong answers, 174 errors" stood beside a table of
"wrong 174 errors 174"; FANToM showed `items 15, right 5, wrong 9` with one measured item
left out without a word; an interrupted run showed 18/56 on its requests line, then a
table of 8 requests, then "26 further requests" (the requests went on after the line).

Each run is real (a loopback chat-completions server, or a closed port); the sections are
read back from the terminal text and checked against each other and the report:

- each suite's table: items = right + wrong + cut off + measured only + skipped, each
  figure the report's (`measured only` = items - judged - skipped);
- the totals line: the report's totals;
- the `tom wrong answers` count: the tables' wrong (errors, unparseable) and cut off;
- pytest's own last line: passed = right + measured only, failed + errors (+ xfailed in
  report mode) = wrong + cut off;
- the `tom requests` table: the report's items and their requests; with the line of
  further requests, the requests the live line says were made; the live line's items
  (done, cut short, not started) add up to those submitted.
"""

from __future__ import annotations

import re
import shutil
import socket
from pathlib import Path
from typing import Any

import pytest
from chat_server import ChatServer
from conftest import SUITES, load_report
from embedding_model import embedder  # noqa: F401  (fixture: FANToM's model, loaded once)

GENERIC = SUITES / "generic" / "classic-false-belief.tom.yaml"
FANTOM = SUITES / "fantom" / "smalltalk.tom.yaml"
COUNT_WORDS = {"errors": "errors", "unparseable": "unparseable", "cut off": "cut_off",
               "skipped": "skipped", "measured only": "measured"}


# -- reading the sections back -------------------------------------------------------------
def columns(rule: str) -> list[tuple[int, int]]:
    """The spans of a `simple` table's columns, from its line of dashes."""
    return [(m.start(), m.end()) for m in re.finditer(r"-+", rule)]


def row_of(lines: list[str], at: int) -> dict[str, str]:
    """The header at `lines[at]`, its rule below, and the row after it, as {header: cell}
    (a header or cell may run past its dashes when it is the widest)."""
    spans = columns(lines[at + 1])
    bounds = [(s, spans[i + 1][0] if i + 1 < len(spans) else None) for i, (s, _) in enumerate(spans)]
    return {lines[at][s:e].strip(): lines[at + 2][s:e].strip() for s, e in bounds}


def suite_rows(out: str) -> dict[str, dict[str, str]]:
    """suite name -> the cells of its table's `all` row, across its column blocks."""
    lines = out.splitlines()
    found: dict[str, dict[str, str]] = {}
    for i, line in enumerate(lines):
        m = re.match(r"^(\S+)  \(family \w+, [\d.]+ items\)$", line)
        if not m:
            continue
        cells: dict[str, str] = {}
        at = i + 1
        while at + 2 < len(lines) and set(lines[at + 1].replace(" ", "")) == {"-"}:
            assert lines[at + 2].startswith("all "), lines[at:at + 3]
            cells.update(row_of(lines, at))
            end = at + 2
            while end < len(lines) and lines[end].strip():
                end += 1
            at = end + 1  # past the blank line between blocks
        found[m[1]] = cells
    return found


def joined(out: str, start: str) -> str:
    """A line of the summary with its continuation lines (indented by two spaces)."""
    lines = out.splitlines()
    i = next(i for i, line in enumerate(lines) if line.startswith(start))
    text = lines[i]
    for more in lines[i + 1:]:
        if not more.startswith("  "):
            break
        text += " " + more.strip()
    return text


def totals_line(out: str) -> dict[str, int]:
    text = joined(out, "tom totals: ")
    got = {"items": int(re.match(r"tom totals: (\d+) items", text)[1])}  # type: ignore[index]
    for n, words in re.findall(r"· (\d+) (errors|unparseable|cut off|skipped|measured only)\b",
                               text):
        got[COUNT_WORDS[words]] = int(n)
    return got


def pytest_counts(out: str) -> dict[str, int]:
    last = [line for line in out.splitlines() if re.match(r"^=+ .* in [\d.]+s", line)][-1]
    got = {word: int(n) for n, word in re.findall(r"(\d+) (\w+)", last)}
    if "errors" in got:
        got["error"] = got.pop("errors")
    return got


def requests_line(out: str) -> dict[str, int] | None:
    """The live line's final figures (None under xdist: each worker has its own runner)."""
    if not re.search(r"^tom requests: ", out, re.M):
        return None
    text = joined(out, "tom requests: ")
    m = re.match(r"tom requests: (\d+)/(\d+) ·", text)
    assert m, text
    got = {"done": int(m[1]), "submitted": int(m[2])}
    for n, words in re.findall(r"(\d+) (requests? made|cut short|not started)", text):
        got[words.split()[0].rstrip("s") if words.startswith("request") else words] = int(n)
    got["stopped"] = int("stopped after" in text)
    return got


def requests_table(out: str) -> tuple[dict[str, str], int, int]:
    """The model row of the `tom requests` table, the further requests and their total."""
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines) if "- tom requests -" in line) + 1
    row = row_of(lines, at)
    further = re.search(r"^(\d+) further request\(s\) .*; (\d+) in all", out, re.M)
    return row, int(further[1]) if further else 0, int(further[2]) if further else 0


def wrong_section(out: str) -> dict[str, int] | None:
    m = re.search(r"^(\d+) wrong(?: \(([^)]*)\))?(?: · (\d+) cut off)?", out, re.M)
    if m is None or "- tom wrong answers -" not in out:
        return None
    got = {"wrong": int(m[1]), "cut_off": int(m[3] or 0), "errors": 0, "unparseable": 0}
    for n, words in re.findall(r"(\d+) (unparseable|errors?)", m[2] or ""):
        got["errors" if words.startswith("error") else words] = int(n)
    return got


# -- the check ----------------------------------------------------------------------------
def check_counts(out: str, report: dict[str, Any], *, report_mode: bool = False) -> None:
    """Every section's counts against the others and the report (module docstring)."""
    rows = suite_rows(out)
    assert set(rows) == set(report["suites"]), (set(rows), out)
    for name, suite in report["suites"].items():
        m, row = suite["metrics"], rows[name]
        measured = m["items"] - m["judged"] - m.get("skipped", 0)
        table = {key: int(row.get(label) or 0) for label, key in COUNT_WORDS.items()}
        assert (int(row["items"]), int(row["right"]), int(row["wrong"])) == (
            m["items"], m["correct"], m["wrong"]), (name, row, m)
        assert table == {"errors": m["errors"], "unparseable": m["unparseable"],
                         "cut_off": m.get("cut_off", 0), "skipped": m.get("skipped", 0),
                         "measured": measured}, (name, row, m)
        assert m["items"] == (m["correct"] + m["wrong"] + m.get("cut_off", 0) + measured
                              + m.get("skipped", 0)), (name, m)
    t = report["totals"]
    measured = t["items"] - t["judged"] - t.get("skipped", 0)
    totals = totals_line(out)
    assert totals == {"items": t["items"], "errors": t["errors"], "unparseable": t["unparseable"],
                      **({"cut_off": t["cut_off"]} if t.get("cut_off") else {}),
                      **({"skipped": t["skipped"]} if t.get("skipped") else {}),
                      **({"measured": measured} if measured else {})}, totals
    wrong = wrong_section(out)
    if wrong is not None:
        assert wrong == {"wrong": t["wrong"], "cut_off": t.get("cut_off", 0),
                         "errors": t["errors"], "unparseable": t["unparseable"]}, wrong
    ran = pytest_counts(out)
    assert ran.get("passed", 0) == t["correct"] + measured, (ran, t)
    not_right = ran.get("failed", 0) + ran.get("error", 0) + ran.get("xfailed", 0)
    assert not_right == t["wrong"] + t.get("cut_off", 0), (ran, t)
    assert report_mode or not ran.get("xfailed")
    row, further, in_all = requests_table(out)
    records = report["items"]
    assert int(row["items"]) == len(records)
    assert int(row["requests"]) == sum(r.get("requests", 0) for r in records)
    assert int(row["errors"]) == sum(1 for r in records if r["outcome"].get("error")
                                     and r["outcome"]["error"] not in ("unparseable", "cut_off"))
    live = requests_line(out)
    if live is None:
        assert further == 0
    elif live["stopped"]:
        assert live["done"] + live.get("cut short", 0) + live.get("not started", 0) == live["submitted"]
        made = live["request"]
        assert int(row["requests"]) + further == made, (row, further, live)
        if further:
            assert in_all == made
    else:
        assert further == 0 and live["done"] == live["submitted"] == len(records)


# -- the three runs -----------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def tom_args(url: str, *more: str) -> list[str]:
    return ["--tom-model=openai:m", f"--tom-base-url={url}", "--tom-cache=off",
            "--tom-report=r.json", "-p", "no:cacheprovider", "-p", "no:randomly", *more]


def answer(body: dict[str, Any]) -> str:
    """Right on some items, wrong on others, unparseable on the yes/no ones."""
    text = body["messages"][-1]["content"]
    return "b)" if len(text) % 3 == 0 else "a)"


# under -n 2 FANToM's free answers are left out: each worker would load the embedding model
# for them (the in-process plain run uses the one the `embedder` fixture loaded)
@pytest.mark.parametrize("xdist", [(), ("-n", "2", "-m", "not belief_dist")],
                         ids=["plain", "xdist"])
@pytest.mark.usefixtures("embedder")
def test_a_normal_run_with_errors_and_a_measured_item(pytester: pytest.Pytester,
                                                      xdist: tuple[str, ...]) -> None:
    pytester.makeini("[pytest]\n")
    # requests about one scenario fail (400: not retried): error outcomes among answers
    with ChatServer(answer, fail_when={"Chioma": 400}) as server:
        result = pytester.runpytest(str(GENERIC), str(FANTOM), "--tom-limit=15",
                                    *tom_args(server.base_url, "--tom-concurrency=1"), *xdist)
    out = result.stdout.str()
    report = load_report(pytester.path / "r.json")
    assert report["status"] == "complete", out
    t = report["totals"]
    assert t["errors"] > 0 and t["unparseable"] > 0 and t["correct"] > 0, t
    assert t["items"] - t["judged"] > 0  # FANToM's measured item is there, and counted
    check_counts(out, report)


def test_a_dead_server(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    result = pytester.runpytest(str(GENERIC), *tom_args(f"http://127.0.0.1:{free_port()}/v1",
                                                         "--tom-retries=0"))
    out = result.stdout.str()
    report = load_report(pytester.path / "r.json")
    assert report["status"] == "interrupted" and report["totals"]["errors"] > 0, out
    assert "the run stopped early" in out
    check_counts(out, report)


INTERRUPT = """\
seen = []

def pytest_runtest_call(item):
    seen.append(item.nodeid)
    if len(seen) == 9:
        raise KeyboardInterrupt
"""


def test_a_run_stopped_by_ctrl_c(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    shutil.copy(GENERIC, pytester.path / GENERIC.name)  # under the conftest that interrupts
    pytester.makeconftest(INTERRUPT)
    with ChatServer(answer, latency=0.2) as server:
        result = pytester.runpytest(GENERIC.name, "--tom-limit=50",
                                    *tom_args(server.base_url, "--tom-concurrency=4"),
                                    no_reraise_ctrlc=True)
    out = result.stdout.str()
    assert result.ret == pytest.ExitCode.INTERRUPTED, out
    report = load_report(pytester.path / "r.json")
    assert report["status"] == "interrupted" and len(report["items"]) == 8
    live = requests_line(out)
    assert live is not None and live["stopped"] and live["done"] < live["submitted"]
    check_counts(out, report)


def test_the_reader_of_the_sections_reads_what_it_checks(tmp_path: Path) -> None:
    """The parsers above, on a fixed text: a wrong count anywhere is caught."""
    out = "\n".join([
        "tom requests: 3/10 · 0 retries · 1 errors · 2.0 req/s · stopped after 1.5s · 5 requests made",
        "  · 2 cut short · 5 not started",
        "--------------------------------- tom requests ---------------------------------",
        "model    items    requests    retries    from cache    shared    errors",
        "-------  -------  ----------  ---------  ------------  --------  --------",
        "m        2        2           0          0             0         1",
        "3 further request(s) for items that were not scored (the run stopped early; 5 in all, "
        "as on the tom requests line)",
        "s  (family generic, 2 items)",
        "       items    right    wrong    errors    unparseable    turn acc",
        "-----  -------  -------  -------  --------  -------------  ----------",
        "all    2        1        1        1         0              50.0%",
        "",
        "tom totals: 2 items · turn 50.0% · goal 0.0% (0/1) · 1 errors · 0 unparseable ·",
        "  model m",
        "==== 1 passed, 1 error in 0.1s ====",
    ])
    report = {"suites": {"s": {"metrics": {"items": 2, "judged": 2, "correct": 1, "wrong": 1,
                                           "errors": 1, "unparseable": 0}}},
              "totals": {"items": 2, "judged": 2, "correct": 1, "wrong": 1, "errors": 1,
                         "unparseable": 0},
              "items": [{"requests": 1, "outcome": {"error": "request_failed"}},
                        {"requests": 1, "outcome": {"error": None}}]}
    check_counts(out, report)
    for wrong_text in (out.replace("2 cut short", "3 cut short"),
                       out.replace("; 5 in all", "; 6 in all").replace("5 requests made",
                                                                        "6 requests made"),
                       out.replace("· 1 errors ·", "· 2 errors ·"),
                       out.replace("1 passed, 1 error", "2 passed")):
        with pytest.raises(AssertionError):
            check_counts(wrong_text, report)
