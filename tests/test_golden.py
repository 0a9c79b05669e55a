"""The golden outputs (tests/golden/): the terminal summary, JSON report, Markdown summary
and HTML page of one fixed run of the bundled suites are what they were when last
reviewed. A difference fails with the diff; when the change is meant, regenerate them
with `.venv/bin/python tests/golden_support.py` and review `git diff tests/golden`."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest
from golden_support import GOLDEN, NAMES, outputs

pytestmark = pytest.mark.slow  # a whole run of the bundled suites (about 15 s alone)


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return outputs(tmp_path_factory.mktemp("golden"))


@pytest.mark.parametrize("name", NAMES)
def test_the_output_is_the_reviewed_one(fresh: dict[str, str], name: str) -> None:
    kept = (GOLDEN / name).read_text(encoding="utf-8")
    if fresh[name] != kept:
        diff = difflib.unified_diff(kept.splitlines(), fresh[name].splitlines(),
                                    f"tests/golden/{name}", "this run", lineterm="", n=2)
        shown = "\n".join(list(diff)[:80])
        pytest.fail(f"{name} differs from tests/golden/{name} (if the change is meant: "
                    f".venv/bin/python tests/golden_support.py, then review the diff):\n{shown}")


def test_the_golden_run_covers_every_bundled_family(fresh: dict[str, str]) -> None:
    suites_root = Path(__file__).resolve().parents[1] / "suites"
    families = {p.name for p in suites_root.iterdir() if any(p.glob("*.tom.yaml"))}
    assert all(f"(family {name}," in fresh["terminal.txt"] for name in families)
    assert "tom totals:" in fresh["terminal.txt"]
