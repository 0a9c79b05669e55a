"""Reading a suite file: safe YAML, the top-level shape, the family's schema and checks,
then expansion into items. Every problem of the file is reported at once."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

from pytest_tom import families
from pytest_tom.core.model import Suite
from pytest_tom.core.registry import RegistryError
from pytest_tom.families.base import Settings
from pytest_tom.families.document import SuiteDocument
from pytest_tom.suite.errors import Problem, SuiteError
from pytest_tom.suite.schema import (
    ID,
    Any_,
    Checker,
    Field,
    Int,
    ListOf,
    Obj,
    Str,
)
from pytest_tom.suite.yaml_tree import YamlSyntaxError, load_located


def _top_schema(family_names: list[str], family: Any) -> Obj:
    scenario = family.scenario_schema if family is not None else Any_()
    defaults = family.defaults_schema if family is not None else Any_()
    return Obj(
        what="suite file",
        fields={
            "suite": Field(ID,
                           required=True, doc="the suite's name"),
            "family": Field(Str(), required=True, doc=f"one of {', '.join(family_names)}"),
            "version": Field(_Version(), required=True, doc="the suite's version, e.g. 1"),
            "description": Field(Str()),
            "defaults": Field(defaults),
            "scenarios": Field(ListOf(scenario, min_len=1), required=True, doc="the list of scenarios"),
        },
    )


class _Version(Int):
    """A version is a number or a string such as "1.2"."""

    def check(self, value: Any, path: tuple[Any, ...], ck: Checker) -> bool:
        if isinstance(value, str) and value.strip():
            return True
        if isinstance(value, float):
            return True
        return super().check(value, path, ck)


def load_suite(path: str | Path, settings: Settings | None = None) -> Suite:
    """Load, validate and expand one suite file. Raises SuiteError listing every problem."""
    settings = settings or Settings()
    path = Path(path)
    shown = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise SuiteError(shown, [Problem(shown, 1, 1, f"not UTF-8 text ({exc.reason}); save the file as UTF-8")]) from None
    try:
        located = load_located(text)
    except YamlSyntaxError as exc:
        raise SuiteError(shown, [Problem(shown, exc.line, exc.column, f"{exc}; fix the YAML syntax")]) from None
    ck = Checker(shown, located)
    for kpath, _pos in located.duplicate_keys:
        ck.error(kpath, f"duplicate key {kpath[-1]!r}: YAML keeps only the last one; remove one of them", key=True)
    data = located.data
    if not isinstance(data, dict):
        ck.error((), "a suite file is a mapping with keys suite, family, version, scenarios")
        raise SuiteError(shown, ck.problems)
    names = sorted(families.available())
    family = None
    fam_name = data.get("family")
    if isinstance(fam_name, str):
        try:
            family = families.get(fam_name)
        except RegistryError as exc:  # unknown (the message lists what exists), or broken
            ck.error(("family",), f"family: {exc}")
    ok = _top_schema(names, family).check(data, (), ck)
    # the document as the family's hooks take it: checked by the top-level schema just
    # above (the family's SCENARIO and DEFAULTS with it); `check` also meets one with
    # faults and reads it with `.get` and `isinstance` (families/document.py)
    document = cast(SuiteDocument, data)
    if family is not None and isinstance(data.get("scenarios"), list):
        schema_problems = len(ck.problems)
        try:
            family.check(document, ck)
        except (TypeError, KeyError, AttributeError, ValueError):
            # the semantic checks met data the schema already reported as malformed
            if not schema_problems and ok:
                raise
    if ck.problems or family is None:
        raise SuiteError(shown, ck.problems)
    suite = Suite(
        name=str(data["suite"]), family=family.name, version=str(data["version"]), path=shown,
        description=str(data.get("description", "")), defaults=dict(data.get("defaults") or {}),
        scenario_count=len(data["scenarios"]),
    )

    def line_of(p: tuple[Any, ...]) -> int:
        return located.pos(p)[0]

    suite.items = family.expand(suite, document, settings, line_of)
    seen: dict[str, int] = {}
    dup: list[Problem] = []
    for it in suite.items:
        if it.id in seen:
            dup.append(Problem(shown, it.line, 1, f"item id {it.id!r} is produced twice (first on "
                               f"line {seen[it.id]}); make scenario and question ids unique"))
        seen.setdefault(it.id, it.line)
    if dup:
        raise SuiteError(shown, dup)
    return suite
