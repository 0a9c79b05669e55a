"""Hi-ToM's options (plain declarations: the inert plugin registers them without the family)."""

from pytest_tom.families.option_kit import Opt

OPTIONS: tuple[Opt, ...] = (
    Opt("hitom_prompting", "Hi-ToM prompting style: each story's own, as the release assigns "
        "it (release), or every story with vanilla prompting (vp) or with chain-of-thought "
        "prompting (cotp); the tables split by the style used (default release)",
        default="release", choices=("release", "vp", "cotp"), metavar="release|vp|cotp"),
)
