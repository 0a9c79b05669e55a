"""`pytest-tom fetch tombench-full` and `tombench-zh`: the authors' 20 ToMBench task files,
pinned to one commit of their repository, converted by this folder's converter into one
suite of 2,860 questions in English (`tombench-full`) or in Chinese (`tombench-zh`)."""

from __future__ import annotations

from pytest_tom.families.kit import GitHubRelease
from pytest_tom.families.kit import Licence

RELEASE = GitHubRelease("zhchen18/ToMBench", "4f491f0784ed31ef93a8837615fbc48f885cf78d")
LICENCE = Licence("MIT", RELEASE.page("LICENSE"),
                  note="the authors ask that ToMBench be used for evaluation only, never training")

# task file -> (sha256, bytes), at the commit
TASK_FILES = {
    "Ambiguous Story Task.jsonl": (
        "c99f365b6d3d0e982228623d4328afbafe11cf9a8da3a2838ed6c846e4f154d0", 403_001),
    "Completion of Failed Actions.jsonl": (
        "cb68348ef3eb53d7c6bf0e426b9279856264748b94f181ce042c91dcf56ba5af", 34_388),
    "Discrepant Desires.jsonl": (
        "73093d99923efac243e3610c393613c000b5dc04f88771c39a3b641b993a6b70", 31_122),
    "Discrepant Emotions.jsonl": (
        "100b7f05ba5b76aeaa8d2daf3897c90c6a4f08dc23b75a0dd87be0e82db11bf4", 27_502),
    "Discrepant Intentions.jsonl": (
        "d72c8353aa5b65f35073d72808996b6f8e980f7683539e25510a251ed8f1dac2", 88_188),
    "Emotion Regulation.jsonl": (
        "553d0ee61733cddfa3a9c531c3f7306c40929edc9f0e1e1dda7088ed8804c96c", 47_505),
    "False Belief Task.jsonl": (
        "1a5c38362c4c883b219381e24d7b51c1f60abd959f39b6dc3e977ca11d7abff8", 574_548),
    "Faux-pas Recognition Test.jsonl": (
        "374272690aedfe34529cb83fc4368a38960da288fb8d787a7bf50aba65dd349c", 883_265),
    "Hidden Emotions.jsonl": (
        "57d0882eafddca8fb8d81148bf4291db0c5c6bbdd3a8ad5004c445d249b05124", 77_644),
    "Hinting Task Test.jsonl": (
        "fd3a930403c7e0514e8730c48030da17d8bcd8a453e96001ca0795cbaee61afa", 140_148),
    "Knowledge-Attention Links.jsonl": (
        "9ea4c7bfc2086d4ebaa2a31cc1993ea2774f72e642d7415dbb9c9c0e21ead94f", 44_564),
    "Knowledge-Pretend Play Links.jsonl": (
        "67e3d451089db0a3ac4a7702f4c6c58c2909dbe338aa53bda5e00e4cf9396242", 45_125),
    "Moral Emotions.jsonl": (
        "fac3eb293d2901b35274eab8244515b7e138e9cb3311037d5c4a0bda3810dd51", 94_948),
    "Multiple Desires.jsonl": (
        "7a49186ab802a2a199806ca191160019ae21d9ff85db9203799fb36b8960a914", 28_158),
    "Percepts-Knowledge Links.jsonl": (
        "dda5b279b926eef0e0c440cef4ef68cbebbf82fc6c7b109b213c15c2f9d94804", 35_406),
    "Persuasion Story Task.jsonl": (
        "aefef5b6beb7097370cf3bc0c6503ed8caa495530297a4b184c4c31002e23169", 152_968),
    "Prediction of Actions.jsonl": (
        "23c56589e459d253bafc2cdc0ea786fba1912c8bf388861a96042666f10b8a47", 33_204),
    "Scalar Implicature Test.jsonl": (
        "4264d1842f556f8bcfd7fd56c5058aa8c55f6001931d27d253a85d7ecc19247e", 280_234),
    "Strange Story Task.jsonl": (
        "f0a1c6e12b9d9b8b5c936ea3383b24100ef28ed6610078c1fc7bd6769d7ef914", 585_391),
    "Unexpected Outcome Test.jsonl": (
        "f4ee872c98e17480272c40d5406a8eca31eed29b455f4155b9684328bf6dbf9c", 337_138),
}
FILES = tuple(RELEASE.file(f"data/{name}", sha256, size)
              for name, (sha256, size) in TASK_FILES.items())
WHOLE = "the whole release in {}: 2,860 questions, 20 task files, 31 abilities"

DOWNLOADS = (
    RELEASE.download("tombench-full", "ToMBench", WHOLE.format("English"), FILES, LICENCE,
                     ("tombench", ".", "--suite", "tombench-full")),
    RELEASE.download("tombench-zh", "ToMBench (Chinese)", WHOLE.format("Chinese"), FILES,
                     LICENCE, ("tombench", ".", "--language", "zh", "--suite", "tombench-zh")),
)
