"""`pytest-tom fetch hitom-full`: the authors' Hi-ToM release, pinned to one commit of their
repository, converted by this folder's converter into one suite of 1,200 questions."""

from __future__ import annotations

from pytest_tom.families.kit import GitHubRelease
from pytest_tom.families.kit import Licence

RELEASE = GitHubRelease("ying-hui-he/Hi-ToM_dataset", "56dda76fbbbcd510d51e91837fe19b7df2108562")
DATA = RELEASE.file("Hi-ToM_data.json",
                    "1c4077bbcdf815b91dbb791b60dbce3920a98bd63317954ebf94a532d43cd573", 2_267_625)

DOWNLOADS = (
    RELEASE.download("hitom-full", "Hi-ToM",
                     "the whole release: 1,200 questions, orders 0-4, Tell / No_Tell, VP / CoTP",
                     (DATA,), Licence("Apache-2.0", RELEASE.page("LICENSE")),
                     ("hitom", "Hi-ToM_data.json", "--suite", "hitom-full")),
)
