"""How large the HTML report of a big run is, how long it takes to build, to open in headless
Chromium, and to filter: `python benchmarks/html_report.py [N]` (default 10,000 items).

Prints figures (no assertions); the machine's load is printed beside them. The items are
synthetic generic records (as tests/test_html_report.py makes them), with a 1,500-character
story line per scenario of 5 items in each item's prompt (`messages`), as real prompts repeat
their scenario's story, so the string table's sharing is measured too.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from html_browser import find_browser  # noqa: E402
from test_html_report import synthetic_report  # noqa: E402

from pytest_tom.compare.runs import load_runs  # noqa: E402
from pytest_tom.report.html.build import write_html  # noqa: E402


def main(n: int) -> None:
    data = synthetic_report(n)
    for i, rec in enumerate(data["items"]):
        story = f"Story {i // 5}: " + ("Sally puts the marble in the basket and leaves. " * 30)
        prompt = (f"{story}\nQuestion: {rec['item']['question']}\nChoose one of the following:\n"
                  "a) the basket\nb) the box")
        rec["messages"] = [[{"role": "system", "content": "Answer with the letter."},
                            {"role": "user", "content": prompt}]]
    tmp = Path(tempfile.mkdtemp())
    src = tmp / "big.json"
    src.write_text(json.dumps(data))
    t0 = time.perf_counter()
    runs = load_runs([src])
    write_html(tmp / "big.html", runs)
    build = time.perf_counter() - t0
    size = (tmp / "big.html").stat().st_size
    print(f"items {n}: JSON report {src.stat().st_size / 1e6:.1f} MB, HTML {size / 1e6:.1f} MB, "
          f"built in {build:.2f} s; load {os.getloadavg()}")
    found = find_browser()
    if isinstance(found, str):
        print(f"no browser figures: {found}")
        return
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.support.ui import Select, WebDriverWait

    opts = Options()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        opts.add_argument(arg)
    opts.binary_location = found[0]
    driver = webdriver.Chrome(service=Service(found[1]), options=opts)
    try:
        t0 = time.perf_counter()
        driver.get((tmp / "big.html").as_uri())
        WebDriverWait(driver, 120).until(
            lambda d: d.execute_script("return document.body.dataset.ready === '1'"))
        opened = time.perf_counter() - t0
        timings = driver.execute_script("""
            const t = performance.getEntriesByType('navigation')[0];
            return [t.domInteractive, t.loadEventEnd];""")
        t0 = time.perf_counter()
        Select(driver.find_element("id", "f-outcome")).select_by_value("wrong")
        filtered = time.perf_counter() - t0
        per_filter = driver.execute_script("""
            const o = document.getElementById('f-outcome'); const vals = ['wrong', 'error', '', 'right'];
            const t = performance.now();
            for (let i = 0; i < 20; i++) { o.value = vals[i % 4]; o.dispatchEvent(new Event('change')); }
            return (performance.now() - t) / 20;""")
        search = driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            const o = document.getElementById('f-outcome'); o.value = '';
            o.dispatchEvent(new Event('change'));
            const c = document.getElementById('count'), s = document.getElementById('f-search');
            const t = performance.now();
            new MutationObserver(() => done(performance.now() - t - 120))
                .observe(c, {childList: true, characterData: true, subtree: true});
            s.value = 'person 9999 '; s.dispatchEvent(new Event('input'));""")
        print(f"open (to ready) {opened:.2f} s (DOM interactive {timings[0] / 1000:.2f} s, "
              f"load {timings[1] / 1000:.2f} s); outcome filter round trip {filtered * 1000:.0f} ms "
              f"(selenium included); filter + render of one page {per_filter:.1f} ms; "
              f"first full-text search {search:.0f} ms (after the 120 ms debounce); "
              f"load {os.getloadavg()}")
    finally:
        driver.quit()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000)
