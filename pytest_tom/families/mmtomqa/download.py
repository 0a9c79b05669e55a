"""`pytest-tom fetch mmtomqa-full`: the authors' MMToM-QA text-only questions, pinned to one
commit of their repository, converted by this folder's converter into one suite of 600
questions."""

from __future__ import annotations

from pytest_tom.families.kit import Download
from pytest_tom.families.kit import Licence
from pytest_tom.families.kit import github_file
from pytest_tom.families.kit import github_page

REPOSITORY = "chuanyangjin/MMToM-QA"
COMMIT = "cba94f39369828bf6f6173d3b8fd36f128fa0926"

DOWNLOADS = (
    Download(
        name="mmtomqa-full",
        benchmark="MMToM-QA (text only)",
        what="the whole text-only part: 600 two-option questions, types 1.1-1.3 and 2.1-2.4",
        source=f"{REPOSITORY} @ {COMMIT[:7]}",
        files=(github_file(REPOSITORY, COMMIT, "Benchmark/questions.json",
                           "54a6b908f793f660554f31bc60ae04d58c289f057229f50f74ed696589c45ede",
                           1_059_787),),
        licence=Licence("MIT", github_page(REPOSITORY, COMMIT, "LICENSE")),
        convert=("mmtomqa", "questions.json", "--suite", "mmtomqa-full"),
    ),
)
