"""`pytest-tom fetch bigtom-full`: the authors' 200 BigToM causal templates (bigtom.csv),
pinned to one commit of their repository, converted by this folder's converter."""

from __future__ import annotations

from pytest_tom.families.kit import GitHubRelease
from pytest_tom.families.kit import Licence

RELEASE = GitHubRelease("cicl-stanford/procedural-evals-tom",
                        "fe647d680bddb69f738519313bed625f9e93b549")
CSV = RELEASE.file("data/bigtom/bigtom.csv",
                   "a14884fbff5b61d3fa194ab166764b553ab795fcb1359e69d1282eadf3011a46", 273_557)

DOWNLOADS = (
    RELEASE.download("bigtom-full", "BigToM",
                     "the whole release: 200 causal templates, every condition",
                     (CSV,), Licence("MIT", RELEASE.page("LICENSE")),
                     ("bigtom", "bigtom.csv", "--suite", "bigtom-full")),
)
