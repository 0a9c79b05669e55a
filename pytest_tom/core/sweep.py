"""`--tom-sweep NAME=V1,V2,...`: every selected item asked once per value of one setting.

The option is read here into a `Sweep` (the setting and its typed values, checked: a
usage error names the bad value and the fix), and a sweep turns each item into one copy
per value (`expand`): the copy's suite is `<suite>[<label>]` (`bigtom[thinking-tokens=16]`),
so every layer that groups by suite (aggregation, the early stop, the reports) keeps the
values apart without knowing of the sweep, and its `sweep` field (`SweepPoint`) says the
value. `value_options` gives the options a value's requests are built from: the request
then carries that value, and the cache key (a hash of the request's parameters) with it.

Settings: `thinking-tokens`, `reasoning-effort`, `thinking` (off/on), `max-tokens`,
`temperature`, or any other name: a request field (`--tom-request-field NAME=JSON`), whose
values are JSON (a value that is not JSON is a string).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any, TypedDict

from pytest_tom.core.json_value import JSONValue
from pytest_tom.core.model import ItemSpec, SweepPoint

FLAG = "--tom-sweep"
EXAMPLE = "e.g. --tom-sweep thinking-tokens=256,1024,4096"


def _tokens(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise ValueError("a whole number of tokens, at least 1")
    return int(text)


def _temperature(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError("a number, 0 or more") from None
    if not (math.isfinite(value) and value >= 0):
        raise ValueError("a finite number, 0 or more")
    return value


def _thinking(text: str) -> str:
    if text.lower() not in ("on", "off"):
        raise ValueError("on or off")
    return text.lower()


def _effort(text: str) -> str:
    if not text:
        raise ValueError("a non-empty effort (low, medium, high, as the server accepts)")
    return text


def _field(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


# setting -> (the TomOptions field it sets, the reader of one value)
SETTINGS: dict[str, tuple[str, Callable[[str], Any]]] = {
    "thinking-tokens": ("thinking_tokens", _tokens),
    "reasoning-effort": ("reasoning_effort", _effort),
    "thinking": ("thinking", _thinking),
    "max-tokens": ("max_tokens", _tokens),
    "temperature": ("temperature", _temperature),
}


def value_text(value: Any) -> str:
    """A value as item names and headers show it: as given for numbers and words, compact
    JSON for a request field's structure."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or value is None or isinstance(value, dict | list):
        return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return str(value)


class SweepSetting(TypedDict):
    """The sweep in a report's settings (`settings.asked.sweep`)."""

    setting: str
    values: list[JSONValue]  # typed as the setting takes it (a request field's: any JSON)
    request_field: bool  # whether the setting is a request field


@dataclass(frozen=True)
class Sweep:
    """The setting swept and its values (typed, in the order given, at least two)."""

    setting: str
    values: tuple[Any, ...]

    @property
    def is_field(self) -> bool:
        """Whether the setting is a request field (not one of `SETTINGS`)."""
        return self.setting not in SETTINGS

    def label(self, value: Any) -> str:
        return f"{self.setting}={value_text(value)}"

    def points(self, suite: str) -> list[SweepPoint]:
        return [SweepPoint(self.setting, v, self.label(v), suite, n)
                for n, v in enumerate(self.values)]

    def as_dict(self) -> SweepSetting:
        """The sweep in a report's settings (`settings.asked.sweep`)."""
        return {"setting": self.setting, "values": list(self.values),
                "request_field": self.is_field}

    def __str__(self) -> str:
        return f"{self.setting}={','.join(value_text(v) for v in self.values)}"


def parse_sweep(raw: Any) -> Sweep | None:
    """`NAME=V1,V2,...` as a `Sweep` (empty or `off`: None). ValueError names the problem
    and the fix, starting with the option's name."""
    text = str(raw).strip()
    if not text or text.lower() in ("off", "none"):
        return None
    name, sep, rest = text.partition("=")
    name = name.strip()
    if not sep or not name or not name.replace("_", "").replace("-", "").isalnum():
        raise ValueError(f"{FLAG} {text!r}: expected NAME=V1,V2,... ({EXAMPLE}); NAME is "
                         f"{', '.join(SETTINGS)} or a request field's name")
    if name.replace("_", "-") in SETTINGS:  # thinking_tokens is thinking-tokens
        name = name.replace("_", "-")
    read = SETTINGS[name][1] if name in SETTINGS else _field
    raws = [v.strip() for v in rest.split(",")]
    if any(not v for v in raws):
        raise ValueError(f"{FLAG} {text!r}: an empty value; separate the values with single "
                         f"commas ({EXAMPLE})")
    values = []
    for v in raws:
        try:
            values.append(read(v))
        except ValueError as exc:
            raise ValueError(f"{FLAG} {name}: {v!r} is not {exc}") from None
    if len(values) < 2:
        raise ValueError(f"{FLAG} {text!r}: give at least two values to compare ({EXAMPLE}); "
                         f"for one value use the setting's own option")
    labels = [value_text(v) for v in values]
    twice = sorted({t for t in labels if labels.count(t) > 1})
    if twice:
        raise ValueError(f"{FLAG} {text!r}: {', '.join(twice)} given twice; give each value once")
    return Sweep(name, tuple(values))


def sweep_problems(options: Any) -> list[str]:
    """Options that clash with the sweep (a usage error before anything runs): the swept
    setting given as its own option too, or a thought's room swept under a fixed
    `--tom-max-tokens` (which the room is not added to, so every value would ask the same)."""
    sweep: Sweep | None = options.sweep
    if sweep is None:
        return []
    problems = []
    if sweep.is_field:
        if any(name == sweep.setting for name, _ in options.request_field):
            problems.append(f"{FLAG} {sweep.setting} and --tom-request-field {sweep.setting}=...:"
                            f" the sweep sets that field; leave out the --tom-request-field")
        return problems
    attr = SETTINGS[sweep.setting][0]
    if attr != "temperature" and getattr(options, attr) is not None:
        problems.append(f"{FLAG} {sweep.setting} and --tom-{sweep.setting} "
                        f"{getattr(options, attr)!r}: the sweep sets it per value; leave out "
                        f"--tom-{sweep.setting}")
    if sweep.setting == "thinking-tokens" and options.max_tokens is not None:
        problems.append(f"{FLAG} thinking-tokens with --tom-max-tokens {options.max_tokens}: "
                        f"the thought's room is not added to a fixed --tom-max-tokens, so every "
                        f"value would ask the same; leave out --tom-max-tokens, or sweep "
                        f"max-tokens instead")
    return problems


def value_options(options: Any, point: SweepPoint) -> Any:
    """The options a value's requests are built from: `options` with the swept setting
    set to the value (a request field replaces one of the same name)."""
    if point.setting in SETTINGS:
        return replace(options, **{SETTINGS[point.setting][0]: point.value})
    fields = tuple((n, v) for n, v in options.request_field if n != point.setting)
    raw = json.dumps(point.value, sort_keys=True, ensure_ascii=False)
    return replace(options, request_field=(*fields, (point.setting, raw)))


def expand(specs: Iterable[ItemSpec], sweep: Sweep | None) -> list[ItemSpec]:
    """Each item once per value, the values of an item next to each other (as pytest's
    parametrize orders them); without a sweep, `specs` as they are."""
    specs = list(specs)
    if sweep is None:
        return specs
    out = []
    for spec in specs:
        for point in sweep.points(spec.suite):
            out.append(replace(spec, suite=f"{spec.suite}[{point.label}]", sweep=point))
    return out


def node_name(spec: ItemSpec, name: str) -> str:
    """The pytest name of an item's last id part: `q1[thinking-tokens=1024]` in a sweep."""
    return f"{name}[{spec.sweep.label}]" if spec.sweep is not None else name
