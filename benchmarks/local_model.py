"""How fast the embedded model (`--tom-model=local`) is on this machine.

    python benchmarks/local_model.py [--model PATH.gguf] [--threads N] [--per-suite K]
                                     [--max-tokens N] [--suites DIR] [--pytest]

Prints:

1. the load time of the GGUF (once per process);
2. prompt evaluation and generation speed in tokens per second (llama.cpp's own
   timings of one long prompt and one 128-token generation);
3. items per second on the bundled suites: K items per suite file (seeded
   sample, vanilla method, the prompts the plugin sends), answered in process
   exactly as the plugin does, with the measured prompt and completion tokens
   per item and the projected time of each whole suite and of `pytest suites`;
4. with --pytest, the wall time of a real run through pytest of the generic
   suite (all items), for the overhead of the plugin on top of the model.

The figures depend on the CPU and on what else runs: on a busy machine a
multi-threaded llama.cpp loses much more than its share (its threads wait for
each other), so compare runs made under the same load (the load average is
printed).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


def load_average() -> str:
    try:
        return " / ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


def sample_items(suites_dir: Path, per_suite: int, seed: int) -> list[tuple[str, Any, Any, int]]:
    """(suite file, family, item, items in the file) for K seeded items of every suite file."""
    from pytest_tom import families
    from pytest_tom.catalogue.load import load_suite
    from pytest_tom.families.base import Settings

    settings = Settings()
    out = []
    for path in sorted(suites_dir.rglob("*.tom.yaml")):
        suite = load_suite(path, settings)
        family = families.get(suite.family)
        items = [it for it in suite.items if family.unavailable(it, settings) is None]
        rng = random.Random(f"{seed}:{suite.name}")
        for item in rng.sample(items, min(per_suite, len(items))):
            out.append((str(path.relative_to(suites_dir)), family, item, len(suite.items)))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default="", help="a GGUF file (default: the bundled SmolLM2)")
    ap.add_argument("--threads", type=int, default=None, help="CPU threads (default: all cores)")
    ap.add_argument("--per-suite", type=int, default=8, help="items timed per suite file")
    ap.add_argument("--max-tokens", type=int, default=None,
                    help="max tokens per answer (default: the backend's default)")
    ap.add_argument("--suites", default=str(REPO / "suites"), help="folder of suite files")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--pytest", action="store_true",
                    help="also time `pytest suites/generic --tom-model=local` end to end")
    args = ap.parse_args()

    from pytest_tom.backends import BackendSpecError
    from pytest_tom.backends.base import ModelRequest, SamplingParams
    from pytest_tom.backends.local import create
    from pytest_tom.backends.options import BackendOptions

    try:
        backend = create(args.model, BackendOptions(threads=args.threads, rootdir=str(REPO)))
    except BackendSpecError as exc:
        print(exc, file=sys.stderr)
        return 2
    print(f"model      {backend.describe()}  ({backend.size / 1e6:.0f} MB)")
    print(f"machine    {os.cpu_count()} CPUs, load average {load_average()}")

    start = time.perf_counter()
    backend.loaded.server()
    print(f"load       {time.perf_counter() - start:7.2f} s")

    # -- raw speed: llama.cpp's own timings -----------------------------------------
    story = ("Mira puts her red scarf in the basket by the door and goes to the bakery. "
             "While she is away, her cousin Tomas moves the scarf to the wardrobe. ") * 6
    raw = backend.loaded.chat({
        "messages": [{"role": "user", "content": story + "Tell the whole story again in detail."}],
        "max_tokens": 128, "temperature": 0, "top_k": 1, "cache_prompt": False,
        "ignore_eos": True,
    })
    t = raw.get("timings", {})
    print(f"prompt     {t.get('prompt_per_second', 0):7.1f} tokens/s  "
          f"({t.get('prompt_n')} tokens in {t.get('prompt_ms', 0) / 1000:.2f} s)")
    print(f"generation {t.get('predicted_per_second', 0):7.1f} tokens/s  "
          f"({t.get('predicted_n')} tokens in {t.get('predicted_ms', 0) / 1000:.2f} s)")

    # -- items per second on the bundled suites -----------------------------------------
    suites_dir = Path(args.suites)
    picked = sample_items(suites_dir, args.per_suite, args.seed)
    params = SamplingParams(temperature=0.0, max_tokens=args.max_tokens, seed=0)
    per_suite: dict[str, dict[str, Any]] = {}
    total_start = time.perf_counter()
    for name, family, item, size in picked:
        messages = family.conversation(item, "vanilla", [])
        start, cpu = time.perf_counter(), time.process_time()
        try:
            reply = backend.complete(ModelRequest(messages=messages, params=params))
            usage = reply.usage or {}
        except Exception as exc:  # keep measuring: an error is a figure too
            usage = {"error": str(exc)[:80]}
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        row = per_suite.setdefault(name, {"size": size, "seconds": [], "cpu": [], "prompt": [],
                                          "completion": [], "errors": 0})
        row["seconds"].append(seconds)
        row["cpu"].append(cpu)
        if "error" in usage:
            row["errors"] += 1
        else:
            row["prompt"].append(usage.get("prompt_tokens", 0))
            row["completion"].append(usage.get("completion_tokens", 0))
    elapsed = time.perf_counter() - total_start
    max_tokens = args.max_tokens if args.max_tokens is not None else backend.default_max_tokens
    print(f"\nitems      {len(picked)} items ({args.per_suite} per suite file), vanilla, "
          f"max_tokens {max_tokens}: {len(picked) / elapsed:.2f} items/s "
          f"({elapsed:.1f} s, load average {load_average()})")
    print("(cpu s = CPU seconds of this process per item: with --threads 1 it is close to the "
          "wall time on an idle core, whatever the load)")
    print(f"{'suite file':<44}{'items':>6}{'s/item':>8}{'items/s':>8}{'cpu s':>7}{'prompt':>7}"
          f"{'answer':>7}{'err':>4}{'whole':>8}{'whole@cpu':>10}")
    projected = projected_cpu = 0.0
    for name, row in sorted(per_suite.items()):
        mean_s, mean_cpu = statistics.mean(row["seconds"]), statistics.mean(row["cpu"])
        whole, whole_cpu = mean_s * row["size"], mean_cpu * row["size"] / backend.threads
        projected += whole
        projected_cpu += whole_cpu
        prompt = statistics.mean(row["prompt"]) if row["prompt"] else 0
        answer = statistics.mean(row["completion"]) if row["completion"] else 0
        print(f"{name:<44}{row['size']:>6}{mean_s:>8.2f}{1 / mean_s:>8.2f}{mean_cpu:>7.2f}"
              f"{prompt:>7.0f}{answer:>7.1f}{row['errors']:>4}{whole / 60:>6.1f} m"
              f"{whole_cpu / 60:>8.1f} m")
    print(f"{'projected: pytest suites':<44}{sum(r['size'] for r in per_suite.values()):>6}"
          f"{'':>41}{projected / 60:>6.1f} m{projected_cpu / 60:>8.1f} m")

    if args.pytest:
        generic = suites_dir / "generic"
        with tempfile.TemporaryDirectory() as tmp:
            cmd = [sys.executable, "-m", "pytest", str(generic), "-q", "-p", "no:cacheprovider",
                   f"--tom-model=local{':' + args.model if args.model else ''}",
                   "--tom-cache=off", "--tb=no"]
            if args.threads:
                cmd.append(f"--tom-threads={args.threads}")
            if args.max_tokens:
                cmd.append(f"--tom-max-tokens={args.max_tokens}")
            start = time.perf_counter()
            done = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True)
            seconds = time.perf_counter() - start
        last = (done.stdout.strip().splitlines() or [""])[-1]
        print(f"\npytest     suites/generic end to end: {seconds:.1f} s  ({last})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
