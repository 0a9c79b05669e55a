"""OpenToM's options (plain declarations: the inert plugin registers them without the family)."""

from pytest_tom.families.option_kit import Opt

OPTIONS: tuple[Opt, ...] = (
    Opt("opentom_protocol", "OpenToM macro-F1 over the whole pool, or also the paper's protocol: "
        "mean ± std over disjoint seeded samples of narratives (default pool)", default="pool",
        choices=("pool", "samples"), metavar="pool|samples"),
    Opt("opentom_samples", "OpenToM samples protocol: number of disjoint samples (default 5)",
        default=5, convert=int, metavar="N"),
    Opt("opentom_sample_size", "OpenToM samples protocol: narratives per sample (default 50)",
        default=50, convert=int, metavar="N"),
    Opt("opentom_long", "OpenToM-L: prompt with the long narratives (scenarios without one are "
        "skipped)", default=False, flag=True),
)
