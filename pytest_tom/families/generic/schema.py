"""The generic family's suite shape: scenarios of a story and questions, one answer rule
each, and the semantic checks of a question's JSON answer map."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pytest_tom.suite.schema import (
    ID,
    TAG,
    Any_,
    Bool,
    Checker,
    Enum,
    Field,
    ListOf,
    Node,
    Obj,
    Str,
    Text,
    describe,
    type_name,
)


@dataclass
class Alternatives(Node):
    """A word, or a list of alternative words of which the answer must contain one."""

    def check(self, value: Any, path: tuple[Any, ...], ck: Checker) -> bool:
        if isinstance(value, str) and value.strip():
            return True
        if (isinstance(value, list) and value
                and all(isinstance(v, str) and v.strip() for v in value)):
            return True
        ck.error(path, f"{describe(path)}: expected a word or a list of alternative words "
                       f"(e.g. [crayon, crayons]), got {type_name(value)}")
        return False


def alternatives(entry: Any) -> list[str]:
    """The accepted words of one `contains` entry."""
    return [str(w) for w in entry] if isinstance(entry, list) else [str(entry)]


def words_text(entry: Any) -> str:
    return " or ".join(alternatives(entry))


RULES = ("choices", "yes_no", "names", "contains", "json_final")

QUESTION = Obj(
    what="question",
    fields={
        "id": Field(ID),
        "ask": Field(Str(), required=True, doc="the question put to the model"),
        "choices": Field(ListOf(Text(), min_len=2, max_len=26, unique=True)),
        "answer": Field(Text()),
        "shuffle": Field(Bool()),
        "yes_no": Field(Enum(values=("yes", "no"))),
        "names": Field(ListOf(Str(), unique=True)),
        "contains": Field(ListOf(Alternatives(), min_len=1),
                          doc="words the answer must contain; a list entry gives alternatives: "
                              "[[crayon, crayons]] accepts either"),
        "excludes": Field(ListOf(Str(), min_len=1)),
        "json_final": Field(Any_(), doc="object -> right answer (or a list of accepted ones)"),
        "wrong": Field(Any_(), doc="object -> answer(s) that must not appear (with json_final)"),
        "meta": Field(Any_(), doc="plain data carried to the aggregation"),
        "tags": Field(ListOf(TAG)),
    },
)

SCENARIO = Obj(
    what="scenario",
    fields={
        "id": Field(ID,
                    required=True, doc="a unique name for the scenario"),
        "context": Field(Str(), required=True, doc="the story the questions are about"),
        "characters": Field(ListOf(Str(), min_len=1, unique=True)),
        "tags": Field(ListOf(TAG)),
        "source": Field(Any_()),
        "questions": Field(ListOf(QUESTION, min_len=1), required=True),
    },
)

DEFAULTS = Obj(what="defaults mapping", fields={"shuffle": Field(Bool()), "tags": Field(ListOf(TAG))})


def check_answer_map(q: dict[str, Any], qpath: tuple[Any, ...], ck: Checker) -> None:
    """`json_final:` / `wrong:` map object names to an answer or a list of answers."""
    for name in ("json_final", "wrong"):
        value = q.get(name)
        if value is None:
            continue
        path = (*qpath, name)
        good = isinstance(value, dict) and value and all(
            isinstance(v, str | int | float) and not isinstance(v, bool) or (
                isinstance(v, list) and v and all(isinstance(x, str | int | float) for x in v))
            for v in value.values())
        if not good:
            ck.error(path, f"{describe(path)}: expected a mapping of objects to an answer or a list "
                     f"of answers, e.g. {{box: marbles}}")
        elif name == "wrong":
            extra = [k for k in value if k not in (q.get("json_final") or {})]
            if extra:
                ck.error(path, f"{describe(path)}: {extra!r} not asked in json_final; wrong "
                         f"answers belong to asked objects")
