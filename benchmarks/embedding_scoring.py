"""Free-response scoring rate of FANToM's belief_dist items (sentence embeddings).

Prints answers per second after the model is loaded, on distinct answers of natural
length built from the bundled FANToM suite's belief options:

- "per item": `FantomFamily.score` one answer at a time, the path pytest takes
  today (the suite's answer options are embedded once, in a batch, at first use);
- "prepared, per item": `FantomFamily.prepare_scoring` on all the answers (one
  batch), then `score` one at a time, as a run can do once its answers are in;
- "batched embed": `Embedder.embed` on all answers at once, then the similarities.

Target: at least 200 answers per second with all-MiniLM-L6-v2 on 2 CPU cores. The
figures depend on what else runs on the machine: the load average is printed.

    python benchmarks/embedding_scoring.py [--answers N] [--embedder PATH_OR_NAME] [--threads N]
"""

from __future__ import annotations

import argparse
import os
import random
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUITE = ROOT / "suites" / "fantom" / "smalltalk.tom.yaml"
PREFIXES = (
    "",
    "I think ",
    "Probably ",
    "From the conversation, ",
    "My guess: ",
    "It seems ",
    "Well, ",
    "I believe ",
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--answers", type=int, default=1200)
    ap.add_argument("--embedder", default=None)
    ap.add_argument("--threads", type=int, default=0, help="torch threads (default: torch's)")
    args = ap.parse_args()

    from pytest_tom.engine.load import load_suite
    from pytest_tom.families.base import ScoringContext, Settings
    from pytest_tom.families.fantom.family import FantomFamily
    from pytest_tom.scoring.embeddings import get_embedder

    settings = Settings(options={"fantom_context": "short", "embedder": args.embedder})
    items = [i for i in load_suite(SUITE, settings).items if i.kind == "belief_dist"]
    answers = []  # distinct answers: a prefix and one of the two options
    for prefix in PREFIXES:
        for item in items:
            for base in (item.gold, item.data["wrong"]):
                answers.append((item, f"{prefix}{base}"))
    random.Random(0).shuffle(answers)
    answers = answers[: args.answers]

    t0 = time.perf_counter()
    emb = get_embedder(args.embedder)
    load = time.perf_counter() - t0
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    emb.embed(["warm-up sentence", "another warm-up sentence"])

    family = FantomFamily()
    third = len(answers) // 3
    one, two, rest = answers[:third], answers[third : 2 * third], answers[2 * third :]

    ctx = ScoringContext(settings)
    family.score(one[0][0], "warm-up answer", ctx)  # embeds the suite's options (once)
    t0 = time.perf_counter()
    right1 = sum(bool(family.score(item, text, ctx).correct) for item, text in one)
    per_item = len(one) / (time.perf_counter() - t0)

    t0 = time.perf_counter()
    family.prepare_scoring(two, ctx)
    right2 = sum(bool(family.score(item, text, ctx).correct) for item, text in two)
    prepared = len(two) / (time.perf_counter() - t0)

    t0 = time.perf_counter()
    vecs = emb.embed([text for _, text in rest])
    golds = emb.embed([str(i.gold) for i, _ in rest])
    wrongs = emb.embed([i.data["wrong"] for i, _ in rest])
    right3 = sum(float(v @ g) > float(v @ w) for v, g, w in zip(vecs, golds, wrongs, strict=True))
    batched = len(rest) / (time.perf_counter() - t0)

    print(f"embedder: {emb.name}")
    print(
        f"cpus: {os.cpu_count()} · torch threads: {torch.get_num_threads()} · model load: "
        f"{load:.1f} s · load average: {os.getloadavg()[0]:.2f}"
    )
    print(f"per item:           {per_item:6.0f} answers/s ({len(one)} answers, {right1} right)")
    print(f"prepared, per item: {prepared:6.0f} answers/s ({len(two)} answers, {right2} right)")
    print(f"batched embed:      {batched:6.0f} answers/s ({len(rest)} answers, {right3} right)")
    for label, rate in (("per item", per_item), ("prepared", prepared)):
        print(f"target 200 answers/s after load, {label}: {'met' if rate >= 200 else 'missed'}")


if __name__ == "__main__":
    main()
