"""`pytest-tom fetch mmtomqa-full`: the authors' MMToM-QA text-only questions, pinned to one
commit of their repository, converted by this folder's converter into one suite of 600
questions."""

from __future__ import annotations

from pytest_tom.families.kit import GitHubRelease
from pytest_tom.families.kit import Licence

RELEASE = GitHubRelease("chuanyangjin/MMToM-QA", "cba94f39369828bf6f6173d3b8fd36f128fa0926")
QUESTIONS = RELEASE.file("Benchmark/questions.json",
                         "54a6b908f793f660554f31bc60ae04d58c289f057229f50f74ed696589c45ede",
                         1_059_787)

DOWNLOADS = (
    RELEASE.download("mmtomqa-full", "MMToM-QA (text only)",
                     "the whole text-only part: 600 two-option questions, types 1.1-1.3 and "
                     "2.1-2.4", (QUESTIONS,), Licence("MIT", RELEASE.page("LICENSE")),
                     ("mmtomqa", "questions.json", "--suite", "mmtomqa-full")),
)
