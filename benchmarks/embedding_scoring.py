"""Free-response scoring rate of FANToM's belief_dist items (sentence embeddings).

Prints answers per second after the model is loaded, on distinct answers of natural
length built from the bundled FANToM suite's belief options:

- "per item": `FantomFamily.score` one answer at a time, the path pytest takes
  today (the suite's answer options are embedded once, in a batch, at first use);
- "prepared, per item": `FantomFamily.prepare_scoring` on all the answers (one
  batch), then `score` one at a time, as a run without xdist does after its
  request phase;
- "prepared in chunks": the same, `--chunk` answers at a time, as an xdist worker
  does with the answers of its queue that are in whenever it scores an item;
- "batched embed", the reference: `Embedder.embed` on all answers at once, then
  the similarities (the model alone, nothing of the plugin).

Target: at least 250 answers per second in the prepared paths with all-MiniLM-L6-v2
on 2 CPU cores. Every figure is printed with its ratio to the reference and the load
average when it was measured: on a shared machine the ratios are what to compare.

    python benchmarks/embedding_scoring.py [--answers N] [--chunk N] [--embedder PATH_OR_NAME]
                                           [--threads N]
"""

from __future__ import annotations

import argparse
import os
import random
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUITE = ROOT / "suites" / "fantom" / "smalltalk.tom.yaml"
TARGET = 250
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
    ap.add_argument("--answers", type=int, default=1600)
    ap.add_argument("--chunk", type=int, default=32, help="answers per worker batch")
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
    quarter = len(answers) // 4
    parts = [answers[i * quarter:(i + 1) * quarter] for i in range(4)]
    ctx = ScoringContext(settings)
    family.score(parts[0][0][0], "warm-up answer", ctx)  # embeds the suite's options (once)
    figures: list[tuple[str, float, int, float]] = []  # label, answers/s, right, load

    def timed(label: str, part: list, run) -> None:
        t0 = time.perf_counter()
        right = run(part)
        figures.append((label, len(part) / (time.perf_counter() - t0), right, os.getloadavg()[0]))

    def per_item(part: list) -> int:
        return sum(bool(family.score(item, text, ctx).correct) for item, text in part)

    def prepared(part: list) -> int:
        family.prepare_scoring(part, ctx)
        return per_item(part)

    def chunked(part: list) -> int:
        right = 0
        for i in range(0, len(part), args.chunk):
            right += prepared(part[i:i + args.chunk])
        return right

    def reference(part: list) -> int:
        vecs = emb.embed([text for _, text in part])
        golds = emb.embed([str(i.gold) for i, _ in part])
        wrongs = emb.embed([i.data["wrong"] for i, _ in part])
        return sum(float(v @ g) > float(v @ w) for v, g, w in zip(vecs, golds, wrongs, strict=True))

    timed("batched embed (reference)", parts[3], reference)
    timed("per item", parts[0], per_item)
    timed("prepared, per item", parts[1], prepared)
    timed(f"prepared in chunks of {args.chunk}", parts[2], chunked)

    print(f"embedder: {emb.name}")
    print(f"cpus: {os.cpu_count()} · torch threads: {torch.get_num_threads()} · model load: "
          f"{load:.1f} s · {quarter} distinct answers per path")
    ref = figures[0][1]
    for label, rate, right, at in figures:
        print(f"{label:28} {rate:6.0f} answers/s  {rate / ref:5.2f} × reference  "
              f"({right} right)  load {at:.2f}")
    for label, rate, _, _ in figures[2:]:
        print(f"target {TARGET} answers/s, {label}: {'met' if rate >= TARGET else 'missed'}")


if __name__ == "__main__":
    main()
