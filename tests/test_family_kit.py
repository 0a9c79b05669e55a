"""The kit's shared pieces of a family, called directly: a check's scenarios with their
paths, an item's tags, the declared values a table reads, the outcome of a letter, the
default check of an option's choices, a GitHub release's downloads."""

from __future__ import annotations

from collections import Counter

import pytest

from pytest_tom.core.download import Download, Licence, github_file
from pytest_tom.families import get
from pytest_tom.families.kit import (
    NO_VALUE,
    UNPARSEABLE,
    Checker,
    Declared,
    GitHubRelease,
    Opt,
    Settings,
    Value,
    checked_scenarios,
    choice_problems,
    letter_outcome,
    tags_of,
    unread_choice,
)

COMMIT = "0123456789abcdef0123456789abcdef01234567"


class AtLine7:
    """Every data path at line 7 (a suite file's positions, for a Checker)."""

    def pos(self, path: tuple, key: bool = False) -> tuple[int, int]:
        return 7, 1
SHA = "ab" * 32


def test_checked_scenarios_reports_repeated_ids_and_passes_over_non_mappings() -> None:
    data = {"scenarios": [{"id": "a"}, "not a mapping", {"id": "a"}, {"id": "b"}]}
    ck = Checker("suite.tom.yaml", AtLine7())
    seen = [(path, sc["id"]) for path, sc in checked_scenarios(data, ck, "story")]
    assert seen == [(("scenarios", 0), "a"), (("scenarios", 2), "a"), (("scenarios", 3), "b")]
    assert [p.message for p in ck.problems] == [
        "duplicate story id 'a' (first used on line 7); ids must be unique"]
    assert list(checked_scenarios({}, ck, "story")) == []


def test_tags_of_keeps_the_order_and_each_tag_once() -> None:
    defaults, scenario, question = {"tags": ["suite", "x"]}, {"tags": ["x", "sc"]}, {}
    assert tags_of(defaults, scenario, question) == ["suite", "x", "sc"]
    assert tags_of({}, scenario, "cls", "x", {"tags": ["last"]}) == ["x", "sc", "cls", "last"]


def test_declared_gives_no_value_for_a_name_not_declared_and_the_cells_of_a_table() -> None:
    declared = Declared({"acc": Value(0.75, Counter(ok=3, n=4)), "none": Value(None)})
    assert declared["missing"] is NO_VALUE and declared.get("missing") is NO_VALUE
    assert "acc" in declared and "missing" not in declared and len(declared) == 2
    assert declared.cell("acc") == "75.0% (3/4)"
    assert declared.cell("none") == "" and declared.cell("missing", na=None) is None
    assert declared.judged("acc") == 4 and declared.judged("none") == 0
    assert declared.unrun(["acc", "none", "missing"]) == {"none": None, "missing": None}


def test_a_family_table_reads_the_declared_values_as_a_declared() -> None:
    """A metrics part gets a `Declared` (from the engine or, without values, evaluated
    from the family's own declarations): an empty run lays its table out without a
    KeyError and reports each unrun declared metric as None."""
    result = get("mmtomqa").aggregate([], Settings())
    assert result.metrics and all(v is None for v in result.metrics.values())
    assert result.tables[0].rows[-1] == ["all", "", None]


def test_a_letter_is_judged_and_a_reply_naming_none_or_several_is_wrong() -> None:
    right = letter_outcome("B", "the bracketed letter", "B")
    assert (right.correct, right.parsed, right.detail) == (True, "B",
                                                          "read as B: the bracketed letter")
    assert letter_outcome("A", "opening", "B").correct is False
    none = letter_outcome(None, "no option named", "B")
    assert (none.correct, none.error, none.detail) == (False, UNPARSEABLE, "no option named")
    assert unread_choice({"a"}, "expected a or b") is None
    unread = unread_choice(set(), "expected a or b")
    assert (unread.correct, unread.error, unread.detail) == (False, UNPARSEABLE,
                                                             "expected a or b")
    both = unread_choice({"b", "a"}, "expected a or b")
    assert (both.correct, both.error, both.parsed, both.detail) == (
        False, None, ["a", "b"], "names both options")


def test_choice_problems_and_a_family_checks_its_options_choices_by_default() -> None:
    opts = (Opt("mine_reading", "help", default="correct", choices=("correct", "authors")),
            Opt("mine_free", "help", default=None))
    assert choice_problems({}, opts) == []
    assert choice_problems({"mine_reading": "other", "mine_free": "x"}, opts) == [
        "--tom-mine-reading: one of correct, authors"]
    assert get("tomato").option_problems({"tomato_sampling": "hot"}) == [
        "--tom-tomato-sampling: one of greedy, authors"]
    assert get("tombench").option_problems({"tombench_reading": "x", "tombench_tries": 0}) == [
        "--tom-tombench-reading: one of correct, authors",
        "--tom-tombench-tries 0: must be at least 1"]


def test_a_github_release_gives_its_files_pages_and_downloads() -> None:
    release = GitHubRelease("owner/bench", COMMIT)
    assert release.file("data/q.json", SHA, 10) == github_file("owner/bench", COMMIT,
                                                               "data/q.json", SHA, 10)
    licence = Licence("MIT", release.page("LICENSE"))
    assert licence.url == f"https://github.com/owner/bench/blob/{COMMIT}/LICENSE"
    made = release.download("bench-full", "Bench", "every question",
                            (release.file("q.json", SHA),), licence,
                            ("bench", "q.json", "--suite", "bench-full"), note="pinned")
    assert made == Download("bench-full", "Bench", "every question",
                            "owner/bench @ 0123456 (pinned)", (release.file("q.json", SHA),),
                            licence, ("bench", "q.json", "--suite", "bench-full"))
    with pytest.raises(ValueError, match="not a full 40-digit hash"):
        GitHubRelease("owner/bench", "0123456").file("q.json", SHA)
