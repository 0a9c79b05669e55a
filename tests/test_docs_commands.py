"""The docs work after `pip install pytest-tom` (issue 33 point 7). Every console command of
the docs the wheel ships (`docs/` goes in as `pytest_tom/docs/`, setup.py; README.md is
its long description) is extracted, and a command fails the test when it runs `pytest
suites ...` (after a pip install: "file or directory not found") or names a file of this
repository that the wheel does not carry (`tests/...`, `benchmarks/...`, `scripts/...`,
`suites/...`), unless its block is marked clone-only: its first line is a comment that
says `clone-only` (docs/README.md, "How these pages are written").

Commands are the lines of ```console / ```bash / ```sh / ```shell blocks (the `$ ` lines
when a block has them, else every line that is not a comment; `\\` continues a line), the
`run:` and `script:` steps of ```yaml CI workflows, and inline code in the text that starts
with `pytest` or `pytest-tom`.
"""

from __future__ import annotations

import re
import shlex
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import REPO

MARK = "clone-only"
SHELL = {"console", "bash", "sh", "shell"}
# names a user's own repository has too: a command may name them (`pytest tests/ tom/ ...`)
OWN_NAMES = {"tests", "docs", "conftest.py", "pyproject.toml", "setup.py", "setup.cfg",
             "README.md", "LICENSE", "."}
SPEC = re.compile(r"^(?:python|hf|local|replay):(.+?)(?::[A-Za-z_][\w.]*)?$")


@dataclass(frozen=True)
class Command:
    doc: str  # docs/x.md or README.md
    line: int
    text: str
    clone_only: bool

    def __str__(self) -> str:
        return f"{self.doc}:{self.line}: {self.text}"


def packaged_docs() -> list[Path]:
    """The Markdown files setup.py puts into the wheel (`pytest_tom/docs/...`), and README.md
    (the package's long description)."""
    docs = REPO / "docs"
    found = [p for p in sorted(docs.rglob("*.md"))
             if not any(part.startswith((".", "_")) for part in p.relative_to(docs).parts[:-1])]
    return [*found, REPO / "README.md"]


def blocks(text: str) -> Iterator[tuple[str, int, list[str]]]:
    """(language, line number of the first content line, lines) of each fenced block."""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        fence = re.match(r"^(\s*)```(\w*)\s*$", lines[i])
        if not fence:
            i += 1
            continue
        indent, lang = fence.groups()
        body, start = [], i + 2
        i += 1
        while i < len(lines) and lines[i].strip() != "```":
            body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i])
            i += 1
        yield lang, start, body
        i += 1


def joined(lines: list[tuple[int, str]]) -> Iterator[tuple[int, str]]:
    """Lines with their `\\` continuations joined (line number of the first)."""
    current: tuple[int, str] | None = None
    for number, line in lines:
        if current is None:
            current = (number, line.rstrip())
        else:
            current = (current[0], current[1][:-1].rstrip() + " " + line.strip())
        if not current[1].endswith("\\"):
            yield current
            current = None
    if current is not None:
        yield current


def shell_commands(body: list[str], start: int) -> Iterator[tuple[int, str]]:
    numbered = list(enumerate(body, start))
    if any(line.startswith("$ ") for _, line in numbered):
        picked, keep = [], False
        for number, line in numbered:  # a `$ ` line and its continuations
            if line.startswith("$ "):
                picked.append((number, line[2:]))
                keep = line.rstrip().endswith("\\")
            elif keep:
                picked.append((number, line))
                keep = line.rstrip().endswith("\\")
        numbered = picked
    for number, line in joined([(n, x) for n, x in numbered
                                if x.strip() and not x.lstrip().startswith("#")]):
        yield number, line.strip()


def workflow_steps(node: Any) -> Iterator[str]:
    """The shell text of every `run:` and `script:` entry of a parsed CI workflow."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("run", "script", "before_script") and isinstance(value, str):
                yield value
            elif key in ("script", "before_script") and isinstance(value, list):
                yield from (v for v in value if isinstance(v, str))
            else:
                yield from workflow_steps(value)
    elif isinstance(node, list):
        for value in node:
            yield from workflow_steps(value)


def yaml_commands(body: list[str], start: int) -> Iterator[tuple[int, str]]:
    try:
        data = yaml.safe_load("\n".join(body))
    except yaml.YAMLError:
        return
    for script in workflow_steps(data):
        first = next((line for line in script.splitlines() if line.strip()), "")
        at = next((n for n, line in enumerate(body, start) if first.strip() in line), start)
        for offset, line in joined(list(enumerate(script.splitlines()))):
            if line.strip() and not line.lstrip().startswith("#"):
                yield at + offset, line.strip()


def inline_commands(text: str) -> Iterator[tuple[int, str]]:
    outside = re.sub(r"```.*?```", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    for number, line in enumerate(outside.splitlines(), 1):
        for span in re.findall(r"`([^`]+)`", line):
            if re.match(r"(?:pytest|pytest-tom)(?:\s|$)", span):
                yield number, span


def commands_of(path: Path) -> list[Command]:
    text = path.read_text(encoding="utf-8")
    doc = str(path.relative_to(REPO)) if path.is_relative_to(REPO) else path.name
    found: list[Command] = []
    for lang, start, body in blocks(text):
        first = next((line for line in body if line.strip()), "")
        marked = first.lstrip().startswith("#") and MARK in first
        if lang in SHELL:
            found += [Command(doc, n, c, marked) for n, c in shell_commands(body, start)]
        elif lang in ("yaml", "yml"):
            found += [Command(doc, n, c, marked) for n, c in yaml_commands(body, start)]
    found += [Command(doc, n, c, False) for n, c in inline_commands(text)]
    return found


def tracked() -> set[str]:
    """Every path of the repository (files and the folders above them), from git."""
    proc = subprocess.run(["git", "-C", str(REPO), "ls-files"], capture_output=True, text=True)
    if proc.returncode != 0 or not proc.stdout.strip():
        pytest.skip(f"no git checkout at {REPO}: cannot tell the repository's files")
    paths: set[str] = set()
    for name in proc.stdout.splitlines():
        parts = name.split("/")
        paths.update("/".join(parts[:i]) for i in range(1, len(parts) + 1))
    return paths


def words(command: str) -> list[str]:
    try:
        return shlex.split(command, comments=True)
    except ValueError:  # an unbalanced quote in a doc's placeholder: split on spaces
        return command.split()


def path_candidates(word: str) -> Iterator[str]:
    """The paths a command word may name: itself, an option's or variable's value, the PATH of
    a `python:PATH:NAME` / `hf:PATH` / `local:PATH` / `replay:PATH` spec."""
    value = word.split("=", 1)[1] if "=" in word and not word.startswith("=") else word
    for candidate in (value, *(value.split(",") if "," in value else ())):
        spec = SPEC.match(candidate)
        yield (spec.group(1) if spec else candidate).rstrip("/")


def problems(command: Command, files: set[str]) -> list[str]:
    found = []
    argv = words(command.text)
    for i, word in enumerate(argv):
        runs_pytest = word.endswith("pytest") or argv[max(0, i - 2):i] == ["python", "-m"] \
            and word == "pytest"
        if runs_pytest and any(w == "suites" or w.startswith("suites/") for w in argv[i + 1:]):
            found.append("runs `pytest suites ...`: use --tom-suite=NAME (after a pip install "
                         "there is no suites/ folder)")
            break
    subcommands = {i + 1 for i, word in enumerate(argv) if word.endswith("pytest-tom")}
    for i, word in enumerate(argv):
        if i in subcommands:
            continue  # `pytest-tom suites`: a subcommand, not a path
        for candidate in path_candidates(word):
            if found and (candidate == "suites" or candidate.startswith("suites/")):
                continue  # said already
            if candidate and candidate not in OWN_NAMES and candidate in files \
                    and not candidate.startswith("pytest_tom"):
                found.append(f"names {candidate}, which the wheel does not carry")
    return found


def all_commands() -> list[Command]:
    return [c for path in packaged_docs() for c in commands_of(path)]


def test_the_extraction_finds_the_commands_of_every_kind(tmp_path: Path) -> None:
    """The extractor itself: console lines with and without `$ `, continuations, a CI
    workflow's run steps, inline code; and the checks catch what they are for."""
    sample = tmp_path / "sample.md"
    text = ("Run `pytest suites/x --tom-model=m` or `pytest-tom suites`.\n\n"
            "```console\n$ pytest --tom-suite=generic \\\n    --tom-model=local\noutput line\n"
            "```\n\n```console\n# clone-only: in a clone\npytest suites --tom-model=m\n```\n\n"
            "```yaml\njobs:\n  a:\n    steps:\n      - run: |\n          pip install x\n"
            "          python -m pytest tests/test_own_model.py -q\n```\n")
    sample.write_text(text, encoding="utf-8")
    found = commands_of(sample)
    assert [(c.line, c.text, c.clone_only) for c in found] == [
        (4, "pytest --tom-suite=generic --tom-model=local", False),
        (11, "pytest suites --tom-model=m", True),
        (19, "pip install x", False),
        (20, "python -m pytest tests/test_own_model.py -q", False),
        (1, "pytest suites/x --tom-model=m", False),
        (1, "pytest-tom suites", False),
    ]
    files = tracked()
    assert problems(found[1], files)[0].startswith("runs `pytest suites ...`")
    assert problems(found[3], files) == ["names tests/test_own_model.py, which the wheel does "
                                         "not carry"]
    assert problems(found[4], files)[0].startswith("runs `pytest suites ...`")
    assert problems(Command("x", 1, "pytest --tom-model=python:tests/answerers.py:right", False),
                    files) == ["names tests/answerers.py, which the wheel does not carry"]
    assert not problems(found[0], files) and not problems(found[5], files)
    assert not problems(Command("x", 1, "pytest tests/ tom/ --tom-suite=opentom", False), files)


def test_every_packaged_command_works_after_a_pip_install() -> None:
    files = tracked()
    commands = all_commands()
    assert len(commands) > 100  # the docs hold many; an extractor that finds none fails here
    bad = [f"{c}\n    {why}" for c in commands if not c.clone_only
           for why in problems(c, files)]
    assert not bad, (f"{len(bad)} command(s) of the packaged docs do not work after a pip "
                     f"install; fix them or mark the block `# {MARK}: ...`:\n" + "\n".join(bad))


def test_the_marker_is_documented_where_the_docs_say_how_they_are_written() -> None:
    conventions = (REPO / "docs" / "README.md").read_text(encoding="utf-8")
    assert f"# {MARK}" in conventions and "pytest suites" in conventions
    marked = [c for c in all_commands() if c.clone_only]
    assert marked  # the README's two commands are clone-only
