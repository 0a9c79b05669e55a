"""Prompt-evaluation threads of the embedded model: 1 thread against more, side by side.

Loads the GGUF once per thread count (default 1 and every usable core), then
in alternating rounds (1, N, 1, N ...; so that both see the same load) has each
answer the same prompts: one long story prompt (llama.cpp's own timings of the
prompt evaluation and of the generation) and a seeded sample of bundled items
as the plugin sends them (wall time per item, and whether the answers are the
same for every thread count). Prints the medians of each count with their
ratio to 1 thread, the reference measured in the same run, and the load
average of each round.

    python benchmarks/local_threads.py [--threads 1 2] [--rounds 4] [--items 6] [--model PATH]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
STORY = ("Mira puts her red scarf in the basket by the door and goes to the bakery. "
         "While she is away, her cousin Tomas moves the scarf to the wardrobe. ") * 6


def sample(n: int, seed: int) -> list[list[dict[str, str]]]:
    """The first messages of `n` seeded bundled items (vanilla method)."""
    from pytest_tom import families
    from pytest_tom.catalogue.load import load_suite

    items = []
    for path in sorted((REPO / "suites").glob("*/*.tom.yaml")):
        items += load_suite(path).items
    picked = random.Random(seed).sample(items, n)
    return [families.get(i.family).conversation(i, "vanilla", []) for i in picked]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--threads", type=int, nargs="+", default=None,
                    help="thread counts (default: 1 and every usable core)")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--items", type=int, default=6)
    ap.add_argument("--model", default="")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    sys.path.insert(0, str(REPO))
    from pytest_tom.backends.base import ModelRequest, SamplingParams
    from pytest_tom.backends.local import create, usable_cpus
    from pytest_tom.backends.options import BackendOptions

    counts = args.threads or sorted({1, usable_cpus()})
    backends = {n: create(args.model, BackendOptions(threads=n, rootdir=str(REPO))) for n in counts}
    for b in backends.values():
        b.loaded.server()  # load now, not in the first timed round
    prompts = sample(args.items, args.seed)
    params = SamplingParams(temperature=0.0, seed=0)
    figures: dict[int, dict[str, list[float]]] = {n: {"prompt": [], "gen": [], "item": []}
                                                  for n in counts}
    answers: dict[int, list[str]] = {}
    loads: list[float] = []
    for _ in range(args.rounds):
        for n, backend in backends.items():
            raw = backend.loaded.chat({
                "messages": [{"role": "user", "content": STORY + "Tell the story again."}],
                "max_tokens": 64, "temperature": 0, "top_k": 1, "cache_prompt": False,
                "ignore_eos": True})
            t = raw.get("timings", {})
            figures[n]["prompt"].append(float(t.get("prompt_per_second", 0)))
            figures[n]["gen"].append(float(t.get("predicted_per_second", 0)))
            start = time.perf_counter()
            got = [backend.complete(ModelRequest(messages=m, params=params)).text
                   for m in prompts]
            figures[n]["item"].append((time.perf_counter() - start) / len(prompts))
            answers.setdefault(n, got)
            loads.append(os.getloadavg()[0])
    ref = figures[counts[0]]
    print(f"model {backends[counts[0]].describe()} · cpus {os.cpu_count()} (usable "
          f"{usable_cpus()}) · {args.rounds} alternating rounds · {len(prompts)} items per round · "
          f"load {min(loads):.2f}-{max(loads):.2f}")
    print(f"{'threads':>7} {'prompt tok/s':>13} {'×':>5} {'gen tok/s':>10} {'×':>5} "
          f"{'s/item':>7} {'×':>5}  same answers as {counts[0]} thread")
    for n in counts:
        f = {k: statistics.median(v) for k, v in figures[n].items()}
        r = {k: statistics.median(v) for k, v in ref.items()}
        print(f"{n:>7} {f['prompt']:13.1f} {f['prompt'] / r['prompt']:5.2f} {f['gen']:10.1f} "
              f"{f['gen'] / r['gen']:5.2f} {f['item']:7.2f} {f['item'] / r['item']:5.2f}  "
              f"{answers[n] == answers[counts[0]]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
