"""Packaging of what pyproject.toml cannot say alone: the repository's top-level `suites/`
is the one source of the bundled suites, and the wheel carries it as the data folder
`pytest_tom/bundled_suites/` (a package-dir mapping, so no copy is kept by hand: a suite
added under `suites/<folder>/` is in the next wheel). `pytest_tom/engine/bundled.py`
finds them in an installed package or, in a checkout, in `suites/` itself.

Everything else about the package is in pyproject.toml."""

from pathlib import Path

from setuptools import find_namespace_packages, setup

BUNDLED = "pytest_tom.bundled_suites"
SUITE_FOLDERS = sorted(p.name for p in Path(__file__).parent.joinpath("suites").iterdir()
                       if p.is_dir() and not p.name.startswith((".", "_")))
bundled = [BUNDLED, *(f"{BUNDLED}.{name}" for name in SUITE_FOLDERS)]

setup(
    packages=[*find_namespace_packages(include=["pytest_tom", "pytest_tom.*"],
                                       exclude=["*.__pycache__"]), *bundled],
    package_dir={BUNDLED: "suites"},
    package_data={**{name: ["*.tom.yaml"] for name in bundled},
                  "pytest_tom.report.html": ["templates/*"]},
)
