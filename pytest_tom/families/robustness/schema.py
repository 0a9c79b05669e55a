"""The YAML shape of a robustness stage: its objects, questions, variants and sceneries."""

from __future__ import annotations

from typing import Any

from pytest_tom.families.kit import ID
from pytest_tom.families.kit import IDENT
from pytest_tom.families.kit import TAG
from pytest_tom.families.kit import Any_
from pytest_tom.families.kit import Checker
from pytest_tom.families.kit import Enum
from pytest_tom.families.kit import Field
from pytest_tom.families.kit import ListOf
from pytest_tom.families.kit import Node
from pytest_tom.families.kit import Obj
from pytest_tom.families.kit import Path_
from pytest_tom.families.kit import Str
from pytest_tom.families.kit import check_unique_ids
from pytest_tom.families.kit import describe
from pytest_tom.families.kit import type_name
from pytest_tom.families.robustness.scenes import EDITED_VARIANTS
from pytest_tom.families.robustness.scenes import RESERVED
from pytest_tom.families.robustness.scenes import ROLE
from pytest_tom.families.robustness.scenes import scenery_id
from pytest_tom.families.robustness.scenes import scenes_of
from pytest_tom.families.robustness.suite_shape import RobustnessSuite

# The complexity classes in the order of the paper's tables, with their display names.
CLASSES: dict[str, str] = {
    "no_complication": "no complication",
    "transparent_container": "transparent container",
    "preposition_replacement": "preposition replacement",
    "uninformative_label": "uninformative label",
    "late_label": "late label",
    "non_protagonist_belief": "non protagonist belief",
    "automatic_change_knowledge": "automatic change knowledge",
    "add_unrelated_information": "add unrelated information",
    "induction_from_baseline": "induction from baseline",
    "untrustworthy_testimony": "untrustworthy testimony",
    "conclusion_from_sentiment": "conclusion from sentiment",
}
STAGE_TYPES = ("unexpected_contents", "unexpected_transfer")


class RoleMap(Node):
    """`{role: answer}` or `{role: [answer, alternative ...]}`: the objects of a story."""

    expected = "a mapping of roles to answers"

    def check(self, value: Any, path: Path_, ck: Checker) -> bool:
        if not isinstance(value, dict):
            ck.error(path, f"{describe(path)}: expected {self.expected} (e.g. real: buttons, "
                     f"label: biscuits), got {type_name(value)}")
            return False
        ok = True
        if len(value) < 2:
            ck.error(path, f"{describe(path)}: needs at least two roles (the right answer and a "
                     f"wrong one), got {len(value)}")
            ok = False
        answer = ListOf(Str(), min_len=1, unique=True)
        for role, v in value.items():
            rpath = (*path, role)
            if not isinstance(role, str) or not ROLE.match(role) or role in RESERVED:
                ck.error(rpath, f"{describe(rpath)}: a role is a lower-case identifier other than "
                         f"{', '.join(RESERVED)}, got {role!r}", key=True)
                ok = False
            elif isinstance(v, list):
                ok = answer.check(v, rpath, ck) and ok
            else:
                ok = Str().check(v, rpath, ck) and ok
        return ok


ASK = Obj(what="questions mapping", fields={
    "belief": Field(Str(), doc="the belief question, e.g. What does {agent} think is in the tin?"),
    "world": Field(Str(), doc="the world-state question, e.g. What is in the tin?"),
})

EDIT = Obj(what="replacement", fields={
    "old": Field(Str(), required=True, doc="text of the scenery (placeholders as written)"),
    "new": Field(Str(nonempty=False), required=True, doc="what replaces it"),
})

VARIANT = Obj(what="variant", fields={
    "replace": Field(ListOf(EDIT), doc="replacements applied to the scenery text"),
    "append": Field(Str(), doc="sentences added at the end"),
    "belief": Field(Str(), doc="the agent's belief in this variant (a role or unknown)"),
    "world": Field(Str(), doc="the true state in this variant (a role)"),
    "beliefs": Field(ListOf(Str()), doc="the protagonist's belief after each sentence"),
})

VARIANTS = Obj(what="variants mapping", fields={v: Field(VARIANT) for v in EDITED_VARIANTS})

SCENE = Obj(what="scene", fields={
    "id": Field(ID, required=True),
    "text": Field(Str(), doc="the scene's story (default: the scenery text)"),
    "objects": Field(Enum(values=("orig", "swap")), doc="which object binding fills the text"),
    "question": Field(Enum(values=("belief", "world"))),
    "ask": Field(Str(), doc="a question of the scene's own (needs 'answer')"),
    "key": Field(Str(), doc="the object named in the JSON answer"),
    "answer": Field(Any_(), doc="a role, unknown, or literal answer(s)"),
    "wrong": Field(ListOf(Str()), doc="roles or literal answers that must not appear"),
    "variant": Field(Str(pattern=IDENT, pattern_hint="an identifier, e.g. informed")),
    "beliefs": Field(ListOf(Str())),
})

SCENERY = Obj(what="scenery", fields={
    "id": Field(ID, doc="unique in the stage (default: the class)"),
    "class": Field(Enum(values=tuple(CLASSES)), required=True, doc="the complexity class"),
    "text": Field(Str(), required=True, doc="the rewritten story with {role} placeholders"),
    "note": Field(Str(), doc="what the complication is"),
    "agent": Field(Str(), doc="whose belief is asked (default: the protagonist)"),
    "belief": Field(Str(), doc="the agent's belief at the end (a role or unknown)"),
    "world": Field(Str(), doc="the true state at the end (a role)"),
    "objects": Field(RoleMap()),
    "swap": Field(RoleMap()),
    "key": Field(Str()),
    "ask": Field(ASK),
    "variants": Field(VARIANTS),
    "beliefs": Field(ListOf(Str()), doc="the protagonist's belief after each sentence"),
    "scenes": Field(ListOf(SCENE, min_len=1), doc="hand-written scenes (instead of generated)"),
    "tags": Field(ListOf(TAG)),
})

SCENARIO = Obj(what="stage", fields={  # a robustness scenario is a stage
    "id": Field(ID, required=True, doc="the stage's name"),
    "type": Field(Enum(values=STAGE_TYPES), required=True),
    "protagonist": Field(Str(), required=True, doc="the name of the stage's protagonist"),
    "key": Field(Str(), required=True, doc="the object named in the JSON answer, e.g. tin"),
    "objects": Field(RoleMap(), required=True, doc="role -> answer, e.g. real: buttons"),
    "swap": Field(RoleMap(), doc="the swapped objects (default: the two roles exchange values)"),
    "ask": Field(ASK, required=True),
    "belief": Field(Str(), doc="default belief answer of the sceneries (a role or unknown)"),
    "world": Field(Str(), doc="default world answer of the sceneries (a role)"),
    "variants": Field(VARIANTS, doc="edits that make the true-belief, informed, visible scenes"),
    "sceneries": Field(ListOf(SCENERY, min_len=1), required=True),
    "tags": Field(ListOf(TAG)),
    "source": Field(Any_()),
    "note": Field(Str()),
})

DEFAULTS = Obj(what="defaults mapping", fields={"tags": Field(ListOf(TAG))})

def check(data: RobustnessSuite, ck: Checker) -> None:
    """Report every robustness-specific error of a suite's `data` to `ck`: repeated sceneries,
    malformed scene answers, and the problems of building the scenes."""
    stages = data.get("scenarios") or []
    check_unique_ids(stages, ("scenarios",), ck, "stage")
    for si, stage in enumerate(stages):
        sceneries = stage["sceneries"]
        first: dict[str, int] = {}
        for ci, sc in enumerate(sceneries):
            sid = scenery_id(sc)
            path = ("scenarios", si, "sceneries", ci)
            if sid in first:
                line = ck.at(("scenarios", si, "sceneries", first[sid]))[0]
                ck.error((*path, "id") if "id" in sc else (*path, "class"),
                         f"stage {stage['id']!r}: scenery {sid!r} repeats the scenery on "
                         f"line {line}; give the second one its own 'id:'")
            first.setdefault(sid, ci)
            for i, scene in enumerate(sc.get("scenes") or []):
                ans = scene.get("answer")
                if ans is not None and not (isinstance(ans, str) or (
                        isinstance(ans, list) and ans and all(isinstance(a, str) for a in ans))):
                    ck.error((*path, "scenes", i, "answer"), "answer: expected a role, unknown, "
                             "an answer text or a list of accepted answer texts")
        _, problems = scenes_of(stage, si)
        for path, message in dict.fromkeys(problems):  # stage-level ones repeat per scenery
            ck.error(path, f"stage {stage['id']!r}: {message}")
