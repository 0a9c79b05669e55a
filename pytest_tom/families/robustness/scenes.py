"""From a scenery to its scenes: object bindings, text edits, belief traces, answers.

A scenery is a story template: `{role}` placeholders stand for the objects that
the answers are about (`{real}` and `{label}` for an unexpected-contents story,
`{old}` and `{new}` for an unexpected-transfer story), `{agent}` for the person
whose belief is asked and `{protagonist}` for the stage's protagonist. A
capitalised placeholder (`{Real}`) capitalises the value's first letter.

Sixteen scenes are generated from each scenery (the paper's procedure after
Kosinski): four *variants* of the text x two *object bindings* x two
*questions*:

- variants: ``story`` (the scenery as written), ``true_belief`` (the text
  edited so that the agent's belief matches the world), ``informed`` (the agent
  is told the true state), ``visible`` (the true state can be seen); each
  non-story variant is a set of edits (`replace` old -> new, then `append`)
  declared once for the stage and adjustable per scenery;
- bindings: ``orig`` (the stage's objects) and ``swap`` (the objects swapped:
  by default the two roles exchange their values);
- questions: ``belief`` (what the agent believes) and ``world`` (the true
  state, a sanity check).

A scenery may instead list its scenes by hand (`scenes:`).

Everything here is plain data in, plain data out, and every problem is
reported as (data path, message) so that the family can point at file lines.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from dataclasses import field
from typing import Any

from pytest_tom.families.kit import did_you_mean
from pytest_tom.families.robustness.suite_shape import Ask
from pytest_tom.families.robustness.suite_shape import Scenery
from pytest_tom.families.robustness.suite_shape import Stage

VARIANTS = ("story", "true_belief", "informed", "visible")
EDITED_VARIANTS = VARIANTS[1:]
BINDINGS = ("orig", "swap")
QUESTIONS = ("belief", "world")
UNKNOWN = "unknown"
RESERVED = ("agent", "protagonist", UNKNOWN)

ROLE = re.compile(r"^[a-z][a-z0-9_]*$")
_PLACEHOLDER = re.compile(r"\{([A-Za-z][A-Za-z0-9_]*)\}")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"“‘(])|(?<=[.!?][\"”’)])\s+(?=[A-Z\"“‘(])")
_WS = re.compile(r"\s+")

Path_ = tuple[Any, ...]
Problems = list[tuple[Path_, str]]
Binding = dict[str, list[str]]  # role -> accepted answers (the first one is written in the text)


@dataclass
class Scene:
    """One generated (or hand-written) scene: one item."""

    id: str
    variant: str  # story | true_belief | informed | visible | hand
    binding: str  # orig | swap
    question: str  # belief | world | custom
    text: str
    ask: str
    key: str
    right: list[str]
    wrong: list[str]
    agent: str
    beliefs: list[str] | None = None  # the protagonist's belief after each sentence
    path: Path_ = ()  # where the scene (or its scenery) is written
    gold_role: str = ""


@dataclass
class _Variant:
    """A merged variant: the edits and answers, each remembering where it was written."""

    replace: list[tuple[str, str, Path_]] = field(default_factory=list)
    append: tuple[str, Path_] | None = None
    belief: tuple[str, Path_] | None = None
    world: tuple[str, Path_] | None = None
    beliefs: tuple[list[str], Path_] | None = None
    defined: bool = False


def squash(text: str) -> str:
    """Stories are compared and edited with their whitespace collapsed to single spaces."""
    return _WS.sub(" ", str(text)).strip()


def sentences(text: str) -> list[str]:
    """Split a story into sentences: after . ! ? (and a closing quote) before a capital."""
    t = squash(text)
    return [s for s in _SENTENCE_END.split(t) if s] if t else []


def placeholders(text: str) -> list[str]:
    return _PLACEHOLDER.findall(str(text))


def fill(template: str, values: dict[str, str]) -> str:
    """Replace `{name}` / `{Name}` placeholders (all names must be known: checked before)."""

    def sub(m: re.Match[str]) -> str:
        name = m.group(1)
        value = values[name.lower()] if name.lower() in values else values[name]
        return value[:1].upper() + value[1:] if name[0].isupper() else value

    return _PLACEHOLDER.sub(sub, template)


def as_binding(raw: Any) -> Binding:
    """`{role: value | [value, alternative ...]}` as role -> list of accepted answers."""
    out: Binding = {}
    for role, value in (raw or {}).items():
        vals = [value] if isinstance(value, str) else list(value)
        out[str(role)] = [squash(v) for v in vals]
    return out


def exchanged(binding: Binding) -> Binding | None:
    """The default swap: two roles exchange their values (None for other role counts)."""
    if len(binding) != 2:
        return None
    a, b = binding
    return {a: binding[b], b: binding[a]}


class SceneryBuilder:
    """Generates the scenes of every scenery of one stage, collecting problems."""

    def __init__(self, stage: Stage, stage_path: Path_):
        self.stage = stage
        self.path = stage_path
        self.problems: Problems = []
        self.name = ""

    # -- helpers ---------------------------------------------------------------------
    def error(self, path: Path_, message: str) -> None:
        self.problems.append((path, message))

    def _check_placeholders(self, text: str, roles: Iterable[str], path: Path_, what: str) -> bool:
        known = set(roles) | {"agent", "protagonist"}
        bad = sorted({p for p in placeholders(text) if p.lower() not in known})
        if bad:
            hint = did_you_mean(bad[0].lower(), known) if len(bad) == 1 else ""
            self.error(path, f"{what}: unknown placeholder{'s' if len(bad) > 1 else ''} "
                       f"{', '.join('{' + b + '}' for b in bad)}{hint}; known: "
                       f"{', '.join('{' + k + '}' for k in sorted(known))}")
            return False
        return True

    def _role(self, value: str, binding: Binding, path: Path_, what: str,
              allow_unknown: bool) -> bool:
        if value in binding or (allow_unknown and value == UNKNOWN):
            return True
        options = sorted(binding) + ([UNKNOWN] if allow_unknown else [])
        self.error(path, f"{what}: {value!r} is not a role of the objects"
                   f"{did_you_mean(value, options)}; use one of {', '.join(options)}")
        return False

    def _merge_variant(self, name: str, sc: Scenery, sc_path: Path_) -> _Variant:
        merged = _Variant()
        sources = [((self.stage.get("variants") or {}).get(name), (*self.path, "variants", name)),
                   (((sc.get("variants") or {}).get(name)), (*sc_path, "variants", name))]
        for raw, path in sources:
            if not isinstance(raw, dict):
                continue
            merged.defined = True
            if "replace" in raw:
                merged.replace = [(squash(e["old"]), squash(e["new"]), (*path, "replace", i))
                                  for i, e in enumerate(raw["replace"])]
            if "append" in raw:
                merged.append = (squash(raw["append"]), (*path, "append"))
            for key in ("belief", "world"):
                if key in raw:
                    setattr(merged, key, (str(raw[key]), (*path, key)))
            if "beliefs" in raw:
                merged.beliefs = ([str(b) for b in raw["beliefs"]], (*path, "beliefs"))
        return merged

    # -- the scenes of one scenery ----------------------------------------------------
    def scenes(self, sc: Scenery, sc_path: Path_) -> list[Scene]:
        stage = self.stage
        self.name = f"{stage.get('id')}::{scenery_id(sc)}"
        orig = as_binding(sc.get("objects") or stage.get("objects"))
        objects_path = (*sc_path, "objects") if "objects" in sc else (*self.path, "objects")
        if "swap" in sc:
            swap_raw: Any = sc["swap"]
            swap_path = (*sc_path, "swap")
        elif "objects" not in sc and "swap" in stage:
            swap_raw, swap_path = stage["swap"], (*self.path, "swap")
        else:
            swap_raw, swap_path = None, objects_path
        swap = as_binding(swap_raw) if swap_raw is not None else exchanged(orig)
        if swap is None:
            self.error(objects_path, f"the objects have {len(orig)} roles; the default object swap "
                       f"exchanges exactly two, so give 'swap:' with a value for each role")
            return []
        if set(swap) != set(orig):
            self.error(swap_path, f"swap: roles {sorted(swap)} differ from the objects' roles "
                       f"{sorted(orig)}; give a value for each role")
            return []
        ok = True
        for name, binding, path in (("objects", orig, objects_path), ("swap", swap, swap_path)):
            seen: dict[str, str] = {}
            for role, values in binding.items():
                for v in values:
                    k = v.lower()
                    if k in seen and seen[k] != role:
                        self.error(path, f"{name}: {v!r} is given for both {seen[k]!r} and "
                                   f"{role!r}; the roles need different answers")
                        ok = False
                    seen[k] = role
        if not ok:
            return []
        protagonist = squash(stage["protagonist"])
        agent = squash(sc.get("agent", protagonist))
        key = squash(sc.get("key", stage["key"]))
        asks: Ask = {**(stage.get("ask") or {}), **(sc.get("ask") or {})}
        for q in QUESTIONS:
            if q not in asks:
                self.error(sc_path, f"no '{q}' question: give ask.{q} in the stage or the scenery")
                ok = False
            else:
                apath = (*sc_path, "ask", q) if q in (sc.get("ask") or {}) else (*self.path, "ask", q)
                ok = self._check_placeholders(asks[q], orig, apath, f"ask.{q}") and ok
        text = squash(sc["text"])
        ok = self._check_placeholders(text, orig, (*sc_path, "text"), "text") and ok
        belief = str(sc.get("belief", stage.get("belief", "")))
        world = str(sc.get("world", stage.get("world", "")))
        bpath = (*sc_path, "belief") if "belief" in sc else (*self.path, "belief")
        wpath = (*sc_path, "world") if "world" in sc else (*self.path, "world")
        if not belief:
            self.error(sc_path, "no belief answer: give 'belief:' (a role or unknown) in the "
                       "stage or the scenery")
            ok = False
        else:
            ok = self._role(belief, orig, bpath, "belief", allow_unknown=True) and ok
        if not world:
            self.error(sc_path, "no world answer: give 'world:' (a role) in the stage or the scenery")
            ok = False
        else:
            ok = self._role(world, orig, wpath, "world", allow_unknown=False) and ok
        trace = self._trace(sc.get("beliefs"), text, orig, (*sc_path, "beliefs"))
        if trace is not None and agent == protagonist and belief and trace[-1] != belief:
            self.error((*sc_path, "beliefs"), f"beliefs: the belief after the last sentence is "
                       f"{trace[-1]!r} but the scenery's belief answer is {belief!r}")
            ok = False
        if not ok:
            return []
        if "scenes" in sc:
            return self._hand_scenes(sc, sc_path, text, orig, swap, agent, protagonist, key, asks)
        texts: dict[str, tuple[str, str, str, list[str] | None]] = {
            "story": (text, belief, world, trace)}
        for name in EDITED_VARIANTS:
            v = self._merge_variant(name, sc, sc_path)
            built = self._edited(name, v, text, world, trace, orig, sc_path)
            if built is None:
                ok = False
            else:
                texts[name] = built
        if not ok:
            return []
        out: list[Scene] = []
        for variant in VARIANTS:
            vtext, vbelief, vworld, vtrace = texts[variant]
            for bname, binding in (("orig", orig), ("swap", swap)):
                values = {r: vals[0] for r, vals in binding.items()}
                values.update(agent=agent, protagonist=protagonist)
                story = fill(vtext, values)
                for q, role in (("belief", vbelief), ("world", vworld)):
                    right, wrong = answers(role, binding)
                    out.append(Scene(
                        id=f"{variant}.{bname}.{q}", variant=variant, binding=bname, question=q,
                        text=story, ask=fill(asks[q], values), key=fill(key, values), right=right,
                        wrong=wrong, agent=agent, path=sc_path, gold_role=role,
                        beliefs=[resolve(b, binding) for b in vtrace] if vtrace else None))
        return out

    def _trace(self, raw: Any, text: str, binding: Binding, path: Path_) -> list[str] | None:
        if raw is None:
            return None
        trace = [str(b) for b in raw]
        n = len(sentences(text))
        if len(trace) != n:
            self.error(path, f"beliefs: {len(trace)} entries for {n} sentences; give the belief "
                       f"after each sentence (sentences: {sentences(text)!r})")
            return None
        good = all(self._role(b, binding, (*path, i), "beliefs", allow_unknown=True)
                   for i, b in enumerate(trace))
        return trace if good else None

    def _edited(self, name: str, v: _Variant, text: str, world: str, trace: list[str] | None,
                binding: Binding, sc_path: Path_) -> tuple[str, str, str, list[str] | None] | None:
        if not v.defined:
            self.error(sc_path, f"no '{name}' variant: declare variants.{name} in the stage "
                       f"(or in this scenery) with 'replace' and/or 'append' edits")
            return None
        if not v.replace and v.append is None:
            self.error(sc_path, f"variant {name}: no edit ('replace' or 'append'); the "
                       f"scene would repeat the story")
            return None
        ok = True
        out = text
        for old, new, path in v.replace:
            if old not in out:
                self.error(path, f"variant {name}: {old!r} does not occur in the text of scenery "
                           f"{self.name}; fix the edit or override variants.{name} in that scenery")
                ok = False
                continue
            ok = self._check_placeholders(new, binding, path, f"variant {name}") and ok
            out = out.replace(old, new)
        if v.append is not None:
            ok = self._check_placeholders(v.append[0], binding, v.append[1],
                                          f"variant {name}") and ok
            out = f"{out} {v.append[0]}"
        vworld = world
        if v.world is not None:
            ok = self._role(v.world[0], binding, v.world[1], f"variant {name}: world", False) and ok
            vworld = v.world[0]
        vbelief = vworld
        if v.belief is not None:
            ok = self._role(v.belief[0], binding, v.belief[1], f"variant {name}: belief",
                            True) and ok
            vbelief = v.belief[0]
        vtrace: list[str] | None = None
        if v.beliefs is not None and ok:
            given, path = v.beliefs
            if not v.replace:  # append-only: the trace goes on from the scenery's trace
                if trace is not None:
                    extra = self._trace(given, v.append[0] if v.append else "", binding, path)
                    vtrace = trace + extra if extra is not None else None
                    ok = ok and extra is not None
            else:
                vtrace = self._trace(given, out, binding, path)
                ok = ok and vtrace is not None
            if vtrace is not None and vtrace[-1] != vbelief and ok:
                self.error(path, f"variant {name}: the belief after the last sentence is "
                           f"{vtrace[-1]!r} but the variant's belief answer is {vbelief!r}")
                ok = False
        return (out, vbelief, vworld, vtrace) if ok else None

    def _hand_scenes(self, sc: Scenery, sc_path: Path_, text: str, orig: Binding,
                     swap: Binding, agent: str, protagonist: str, key: str,
                     asks: Ask) -> list[Scene]:
        out: list[Scene] = []
        seen: dict[str, int] = {}
        for i, raw in enumerate(sc["scenes"]):
            path = (*sc_path, "scenes", i)
            sid = str(raw["id"])
            if sid in seen:
                self.error((*path, "id"), f"duplicate scene id {sid!r} (scene {seen[sid] + 1} "
                           f"has it); scene ids must be unique in a scenery")
                continue
            seen[sid] = i
            bname = str(raw.get("objects", "orig"))
            binding = orig if bname == "orig" else swap
            stext = squash(raw.get("text", text))
            ok = self._check_placeholders(stext, binding, (*path, "text"), "text")
            if "ask" in raw:
                ask_t, q = str(raw["ask"]), "custom"
                ok = self._check_placeholders(ask_t, binding, (*path, "ask"), "ask") and ok
            elif "question" in raw:
                q = str(raw["question"])
                ask_t = asks[q]
            else:
                self.error(path, "a scene needs 'question: belief|world' or its own 'ask:'")
                continue
            answer = raw.get("answer")
            if answer is None:
                answer = sc.get("belief", self.stage.get("belief")) if q == "belief" else \
                    sc.get("world", self.stage.get("world"))
                if answer is None:
                    self.error(path, "a scene with its own 'ask:' needs 'answer:'")
                    continue
            if not ok:
                continue
            values = {r: vals[0] for r, vals in binding.items()}
            values.update(agent=agent, protagonist=protagonist)
            if isinstance(answer, str) and (answer in binding or answer == UNKNOWN):
                right, wrong = answers(answer, binding)
                role = answer
            else:
                right = [squash(a) for a in ([answer] if isinstance(answer, str) else answer)]
                lowered = {r.lower() for r in right}
                wrong = [v for vals in binding.values() for v in vals if v.lower() not in lowered]
                role = ""
            if "wrong" in raw:
                wrong = []
                for w in raw["wrong"]:
                    wrong.extend(binding[w] if w in binding else [squash(w)])
            trace = self._trace(raw.get("beliefs"), stext, binding, (*path, "beliefs"))
            out.append(Scene(
                id=sid, variant=str(raw.get("variant", "hand")), binding=bname, question=q,
                text=fill(stext, values), ask=fill(ask_t, values),
                key=fill(str(raw.get("key", key)), values), right=right, wrong=wrong, agent=agent,
                path=path, gold_role=role,
                beliefs=[resolve(b, binding) for b in trace] if trace else None))
        return out


def answers(role: str, binding: Binding) -> tuple[list[str], list[str]]:
    """Right answers for a gold role (or unknown) and the wrong ones: the other roles' values."""
    if role == UNKNOWN:
        return [UNKNOWN], [v for vals in binding.values() for v in vals]
    right = list(binding[role])
    lowered = {r.lower() for r in right}
    wrong = [v for r, vals in binding.items() if r != role for v in vals if v.lower() not in lowered]
    return right, wrong


def resolve(role: str, binding: Binding) -> str:
    return UNKNOWN if role == UNKNOWN else binding[role][0]


def scenery_id(sc: Scenery) -> str:
    """A scenery's id: its `id`, else its complexity class."""
    return str(sc.get("id") or sc.get("class"))


def scenes_of(stage: Stage, si: int) -> tuple[list[tuple[Scenery, list[Scene]]], Problems]:
    """The scenes of every scenery of stage number `si`, and the problems found building them."""
    builder = SceneryBuilder(stage, ("scenarios", si))
    out = []
    for ci, sc in enumerate(stage["sceneries"]):
        out.append((sc, builder.scenes(sc, ("scenarios", si, "sceneries", ci))))
    return out, builder.problems
