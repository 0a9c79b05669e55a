"""What a family is: the shape of its scenarios, their expansion into items,
prompts per method, the scoring rule, and its aggregate metrics.

A family knows the data model and the scoring primitives; it knows nothing of
pytest, backends or reporting. A subclass takes the hooks and declarations it does
not write itself from the modules it names in its `parts` (`families/parts.py`). Third
parties register families through the entry-point
group ``pytest_tom.families`` (name -> Family subclass).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from collections.abc import Collection
from collections.abc import Iterable
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from dataclasses import replace
from typing import Any
from typing import ClassVar
from typing import TypedDict
from typing import TypeVar
from typing import cast

from pytest_tom.core.download import Download
from pytest_tom.core.message import Message
from pytest_tom.core.model import LETTERS
from pytest_tom.core.model import ItemSpec
from pytest_tom.core.model import Suite
from pytest_tom.core.option_table import Opt
from pytest_tom.core.option_table import choice_problems
from pytest_tom.core.outcome import UNPARSEABLE
from pytest_tom.core.outcome import Outcome
from pytest_tom.core.record import Record
from pytest_tom.core.settings import FALLBACK_METHOD
from pytest_tom.core.settings import Settings
from pytest_tom.families.document import LineOf
from pytest_tom.families.document import SuiteDocument
from pytest_tom.families.document import Tagged
from pytest_tom.families.parts import Parts
from pytest_tom.families.parts import apply_parts
from pytest_tom.metrics.declare import Metric
from pytest_tom.metrics.declare import Plot
from pytest_tom.metrics.declare import Value
from pytest_tom.metrics.declare import check_declarations
from pytest_tom.metrics.thought_contrast import Contrast
from pytest_tom.suite.schema import Checker
from pytest_tom.suite.schema import Obj

T = TypeVar("T")

METHOD_HELP = {
    "vanilla": "the question alone (zero-shot)",
    "cot": "chain of thought: reason first, then a second call gives the answer",
    "simtom": "SimToM: first the events the character knows, then the question",
    "1shot": "one worked example before the question",
    "1shot-cot": "one worked example with reasoning, then chain of thought",
}


class MetricTableDict(TypedDict, total=False):
    """`MetricTable.to_dict()`: the table as the JSON report keeps it (`caption` only
    when the table has one)."""

    title: str
    headers: list[str]
    rows: list[list[Any]]
    note: str
    caption: str


@dataclass
class MetricTable:
    """A table for the terminal summary (and kept in the JSON report)."""

    title: str
    headers: list[str]
    rows: list[list[Any]]
    note: str = ""
    caption: str = ""  # the scale of its numbers, stated once ("scores in %, as the paper's")

    def to_dict(self) -> MetricTableDict:
        out: MetricTableDict = {"title": self.title, "headers": self.headers, "rows": self.rows,
                                "note": self.note}
        return {**out, "caption": self.caption} if self.caption else out


@dataclass
class FamilyResult:
    """Aggregate metrics of one suite: flat named numbers (for gates) and tables."""

    metrics: dict[str, float | int | None] = field(default_factory=dict)
    tables: list[MetricTable] = field(default_factory=list)
    # notes on how the figures were made, shown as `name: text` lines (e.g. the embedder used)
    info: dict[str, str] = field(default_factory=dict)


class ScoringContext:
    """Services a scoring rule may need, created lazily (an embedding model, say)."""

    def __init__(self, settings: Settings):
        self.settings = settings
        # name -> the object its factory made: services differ in type, so the entry is
        # `object` and `service` gives it back as its factory's type
        self._services: dict[str, object] = {}

    def service(self, name: str, factory: Callable[[], T]) -> T:
        """The service `name`, made by `factory` at the first call (a name is always
        asked for with the same factory)."""
        if name not in self._services:
            self._services[name] = factory()
        return cast(T, self._services[name])


class Family:
    """Base class of a benchmark family. Subclasses set the class attributes and override
    the hooks, or name the modules that give them in `parts` (`families/parts.py`)."""

    name: str = ""
    # the modules the family is made of, named in its family.py: `Parts(schema=schema, ...)`
    parts: ClassVar[Parts] = Parts()
    methods: tuple[str, ...] = ("vanilla", "cot")
    scenario_schema: Obj = Obj()
    defaults_schema: Obj = Obj(what="defaults mapping")
    description: str = ""
    # default max_tokens for backends without their own (see pytest_tom.asking.answer_length):
    # an answer of this family, and the first call of a reasoning method
    answer_tokens: int = 64
    reasoning_tokens: int = 512
    # `--tom-<name>-*` options: `OPTIONS` of its options part, `options.py` beside
    # `family.py` (the registry reads that module without importing the family)
    options: ClassVar[tuple[Opt, ...]] = ()
    # `pytest-tom convert <subcommand>` -> module with `add_arguments(parser)`, `run(args)`
    # (`Parts(convert="<package>.convert")` is `{name: "<package>.convert"}`)
    converters: ClassVar[Mapping[str, str]] = {}
    # `pytest-tom fetch <name>`: the official files and how they convert (`DOWNLOADS` of
    # its download part; see `pytest_tom.core.download`)
    downloads: ClassVar[tuple[Download, ...]] = ()
    # the headline metrics and their plots, declared once as data (`METRICS` and `PLOTS` of
    # its headline part; see `pytest_tom.metrics.declare`): their values,
    # intervals, paired tests, gate direction, display and plots all come from here
    headline_metrics: ClassVar[tuple[Metric, ...]] = ()
    plots: ClassVar[tuple[Plot, ...]] = ()
    # the contrasts of thought length a reasoning model's run reports (`CONTRASTS` of
    # headline.py; `metrics.thought_contrast`, `results.reasoning.thought_stats`): none by default
    thought_contrasts: ClassVar[tuple[Contrast, ...]] = ()
    # other metrics of `aggregate` (fnmatch patterns over its names) where lower is better:
    # a threshold `name=value` is a ceiling for them and a baseline drop is a rise (a
    # declared metric says so itself: `Metric(higher_is_better=False)`)
    lower_is_better: ClassVar[tuple[str, ...]] = ()
    # --tom-probe (core/probe.py; `NOT_APPLICABLE` of its probes part): each
    # probe this family's items do not take, with one line saying why; they get no copy
    # under it. A probe not named here, `probe_messages` (no-story, no-options) and
    # `reordered` / `gold_place` (shuffle) implement. By default none is declared.
    probes_not_applicable: ClassVar[Mapping[str, str]] = {
        p: "not declared by this family (docs/adding-a-family.md: probes)"
        for p in ("no-story", "no-options", "shuffle")}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("aggregate")
        if own is not None and _takes_two(own):
            cls.aggregate = _with_declared(own)  # type: ignore[method-assign]
        apply_parts(cls, Family)  # what its `parts` give (families/parts.py)
        check_declarations(f"family {cls.name or cls.__name__}", cls.headline_metrics, cls.plots)

    def declared_metrics(self, settings: Settings) -> tuple[Metric, ...]:
        """The headline metrics of a run with `settings` (a family whose definitions follow
        one of its options, e.g. FANToM's ALL* grouping, overrides this)."""
        return self.headline_metrics

    def check(self, data: SuiteDocument, ck: Checker) -> None:
        """Semantic checks of the whole document; report problems on `ck`. Also called
        when the schema found faults (every problem is reported at once): read what the
        schema may have refused with `.get` and `isinstance`. A family's module function
        takes its own document type, a `SuiteDocument` with its `scenarios`
        (`families.document`)."""

    def expand(self, suite: Suite, data: SuiteDocument, settings: Settings,
               line_of: LineOf) -> list[ItemSpec]:
        """Turn the scenarios of a validated document into items (`data`: the family's own
        document type, as for `check`; `line_of`: a YAML path's line in the file)."""
        raise NotImplementedError(_missing(self, "expand"))

    def conversation(self, item: ItemSpec, method: str, responses: list[str]) -> list[Message] | None:
        """The messages of the next model call, given the responses so far; None when done.

        Single-call methods return messages for `responses == []` and None after.
        The last response is the one that is scored.
        """
        raise NotImplementedError(_missing(self, "conversation"))

    def sampling(self, item: ItemSpec, settings: Settings) -> Mapping[str, Any] | None:
        """How the family's protocol samples `item` under the run's options, when it
        differs from the run's own decoding: `temperature`, `seed`, and any other field of
        the request body (`top_p` ...), which goes to the server as `--tom-request-field`
        does. None (the default): the run's decoding (`--tom-temperature`, `--tom-seed`)."""
        return None

    def score(self, item: ItemSpec, response: str, ctx: ScoringContext) -> Outcome:
        raise NotImplementedError(_missing(self, "score"))

    def probe_messages(self, item: ItemSpec, probe: str, method: str) -> list[Message]:
        """The first (only) request of `item` under `probe`: `no-story`, the question and
        its options without the story or conversation (read and scored as the item is);
        `no-options`, the story and the question asked open-ended (the reply is read
        against the options' texts alone: `items.probe_scoring`)."""
        raise NotImplementedError(f"family {self.name}: probe {probe} not declared")

    def gold_place(self, item: ItemSpec) -> int:
        """Where `item`'s gold option is in `item.choices` (from 0). By default the gold is
        a letter (`A`, or `a`)."""
        return LETTERS.index(str(item.gold).strip().lower())

    def reordered(self, item: ItemSpec, order: tuple[int, ...]) -> ItemSpec:
        """`item` with its options shown in `order` (`order[k]`: the place in `item.choices`
        of the option shown k-th) and its gold moved with them. By default the gold is a
        letter, kept in its case; a family whose gold is not overrides this."""
        gold = str(item.gold).strip()
        letter = LETTERS[order.index(self.gold_place(item))]
        return replace(item, choices=[item.choices[i] for i in order],
                       gold=letter.upper() if gold.isupper() else letter)

    def aggregate(self, records: list[Record], settings: Settings,
                  declared: Mapping[str, Value]) -> FamilyResult:
        """The figures of one suite beyond the declared metrics (named numbers, usable in
        gates) and its tables in the paper's layout.

        `declared` holds the value of every declared metric (`declared_metrics`), computed
        once by the engine from its declaration, with the counts behind it
        (`metrics.declare.Value`): a table shows those, not a count of its own. The engine
        sets the declared values in the suite's metrics itself; a family marks one
        unavailable in this run (e.g. a figure that needs an optional scorer) by reporting
        it as None. An override taking only `(records, settings)` is accepted too (a family
        without tables of declared metrics)."""
        return FamilyResult()

    def prepare_scoring(self, pairs: Iterable[tuple[ItemSpec, str]], ctx: ScoringContext) -> int:
        """Optional: prepare, in one batch, the scoring of many (item, response) pairs.

        Called with the answers of the whole selection after the request phase and
        before any item is scored; under xdist, with the answers a worker has at hand
        whenever it is about to score an item not prepared yet (a pair is handed over
        once; the rest of the answers come in later calls).
        Scoring must give the same outcome with or without it. Returns how many
        pairs were prepared.
        """
        return 0

    # metric names reported beyond those of `aggregate([])`, as fnmatch patterns (names that
    # depend on the data, e.g. "class.*"); None: the names cannot be known before the run,
    # so gate options naming this family's metrics are checked after the run only
    metric_patterns: tuple[str, ...] | None = None

    def option_problems(self, options: Mapping[str, object]) -> list[str]:
        """Usage errors in this family's options (checked at start), one text per problem:
        by default a value none of its option's choices (a family with checks of its own
        adds them to `choice_problems(options, OPTIONS)`)."""
        return choice_problems(options, self.options)

    def unavailable(self, item: ItemSpec, settings: Settings) -> str | None:
        """A reason to skip the item (e.g. an optional dependency missing), or None."""
        return None

    def shard_unit(self, item: ItemSpec, settings: Settings) -> str:
        """The unit `--tom-shard` keeps whole: every grouped figure of the family (goal
        accuracy, pairs, per-set scores) reads items of one unit together. The item's
        group by default; a family whose grouping follows an option says so here."""
        return item.group


def _missing(family: Family, hook: str) -> str:
    """What a family without `hook` is told (one that named no part giving it)."""
    return (f"family {family.name or type(family).__name__} has no {hook}: name the part "
            f"that defines it in `parts = Parts(...)` in its family.py, or write the method "
            f"(docs/adding-a-family.md)")


def _takes_two(fn: Callable[..., Any]) -> bool:
    """True for an `aggregate(self, records, settings)` written without `declared`."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return False
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
        return False
    return len(params) == 3


def _with_declared(fn: Callable[..., FamilyResult]) -> Callable[..., FamilyResult]:
    @functools.wraps(fn)
    def aggregate(self: Family, records: list[Record], settings: Settings,
                  declared: Mapping[str, Value] | None = None) -> FamilyResult:
        return fn(self, records, settings)

    return aggregate


def method_for(family: Family, method: str) -> str:
    """The method an item of `family` runs with: `method` where the family offers it, else
    vanilla (a `--tom-method` offered by some families applies where offered; the header
    says where it did not)."""
    return method if method in family.methods else FALLBACK_METHOD


def tags_of(*owners: Tagged | str) -> list[str]:
    """An item's tags, each once, in order: the `tags` of each mapping given (the suite's
    `defaults`, the scenario, the question ...) and each string given itself."""
    tags = (tag for owner in owners
            for tag in ([owner] if isinstance(owner, str) else owner.get("tags", ())))
    return list(dict.fromkeys(tags))


def letter_outcome(letter: str | None, how: str, gold: str) -> Outcome:
    """The outcome of a reply read as the option `letter` (`how`: the rule that read it),
    judged against the `gold` letter; a reply read as no option (None) is wrong and
    reported unparseable."""
    if letter is None:
        return Outcome(correct=False, error=UNPARSEABLE, detail=how)
    return Outcome(correct=letter == gold, parsed=letter, detail=f"read as {letter}: {how}")


def unread_choice(letters: Collection[str], none_named: str) -> Outcome | None:
    """The outcome of a reply that names no option (unparseable; `none_named` says what
    was expected) or several (wrong, the letters as parsed), or None when it names one."""
    if not letters:
        return Outcome(correct=False, error=UNPARSEABLE, detail=none_named)
    if len(letters) > 1:
        several = "both" if len(letters) == 2 else "several"
        return Outcome(correct=False, parsed=sorted(letters), detail=f"names {several} options")
    return None


def single_call(messages: list[Message], responses: list[str]) -> list[Message] | None:
    """Helper for one-call methods."""
    return messages if not responses else None


def two_calls(first: list[Message], follow_up: str, responses: list[str]) -> list[Message] | None:
    """Helper for chain of thought: reason, then ask for the answer given the reasoning."""
    if not responses:
        return first
    if len(responses) == 1:
        return [*first, {"role": "assistant", "content": responses[0]},
                {"role": "user", "content": follow_up}]
    return None
