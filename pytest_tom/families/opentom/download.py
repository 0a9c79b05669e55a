"""`pytest-tom fetch opentom-full` and `opentom-long`: the authors' OpenToM split files,
pinned to one commit of their repository, converted by this folder's converter (the 596
narratives; `--long`: the 100 long narratives of OpenToM-L)."""

from __future__ import annotations

from pytest_tom.families.kit import GitHubRelease
from pytest_tom.families.kit import Licence
from pytest_tom.families.kit import Remote

RELEASE = GitHubRelease("seacowx/OpenToM", "3f22b66276b2d7ca5fe573c28c79cc0d077aafc5")
FOLDER = "data/opentom_data"
LICENCE = Licence("CC BY-NC 4.0", RELEASE.page("LICENSE"), commercial=False)

# file -> (sha256, bytes), at the commit
SPLITS = {
    "location_cg_fo.json": ("4486b3a7dcc029c3e2c05a242d9e6f2e8175a08590253c4ebecc228fe4b394da",
                            253_450),
    "location_cg_so.json": ("ef3a711096b660a3a23bf9103d1a2b9babf9b57ed516f233d46f65fd8079f2b3",
                            280_955),
    "location_fg_fo_new.json": (
        "957b153a8dd55aa1495a82bda59397004bbf83c87c1039bd917ee6d02f7f29c2", 506_305),
    "location_fg_so_new.json": (
        "cddb5437c2697be99ce3642240b96af513f69ee06be7fe975b5ce02f8bfcfeb8", 290_089),
    "multihop_fo.json": ("fcd394c8aa4d080d0d5a8298dd62504dea7435935db7c7887792cd623f6dc121",
                         770_404),
    "multihop_so.json": ("f7fdc822dc5cc806b07735013a89a2e1879484010661523defbdcd8ef13d9561",
                         830_157),
    "attitude.json": ("8c1d0cdd68d60ea6534700ae3d67436fb9a5b6c9cfab84c0d70185c9222e4047",
                      145_859),
}
META = ("meta_data.json", "db3a568059c665fcf924f67af00d77bcce8a6a587b034fa0476b954a66e259c8",
        1_361_968)
META_LONG = ("meta_data_long.json",
             "6008fed8ef8f195a20a239356425278d50a7e2a54cab6b4685730c2140f199d4", 533_726)


def _files(meta: tuple[str, str, int]) -> tuple[Remote, ...]:
    name, sha256, size = meta
    return (RELEASE.file(f"{FOLDER}/{name}", sha256, size),
            *(RELEASE.file(f"{FOLDER}/{split}", sha256_, size_)
              for split, (sha256_, size_) in SPLITS.items()))


DOWNLOADS = (
    RELEASE.download("opentom-full", "OpenToM",
                     "the 596 narratives, 23 questions each (13,708 questions)", _files(META),
                     LICENCE, ("opentom", ".", "--suite", "opentom-full")),
    RELEASE.download("opentom-long", "OpenToM-L",
                     "the 100 long narratives, 23 questions each (2,300 questions)",
                     _files(META_LONG), LICENCE,
                     ("opentom", ".", "--long", "--suite", "opentom-long")),
)
