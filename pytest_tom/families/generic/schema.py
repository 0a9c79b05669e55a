"""The generic family's suite shape: scenarios of a story and questions, one answer rule
each, and the semantic checks of a suite (`check`)."""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from typing import TypedDict

from pytest_tom.families.kit import ID
from pytest_tom.families.kit import TAG
from pytest_tom.families.kit import Any_
from pytest_tom.families.kit import Bool
from pytest_tom.families.kit import Checker
from pytest_tom.families.kit import Defaults
from pytest_tom.families.kit import Enum
from pytest_tom.families.kit import Field
from pytest_tom.families.kit import JSONObject
from pytest_tom.families.kit import ListOf
from pytest_tom.families.kit import Node
from pytest_tom.families.kit import Obj
from pytest_tom.families.kit import Scenario
from pytest_tom.families.kit import Str
from pytest_tom.families.kit import SuiteDocument
from pytest_tom.families.kit import Tagged
from pytest_tom.families.kit import Text
from pytest_tom.families.kit import checked_scenarios
from pytest_tom.families.kit import describe
from pytest_tom.families.kit import type_name


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

Answer = str | int | float
# `json_final:` / `wrong:`: object -> an answer or the list of accepted (or wrong) answers
AnswerMap = Mapping[str, Answer | list[Answer]]


class _Asked(TypedDict):
    ask: str


class GenericQuestion(_Asked, Tagged, total=False):
    """A question, as `QUESTION` accepts it: `ask` (required, in the base) and one answer
    rule (`RULES`) with the keys that go with it (`check_question`)."""

    id: str
    choices: Sequence[Answer]  # `Text`; with `answer`, one of them
    answer: Answer
    shuffle: bool
    yes_no: str | bool  # yes or no (YAML 1.1 may have read it as a boolean)
    names: list[str]
    contains: list[str | list[str]]  # a word, or a list of alternative words
    excludes: list[str]
    json_final: AnswerMap
    wrong: AnswerMap
    meta: JSONObject  # free-form: carried to the item's meta


class _GenericStory(Scenario):
    context: str
    questions: list[GenericQuestion]


class GenericScenario(_GenericStory, total=False):
    """A scenario, as `SCENARIO` accepts it (the required keys in the bases; `id`, `tags`
    and the free-form `source` from the kit's `Scenario`)."""

    characters: list[str]


class GenericDefaults(Defaults, total=False):
    shuffle: bool


class _GenericScenarios(TypedDict):
    scenarios: list[GenericScenario]


class GenericSuite(SuiteDocument, _GenericScenarios, total=False):
    """A generic suite file: what `expand` reads once the schema has accepted it (and
    `check` reads, guarding each value, as it also runs on a file the schema rejected)."""

    defaults: GenericDefaults


def rule_of(q: GenericQuestion) -> list[str]:
    """The answer rules a question uses (exactly one is valid)."""
    return [r for r in RULES if r in q]


def question_id(q: GenericQuestion, index: int) -> str:
    return str(q.get("id", f"q{index + 1}"))

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


def check_answer_map(q: GenericQuestion, qpath: tuple[Any, ...], ck: Checker) -> None:
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
        elif name == "wrong" and isinstance(value, dict):
            extra = [k for k in value if k not in (q.get("json_final") or {})]
            if extra:
                ck.error(path, f"{describe(path)}: {extra!r} not asked in json_final; wrong "
                         f"answers belong to asked objects")


def check(data: GenericSuite, ck: Checker) -> None:
    """Report every generic-specific error of a suite's `data` to `ck`: unique ids, one
    answer rule per question and the keys that go with it."""
    for base, sc in checked_scenarios(data, ck, "scenario"):
        questions: list[GenericQuestion] = sc.get("questions") or []
        seen: dict[str, int] = {}
        for qi, q in enumerate(questions):
            if not isinstance(q, dict):
                continue
            qpath = (*base, "questions", qi)
            qid = question_id(q, qi)
            if qid in seen:
                ck.error((*qpath, "id") if "id" in q else qpath,
                         f"duplicate question id {qid!r} in scenario {sc.get('id')!r} "
                         f"(first used by question {seen[qid] + 1}); ids must be unique")
            seen.setdefault(qid, qi)
            check_question(q, qpath, sc, base, ck)


def check_question(q: GenericQuestion, qpath: tuple[Any, ...], sc: GenericScenario,
                   base: tuple[Any, ...], ck: Checker) -> None:
    """The checks of one question at `qpath` of scenario `sc` (at `base`)."""
    rules = rule_of(q)
    if not rules:
        ck.error(qpath, f"{describe(qpath)}: missing answer: give one answer rule "
                 f"(choices + answer, yes_no, names, contains, or json_final)")
        return
    if len(rules) > 1:
        ck.error(qpath, f"{describe(qpath)}: more than one answer rule ({', '.join(rules)}); "
                 f"keep exactly one")
        return
    rule = rules[0]
    if rule == "choices":
        if "answer" not in q:
            ck.error(qpath, f"{describe(qpath)}: missing answer: a question with choices needs "
                     f"'answer:' set to one of them")
        elif isinstance(q["choices"], list) and str(q["answer"]).strip().lower() not in [
                str(c).strip().lower() for c in q["choices"]]:
            ck.error((*qpath, "answer"), f"{describe((*qpath, 'answer'))}: {q['answer']!r} is not "
                     f"among the choices {q['choices']!r}; the answer must be one of them")
    elif "answer" in q:
        ck.error((*qpath, "answer"), f"{describe((*qpath, 'answer'))}: 'answer' goes with "
                 f"'choices'; a {rule} question carries its gold in '{rule}'", key=True)
    if "shuffle" in q and rule != "choices":
        ck.error((*qpath, "shuffle"), f"{describe((*qpath, 'shuffle'))}: 'shuffle' only applies "
                 f"to questions with choices", key=True)
    if "excludes" in q and rule != "contains":
        ck.error((*qpath, "excludes"), f"{describe((*qpath, 'excludes'))}: 'excludes' goes with "
                 f"'contains'", key=True)
    if "wrong" in q and rule != "json_final":
        ck.error((*qpath, "wrong"), f"{describe((*qpath, 'wrong'))}: 'wrong' goes with "
                 f"'json_final'", key=True)
    if "meta" in q and not isinstance(q["meta"], dict):
        ck.error((*qpath, "meta"), f"{describe((*qpath, 'meta'))}: expected a mapping of plain data")
    if rule == "json_final":
        check_answer_map(q, qpath, ck)
    if rule == "names":
        chars = sc.get("characters")
        if not isinstance(chars, list) or not chars:
            ck.error(qpath, f"{describe(qpath)}: a 'names' question needs the scenario's "
                     f"'characters:' list (every character who could be named), so that naming "
                     f"a wrong one can be detected; add it to {describe(base)}")
        else:
            known = {str(c).lower() for c in chars}
            for i, n in enumerate(q["names"] if isinstance(q["names"], list) else []):
                if str(n).lower() not in known:
                    ck.error((*qpath, "names", i), f"{describe((*qpath, 'names', i))}: {n!r} is not "
                             f"in the scenario's characters {chars!r}")
