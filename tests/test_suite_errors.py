"""Bad suites: every problem reported at once with file:line:column; the other suites still run."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from conftest import TESTS

ANSWERERS = TESTS / "answerers.py"

BROKEN = """\
suite: broken-demo
family: generic
version: 1
descripton: a suite with ten mistakes
scenarios:
  - id: one
    context: "   "
    questions:
      - id: where
        ask: Where is the ball?
        choices: [box, basket]
        answer: drawer
  - id: one
    context: Bo has a cat.
    questions:
      - ask: Is it a cat?
        yes_no: maybe
      - ask: What pet?
        choices: "cat, dog"
        answer: cat
  - id: three
    context: Cy hides a key.
    characters: [Cy, Di]
    tags: [bad tag]
    questions:
      - id: q
        ask: Where is the key?
        choices: [shoe, hat]
      - id: r
        ask: Who knows?
        names: [Cy, Ed]
  - id: four
    questions:
      - ask: Anything?
        contains: [thing]
"""

GOOD = """\
suite: good-demo
family: generic
version: 1
scenarios:
  - id: s
    context: Ann puts the ball in the box and leaves.
    questions:
      - id: where
        ask: Where is the ball?
        choices: [box, basket]
        answer: box
"""

EXPECTED = [
    (4, r"unknown key 'descripton'.*did you mean 'description'"),
    (7, r"scenarios\[0\]\.context: must not be empty"),
    (12, r"'drawer' is not among the choices"),
    (13, r"duplicate scenario id 'one' \(first used on line 6\)"),
    (17, r"scenarios\[1\]\.questions\[0\]\.yes_no: expected one of yes, no, got 'maybe'"),
    (19, r"scenarios\[1\]\.questions\[1\]\.choices: expected a list, got a string"),
    (24, r"scenarios\[2\]\.tags\[0\]: 'bad tag' is not valid"),
    (26, r"missing answer: a question with choices needs 'answer:'"),
    (31, r"'Ed' is not in the scenario's characters"),
    (32, r"scenarios\[3\]: missing required key 'context'"),
]


def problems(text: str) -> list[tuple[int, int, str]]:
    return [(int(m.group(1)), int(m.group(2)), m.group(3))
            for m in re.finditer(r"broken\.tom\.yaml:(\d+):(\d+): (.*)", text)]


def test_ten_mistakes_give_ten_precise_messages(pytester: pytest.Pytester) -> None:
    pytester.makefile(".tom.yaml", broken=BROKEN, good=GOOD)
    result = pytester.runpytest(f"--tom-model=python:{ANSWERERS}:right", "-p", "no:cacheprovider")
    out = result.stdout.str()
    found = problems(out)
    assert "10 problems in this suite file" in out
    assert len(found) == 10, found
    for (line, pattern), (got_line, col, message) in zip(EXPECTED, found, strict=True):
        assert got_line == line, (line, got_line, message)
        assert col >= 1
        assert re.search(pattern, message), (pattern, message)
    # the good suite still ran; the broken one is a collection error; the run fails
    result.assert_outcomes(passed=1, errors=1)
    assert result.ret == 1


def test_the_other_suites_run_under_xdist_too(pytester: pytest.Pytester) -> None:
    pytester.makefile(".tom.yaml", broken=BROKEN, good=GOOD)
    result = pytester.runpytest(f"--tom-model=python:{ANSWERERS}:right", "-p", "no:cacheprovider",
                                "-n", "2")
    result.stdout.fnmatch_lines(["*1 passed*"])
    assert result.ret == 1


def test_yaml_syntax_error_is_located(pytester: pytest.Pytester) -> None:
    pytester.makefile(".tom.yaml", bad="suite: x\nfamily: generic\nscenarios: [\n  - id: a\n")
    result = pytester.runpytest(f"--tom-model=python:{ANSWERERS}:right", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["*bad.tom.yaml:*:*: YAML syntax error*fix the YAML syntax*"])


def test_python_tags_are_refused_not_executed(pytester: pytest.Pytester, tmp_path) -> None:
    marker = tmp_path / "pwned"
    pytester.makefile(".tom.yaml", evil=f"""\
suite: evil
family: generic
version: 1
scenarios: !!python/object/apply:os.system ["touch {marker}"]
""")
    result = pytester.runpytest(f"--tom-model=python:{ANSWERERS}:right", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["*evil.tom.yaml:4:*unsupported YAML tag*"])
    assert not marker.exists()


def test_duplicate_keys_and_unknown_family(pytester: pytest.Pytester) -> None:
    pytester.makefile(".tom.yaml", dup="suite: a\nsuite: b\nfamily: generik\nversion: 1\n"
                      "scenarios:\n  - {id: s, context: c, questions: [{ask: q, yes_no: 'no'}]}\n")
    result = pytester.runpytest(f"--tom-model=python:{ANSWERERS}:right", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["*dup.tom.yaml:2:1: duplicate key 'suite'*",
                                 "*dup.tom.yaml:3:*unknown family 'generik' (did you mean 'generic'?)*"])


def test_validate_command(tmp_path) -> None:
    (tmp_path / "broken.tom.yaml").write_text(BROKEN)
    (tmp_path / "good.tom.yaml").write_text(GOOD)
    cmd = [sys.executable, "-m", "pytest_tom.cli", "validate"]
    ok = subprocess.run([*cmd, str(tmp_path / "good.tom.yaml")], capture_output=True, text=True)
    assert ok.returncode == 0 and "ok — suite 'good-demo'" in ok.stdout and "1 scenario, 1 item" in ok.stdout
    bad = subprocess.run([*cmd, str(tmp_path)], capture_output=True, text=True)
    assert bad.returncode == 1
    assert len(problems(bad.stderr)) == 10
    assert "good.tom.yaml: ok" in bad.stdout
