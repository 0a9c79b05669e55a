"""A headless Chromium driven by selenium for the HTML report tests: Debian's `chromium` and
`chromium-driver` (scripts/install.sh installs them when run as root). Tests that need it
skip with the reason when selenium, the browser or the driver is missing."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

BROWSERS = ("chromium", "chromium-browser", "google-chrome")


def find_browser() -> tuple[str, str] | str:
    """(browser, driver) paths, or the reason there are none."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[dev]')"
    browser = next((p for p in map(shutil.which, BROWSERS) if p), None)
    driver = shutil.which("chromedriver")
    if browser is None or driver is None:
        return ("no headless browser: install Debian's chromium and chromium-driver "
                "(apt-get install chromium chromium-driver; scripts/install.sh does it as root)")
    return browser, driver


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    found = find_browser()
    if isinstance(found, str):
        pytest.skip(found)
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    opts = Options()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1400,1000", "--hide-scrollbars"):
        opts.add_argument(arg)
    opts.binary_location = found[0]
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(found[1]), options=opts)
    driver.set_page_load_timeout(120)
    try:
        yield driver
    finally:
        driver.quit()


def open_page(driver: Any, path: Path) -> list[dict[str, Any]]:
    """Load a file and wait until the item browser is ready; the console's severe entries."""
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get_log("browser")  # drop what earlier pages logged
    driver.get(path.resolve().as_uri())
    WebDriverWait(driver, 60).until(
        lambda d: d.execute_script("return document.body.dataset.ready === '1'"))
    return [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]


def choose(driver: Any, select_id: str, value: str) -> None:
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element("id", select_id)).select_by_value(value)


def count_text(driver: Any) -> str:
    return driver.find_element("id", "count").text
