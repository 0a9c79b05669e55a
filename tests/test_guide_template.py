"""The family template of docs/adding-a-family.md compiles, keeps to the layers and runs,
both as a family inside the package (`pytest_tom/families/mybench/`, found by its folder:
no line outside it) and as an entry-point family installed beside it (a `.dist-info` on
sys.path); its declared metrics come out with their intervals."""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO
from family_support import forget_package, install_entry_point_family
from test_layers import LAYERS, layer_of

from pytest_tom import families

GUIDE = REPO / "docs" / "adding-a-family.md"
SUITE = """suite: mybench-demo
family: mybench
version: 1
scenarios:
  - {id: paris, question: "What is the capital of France?", answer: Paris, topic: capital}
  - {id: rome, question: "What is the capital of Italy?", answer: Rome, topic: capital}
  - {id: sky, question: "What colour is the sky?", answer: blue, topic: colour}
"""
ANSWERS = """
def answer(req):
    return "Paris" if "France" in req.item.question else "blue"
"""


def template() -> dict[str, str]:
    """The guide's code blocks that start with `# mybench/<module>.py`."""
    blocks = re.findall(r"```python\n# mybench/(\w+)\.py\n(.*?)```", GUIDE.read_text(), re.S)
    return {name: code for name, code in blocks}


def write_family(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "__init__.py").write_text('"""MyBench (the guide\'s template)."""\n')
    for name, code in template().items():
        (folder / f"{name}.py").write_text(code)


def test_the_guide_holds_the_template() -> None:
    assert set(template()) == {"family", "schema", "expand", "prompts", "scoring", "metrics",
                               "headline", "options"}
    for name, code in template().items():
        compile(code, f"mybench/{name}.py", "exec")
    # family.py names its parts and says what is particular to the family; it writes no hook
    (cls,) = [n for n in ast.parse(template()["family"]).body if isinstance(n, ast.ClassDef)]
    assert not [n for n in cls.body if isinstance(n, ast.FunctionDef)]


def imported(path: Path, module: str) -> set[str]:
    """The pytest_tom modules (or packages) `path` imports, relative imports resolved."""
    package = module.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            out.add(base)
    return {m for m in out if m.startswith("pytest_tom")}


def test_template_inside_the_package_keeps_to_the_layers_and_runs(tmp_path: Path) -> None:
    root = tmp_path / "checkout"
    shutil.copytree(REPO / "pytest_tom", root / "pytest_tom",
                    ignore=shutil.ignore_patterns("__pycache__"))
    write_family(root / "pytest_tom" / "families" / "mybench")  # the folder is all: no line
    for path in sorted((root / "pytest_tom" / "families" / "mybench").glob("*.py")):
        module = f"pytest_tom.families.mybench.{path.stem}"
        assert layer_of(module)[0] == "families"
        for target in imported(path, module):
            assert layer_of(target)[1] <= LAYERS["families"], (module, target)  # no upward import
            other = target.split(".")
            assert not (len(other) > 2 and other[1] == "families" and other[2] not in
                        ("mybench", "kit", "option_kit")), (module, target)  # no other family
    (tmp_path / "mybench.tom.yaml").write_text(SUITE)
    (tmp_path / "answers.py").write_text(ANSWERS)
    env = {**os.environ, "PYTHONPATH": str(root)}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "mybench.tom.yaml", "-p", "no:cacheprovider", "-q",
         f"--tom-model=python:{tmp_path / 'answers.py'}:answer", "--tom-report=r.json",
         "--tom-cache=off", "-p", "no:xdist"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    # a wrong answer fails its test; the suite ran at all only through the copy's folder
    assert run.returncode == 1, run.stdout[-3000:] + run.stderr[-3000:]
    report = json.loads((tmp_path / "r.json").read_text())
    check_report(report)


def check_report(report: dict) -> None:
    suite = report["suites"]["mybench-demo"]
    assert suite["metrics"]["capitals"] == 0.5  # Paris right, Rome wrong
    assert suite["metrics"]["topics_right"] == 0.5  # colour right, capital not
    assert suite["metrics"]["misses"] == 1
    assert suite["intervals"]["capitals"]["method"] == "wilson"
    assert set(suite["intervals"]) >= {"capitals", "topics_right"}
    # the family's table shows the declared value with its counts (handed in, not recounted)
    assert suite["tables"] == [{"title": "MyBench", "headers": ["questions", "accuracy"],
                                "rows": [["capitals", "50.0% (1/2)"]], "note": ""}]


@pytest.fixture
def mybench_distribution(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    site = tmp_path / "site"
    write_family(site / "mybench_tom")
    install_entry_point_family(site, "mybench-tom", "mybench",
                               "mybench_tom.family:MyBenchFamily", monkeypatch)
    yield site
    forget_package("mybench_tom")


def test_template_as_an_entry_point_family(mybench_distribution: Path,
                                           pytester: pytest.Pytester) -> None:
    assert families.available()["mybench"] == "mybench_tom.family:MyBenchFamily"
    (pytester.path / "mybench.tom.yaml").write_text(SUITE)
    (pytester.path / "answers.py").write_text(ANSWERS)
    result = pytester.runpytest("mybench.tom.yaml", "-p", "no:cacheprovider", "-q",
                                f"--tom-model=python:{pytester.path / 'answers.py'}:answer",
                                "--tom-report=r.json", "--tom-cache=off")
    assert result.ret == 1  # a wrong answer fails its test
    check_report(json.loads((pytester.path / "r.json").read_text()))
