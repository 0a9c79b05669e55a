"""The parts every family's `pytest-tom convert` shares (families/convert_kit.py), called
directly: the shared arguments refused with the first problem named, the release's
problems reported, a suite written."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_tom.families.kit import (
    ConvertError,
    add_input_output,
    add_suite_limit,
    arguments_refused,
    convert_kit,
    problems_reported,
    suite_file,
    write_suite,
)

PROG = "pytest-tom convert mybench"


def args(input: Path, suite: str | None = "mybench", limit: int | None = None
         ) -> argparse.Namespace:
    return argparse.Namespace(input=input, suite=suite, limit=limit, output="out")


@pytest.mark.parametrize(("given", "folder", "input_last", "message"), [
    ({}, False, False, None),
    ({"suite": None}, False, False, None),  # the converter's default applies
    ({"input": "missing.json"}, False, False, "no such file: {tmp}/missing.json"),
    ({"input": "file.json"}, True, False, "no such folder: {tmp}/file.json"),
    ({"suite": "-bad"}, False, False, "--suite '-bad': use letters, digits, _, - and ."),
    ({"limit": 0}, False, False, "--limit must be at least 1"),
    # two problems: the one checked first is the one named
    ({"input": "missing.json", "limit": 0}, False, False, "no such file"),
    ({"input": "missing.json", "limit": 0}, False, True, "--limit must be at least 1"),
    ({"suite": "-bad", "limit": 0}, False, True, "--suite '-bad'"),
])
def test_the_shared_arguments_are_refused_with_the_first_problem(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], given: dict[str, Any],
        folder: bool, input_last: bool, message: str | None) -> None:
    (tmp_path / "file.json").write_text("[]", encoding="utf-8")
    fields: dict[str, Any] = {"input": "file.json", **given}
    fields["input"] = tmp_path / str(fields["input"])
    refused = arguments_refused(PROG, args(**fields), folder=folder, input_last=input_last)
    err = capsys.readouterr().err
    assert refused is (message is not None)
    if message is None:
        assert err == ""
    else:
        assert err.startswith(f"{PROG}: {message.format(tmp=tmp_path)}")
        assert err.count("\n") == 1  # one problem, the first


def test_a_folder_input_passes_when_the_folder_exists(tmp_path: Path) -> None:
    assert not arguments_refused(PROG, args(tmp_path), folder=True)
    assert arguments_refused(PROG, args(tmp_path))  # a folder is no file


def test_every_problem_of_the_release_is_printed_and_nothing_written(
        capsys: pytest.CaptureFixture[str]) -> None:
    exc = ConvertError(["a.json:3: no answer", "a.json:9: no question"])
    assert str(exc) == "a.json:3: no answer\na.json:9: no question"
    assert problems_reported(PROG, exc) == 1
    assert capsys.readouterr().err.splitlines() == [
        "a.json:3: no answer", "a.json:9: no question",
        f"{PROG}: 2 problem(s); nothing written"]


def test_a_suite_is_written_as_yaml_into_a_new_folder(tmp_path: Path) -> None:
    doc = {"suite": "mybench", "family": "generic", "version": 1, "scenarios": [{"id": "a"}]}
    path = write_suite(doc, suite_file(tmp_path / "new" / "dir", "mybench"))
    assert path == tmp_path / "new" / "dir" / "mybench.tom.yaml"
    assert yaml.safe_load(path.read_text(encoding="utf-8")) == doc


def test_the_shared_arguments_parse_to_paths_and_numbers_and_are_checked() -> None:
    parser = argparse.ArgumentParser(prog=PROG)
    add_input_output(parser, "the release")
    add_suite_limit(parser, "suite name", "only the first N", "mybench")
    parsed = parser.parse_args(["data.json", "-o", "out", "--limit", "0"])
    assert (parsed.input, parsed.output, parsed.suite, parsed.limit) == (
        Path("data.json"), Path("out"), "mybench", 0)
    assert "--suite NAME" in parser.format_help() and "-o DIR" in parser.format_help()
    with pytest.raises(SystemExit):  # -o is required
        parser.parse_args(["data.json"])


def test_a_converter_run_refuses_reports_or_writes_and_prints(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`run_converter`, the shape of every converter's `run(args)`: 2 before anything is
    read, 1 with every problem and nothing written, else 0 with the lines `written` gives."""
    (tmp_path / "in.json").write_text("[]", encoding="utf-8")
    doc = {"suite": "mybench", "family": "generic", "version": 1, "scenarios": []}
    calls: list[str] = []

    def convert() -> dict[str, Any]:
        calls.append("convert")
        return doc

    def written(result: dict[str, Any]) -> list[str]:
        path = convert_kit.write_suite_in(tmp_path / "out", "mybench", result)
        return [f"{path}: written", "  note: none"]

    assert convert_kit.run_converter(PROG, args(tmp_path / "in.json", limit=0), convert,
                                     written) == 2
    assert calls == [] and "--limit must be at least 1" in capsys.readouterr().err

    def broken() -> dict[str, Any]:
        raise ConvertError(["in.json:1: no scenarios"])

    assert convert_kit.run_converter(PROG, args(tmp_path / "in.json"), broken, written) == 1
    assert "in.json:1: no scenarios" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()

    assert convert_kit.run_converter(PROG, args(tmp_path / "in.json"), convert, written) == 0
    out = tmp_path / "out" / "mybench.tom.yaml"
    assert capsys.readouterr().out.splitlines() == [f"{out}: written", "  note: none"]
    assert yaml.safe_load(out.read_text(encoding="utf-8")) == doc
