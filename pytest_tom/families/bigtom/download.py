"""`pytest-tom fetch bigtom-full`: the authors' 200 BigToM causal templates (bigtom.csv),
pinned to one commit of their repository, converted by this folder's converter."""

from __future__ import annotations

from pytest_tom.families.kit import Download
from pytest_tom.families.kit import Licence
from pytest_tom.families.kit import github_file
from pytest_tom.families.kit import github_page

REPOSITORY = "cicl-stanford/procedural-evals-tom"
COMMIT = "fe647d680bddb69f738519313bed625f9e93b549"

DOWNLOADS = (
    Download(
        name="bigtom-full",
        benchmark="BigToM",
        what="the whole release: 200 causal templates, every condition",
        source=f"{REPOSITORY} @ {COMMIT[:7]}",
        files=(github_file(REPOSITORY, COMMIT, "data/bigtom/bigtom.csv",
                           "a14884fbff5b61d3fa194ab166764b553ab795fcb1359e69d1282eadf3011a46",
                           273_557),),
        licence=Licence("MIT", github_page(REPOSITORY, COMMIT, "LICENSE")),
        convert=("bigtom", "bigtom.csv", "--suite", "bigtom-full"),
    ),
)
