"""One number format across families in the `tom scores` section, and every line of it fits
120 columns (issue 15, point 4): shares are percent with one decimal; a family whose paper
uses another scale (OpenToM's macro-F1 on 0–1, FANToM's bare percent points) says so once
per table, in a caption under the title."""

from __future__ import annotations

import re

import pytest
from conftest import SUITES, TESTS
from embedding_model import embedder  # noqa: F401  (fixture: FANToM's model, loaded once)

from pytest_tom.metrics.numbers import pct, pct_of, points, tiny_pct, unit
from pytest_tom.report.terminal import wrap_parts

ANSWERERS = TESTS / "answerers.py"
WIDTH = 120
PERCENT = re.compile(r"(?<![\w.])\d+(?:\.\d+)?%")  # a number with a percent sign
NOT_A_CELL = ("95% intervals", "95% CI")  # the confidence level in labels, not a figure


def test_the_shared_formats() -> None:
    assert pct(0.375) == "37.5%" and pct(1.0) == "100.0%" and pct(None) == "n/a"
    assert pct_of(3, 8) == "37.5% (3/8)" and pct_of(0, 0) == "n/a"
    assert tiny_pct(2 ** -16) == "<0.1% (1.5e-05)" and tiny_pct(0.5) == "50.0%"
    assert tiny_pct(0.0) == "0.0%"  # zero is zero, not "below 0.1%"
    assert points(0.375) == "37.5" and unit(0.375) == "0.375"


def test_parts_are_wrapped_between_parts_never_inside_one() -> None:
    parts = [f"metric {i} 12.5% [10.0, 15.0]" for i in range(12)]
    lines = wrap_parts("95% intervals: ", parts, width=80)
    assert len(lines) > 1 and all(len(line) <= 80 for line in lines)
    assert all(line.startswith("  ") for line in lines[1:])
    assert all(line.endswith(" ·") for line in lines[:-1])
    # every part whole and in order: the lines joined again are the one long line
    assert " ".join(line.strip() for line in lines) == "95% intervals: " + " · ".join(parts)
    long = "model " + "x" * 230  # wider than a line alone: cut into lines of the width
    cut = wrap_parts("tom totals: ", ["1 items", long])
    assert all(len(line) <= 120 for line in cut) and len(cut) == 4
    assert "".join(line.strip().removesuffix(" ·") for line in cut[1:]) == long


def scores_section(out: str) -> list[str]:
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if "tom scores" in line and line.startswith("="))
    end = max(i for i, line in enumerate(lines) if line.startswith("tom totals") or
              (line.startswith("  ") and i > start))
    return lines[start + 1:end + 1]


@pytest.mark.slow
@pytest.mark.usefixtures("embedder")
def test_every_family_prints_one_format_within_120_columns(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    result = pytester.runpytest(str(SUITES), f"--tom-model=python:{ANSWERERS}:mixed",
                                "--tom-limit=20", "-p", "no:cacheprovider", "-p", "no:randomly")
    section = scores_section(result.stdout.str())
    text = "\n".join(section)
    for family in ("generic", "bigtom", "fantom", "opentom", "robustness"):
        assert f"(family {family}," in text, family
    too_wide = [line for line in section if len(line) > WIDTH]
    assert not too_wide, too_wide
    assert any(line.startswith("95% intervals: ") for line in section)
    assert any(line.startswith("  ") and "[" in line for line in section)  # a wrapped one
    cells = PERCENT.findall(re.sub("|".join(map(re.escape, NOT_A_CELL)), "", text))
    assert cells and all(re.fullmatch(r"\d+\.\d%", c) for c in cells), \
        sorted({c for c in cells if not re.fullmatch(r"\d+\.\d%", c)})
    # the tables on another scale say so once, right under their title
    for title, caption in [("OpenToM macro-F1 (layout of the paper's Table 2)",
                            "F1 and accuracy on 0–1, as the paper's Table 2; unparseable in %"),
                           ("OpenToM mover − observer F1 gap", "F1 on 0–1, as the paper's Table 4"),
                           ("FANToM scores (", "scores in % (one decimal, as the paper's tables)")]:
        at = next(i for i, line in enumerate(section) if line.startswith(title))
        assert section[at + 1] == caption
    f1 = next(i for i, line in enumerate(section) if line.startswith("OpenToM macro-F1"))
    row = next(line for line in section[f1:] if line.startswith("Loc_c (F)"))
    assert re.fullmatch(r"Loc_c \(F\)\s+\d\.\d{3}\s+\d\.\d{3}\s+\d+\s+\d+\.\d%", row), row
    bigtom = next(line for line in section if line.startswith("forward belief   TB"))
    assert re.search(r"\d+\.\d% \(\d+/\d+\)", bigtom), bigtom


@pytest.mark.usefixtures("embedder")
def test_every_tom_section_fits_120_columns_with_a_long_model_path(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 33 point 8: the requests table was about 230 columns wide (a long model path),
    the totals line 127, the FANToM tables' last block lost the question column. After the
    list of wrong answers, every line of the tom sections (requests, scores, totals) fits
    120 columns at the default width, and a table's blocks keep the columns that tell its
    rows apart."""
    deep = pytester.mkdir("a-rather-long-folder-name-for-the-models-" * 2)
    answers = deep / ("answerer_module_with_a_long_name_" * 2 + ".py")
    answers.write_text("import sys\nsys.path[:0] = %r\nfrom demo_answerers import weak\n"
                       % [str(TESTS), *(str(p) for p in sorted((TESTS / "families").iterdir()))])
    # in process (FANToM's embedding model loaded once), at the width of a run whose output
    # is not a terminal, as a subprocess's (pytest's own rules are as wide as the terminal)
    monkeypatch.setenv("COLUMNS", "80")
    result = pytester.runpytest(
        f"--tom-model=python:{answers}:weak", "--tom-suite=fantom,generic", "--tom-limit=15",
        "--tom-items=report", "--tom-cache=off", "-p", "no:cacheprovider")
    lines = result.outlines
    start = next(i for i, line in enumerate(lines) if "- tom requests -" in line)
    wide = [line for line in lines[start:] if len(line) > 120]
    assert not wide, "\n".join(wide)
    assert any(str(answers)[:40] in line for line in lines[start:])  # the path, wrapped
    blocks = "\n".join(lines[start:]).split("FANToM error types")[1].split("tom totals")[0]
    blocks = blocks.split("items = right + wrong")[0]  # the note of how the counts add up
    tail = blocks.strip().split("\n\n")[-1]  # the last block of the table
    assert "question" in tail.splitlines()[0]
