"""The wheel is the whole product (issue 21, "Done when"): built from this checkout,
installed into a fresh virtualenv with its core dependencies only, and run from an empty
folder with `--tom-suite=bundled` and a `python:` answerer, every bundled family is
collected and scored and the rootdir and caches are that folder. The wheel carries the
suites and the docs, its metadata the license and the pytest classifier, and its long
description links to no file the wheel lacks.

`pytest-tom fetch` works there too: from an empty folder, it fetches a benchmark from the
loopback mirror of the shared copies into the per-user cache folder, and the fetched name
runs (skipped where `../shared/data` is absent).

Slow (a build and a virtualenv with pytest, numpy, openai ... from the package index: CI
has one); it fails, not skips, when the index cannot be reached.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import venv
import zipfile
from email.parser import Parser
from importlib.metadata import version
from pathlib import Path

import pytest
from conftest import REPO, SHARED_DATA, SUITES
from mirror_server import MirrorServer

from pytest_tom import families

pytestmark = pytest.mark.slow

ANSWERER = """\
def first(request):
    return "a" if request.item.choices else "no"
"""


def run(cmd: list[str], cwd: Path, timeout: float = 900,
        env_extra: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTEST_ADDOPTS", "PYTEST_TOM_FETCH_DIR")}
    env.update(env_extra or {})
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel, built from a copy of the checkout's package sources (setuptools writes
    build/ and egg-info beside them: not into the checkout)."""
    src = tmp_path_factory.mktemp("src")
    for name in ("pyproject.toml", "setup.py", "README.md", "LICENSE"):
        shutil.copy2(REPO / name, src / name)
    for name in ("pytest_tom", "suites", "docs"):
        shutil.copytree(REPO / name, src / name,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    out = tmp_path_factory.mktemp("dist")
    isolation = [] if importlib.util.find_spec("setuptools") is None else ["--no-build-isolation"]
    proc = run([sys.executable, "-m", "pip", "wheel", "--no-deps", *isolation, "-w", str(out),
                str(src)], cwd=src)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (whl,) = out.glob("pytest_tom-*.whl")
    return whl


def test_the_wheel_carries_the_suites_the_docs_and_honest_metadata(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        meta_name = next(n for n in names if n.endswith(".dist-info/METADATA"))
        meta = Parser().parsestr(zf.read(meta_name).decode())
    suites = {f"pytest_tom/bundled_suites/{p.relative_to(SUITES)}"
              for p in SUITES.rglob("*.tom.yaml")}
    assert suites and suites <= names
    assert "pytest_tom/docs/user-guide.md" in names
    assert "Framework :: Pytest" in meta.get_all("Classifier")
    assert meta["License-Expression"] == "MIT"
    assert any(n.endswith("licenses/LICENSE") for n in names)
    description = meta.get_payload()
    assert "pytest --tom-suite" in description  # the pip user's path comes first
    for target in re.findall(r"\]\(([^)\s]+)\)", description):
        assert target.startswith(("http://", "https://", "#")), target
    for path in re.findall(r"pytest_tom/docs/[\w/.-]+\.md", description):
        assert path in names, path


@pytest.fixture(scope="module")
def env_dir(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtualenv with the wheel installed (its core dependencies only). The pip
    of this process installs it (`pip --python`, pip 22.3 and later): installing pip into
    the virtualenv first (ensurepip) took 5 s of the fixture's 12. No byte-code is compiled
    ahead (`--no-compile`): the runs compile what they import, a part of the packages."""
    env_dir = tmp_path_factory.mktemp("wheel-env") / "venv"
    outer_pip = tuple(int(x) for x in re.findall(r"\d+", version("pip"))[:2])
    venv.EnvBuilder(with_pip=outer_pip < (22, 3), system_site_packages=False).create(env_dir)
    python = str(env_dir / "bin" / "python")
    pip = [sys.executable, "-m", "pip", "--python", python] if outer_pip >= (22, 3) else \
        [python, "-m", "pip"]
    proc = run([*pip, "install", "-q", "--disable-pip-version-check", "--no-compile", str(wheel)],
               cwd=env_dir.parent)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return env_dir


def test_installed_wheel_runs_every_bundled_family_from_an_empty_folder(
        env_dir: Path, tmp_path: Path) -> None:
    python = env_dir / "bin" / "python"
    project = tmp_path / "project"
    project.mkdir()
    (project / "answer.py").write_text(ANSWERER)
    proc = run([str(python), "-m", "pytest", "--tom-suite=bundled",
                "--tom-model=python:answer.py:first", "--tom-limit=3", "--tom-items=report",
                "--tom-report=report.json", "-p", "no:randomly"], cwd=project)
    out = proc.stdout
    assert proc.returncode == 0, out + proc.stderr
    assert f"rootdir: {project}" in out
    root = f"{env_dir}/lib/python{sys.version_info.major}.{sys.version_info.minor}" \
           f"/site-packages/pytest_tom/bundled_suites"
    assert (f"tom: bundled suites bigtom, fantom, generic, hitom, mmtomqa, opentom, robustness, "
            f"simpletom, tomato, tombench (from {root})") in out
    families = set(re.findall(r"\(family (\w+), \d+ items\)", out))
    assert families == {"bigtom", "fantom", "generic", "hitom", "mmtomqa", "opentom", "robustness",
                        "simpletom", "tomato", "tombench"}
    assert "tom totals:" in out
    assert (project / ".pytest_cache").is_dir() and (project / "report.json").is_file()
    assert "site-packages" not in (project / ".pytest_cache" / "v" / "cache" / "nodeids"
                                   ).read_text()
    # the benchmarks by name, as `pytest-tom suites` lists them (issue 34), and the two
    # families of issue 45 whole, from the installed package's data: one run
    proc = run([str(python), "-m", "pytest", "--tom-suite=hitom,mmtomqa,tomato,simpletom",
                "--tom-model=python:answer.py:first", "--tom-items=report", "-p", "no:randomly"],
               cwd=project)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert set(re.findall(r"\(family (\w+), \d+ items\)", proc.stdout)) == {
        "hitom", "mmtomqa", "tomato", "simpletom"}
    assert re.search(r"\(family tomato, 100 items\)", proc.stdout), proc.stdout
    assert re.search(r"\(family simpletom, 126 items\)", proc.stdout), proc.stdout


def test_installed_wheel_fetches_a_benchmark_from_an_empty_folder_and_runs_it(
        env_dir: Path, tmp_path: Path) -> None:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"upstream data not available: {SHARED_DATA} (only in the project's "
                    f"workspace)")
    project = tmp_path / "project"
    project.mkdir()
    (project / "answer.py").write_text(ANSWERER)
    cache = tmp_path / "cache"  # the user's cache folder: the default fetch folder is in it
    home = {"XDG_CACHE_HOME": str(cache)}
    with MirrorServer() as mirror:
        mirror.add_declared(families.downloads().values())
        proc = run([str(env_dir / "bin" / "pytest-tom"), "fetch", "hitom-full", "--mirror",
                    mirror.mirror], cwd=project, env_extra=home)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    folder = cache / "pytest-tom" / "fetched"
    assert f"fetched: hitom-full.tom.yaml, 1,200 items, in {folder / 'hitom-full'}" in proc.stdout
    assert "licence: Apache-2.0" in proc.stdout
    assert "run: pytest --tom-suite=hitom-full --tom-model=SPEC\n" in proc.stdout
    assert sorted(p.name for p in project.iterdir()) == ["answer.py"]  # nothing here
    proc = run([str(env_dir / "bin" / "python"), "-m", "pytest", "--tom-suite=hitom-full,mmtomqa",
                "--tom-model=python:answer.py:first", "--tom-limit=5", "--tom-items=report",
                "-p", "no:randomly"], cwd=project, env_extra=home)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"tom: fetched suites hitom-full (from {folder})" in proc.stdout
    assert set(re.findall(r"\(family (\w+), \d+ items\)", proc.stdout)) == {"hitom", "mmtomqa"}
    proc = run([str(env_dir / "bin" / "pytest-tom"), "suites"], cwd=project, env_extra=home)
    assert re.search(r"hitom-full +hitom-full.tom.yaml +hitom-full +hitom +240 +1,200 +fetched",
                     proc.stdout), proc.stdout
