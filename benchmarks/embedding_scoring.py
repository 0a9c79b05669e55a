"""Free-response scoring rate of FANToM's belief_dist items (sentence embeddings).

Prints answers per second after the model is loaded, on the bundled FANToM suite's
belief_dist items with distinct answers (no cache hits):

- "per item": the path pytest takes, `FantomFamily.score` one answer at a time
  (the suite's gold answers embedded once, in a batch, at first use);
- "batched": `Embedder.embed` on all answers at once, then the two similarities.

Target: at least 200 answers per second with all-MiniLM-L6-v2 on 2 CPU cores.

    python benchmarks/embedding_scoring.py [--answers N] [--embedder PATH_OR_NAME] [--threads N]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUITE = ROOT / "suites" / "fantom" / "smalltalk.tom.yaml"
PREFIXES = ("", "I think ", "Probably ", "From the conversation, ", "My guess: ", "It seems ")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--answers", type=int, default=1200)
    ap.add_argument("--embedder", default=None)
    ap.add_argument("--threads", type=int, default=0, help="torch threads (default: torch's)")
    args = ap.parse_args()

    from pytest_tom.families.base import ScoringContext, Settings
    from pytest_tom.families.fantom import FantomFamily
    from pytest_tom.loading import load_suite
    from pytest_tom.scoring.embeddings import get_embedder

    settings = Settings(options={"fantom_context": "short", "embedder": args.embedder})
    items = [i for i in load_suite(SUITE, settings).items if i.kind == "belief_dist"]
    answers = []
    for n in range(args.answers):
        item = items[n % len(items)]
        base = item.gold if n % 2 else item.data["wrong"]
        answers.append((item, f"{PREFIXES[n % len(PREFIXES)]}{base} (answer {n})"))

    t0 = time.perf_counter()
    emb = get_embedder(args.embedder)
    load = time.perf_counter() - t0
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    emb.embed(["warm-up sentence"])

    family = FantomFamily()
    ctx = ScoringContext(settings)
    half = len(answers) // 2
    t0 = time.perf_counter()
    correct = sum(bool(family.score(item, text, ctx).correct) for item, text in answers[:half])
    per_item = half / (time.perf_counter() - t0)

    rest = answers[half:]
    t0 = time.perf_counter()
    vecs = emb.embed([text for _, text in rest])
    golds = emb.embed([str(i.gold) for i, _ in rest])
    wrongs = emb.embed([i.data["wrong"] for i, _ in rest])
    batched_correct = sum(
        float(v @ g) > float(v @ w) for v, g, w in zip(vecs, golds, wrongs, strict=True)
    )
    batched = len(rest) / (time.perf_counter() - t0)

    print(f"embedder: {emb.name}")
    print(
        f"cpus: {os.cpu_count()} · torch threads: {torch.get_num_threads()} · "
        f"model load: {load:.1f} s"
    )
    print(
        f"per item: {per_item:.0f} answers/s ({half} answers, {correct} closer to the right answer)"
    )
    print(
        f"batched:  {batched:.0f} answers/s ({len(rest)} answers, {batched_correct} closer to the "
        f"right answer)"
    )
    verdict = "meets" if per_item >= 200 else "misses"
    print(f"target 200 answers/s after load: per-item path {verdict} it")


if __name__ == "__main__":
    main()
