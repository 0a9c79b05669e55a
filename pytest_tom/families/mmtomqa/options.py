"""MMToM-QA's options (plain declarations: the inert plugin registers them without the family)."""

from pytest_tom.families.option_kit import Opt

OPTIONS: tuple[Opt, ...] = (
    Opt("mmtomqa_reading", "MMToM-QA answer reading: the option the reply gives, by letter "
        "or text, at its opening or else its last answer statement (answer), or the authors' script's: the first character of the reply "
        "(authors; add --tom-max-tokens=5 for their 5-token replies) (default answer)",
        default="answer", choices=("answer", "authors"), metavar="answer|authors"),
)
