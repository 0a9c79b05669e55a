"""ToMBench's options (plain declarations: the inert plugin registers them without the family)."""

from pytest_tom.families.option_kit import Opt

PROTOCOLS = ("default", "official")
READINGS = ("correct", "authors")

OPTIONS: tuple[Opt, ...] = (
    Opt("tombench_protocol", "ToMBench: default (one pass, options in file order) or official "
        "(each question asked --tom-tombench-tries times with its options in a seeded order, "
        "scored by majority vote, as the authors' run_api.py/get_results.py)",
        default="default", choices=PROTOCOLS, metavar="default|official"),
    Opt("tombench_tries", "ToMBench official protocol: tries per question (default 5)",
        default=5, convert=int, metavar="N"),
    Opt("tombench_reading", "ToMBench: read answers correctly (default) or as the authors' "
        "get_results.py does (no letter = A, the last capital A-D anywhere, tasks with no right "
        "answer dropped, the gold 'A. ' never matched), to reproduce their published numbers",
        default="correct", choices=READINGS, metavar="correct|authors"),
)
