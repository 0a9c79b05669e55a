"""`pytest-tom fetch tomi-full`: ToMi's test split, from the archive the authors committed
to their repository (tomi_balanced_story_types.zip, pinned to one commit), converted by
this folder's ToMi converter into one generic suite.

The archive's sha256 was computed from the repository at that commit; the two files taken
out of it are checked against their own sha256s too."""

from __future__ import annotations

from pytest_tom.families.kit import GitHubRelease
from pytest_tom.families.kit import Licence
from pytest_tom.families.kit import Member

RELEASE = GitHubRelease("facebookresearch/ToMi", "dea2bca9b366c41cdab0bd717353cc02453e193e")
ARCHIVE = "tomi_balanced_story_types"
ZIP = RELEASE.file(f"{ARCHIVE}.zip",
                   "d8389ecf09749b4a49c56752a8ce44afac8c3d363391b5c29c8fa7032613ece6", 403_507,
                   members=(Member(f"{ARCHIVE}/fb_all_test.txt",
                                   "7e76981b390c71057736619355ba78afb896dfa93c92547f31a085c69788f3a6"),
                            Member(f"{ARCHIVE}/fb_all_test.trace",
                                   "a65b8dbee66475ba78389ba7cea8522162a5abb659ffe076d90d60e892858dff")))

DOWNLOADS = (
    RELEASE.download("tomi-full", "ToMi",
                     "the test split: 5,994 questions (first and second order, reality, memory)",
                     (ZIP,), Licence("CC BY-NC 4.0", RELEASE.page("LICENSE"), commercial=False),
                     ("tomi", "fb_all_test.txt", "--suite", "tomi-full")),
)
