"""ToMATO's options (plain declarations: the inert plugin registers them without the family)."""

from pytest_tom.families.option_kit import Opt

READINGS = ("correct", "authors")
SAMPLINGS = ("greedy", "authors")

OPTIONS: tuple[Opt, ...] = (
    Opt("tomato_reading", "ToMATO: read replies correctly (default) or as the authors' script "
        "does (the first bracketed letter [A]-[D] anywhere in the reply; none = wrong)",
        default="correct", choices=READINGS, metavar="correct|authors"),
    Opt("tomato_sampling", "ToMATO: greedy (default: the run's own decoding, "
        "--tom-temperature 0) or authors (sample at temperature 0.6, top_p 0.9, seed 42, as "
        "the authors' generation runs)",
        default="greedy", choices=SAMPLINGS, metavar="greedy|authors"),
)
