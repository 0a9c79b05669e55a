"""Free-response scoring rate of FANToM's belief_dist items (sentence embeddings).

Prints answers per second after the model is loaded, on distinct answers of natural
length built from the bundled FANToM suite's belief options, in each precision of
`--tom-embedder-dtype` (float32, and bfloat16 with its float32 re-check of near ties):

- "per item": `FantomFamily.score` one answer at a time, the path pytest takes
  when nothing prepared the answers (the suite's options are embedded once, in a
  batch, at first use);
- "prepared, per item": `FantomFamily.prepare_scoring` on all the answers (one
  batch), then `score` one at a time, as a run without xdist does after its
  request phase;
- "prepared in chunks": the same, `--chunk` answers at a time, as an xdist worker
  does with the answers of its queue that are in whenever it scores an item;
- "batched embed": `Embedder.embed` on all answers at once, then the similarities
  (the model alone, nothing of the plugin); in float32 it is the reference.

Then, untimed, the decisions over all the benchmark's answers, and over answers made
to be near ties (halves of both options, both options named): how many bfloat16
answers were re-checked in float32, how many decisions bfloat16 alone would have
changed, and how many differ from float32 with the re-check (must be 0).

Target: at least 250 answers per second in the prepared paths with all-MiniLM-L6-v2
on 2 CPU cores. Every figure is printed with its ratio to the reference and the load
average when it was measured: on a shared machine the ratios are what to compare.

    python benchmarks/embedding_scoring.py [--answers N] [--chunk N] [--embedder PATH_OR_NAME]
                                           [--threads N] [--dtypes float32,bfloat16]
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
    "As far as I can tell, ",
    "In my view, ",
    "Most likely ",
    "Based on what was said, ",
    "I would say ",
    "Answer: ",
    "Honestly, ",
    "It looks like ",
)


def near_ties(item) -> list[str]:
    """Answers between the two options, where the decision is close."""
    right, wrong = str(item.gold), item.data["wrong"]
    r, w = right.split(), wrong.split()
    return [f"{right} Or maybe {wrong}", f"{wrong} Or maybe {right}",
            " ".join(r[: len(r) // 2] + w[len(w) // 2:]),
            " ".join(w[: len(w) // 2] + r[len(r) // 2:])]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--answers", type=int, default=2800)
    ap.add_argument("--chunk", type=int, default=32, help="answers per worker batch")
    ap.add_argument("--embedder", default=None)
    ap.add_argument("--threads", type=int, default=0, help="torch threads (default: torch's)")
    ap.add_argument("--dtypes", default="float32,bfloat16",
                    help="precisions to measure (comma-separated)")
    args = ap.parse_args()
    dtypes = [d.strip() for d in args.dtypes.split(",") if d.strip()]

    from pytest_tom.catalogue.load import load_suite
    from pytest_tom.families.base import ScoringContext, Settings
    from pytest_tom.families.fantom.family import FantomFamily
    from pytest_tom.scoring.embeddings import get_embedder, native_bf16, resolve_dtype

    base = Settings(options={"fantom_context": "short", "embedder": args.embedder})
    items = [i for i in load_suite(SUITE, base).items if i.kind == "belief_dist"]
    answers = []  # distinct answers: a prefix and one of the two options
    for prefix in PREFIXES:
        for item in items:
            for option in (item.gold, item.data["wrong"]):
                answers.append((item, f"{prefix}{option}"))
    random.Random(0).shuffle(answers)
    answers = answers[: args.answers]

    t0 = time.perf_counter()
    embedders = {d: get_embedder(args.embedder, dtype=d) for d in ("float32", *dtypes)}
    load = time.perf_counter() - t0
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    reference_emb = embedders["float32"]
    reference_emb.embed(["warm-up sentence", "another warm-up sentence"])

    paths = ["per item", "prepared, per item", f"prepared in chunks of {args.chunk}"]
    runs = [("float32", "batched embed (reference)")]
    runs += [(d, "batched embed") for d in dtypes if d != "float32"]
    runs += [(d, p) for p in paths for d in dtypes]  # precisions interleaved: same load
    size = len(answers) // len(runs)
    parts = [answers[i * size:(i + 1) * size] for i in range(len(runs))]
    families, contexts = {}, {}
    for d in dtypes:
        families[d] = FantomFamily()
        contexts[d] = ScoringContext(Settings(options={**base.options, "embedder_dtype": d}))
        # embeds the suite's options (once) and, in bfloat16, calibrates the error bound
        families[d].score(items[0], "warm-up answer", contexts[d])
        embedders[d].embed(["warm-up sentence", "another warm-up sentence"], d)
    figures: list[tuple[str, float, int, float, int]] = []  # label, answers/s, right, load,
    # answers re-checked in float32

    def run(dtype: str, label: str, part: list) -> int:
        family, ctx, emb = families.get(dtype), contexts.get(dtype), embedders[dtype]

        def per_item(part: list) -> int:
            return sum(bool(family.score(item, text, ctx).correct) for item, text in part)

        if label.startswith("batched embed"):
            vecs = emb.embed([text for _, text in part], dtype)
            golds = emb.embed([str(i.gold) for i, _ in part])
            wrongs = emb.embed([i.data["wrong"] for i, _ in part])
            return sum(float(v @ g) > float(v @ w)
                       for v, g, w in zip(vecs, golds, wrongs, strict=True))
        if label == "per item":
            return per_item(part)
        chunk = len(part) if label.startswith("prepared, per item") else args.chunk
        right = 0
        for i in range(0, len(part), chunk):
            family.prepare_scoring(part[i:i + chunk], ctx)
            right += per_item(part[i:i + chunk])
        return right

    for (dtype, label), part in zip(runs, parts, strict=True):
        rechecked = embedders[dtype].rechecked
        t0 = time.perf_counter()
        right = run(dtype, label, part)
        rate = len(part) / (time.perf_counter() - t0)
        figures.append((f"{dtype:8} {label}", rate, right, os.getloadavg()[0],
                        embedders[dtype].rechecked - rechecked))

    print(f"embedder: {reference_emb.name}")
    print(f"cpus: {os.cpu_count()} · torch threads: {torch.get_num_threads()} · model load: "
          f"{load:.1f} s · {size} distinct answers per path · native bfloat16: "
          f"{'yes' if native_bf16() else 'no'} (auto = {resolve_dtype('auto')})")
    ref = figures[0][1]
    for label, rate, right, at, rechecked in figures:
        again = f", {rechecked} re-checked" if label.startswith("bfloat16") else ""
        print(f"{label:45} {rate:6.0f} answers/s  {rate / ref:5.2f} × reference  "
              f"({right} right{again})  load {at:.2f}")
    for label, rate, *_ in figures:
        if "prepared" in label:
            print(f"target {TARGET} answers/s, {label}: {'met' if rate >= TARGET else 'missed'}")

    # -- decisions (untimed) ---------------------------------------------------------
    for d in dtypes:
        emb = embedders[d]
        if d == "float32":
            continue
        print(f"{d}: calibrated error {emb.calibration_error:.4f}, bound {emb.error_bound:.4f}"
              f" (× {emb.error_bound / emb.calibration_error:.0f})")
        for name, triples in [
            ("benchmark answers", [(t, str(i.gold), i.data["wrong"]) for i, t in answers]),
            ("near-tie answers", [(t, str(i.gold), i.data["wrong"])
                                  for i in items for t in near_ties(i)]),
        ]:
            want = reference_emb.compare_many(triples)
            before = emb.rechecked
            got = emb.compare_many(triples)
            texts = [t for t, _, _ in triples]
            fast = emb.embed(texts, d)
            options = reference_emb.embed([x for _, r, w in triples for x in (r, w)])
            alone = sum((float(v @ (options[2 * k] - options[2 * k + 1])) > 0)
                        != (w.right > w.wrong) for k, (v, w) in enumerate(zip(fast, want,
                                                                              strict=True)))
            differ = sum((g.right > g.wrong) != (w.right > w.wrong)
                         for g, w in zip(got, want, strict=True))
            print(f"{d}, {name} ({len(triples)}): {emb.rechecked - before} re-checked in "
                  f"float32 here, {sum(g.dtype == 'float32' for g in got)} decided in float32; "
                  f"{alone} decisions {d} alone would change; {differ} differ from float32")


if __name__ == "__main__":
    main()
