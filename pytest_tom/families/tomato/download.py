"""`pytest-tom fetch tomato-full` and `tomato-fb`: the authors' ToMATO release at one
commit of their repository, converted by this folder's converter.

`tomato-fb` (ToMATO-FB, 806 questions) is pinned by the sha256 of `tomato_fb.json`,
computed from a copy. No copy of the whole release (`tomato.json`, 5,401 questions, over
4 MiB) reached this project, so `tomato-full` is pinned by its git blob id, as the
repository's tree at the commit lists it: `pytest-tom fetch` computes the blob id of the
bytes it gets (SHA-1 of `blob <size>\\0` and the bytes) and refuses any other.

The data is under the Meta Llama 3 Community License, for evaluation only (the examples
were generated with Llama 3): `pytest-tom fetch` asks for `--accept-licence` once.
"""

from __future__ import annotations

from pytest_tom.families.kit import GitHubRelease
from pytest_tom.families.kit import Licence

RELEASE = GitHubRelease("nttmdlab-nlp/ToMATO", "b8599487e8170322fcbcfb0573fb83a11181b0eb")
LICENCE = Licence(
    "Meta Llama 3 Community License", RELEASE.page("dataset/LICENSE"),
    evaluation_only=True,
    note="generated with Llama 3: use ToMATO to evaluate models, not to train or fine-tune them")

FULL = RELEASE.file("dataset/tomato.json", git_blob="204945827009772ccf0b7e6f1ac21c9ea577b60d")
FB = RELEASE.file("dataset/tomato_fb.json",
                  "cecd157bccd775051119dd1022111fdceef2333ddb3d5246ef0030b018433cf4", 3_739_738)

DOWNLOADS = (
    RELEASE.download("tomato-full", "ToMATO",
                     "the whole release: 5,401 questions (2,676 first order, 2,725 second order)",
                     (FULL,), LICENCE, ("tomato", "tomato.json", "--suite", "tomato-full"),
                     note="pinned by git blob id"),
    RELEASE.download("tomato-fb", "ToMATO-FB", "the false-belief subset: 806 second-order "
                     "questions", (FB,), LICENCE,
                     ("tomato", "tomato_fb.json", "--suite", "tomato-fb")),
)
