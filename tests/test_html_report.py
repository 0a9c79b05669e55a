"""The HTML report as a person uses it: built from saved reports (`pytest-tom html`,
`compare --html`) and by a run (`--tom-html`), opened in a real headless Chromium:
no console errors, plots drawn, filters change the rows, an item shows its transcript,
10,000 items filter; screenshots for the docs (TOM_DOCS_SCREENSHOTS=1 writes docs/images)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from html_browser import choose, count_text, open_page
from report_runs import load

from pytest_tom.catalogue import bundled
from pytest_tom.cli import main

DOCS_IMAGES = Path(__file__).resolve().parent.parent / "docs" / "images"


def shot(driver: Any, tmp_path: Path, name: str) -> Path:
    """A PNG of the page (into docs/images when TOM_DOCS_SCREENSHOTS=1)."""
    target = DOCS_IMAGES if os.environ.get("TOM_DOCS_SCREENSHOTS") == "1" else tmp_path
    target.mkdir(parents=True, exist_ok=True)
    path = target / name
    driver.save_screenshot(str(path))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    return path


def wait_for(driver: Any, condition: Any, timeout: float = 30) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, timeout).until(lambda d: condition())


@pytest.fixture(scope="module")
def pages(demo_reports: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
          ) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("html")
    one, two = out / "one.html", out / "two.html"
    assert main(["html", str(demo_reports["strong"]), "-o", str(one)]) == 0
    assert main(["compare", str(demo_reports["strong"]), str(demo_reports["weak"]),
                 "--labels", "strong,weak", "--html", str(two), "--resamples", "300"]) == 0
    return {"one": one, "two": two}


def test_the_page_is_self_contained(pages: dict[str, Path]) -> None:
    text = pages["two"].read_text(encoding="utf-8")
    # nothing is fetched: no external scripts, styles, images or fonts
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text)
    assert "<link " not in text and "@import" not in text and "url(http" not in text
    assert text.count("<svg") >= 10  # inline plots
    data = json.loads(re.search(r'<script type="application/json" id="tom-data">(.*?)</script>',
                                text, re.S).group(1))
    assert data["runs"] == ["strong", "weak"]
    assert len(data["items"]) == sum(row.items for row in bundled.describe())


def test_single_run_page_loads_and_filters(browser: Any, pages: dict[str, Path],
                                           demo_reports: dict[str, Path],
                                           tmp_path: Path) -> None:
    errors = open_page(browser, pages["one"])
    assert errors == []
    report = load(demo_reports["strong"])
    total = len(report["items"])
    assert count_text(browser) == f"{total} of {total} items"
    # plots are drawn: every inline SVG has a size on the page
    sizes = browser.execute_script(
        "return Array.from(document.querySelectorAll('figure.plot svg'))"
        ".map(s => s.getBoundingClientRect().width * s.getBoundingClientRect().height)")
    assert len(sizes) >= 8 and all(s > 1000 for s in sizes)
    shot(browser, tmp_path, "html-report.png")
    # outcome filter: the wrong items of the run, and only they
    wrong = sum(1 for r in report["items"] if r["outcome"].get("correct") is False
                and not r["outcome"].get("error"))
    choose(browser, "f-outcome", "wrong")
    assert count_text(browser) == f"{wrong} of {total} items"
    cells = browser.execute_script(
        "return Array.from(document.querySelectorAll('#rows tr td:nth-child(6) .v'))"
        ".map(e => e.textContent)")
    assert cells and set(cells) == {"wrong"}
    # suite and kind filters narrow further; search matches ids
    suite_names = browser.execute_script("return JSON.parse(document.getElementById('tom-data')"
                                         ".textContent).suites")
    choose(browser, "f-suite", str(suite_names.index("bigtom-everyday")))
    bigtom_wrong = sum(1 for r in report["items"] if r["item"]["suite"] == "bigtom-everyday"
                       and r["outcome"].get("correct") is False and not r["outcome"].get("error"))
    assert count_text(browser) == f"{bigtom_wrong} of {total} items"
    choose(browser, "f-outcome", "")
    choose(browser, "f-suite", "")
    box = browser.find_element("id", "f-search")
    box.send_keys("bakery-sugar-jar")
    expected = sum(1 for r in report["items"] if "bakery-sugar-jar" in r["item"]["id"])
    wait_for(browser, lambda: count_text(browser) == f"{expected} of {total} items")
    box.clear()
    box.send_keys("x")
    box.send_keys("\b")
    wait_for(browser, lambda: count_text(browser) == f"{total} of {total} items")


def test_an_item_shows_what_the_model_answered_and_why(browser: Any,
                                                        pages: dict[str, Path]) -> None:
    open_page(browser, pages["one"])
    choose(browser, "f-outcome", "wrong")
    browser.find_elements("css selector", "#rows tr")[0].click()
    detail = browser.find_element("id", "detail")
    wait_for(browser, lambda: detail.is_displayed())
    text = detail.text
    assert "gold:" in text and "wrong" in text and "parsed:" in text
    # the report keeps every call's messages: the prompt as the model saw it, then its answer
    assert "call 1 of 1" in text and "USER" in text.upper() and "ASSISTANT" in text.upper()
    question = browser.execute_script(
        "return JSON.parse(document.getElementById('tom-data').textContent).items"
        "[Number(document.querySelector('#rows tr.selected').dataset.index)].q")
    assert question and question in text


def test_transcripts_show_every_call_when_the_report_keeps_messages(
        browser: Any, demo_reports: dict[str, Path], tmp_path: Path) -> None:
    data = load(demo_reports["weak"])
    data["items"] = [r for r in data["items"] if r["item"]["suite"] == "classic-false-belief"]
    for r in data["items"]:  # the field issue 15 adds: every call's messages
        r["messages"] = [[{"role": "system", "content": "You answer questions about stories."},
                          {"role": "user", "content": f"STORY for {r['item']['id']}\n"
                                                      f"{r['item']['question']}"}],
                         [{"role": "user", "content": "Now answer with the letter only."}]]
        r["responses"] = ["Let me think </script><b>not bold</b>", *r["responses"]]
    path = tmp_path / "messages.json"
    path.write_text(json.dumps(data))
    page = tmp_path / "messages.html"
    assert main(["html", str(path), "-o", str(page)]) == 0
    assert open_page(browser, page) == []
    first = sorted(r["item"]["id"] for r in data["items"])[0]
    browser.find_elements("css selector", "#rows tr")[0].click()
    text = browser.find_element("id", "detail").text
    assert "call 1 of 2" in text and "call 2 of 2" in text
    assert f"STORY for {first}" in text and "Now answer with the letter only." in text
    # answers are text, never markup: the script end tag and the <b> show as typed
    assert "Let me think </script><b>not bold</b>" in text
    assert browser.execute_script("return document.querySelectorAll('#detail b').length") == 1


def test_a_thought_is_collapsed_under_its_answer(browser: Any, demo_reports: dict[str, Path],
                                                 tmp_path: Path) -> None:
    data = load(demo_reports["weak"])
    data["items"] = [r for r in data["items"] if r["item"]["suite"] == "classic-false-belief"]
    for r in data["items"]:  # a reasoning model's record: a thought per call, kept apart
        r["thoughts"] = [f"THOUGHT of {r['item']['id']}: she left </script><i>before</i>"]
        r["finish"] = ["stop"]
    path = tmp_path / "thoughts.json"
    path.write_text(json.dumps(data))
    page = tmp_path / "thoughts.html"
    assert main(["html", str(path), "-o", str(page)]) == 0
    assert open_page(browser, page) == []
    browser.find_elements("css selector", "#rows tr")[0].click()
    detail = browser.find_element("id", "detail")
    wait_for(browser, lambda: detail.is_displayed())
    shown = browser.find_elements("css selector", "#detail .msg.assistant details.thought")
    assert len(shown) == 1 and shown[0].get_attribute("open") is None  # collapsed
    assert "thought (" in shown[0].text and "THOUGHT of" not in detail.text
    shown[0].find_element("css selector", "summary").click()
    wait_for(browser, lambda: "THOUGHT of" in detail.text)
    assert "she left </script><i>before</i>" in detail.text  # text, never markup
    # the answer above it is the scored one
    answer = browser.find_element("css selector", "#detail .msg.assistant pre").text
    assert "THOUGHT" not in answer


def test_comparison_page_shows_tests_and_flipped_items(browser: Any,
                                                        pages: dict[str, Path],
                                                        demo_reports: dict[str, Path],
                                                        tmp_path: Path) -> None:
    assert open_page(browser, pages["two"]) == []
    table = browser.find_element("css selector", "table.compare").text
    assert "Δ vs strong" in table and "M *" in table
    assert browser.execute_script("return document.querySelectorAll('td.sig').length") > 0
    browser.execute_script("document.getElementById('comparison').scrollIntoView()")
    shot(browser, tmp_path, "html-compare.png")
    browser.execute_script("document.getElementById('suite-3').scrollIntoView()")  # FANToM
    shot(browser, tmp_path, "html-compare-plots.png")
    strong, weak = load(demo_reports["strong"]), load(demo_reports["weak"])
    w = {(r["item"]["suite"], r["item"]["id"]): r["outcome"] for r in weak["items"]}
    flipped = sum(1 for r in strong["items"]
                  if r["outcome"].get("correct") is not None
                  and r["outcome"].get("error") != "unavailable"
                  and w[(r["item"]["suite"], r["item"]["id"])].get("correct") is not None
                  and bool(r["outcome"]["correct"]) != bool(w[(r["item"]["suite"], r["item"]["id"])]["correct"]))
    link = browser.find_element("css selector", "a.show-flips")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", link)
    link.click()
    wait_for(browser, lambda: count_text(browser).startswith(f"{flipped} of "))
    browser.find_elements("css selector", "#rows tr")[0].click()
    detail = browser.find_element("id", "detail").text
    assert "strong" in detail and "weak" in detail
    browser.execute_script("document.getElementById('items').scrollIntoView()")
    shot(browser, tmp_path, "html-items.png")


def synthetic_report(n: int) -> dict[str, Any]:
    """A report of n generic items in scenarios of 5 (every 7th wrong, every 50th an error)."""
    from pytest_tom.families.base import Settings
    from pytest_tom.results.aggregate import aggregate
    from pytest_tom.results.run_report import RunReport

    records = []
    for i in range(n):
        wrong, error = i % 7 == 3, i % 50 == 11
        records.append({
            "item": {"id": f"s{i // 5:05d}::q{i % 5}", "suite": f"big-{i % 2}", "family": "generic",
                     "scenario": f"s{i // 5:05d}", "kind": "choice", "group": f"s{i // 5:05d}",
                     "question": f"Where will person {i} look for the marble?",
                     "gold": "the basket", "choices": ["a) the basket", "b) the box"],
                     "tags": ["first_order" if i % 3 else "second_order"], "source": {}},
            "outcome": {"correct": None if error else not wrong, "parsed": None if error else
                        ("b) the box" if wrong else "a) the basket"),
                        "error": "request_failed" if error else None, "detail": "", "value": None},
            "responses": [] if error else ["b)" if wrong else "a)"]})
    for r in records:
        if r["outcome"]["error"]:
            r["outcome"]["correct"] = False
    settings = {"model": "python:synthetic", "method": "vanilla", "seed": 0}
    return RunReport.build(aggregate(records, Settings()), records, settings, 0.0, 1.0).data


def test_ten_thousand_items_open_and_filter(browser: Any, tmp_path: Path) -> None:
    data = synthetic_report(10_000)
    src = tmp_path / "big.json"
    src.write_text(json.dumps(data))
    page = tmp_path / "big.html"
    assert main(["html", str(src), "-o", str(page)]) == 0
    assert open_page(browser, page) == []
    assert count_text(browser) == "10000 of 10000 items"
    assert browser.execute_script("return document.querySelectorAll('#rows tr').length") == 50
    choose(browser, "f-outcome", "error")
    assert count_text(browser) == f"{sum(1 for i in range(10_000) if i % 50 == 11)} of 10000 items"
    choose(browser, "f-outcome", "")
    choose(browser, "f-tag", "second_order")
    assert count_text(browser) == f"{sum(1 for i in range(10_000) if i % 3 == 0)} of 10000 items"
    box = browser.find_element("id", "f-search")
    box.send_keys("person 9999 ")
    wait_for(browser, lambda: count_text(browser) == "1 of 10000 items")
    browser.find_element("id", "next").click()  # one page only: next is disabled, stays
    assert browser.find_element("id", "page").text == "page 1 of 1"


def test_tom_html_writes_the_page_of_a_run(pytester: pytest.Pytester, browser: Any) -> None:
    from gate_support import setup_project

    setup_project(pytester)
    result = pytester.runpytest("-p", "no:cacheprovider", "--tom-model=python:answers.py:goal10",
                                "--tom-html=out/run.html", "--tom-report=out/run.json")
    page = pytester.path / "out" / "run.html"
    assert page.exists(), result.stdout.str()
    result.stdout.fnmatch_lines(["*tom html report: out/run.html*"])
    report = json.loads((pytester.path / "out" / "run.json").read_text())
    assert not list(page.parent.glob(".run.html.*"))  # written atomically: no temporary left
    assert open_page(browser, page) == []
    assert count_text(browser) == f"{len(report['items'])} of {len(report['items'])} items"
    header = browser.find_element("id", "runs").text
    assert "answers.py:goal10" in header and "turn accuracy" in header


def test_tom_html_usage_errors(pytester: pytest.Pytester) -> None:
    from gate_support import setup_project

    setup_project(pytester)
    result = pytester.runpytest("-p", "no:cacheprovider", "--tom-model=python:answers.py:right",
                                "--tom-html=")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--tom-html: give a file path*"])
