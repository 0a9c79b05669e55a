"""`pytest-tom init` and `pytest-tom suites` (issue 21, points 1 and 2): init writes what a
model repository needs and nothing else, never overwrites, says when it has nothing to
do; the folder it sets up runs its example with a `python:` answerer (exit 0, scores);
`suites` lists the bundled suites and copies them out."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import SUITES

from pytest_tom.catalogue import bundled
from pytest_tom.cli import main
from pytest_tom.gates.spec import family_names, parse_thresholds

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    tomllib = None  # type: ignore[assignment]


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_init_in_an_empty_folder_then_pytest_runs_the_example(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["init", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert set(snapshot(tmp_path)) == {"pytest.ini", "conftest.py", "tom/example.tom.yaml",
                                       "tom/answer.py", ".github/workflows/tom.yml",
                                       ".gitignore"}
    assert "wrote pytest.ini [pytest]: tom_items, tom_report" in out
    assert "wrote .gitignore: tom-report.json" in out
    before = snapshot(tmp_path)
    assert main(["init", str(tmp_path)]) == 0  # twice: nothing changes, and it says so
    out = capsys.readouterr().out
    assert snapshot(tmp_path) == before
    assert "nothing to do: pytest-tom init has set up this folder already" in out
    assert "wrote" not in out
    proc = subprocess.run([sys.executable, "-m", "pytest", "tom",
                           "--tom-model=python:tom/answer.py:answer", "-p", "no:randomly"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "tom totals: 6 items · turn 66.7%" in proc.stdout  # the first choice: 4 of 6
    assert "4 passed, 2 xfailed" in proc.stdout
    assert (tmp_path / "tom-report.json").is_file()  # tom_report from the ini file
    assert main(["validate", str(tmp_path / "tom")]) == 0
    proc = subprocess.run([sys.executable, "-m", "pytest", "tom", "--tom-model=mymodel", "-q"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr  # conftest.py's hook answers
    assert "tom totals: 6 items · turn 66.7%" in proc.stdout


def hint_commands(out: str) -> list[list[str]]:
    """The commands of init's "next (runs as printed):" block, as argument lists."""
    lines = out.split("next (runs as printed):\n", 1)[1].split("\nthen,", 1)[0].splitlines()
    return [shlex.split(line.split(" # ")[0]) for line in lines]


def test_init_in_a_repository_with_its_own_conftest_runs_its_hint_as_printed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 33 point 5: the repository's conftest.py is never edited, so the placeholder
    hook goes to tom/conftest.py, and every command of the hint works as printed."""
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "mymodel"\nversion = "0.1"\n\n'
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n')
    (tmp_path / "mymodel.py").write_text("def load():\n    return 'weights'\n")
    own = ("import pytest\n\nimport mymodel\n\n\n@pytest.fixture(scope='session')\n"
           "def weights():\n    return mymodel.load()\n")
    (tmp_path / "conftest.py").write_text(own)
    (tmp_path / ".gitignore").write_text("__pycache__/\n*.pyc")  # no final newline
    assert main(["init", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert (tmp_path / "conftest.py").read_text() == own
    assert "wrote tom/conftest.py" in out
    assert (tmp_path / ".gitignore").read_text() == (
        "__pycache__/\n*.pyc\n\n# pytest-tom (pytest-tom init): the JSON report every run writes\n"
        "tom-report.json\n")
    commands = hint_commands(out)
    assert [c[:2] for c in commands] == [["pytest", "tom"], ["pytest", "tom"]]
    assert "--tom-model=mymodel" in commands[1]
    for command in commands:
        proc = subprocess.run([sys.executable, "-m", *command], cwd=tmp_path,
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, f"{command}\n{proc.stdout}{proc.stderr}"
        assert "tom totals: 6 items · turn 66.7%" in proc.stdout
    assert (tmp_path / "tom-report.json").is_file()
    if shutil.which("git"):
        subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
        ignored = subprocess.run(["git", "check-ignore", "-q", "tom-report.json"], cwd=tmp_path)
        assert ignored.returncode == 0  # the report never shows up as a change to commit
    assert main(["init", str(tmp_path)]) == 0  # twice: nothing changes
    assert "nothing to do" in capsys.readouterr().out


def test_init_names_no_placeholder_hook_when_the_repository_has_its_own(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "conftest.py").write_text(
        "def pytest_tom_backend(config, spec):\n    return None\n")
    (tmp_path / "pytest.ini").write_text("[pytest]\ntom_report = out/run.json\n")
    assert main(["init", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert not (tmp_path / "tom" / "conftest.py").exists()
    assert "kept  conftest.py (exists, with a pytest_tom_backend hook)" in out
    assert "mymodel" not in out
    assert "pytest tom --tom-model=SPEC      # a spec the pytest_tom_backend hook of " \
           "conftest.py answers" in out
    assert len(hint_commands(out)) == 1  # the example alone runs as printed
    assert "out/run.json" in (tmp_path / ".gitignore").read_text().splitlines()


def test_init_adds_missing_keys_to_pyproject_and_keeps_everything_else(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[project]\nname = "mymodel"\n\n[tool.pytest.ini_options]\n'
                         'testpaths = ["tests"]\ntom_report = "mine.json"\n\n'
                         '[tool.ruff]\nline-length = 99\n')
    (tmp_path / "conftest.py").write_text("# mine\n")
    assert main(["init", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    text = pyproject.read_text()
    assert "kept  pyproject.toml [tool.pytest.ini_options] tom_report (set already)" in out
    assert "kept  conftest.py (exists: nothing added; the hook goes to tom/conftest.py)" in out
    assert (tmp_path / "conftest.py").read_text() == "# mine\n"
    assert not (tmp_path / "pytest.ini").exists()
    if tomllib is not None:
        data = tomllib.loads(text)
        assert data["tool"]["pytest"]["ini_options"] == {
            "testpaths": ["tests"], "tom_report": "mine.json", "tom_items": "report"}
        assert data["tool"]["ruff"] == {"line-length": 99}
    assert main(["init", str(tmp_path)]) == 0
    assert pyproject.read_text() == text


def test_init_writes_where_pytest_reads_its_configuration(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "m"\n')
    (tmp_path / "setup.cfg").write_text("[tool:pytest]\naddopts = -q\n")
    assert main(["init", str(tmp_path)]) == 0
    assert "tom_items = report" in (tmp_path / "setup.cfg").read_text()
    assert (tmp_path / "pyproject.toml").read_text() == '[project]\nname = "m"\n'
    other = tmp_path / "other"
    other.mkdir()
    (other / "pyproject.toml").write_text('[project]\nname = "m"\n')
    assert main(["init", str(other)]) == 0  # no pytest configuration yet: pyproject.toml
    assert '[tool.pytest.ini_options]\n# pytest-tom' in (other / "pyproject.toml").read_text()


def test_the_workflow_gates_against_the_baseline_and_publishes_the_reports(
        tmp_path: Path) -> None:
    assert main(["init", str(tmp_path)]) == 0
    flow = yaml.safe_load((tmp_path / ".github/workflows/tom.yml").read_text())
    steps = flow["jobs"]["tom"]["steps"]
    script = "\n".join(s.get("run", "") for s in steps)
    for needle in ("--tom-items=report", "--tom-baseline=tom/baseline.json",
                   "--tom-save-baseline=tom/baseline.json", '--tom-markdown="$GITHUB_STEP_SUMMARY"',
                   "--tom-html=tom-report.html", "pytest-tom[html,xdist]"):
        assert needle in script
    # the repository is installed before the suites run (a conftest importing its model)
    install = next(s["run"] for s in steps if s.get("name") == "Install")
    assert "python -m pip install -e ." in install
    assert "if [ -f setup.py ] || grep -qs '^\\[project\\]' pyproject.toml; then" in install
    upload = next(s for s in steps if "upload-artifact" in s.get("uses", ""))
    assert upload["if"] == "always()" and "tom-report.html" in upload["with"]["path"]
    assert "baseline" not in upload["with"]["path"]  # a failed run's file is no baseline
    baseline = [s for s in steps if s.get("with", {}).get("name") == "tom-baseline"]
    assert len(baseline) == 1 and baseline[0]["if"].startswith("success()")
    # the reasoning-model variant (issue 46): a thinking budget from a repository variable
    # and a gate that refuses any cut-off answer, in the gate syntax the run reads
    assert flow["jobs"]["tom"]["env"]["TOM_THINKING_TOKENS"] == "${{ vars.TOM_THINKING_TOKENS }}"
    variant = ('thinking="--tom-thinking-tokens=$TOM_THINKING_TOKENS '
               '--tom-fail-under=cut_off<=0"')
    assert variant in script and "$gate $thinking" in script
    (gate,) = parse_thresholds("cut_off<=0", family_names())
    assert (gate.ref.metric, gate.ref.suite, gate.op, gate.value) == ("cut_off", None, "<=", 0.0)


def test_suites_lists_the_bundled_suites_and_copies_them_out(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["suites"]) == 0
    out = capsys.readouterr().out
    assert "fantom         smalltalk.tom.yaml" in out
    total = sum(row.items for row in bundled.describe())
    assert f"{total:,} items" in out and "(repository checkout)" in out
    target = tmp_path / "copies"
    assert main(["suites", "robustness", "generic", "--copy", str(target)]) == 0
    copied = sorted(str(p.relative_to(target)) for p in target.rglob("*.tom.yaml"))
    assert copied == sorted([f"robustness/{p.name}" for p in (SUITES / "robustness").glob("*.tom.yaml")]
                            + ["generic/classic-false-belief.tom.yaml"])
    edited = target / "generic" / "classic-false-belief.tom.yaml"
    edited.write_text("# my edit\n")
    assert main(["suites", "generic", "--copy", str(target)]) == 0
    assert edited.read_text() == "# my edit\n"  # an existing copy is never overwritten
    assert "kept" in capsys.readouterr().out
    assert main(["suites", "nope"]) == 2
    assert "no suite named 'nope'" in capsys.readouterr().err
