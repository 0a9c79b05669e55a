"""Hi-ToM's options (plain declarations: the inert plugin registers them without the family)."""

from pytest_tom.families.option_kit import Opt

OPTIONS: tuple[Opt, ...] = (
    Opt("hitom_prompting", "Hi-ToM prompting style: each story's own, as the release assigns "
        "it (release), or every story with vanilla prompting (vp) or with chain-of-thought "
        "prompting (cotp); the tables split by the style used (default release)",
        default="release", choices=("release", "vp", "cotp"), metavar="release|vp|cotp"),
    Opt("hitom_reading", "Hi-ToM: read each reply where its answer is (correct: its opening, "
        "else its last answer statement) or as the authors' analysis notebooks do (authors: "
        "right when the reply's last 60 characters hold the answer's text or its capital "
        "letter anywhere) (default correct)",
        default="correct", choices=("correct", "authors"), metavar="correct|authors"),
)
