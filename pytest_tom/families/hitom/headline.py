"""Hi-ToM's metrics and plots, declared once (see `pytest_tom.metrics.declare`).

* accuracy (a share of items, Wilson interval): `order<k>` per ToM order 0-4 and `all`;
  `<deception>.<style>.order<k>` and `<deception>.<style>` for the paper's four settings
  (`no_tell` / `tell` stories, `vp` / `cotp` prompting); `no_tell`, `tell`, `vp`, `cotp`;
  `length<L>` and `length<L>.order<k>` per story length (chapters 1-3);
* joint accuracy (a share of stories, bootstrap over stories): an order-k question counts
  only when the story's questions of every order up to k are right too, as the authors'
  analysis counts it: `joint.order<k>`, `<deception>.<style>.joint.order<k>`,
  `length<L>.joint.order<k>`, and the cells of the paper's heat maps
  `<deception>.<style>.length<L>.joint.order<k>`. `joint.order4` is the share of stories
  with all five orders right.

The tables in the paper's layout (`hitom.metrics`) show these values.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pytest_tom.families.kit import GROUPED
from pytest_tom.families.kit import AllRight
from pytest_tom.families.kit import Contrast
from pytest_tom.families.kit import Metric
from pytest_tom.families.kit import Plot
from pytest_tom.families.kit import Record
from pytest_tom.families.kit import condition_of
from pytest_tom.families.kit import meta
from pytest_tom.families.kit import ratio_of

from .expand import DECEPTION
from .prompts import STYLE_LABEL
from .prompts import STYLES
from .schema import LENGTHS
from .schema import ORDERS

DECEPTIONS = (DECEPTION[False], DECEPTION[True])
DECEPTION_LABEL = {"no_tell": "No_Tell", "tell": "Tell"}
READS = ("order", "deception", "style", "length")

PLOTS = (
    Plot("orders", "Hi-ToM accuracy per ToM order"),
    Plot("joint", "Hi-ToM joint accuracy per ToM order (every lower order right too)"),
    Plot("settings", "Hi-ToM accuracy per setting (stories × prompting)"),
)


@dataclass(frozen=True)
class Cell:
    """A set of stories: a deception setting, a prompting style, a length (None: any)."""

    deception: str | None = None
    style: str | None = None
    length: int | None = None

    @property
    def prefix(self) -> str:
        """`tell.cotp.length2.`: the name prefix of the cell's metrics ("" for all stories)."""
        parts = [p for p in (self.deception, self.style) if p]
        parts += [f"length{self.length}"] if self.length else []
        return "".join(f"{p}." for p in parts)

    def named(self, what: str) -> str:
        """A metric's label: `Tell · CoTP · order 3`, or `order 3` for all stories."""
        return f"{self.label} · {what}" if self != Cell() else what

    @property
    def label(self) -> str:
        parts = [DECEPTION_LABEL[self.deception] if self.deception else "",
                 STYLE_LABEL[self.style] if self.style else "",
                 f"length {self.length}" if self.length else ""]
        return " · ".join(p for p in parts if p) or "all stories"

    def select(self, order: int | None = None, up_to: int | None = None
               ) -> Callable[[Record], bool]:
        """The cell's items of one order, or of every order up to `up_to` (None: all)."""
        def chosen(r: Record) -> bool:
            m = meta(r)
            k = m.get("order")
            return ((order is None or k == order)
                    and (up_to is None or (isinstance(k, int) and k <= up_to))
                    and (self.deception is None or m.get("deception") == self.deception)
                    and (self.style is None or m.get("style") == self.style)
                    and (self.length is None or m.get("length") == self.length))
        return chosen


ALL = Cell()
SETTINGS = tuple(Cell(d, s) for d in DECEPTIONS for s in STYLES)  # the paper's four
BY_LENGTH = tuple(Cell(length=n) for n in LENGTHS)
HEATMAP = tuple(Cell(c.deception, c.style, n) for c in SETTINGS for n in LENGTHS)


def accuracy(cell: Cell, order: int) -> Metric:
    """The accuracy of the cell's order-`order` questions."""
    top = cell == ALL
    return Metric(f"{cell.prefix}order{order}", cell.named(f"order {order}"),
                  select=cell.select(order=order), reads=READS, headline=top,
                  plot="orders" if top else "", short=f"order {order}" if top else "")


def joint(cell: Cell, order: int) -> Metric:
    """The cell's joint accuracy to `order`: its stories whose questions of orders 0 to
    `order` are all right, of its stories (a story is one unit of the bootstrap)."""
    top = cell == ALL
    return Metric(f"{cell.prefix}joint.order{order}", cell.named(f"joint to order {order}"),
                  GROUPED, select=cell.select(up_to=order), reads=READS, summarize=AllRight(),
                  finish=ratio_of(), of_groups=True, headline=top and order == ORDERS[-1],
                  plot="joint" if top else "", short=f"order {order}" if top else "")


def overall(name: str, cell: Cell, plot: str = "") -> Metric:
    """The accuracy over every question of the cell."""
    return Metric(name, cell.named("all orders"), select=cell.select(), reads=READS,
                  headline=False, plot=plot, short=cell.label if plot else "")


def setting_name(cell: Cell) -> str:
    return cell.prefix.rstrip(".")


METRICS = (
    *(accuracy(ALL, k) for k in ORDERS),
    *(joint(ALL, k) for k in ORDERS),
    overall("all", ALL),
    *(overall(d, Cell(deception=d)) for d in DECEPTIONS),
    *(overall(s, Cell(style=s)) for s in STYLES),
    *(overall(setting_name(c), c, plot="settings") for c in SETTINGS),
    *(accuracy(c, k) for c in SETTINGS for k in ORDERS),
    *(joint(c, k) for c in SETTINGS for k in ORDERS),
    *(overall(setting_name(c), c) for c in BY_LENGTH),
    *(accuracy(c, k) for c in BY_LENGTH for k in ORDERS),
    *(joint(c, k) for c in BY_LENGTH for k in ORDERS),
    *(joint(c, k) for c in HEATMAP for k in ORDERS),
)


def _declared(name: str) -> Metric:
    return next(m for m in METRICS if m.name == name)


# a reasoning model's thought length by ToM order against order 0; a story asks every
# order, so the ratios are paired by story (results/reasoning/thought_stats.py)
CONTRASTS = (
    Contrast("order", "by ToM order", condition_of(_declared("order0")),
             tuple(condition_of(_declared(f"order{k}")) for k in ORDERS if k), paired=True),
)
