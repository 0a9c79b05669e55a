"""ToMATO's rules on the bundled suite and hand-made replies: the prompt shows [A]..[D],
the two readings, the authors' sampling sent with each request only under its option,
the option errors, and the probes' hook."""

from __future__ import annotations

from conftest import SUITES

from pytest_tom import families
from pytest_tom.catalogue.load import load_suite
from pytest_tom.families.base import Settings
from pytest_tom.families.tomato.probes import probe_messages
from pytest_tom.families.tomato.reading import authors_letter, correct_letter
from pytest_tom.items.offline import score_records

ITEMS = load_suite(SUITES / "tomato" / "bundled-conversations.tom.yaml").items


def test_the_bundled_suite_covers_every_cell_and_shows_bracketed_options() -> None:
    assert len(ITEMS) >= 100
    cells = {(i.meta["mental_state"], i.meta["order"]) for i in ITEMS}
    assert len(cells) == 10
    assert sum(i.meta["false_belief"] for i in ITEMS) == 21
    seen = []
    score_records(ITEMS[:1], lambda req: seen.append(req) or "[A]")
    system, user = seen[0].messages
    assert "[A], [B], [C] or [D]" in system["content"]
    assert user["content"].startswith("# Transcript\nPriya Shah: \"Tom, how was")
    assert "# Options\n[A] He thinks that she believes the lens cracked" in user["content"]


def test_the_two_readings() -> None:
    options = ITEMS[0].choices
    # weighed first, concluded last: the authors take the first bracket
    reply = "Tom hid the damage. [A] is tempting, but the answer is [B]."
    assert authors_letter(reply).letter == "A"
    assert correct_letter(reply, options).letter == "B"
    assert authors_letter("[,] hmm [B]").letter is None  # their pattern matches a comma
    assert authors_letter("(B)").letter is None and correct_letter("(B)", options).letter == "B"
    assert correct_letter("I cannot tell.", options).letter is None
    for reading in ("correct", "authors"):
        settings = Settings(options={"tomato_reading": reading})
        (rec,) = score_records(ITEMS[:1], lambda req: "No idea.", settings)
        assert rec["outcome"]["correct"] is False and rec["outcome"]["error"] == "unparseable"


def test_the_authors_sampling_is_sent_only_under_its_option() -> None:
    sent = []
    score_records(ITEMS[:2], lambda req: sent.append(req.params) or "[A]")
    assert all(p.temperature == 0.0 and "top_p" not in p.request_fields() for p in sent)
    sent.clear()
    settings = Settings(options={"tomato_sampling": "authors"})
    score_records(ITEMS[:2], lambda req: sent.append(req.params) or "[A]", settings)
    assert [(p.temperature, p.seed, p.request_fields()) for p in sent] == \
        [(0.6, 42, {"top_p": 0.9})] * 2
    problems = families.get("tomato").option_problems({"tomato_sampling": "nucleus",
                                                       "tomato_reading": "first"})
    assert problems == ["--tom-tomato-reading: one of correct, authors",
                        "--tom-tomato-sampling: one of greedy, authors"]


def test_the_probes_hook_drops_the_story_or_the_options() -> None:
    item = ITEMS[0]
    no_story = probe_messages(item, "no-story")[1]["content"]
    assert "# Transcript" not in no_story and "[B] He thinks that she believes" in no_story
    no_options = probe_messages(item, "no-options")[1]["content"]
    assert "# Transcript" in no_options and "[A]" not in no_options
