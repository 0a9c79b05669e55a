"""SimpleToM's options (plain declarations: the inert plugin registers them without the family)."""

from pytest_tom.families.option_kit import Opt

READINGS = ("correct", "authors")

OPTIONS: tuple[Opt, ...] = (
    Opt("simpletom_reading", "SimpleToM: read replies correctly (default) or with the authors' "
        "cascade ((A)..(D) present, then (A..(D, then a bare letter; several at one tier = "
        "wrong)", default="correct", choices=READINGS, metavar="correct|authors"),
)
