"""ToMBench items. The default protocol asks each question once with its options in file
order (item id = the question's id). The official protocol asks it `--tom-tombench-tries`
times (`<question>::try-<k>`), each try with its options in an order drawn from the run's
seed and the try's id, as the authors' run_api.py shuffles them five times; the tries of a
question are one group, so `--tom-shard` keeps them together and the majority vote sees
them all."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pytest_tom.families.kit import ItemSpec
from pytest_tom.families.kit import Settings
from pytest_tom.families.kit import Suite
from pytest_tom.families.kit import tags_of

from .catalogue import TASK_BY_NAME
from .catalogue import dimension_of
from .catalogue import parse_ability_field
from .catalogue import slug
from .schema import LETTERS
from .schema import TomBenchDefaults
from .schema import TomBenchScenario
from .schema import TomBenchSuite
from .schema import option_texts


def tries_of(settings: Settings) -> int:
    """How many times each question is asked: 1, or the official protocol's tries."""
    if settings.options.get("tombench_protocol", "default") != "official":
        return 1
    return int(settings.options.get("tombench_tries", 5))


def expand(suite: Suite, data: TomBenchSuite, settings: Settings,
           line_of: Callable[[tuple[Any, ...]], int]) -> list[ItemSpec]:
    """The items of a ToMBench suite, in file order (a question's tries together)."""
    defaults = data.get("defaults") or {}
    language = defaults.get("language", "en")
    tries = tries_of(settings)
    official = settings.options.get("tombench_protocol", "default") == "official"
    items: list[ItemSpec] = []
    for si, sc in enumerate(data["scenarios"]):
        line = line_of(("scenarios", si))
        for k in range(1, tries + 1) if official else (0,):
            items.append(item_of(suite, sc, defaults, language, k, settings, line))
    return items


def item_of(suite: Suite, sc: TomBenchScenario, defaults: TomBenchDefaults,
            language: str, attempt: int, settings: Settings, line: int) -> ItemSpec:
    """Try `attempt` (0: the default protocol's one pass) of question `sc`."""
    texts = option_texts(sc)
    qid = str(sc["id"])
    item_id = f"{qid}::try-{attempt}" if attempt else qid
    order = list(range(len(texts)))
    if attempt:
        settings.rng("tombench-options", suite.name, item_id).shuffle(order)
    answer = str(sc["answer"])
    field = str(sc["ability"])
    abilities, _ = parse_ability_field(field)
    dimensions = list(dict.fromkeys(dimension_of(a) for a in abilities))
    task = TASK_BY_NAME[sc.get("task") or defaults["task"]]
    meta = {
        "task": task.name,
        "abilities": abilities,
        "dimensions": dimensions,
        "ability_field": field,
        "answer": answer,
        "answer_as_released": str(sc.get("answer_as_released", answer)),
        "order": [LETTERS[i] for i in order],
        "try": attempt,
        "language": language,
    }
    tags = tags_of(defaults, sc)
    return ItemSpec(
        id=item_id, suite=suite.name, family=suite.family, scenario=qid, kind=task.slug,
        question=str(sc["question"]), gold=LETTERS[order.index(LETTERS.index(answer))],
        choices=[texts[i] for i in order], tags=tags,
        markers=[task.slug, *(slug(d) for d in dimensions)],
        source={"file": suite.path, "line": line, **(sc.get("source") or {})},
        meta=meta, line=line,
        data={"story": str(sc["story"]), "file_options": texts},
    )
