"""Hi-ToM's prompt wording: pytest-tom's own by default; the authors' exact words only from
the user's copy of their prompt files (`pytest-tom convert hitom ... --prompts PATH`),
never from the project's files. The prompt files here are written by the tests, in the
release's layout but with words of their own; the authors' files are used only where a
copy lies under ../shared."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
import yaml
from conftest import REPO, SHARED_DATA, shared_data
from hitom_support import vp_line

from pytest_tom.catalogue.load import load_suite
from pytest_tom.cli import main
from pytest_tom.families.base import Settings
from pytest_tom.suite import SuiteError

STORY = ("1 Ann, Bo and Cy entered the hall.\n2 The pea is in the red_box.\n"
         "3 Ann exited the hall.\n4 Bo moved the pea to the blue_box.\n5 Bo exited the hall.\n"
         "6 Cy exited the hall.")
ASK = {0: "Where is the pea really?", 1: "Where does Ann really think the pea is?"}
ANSWER = {0: "blue_box", 1: "red_box"}
CHOICES = "A. red_box, B. blue_box, C. green_box"
# the tests' own wording, standing in for the authors' (the note spans two lines)
TEST_VP = "Choose one option and say nothing more."
TEST_COTP = "Think it through, option first and reasons after."
PROMPTS_ENV = "HITOM_TEST_PROMPTS"  # a copy of the authors' Hi-ToM_prompts/ outside ../shared
TEST_NOTE = "Note: in these test stories an agent sees\nall that happens until it leaves."


def release(folder: Path, vp_first_line: str | None = None) -> Path:
    """A small Hi-ToM_data.json: one story in each style, orders 0 and 1; the VP rows'
    stories begin with `vp_first_line` when one is given (as the release's do)."""
    rows = []
    for style in ("VP", "CoTP"):
        story = f"{vp_first_line}\n{STORY}" if style == "VP" and vp_first_line else STORY
        for order in (0, 1):
            rows.append({"prompting_type": style, "deception": False, "story_length": 1,
                         "question_order": order, "sample_id": len(rows), "story": story,
                         "question": ASK[order], "choices": CHOICES, "answer": ANSWER[order]})
    path = folder / "Hi-ToM_data.json"
    path.write_text(json.dumps({"data": rows}, indent=2), encoding="utf-8")
    return path


def prompt_text(first: str, order: int = 0, note: str = TEST_NOTE) -> str:
    """A prompt file in the release's layout, with words the tests chose; text after the
    note's blank line is not part of the note."""
    return (f"{first}\nStory:\n{STORY}\nQuestion: {ASK[order]}\nChoices: {CHOICES}\n\n"
            f"{note}\n")


def prompt_folder(root: Path, vp: str = TEST_VP, cotp: str = TEST_COTP) -> Path:
    """The release's folder layout: Tell|No_Tell / MC (VP) | CoT (CoTP) / length / sample."""
    folder = root / "Hi-ToM_prompts"
    for tell in ("Tell", "No_Tell"):
        for style, first in (("MC", vp), ("CoT", cotp)):
            for order in (0, 1):
                path = folder / tell / style / "length_1" / "sample_1" / f"order_{order}.txt"
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(prompt_text(first, order), encoding="utf-8")
    return folder


def convert(src: Path, out: Path, *extra: str) -> int:
    return main(["convert", "hitom", str(src), "-o", str(out), *extra])


def first_lines(suite_file: Path, **options: str) -> dict[str, str]:
    """style -> the first line of its items' prompts (one per style, or the test fails)."""
    suite = load_suite(suite_file, Settings(options=options))
    out: dict[str, set[str]] = {}
    for it in suite.items:
        out.setdefault(it.meta["style"], set()).add(it.data["text"].split("\n", 1)[0])
    assert all(len(lines) == 1 for lines in out.values()), out
    return {style: lines.pop() for style, lines in out.items()}


def test_without_prompts_the_items_are_asked_in_pytest_toms_own_words(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    assert convert(release(tmp_path / "a", "Any words before the numbered lines."),
                   tmp_path / "a") == 0
    assert "2 rows' stories began with an instruction line" in capsys.readouterr().out
    assert convert(release(tmp_path / "b"), tmp_path / "b") == 0
    with_line, without = tmp_path / "a" / "hitom.tom.yaml", tmp_path / "b" / "hitom.tom.yaml"
    assert "defaults" not in yaml.safe_load(with_line.read_text(encoding="utf-8"))
    # the row's own first line is found by its place and removed: the prompts are the same
    texts = [[it.data["text"] for it in load_suite(p).items] for p in (with_line, without)]
    assert texts[0] == texts[1]
    lines = first_lines(with_line)
    assert lines["vp"] != lines["cotp"] and "Any words" not in "".join(texts[0])
    for text in texts[0]:
        first, rest = text.split("\n", 1)
        assert rest.startswith(f"Story:\n{STORY}\nQuestion: ")
        assert f"\nChoices: {CHOICES}\n\nNote:" in rest and rest.endswith(".\n")


def test_a_prompt_folder_in_the_release_layout_gives_its_words(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]
                                                               ) -> None:
    folder = prompt_folder(tmp_path)
    assert convert(release(tmp_path), tmp_path / "out", "--prompts", str(folder)) == 0
    assert "read from 8 of their prompt files (defaults.prompt)" in capsys.readouterr().out
    suite_file = tmp_path / "out" / "hitom.tom.yaml"
    document = yaml.safe_load(suite_file.read_text(encoding="utf-8"))
    assert document["defaults"] == {"prompt": {"vp": TEST_VP, "cotp": TEST_COTP,
                                               "note": TEST_NOTE}}
    assert "read from 8 of their prompt files" in document["description"]
    suite = load_suite(suite_file)
    for it in suite.items:  # each item's prompt is the prompt file written for its question
        first = TEST_VP if it.meta["style"] == "vp" else TEST_COTP
        assert it.data["text"] == prompt_text(first, it.meta["order"]), it.id
    assert first_lines(suite_file, hitom_prompting="cotp") == {"cotp": TEST_COTP}
    assert first_lines(suite_file, hitom_prompting="vp") == {"vp": TEST_VP}


@pytest.mark.parametrize("order", [("vp", "cotp"), ("cotp", "vp")])
def test_one_file_of_each_style_is_told_apart_by_the_datas_vp_line(
        tmp_path: Path, order: tuple[str, str]) -> None:
    """Loose files (no MC / CoT folder): the one whose first line is the line the data's VP
    rows carry is the VP prompt."""
    loose = tmp_path / "downloads"
    loose.mkdir()
    files = {"vp": loose / "order_0.txt", "cotp": loose / "order_1.txt"}
    files["vp"].write_text(prompt_text(TEST_VP, 0), encoding="utf-8")
    files["cotp"].write_text(prompt_text(TEST_COTP, 1), encoding="utf-8")
    args = [a for style in order for a in ("--prompts", str(files[style]))]
    assert convert(release(tmp_path, TEST_VP), tmp_path / "out", *args) == 0
    assert first_lines(tmp_path / "out" / "hitom.tom.yaml") == {"vp": TEST_VP,
                                                                 "cotp": TEST_COTP}


def _problem_cases(tmp: Path) -> list[tuple[list[str], bool, str]]:
    """(--prompts paths, whether the data's VP rows carry a line, the message expected)."""
    good = prompt_folder(tmp / "good")
    no_note = tmp / "no_note" / "MC" / "a.txt"
    no_note.parent.mkdir(parents=True)
    no_note.write_text(prompt_text(TEST_VP).replace("Note:", "Remark:"), encoding="utf-8")
    other_vp = prompt_folder(tmp / "other_vp", vp="Another first line.") / "Tell" / "MC"
    other_note = tmp / "other_note" / "CoT" / "b.txt"
    other_note.parent.mkdir(parents=True)
    other_note.write_text(prompt_text(TEST_COTP, note="Note: other rules."), encoding="utf-8")
    loose = tmp / "loose.txt"
    loose.write_text(prompt_text(TEST_VP), encoding="utf-8")
    return [
        ([str(no_note)], True, f"{no_note}: no line starts with 'Note:'"),
        ([str(good / "Tell" / "MC")], True, "--prompts: no CoTP prompt file among the 2 read"),
        ([str(good), str(other_vp)], True, "--prompts: the VP prompt files' first lines "
                                           "differ: 4 file(s) have"),
        ([str(good), str(other_note)], True, "--prompts: the prompt files' notes differ"),
        ([str(tmp / "missing")], True, f"--prompts {tmp / 'missing'}: no such file or folder"),
        ([str(loose), str(good)], False, f"{loose}: is it a VP or a CoTP prompt?"),
    ]


def test_prompt_file_problems_are_named_and_nothing_is_written(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for i, (paths, carries, message) in enumerate(_problem_cases(tmp_path / "cases")):
        folder = tmp_path / f"data{i}"
        folder.mkdir()
        src = release(folder, TEST_VP if carries else None)
        args = [a for p in paths for a in ("--prompts", p)]
        assert convert(src, folder / "out", *args) == 1, message
        err = capsys.readouterr().err
        assert message in err and "; nothing written" in err, (message, err)
        assert not (folder / "out").exists()


SUITE = """\
suite: worded
family: hitom
version: 1
defaults:
  prompt:
{prompt}
scenarios:
  - id: s1
    prompting: VP
    deception: false
    story_length: 1
    story: |
      1 Ann and Bo entered the hall.
      2 The pea is in the red_box.
    choices: [red_box, blue_box]
    questions:
      - {{order: 0, ask: Where is the pea really?, answer: red_box}}
"""


def test_the_suite_checks_its_prompt_wording(tmp_path: Path) -> None:
    path = tmp_path / "worded.tom.yaml"
    path.write_text(SUITE.format(prompt="    vp: Pick.\n    cotp: Think.\n    note: 'Note: n.'"),
                    encoding="utf-8")
    assert load_suite(path).items[0].data["text"].startswith("Pick.\nStory:\n1 Ann")
    path.write_text(SUITE.format(prompt="    vp: \"Pick.\\nNow.\"\n    cotp: Think.\n"
                                        "    nots: 'Note: n.'"), encoding="utf-8")
    with pytest.raises(SuiteError) as err:
        load_suite(path)
    text = str(err.value)
    assert "unknown key 'nots'" in text and "did you mean 'note'" in text
    assert "note" in text and "missing" in text.lower()
    assert "defaults.prompt.vp: the instruction is one line" in text
    assert re.search(r":6:\d+:", text)  # the vp line's place in the file


# -- the authors' own files, where a copy of them lies under ../shared -------------------------
def authors_prompt_folder() -> Path | None:
    """The authors' Hi-ToM_prompts/: $HITOM_TEST_PROMPTS, else a copy under ../shared."""
    if os.environ.get(PROMPTS_ENV):
        return Path(os.environ[PROMPTS_ENV])
    if not SHARED_DATA.parent.is_dir():
        return None
    return next((p for p in sorted(SHARED_DATA.parent.rglob("Hi-ToM_prompts")) if p.is_dir()),
                None)


def test_the_authors_prompt_files_give_their_prompts_byte_for_byte(tmp_path: Path) -> None:
    folder = authors_prompt_folder()
    if folder is None:
        pytest.skip(f"no copy of the authors' Hi-ToM_prompts/ under {SHARED_DATA.parent} "
                    f"(${PROMPTS_ENV} names one elsewhere)")
    src = shared_data("hitom", "Hi-ToM_data.json")
    assert convert(src, tmp_path, "--prompts", str(folder)) == 0
    suite = load_suite(tmp_path / "hitom.tom.yaml")
    tell = {"tell": "Tell", "no_tell": "No_Tell"}
    style = {"vp": "MC", "cotp": "CoT"}
    for it in suite.items:
        number = int(it.scenario.rsplit("-s", 1)[1])
        path = (folder / tell[it.meta["deception"]] / style[it.meta["style"]] /
                f"length_{it.meta['length']}" / f"sample_{number}" / f"order_{it.meta['order']}.txt")
        assert it.data["text"] == path.read_text(encoding="utf-8"), it.id


def authors_sentences() -> list[str]:
    """Sentences of the authors' prompt wording, read from the shared copies: the VP line
    the release's rows carry, and the lines and note of their prompt files if present."""
    rows = json.loads(shared_data("hitom", "Hi-ToM_data.json").read_text(encoding="utf-8"))
    texts = [vp_line(rows["data"])]
    folder = authors_prompt_folder()
    if folder is not None:
        for path in [next(folder.rglob("MC/**/*.txt")), next(folder.rglob("CoT/**/*.txt"))]:
            lines = path.read_text(encoding="utf-8").splitlines()
            note = next(i for i, line in enumerate(lines) if line.startswith("Note:"))
            texts += [lines[0], " ".join(lines[note:])]
    sentences = []
    for text in texts:
        for part in re.split(r"(?<=[.?!])\s+|\(\d\)", text):
            if len(words(part).split()) >= 5:
                sentences.append(words(part))
    return list(dict.fromkeys(sentences))


def words(text: str) -> str:
    """Lower-case words and numbers only: a sentence split over string literals, lines or
    quotes is still found."""
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def project_files() -> list[Path]:
    folders = [REPO / "pytest_tom", REPO / "suites", REPO / "docs", REPO / "tests",
               REPO / "benchmarks"]
    files = [REPO / "README.md"]
    for folder in folders:
        files += [p for p in folder.rglob("*") if p.is_file()
                  and p.suffix in {".py", ".yaml", ".yml", ".md", ".txt", ".json", ".toml"}]
    return files


def test_no_sentence_of_the_authors_prompts_is_in_the_project() -> None:
    sentences = authors_sentences()
    assert len(sentences) >= 2, sentences  # the VP line's two sentences at least
    found = []
    for path in project_files():
        text = words(path.read_text(encoding="utf-8", errors="replace"))
        found += [f"{path.relative_to(REPO)}: {s!r}" for s in sentences if s in text]
    assert not found, "\n".join(found)
