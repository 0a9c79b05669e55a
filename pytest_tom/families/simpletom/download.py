"""`pytest-tom fetch simpletom-full`: the SimpleToM release, the dataset `allenai/SimpleToM`
on the Hugging Face Hub (its three question files, 1,147 rows each), converted by this
folder's converter.

Not pinned by hash. A dataset on the Hub is pinned by its revision (a commit hash of the
dataset's repository), and this entry was written where neither the Hub nor a copy of the
files could be reached: no revision hash and no sha256 could be learnt. The files are
read at the revision `main` (whatever the dataset holds when you fetch), their sha256 is
printed and recorded in `fetched.json`, and the converter checks what can be checked
without a hash: the layout of every row, the three questions of every story, and that
exactly 1,147 stories come out (`--expect 1147`). Once someone has the revision hash,
`REVISION` below takes it, and the sha256s of the files belong beside it.

The converter was checked on a sample in the release's row layout only.
"""

from __future__ import annotations

from pytest_tom.families.kit import Download
from pytest_tom.families.kit import Licence
from pytest_tom.families.kit import Remote

from .convert import FILES

DATASET = "allenai/SimpleToM"
REVISION = "main"  # no commit hash could be learnt offline (see above)
HUB = f"https://huggingface.co/datasets/{DATASET}"
UNPINNED = ("no revision hash or sha256 of allenai/SimpleToM could be learnt where this entry "
            "was written (offline); read at the revision main")
LICENCE = Licence("ODC-BY", f"{HUB}/blob/{REVISION}/README.md",
                  note="Open Data Commons Attribution: cite the SimpleToM paper (Gu et al.)")

FILES_ = tuple(Remote(f"{HUB}/resolve/{REVISION}/{path}", unpinned=UNPINNED, save_as=path)
               for path in FILES.values())

DOWNLOADS = (
    Download(
        name="simpletom-full",
        benchmark="SimpleToM",
        what="the whole release: 1,147 stories x 3 questions (aware, action, judge)",
        source=f"huggingface.co/datasets/{DATASET} @ {REVISION} (not pinned: no revision "
               f"hash known offline)",
        files=FILES_,
        licence=LICENCE,
        convert=("simpletom", ".", "--suite", "simpletom-full", "--expect", "1147"),
    ),
)
