"""Packaging of what pyproject.toml cannot say alone.

- The repository's top-level `suites/` is the one source of the bundled suites; the wheel
  carries it as the data folder `pytest_tom/bundled_suites/` (a package-dir mapping, so no
  copy is kept by hand: a suite added under `suites/<folder>/` is in the next wheel).
  `pytest_tom/catalogue/bundled.py` finds them in an installed package or, in a checkout, in
  `suites/` itself.
- The docs (`docs/`) go into the wheel the same way, as `pytest_tom/docs/`, and the long
  description is README.md with its links to `docs/...` turned into those installed
  paths: there is no public project URL, so a link would point at nothing.

Everything else about the package is in pyproject.toml.
"""

import re
from pathlib import Path

from setuptools import find_namespace_packages, setup

HERE = Path(__file__).parent
BUNDLED = "pytest_tom.bundled_suites"
DOCS = "pytest_tom.docs"


def folders(top: str) -> list[str]:
    return sorted(str(p.relative_to(HERE / top)).replace("/", ".") for p in (HERE / top).rglob("*")
                  if p.is_dir() and not p.name.startswith((".", "_")))


def long_description() -> str:
    """README.md, each `[text](docs/x.md)` link as text naming the installed file."""
    text = (HERE / "README.md").read_text(encoding="utf-8")
    return re.sub(r"\[([^\]]+)\]\((docs/[^)\s]+)\)",
                  lambda m: f"{m.group(1)} (`pytest_tom/{m.group(2)}` in the installed package)"
                  if m.group(1) != m.group(2) else f"`pytest_tom/{m.group(2)}`", text)


bundled = [BUNDLED, *(f"{BUNDLED}.{name}" for name in folders("suites"))]
docs = [DOCS, *(f"{DOCS}.{name}" for name in folders("docs"))]

setup(
    packages=[*find_namespace_packages(include=["pytest_tom", "pytest_tom.*"],
                                       exclude=["*.__pycache__"]), *bundled, *docs],
    package_dir={BUNDLED: "suites", DOCS: "docs"},
    package_data={**{name: ["*.tom.yaml"] for name in bundled},
                  **{name: ["*.md", "*.png"] for name in docs},
                  "pytest_tom.report.html": ["templates/*"]},
    long_description=long_description(),
    long_description_content_type="text/markdown",
)
