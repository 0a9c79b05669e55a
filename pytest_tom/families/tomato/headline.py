"""ToMATO's metrics and plots, declared once (see `pytest_tom.metrics.declare`), the
breakdowns of the paper's tables:

- `accuracy`: every question;
- `state.<mental state>.order<k>`: accuracy per mental state x order (the paper's main
  table: belief, intention, desire, emotion, knowledge; first and second order);
- `state.<mental state>` and `order<k>`: the margins of that table;
- `fb`: accuracy on the false-belief questions (ToMATO-FB);
- `unreadable`: the share of replies that name no option (lower is better).

Each accuracy is a share of judged questions (Wilson interval, McNemar test in compare);
`unreadable` is a mean over questions (cluster bootstrap by question)."""

from __future__ import annotations

from collections.abc import Callable

from pytest_tom.families.kit import GROUPED
from pytest_tom.families.kit import UNPARSEABLE
from pytest_tom.families.kit import Metric
from pytest_tom.families.kit import Plot
from pytest_tom.families.kit import Record
from pytest_tom.families.kit import RecordView
from pytest_tom.families.kit import ValueMean
from pytest_tom.families.kit import mean_of
from pytest_tom.families.kit import meta
from pytest_tom.families.kit import scenario_of

from .schema import MENTAL_STATES
from .schema import ORDERS

PLOTS = (
    Plot("states", "ToMATO accuracy per mental state and order", ylabel="accuracy (%)",
         baselines=(("chance (4 options)", 0.25),)),
    Plot("overall", "ToMATO accuracy", ylabel="accuracy (%)",
         baselines=(("chance (4 options)", 0.25),)),
)


def state_order(state: str, order: int) -> Callable[[Record], bool]:
    return lambda r: meta(r)["mental_state"] == state and meta(r)["order"] == order


def in_state(state: str) -> Callable[[Record], bool]:
    return lambda r: meta(r)["mental_state"] == state


def in_order(order: int) -> Callable[[Record], bool]:
    return lambda r: meta(r)["order"] == order


def false_belief(rec: Record) -> bool:
    return bool(meta(rec)["false_belief"])


def judged(rec: Record) -> bool:
    return RecordView(rec).correct is not None


def unreadable(rec: Record) -> float:
    return 1.0 if RecordView(rec).error == UNPARSEABLE else 0.0


def _metrics() -> tuple[Metric, ...]:
    out = [Metric("accuracy", "ToMATO accuracy", plot="overall", short="all")]
    for state in MENTAL_STATES:
        for order in ORDERS:
            out.append(Metric(f"state.{state}.order{order}",
                              f"{state}, order {order} accuracy", select=state_order(state, order),
                              reads=("mental_state", "order"), plot="states",
                              short=f"{state} {order}", headline=False))
    for state in MENTAL_STATES:
        out.append(Metric(f"state.{state}", f"{state} accuracy", select=in_state(state),
                          reads=("mental_state",), plot="overall", short=state, headline=False))
    for order in ORDERS:
        out.append(Metric(f"order{order}", f"order {order} accuracy", select=in_order(order),
                          reads=("order",), plot="overall", short=f"order {order}"))
    out.append(Metric("fb", "ToMATO-FB accuracy (false-belief questions)", select=false_belief,
                      reads=("false_belief",), plot="overall", short="FB"))
    out.append(Metric("unreadable", "replies naming no option", GROUPED, select=judged,
                      summarize=ValueMean(unreadable), finish=mean_of, unit=scenario_of,
                      higher_is_better=False))
    return tuple(out)


METRICS = _metrics()
