"""`pytest-tom fetch fantom-full`: FANToM from its authors' own download, the archive their
evaluation code fetches (task/dataset_loader.py of skywalker023/fantom), converted by this
folder's converter.

That URL is a storage object, not a file at a commit: what pins it is the sha256 the
authors' loader checks, copied here from their code. pytest-tom could not check that hash
against the archive itself (its tests have no copy of it): a download whose bytes do not
have it is refused, as the authors' loader refuses it."""

from __future__ import annotations

from pytest_tom.families.kit import Download
from pytest_tom.families.kit import Licence
from pytest_tom.families.kit import Member
from pytest_tom.families.kit import Remote
from pytest_tom.families.kit import github_page

REPOSITORY = "skywalker023/fantom"
COMMIT = "ebd35eb5c9eb157c24bc7bcffac66ae138eaed44"

DOWNLOADS = (
    Download(
        name="fantom-full",
        benchmark="FANToM",
        what="the whole release (fantom_v1.json): every conversation and question set",
        source=f"the authors' download, as {REPOSITORY} @ {COMMIT[:7]} fetches it",
        files=(Remote(
            "https://storage.googleapis.com/ai2-mosaic-public/projects/fantom/fantom.tar.gz",
            "1d08dfa0ea474c7f83b9bc7e3a7b466eab25194043489dd618b4c5223e1253a4",
            members=(Member("fantom_v1.json"),),
            sha256_source=(f"the hash the authors' loader checks "
                           f"({github_page(REPOSITORY, COMMIT, 'task/dataset_loader.py')}); "
                           f"not checked against the archive by pytest-tom")),),
        licence=Licence("MIT", github_page(REPOSITORY, COMMIT, "LICENSE"),
                        note="the authors: the samples are for evaluation only"),
        convert=("fantom", "fantom_v1.json", "--name", "fantom-full"),
    ),
)
