"""A family installed as another package would install it: its package folder and a
`.dist-info` declaring the `pytest_tom.families` entry point, on sys.path (no line in
`families.BUILTIN`). Used by the toy-family and the guide-template tests."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from pytest_tom import families


def install_entry_point_family(site: Path, distribution: str, family: str, target: str,
                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Declare `family = target` (e.g. `toy_tom.family:ToyFamily`) in a `.dist-info` of
    `distribution` under `site`, put `site` on sys.path and forget the loaded families."""
    info = site / f"{distribution.replace('-', '_')}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {distribution}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[pytest_tom.families]\n{family} = {target}\n")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setattr(families, "_cache", {})


def forget_package(package: str) -> None:
    """Drop `package` and its modules from sys.modules (the next test installs its own)."""
    for name in [m for m in sys.modules if m == package or m.startswith(f"{package}.")]:
        del sys.modules[name]
