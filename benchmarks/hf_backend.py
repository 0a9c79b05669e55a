"""Items per second of `hf:` (transformers) at batch 1, 4 and 8, against `local` (llama.cpp)
on the same items, in the same run.

    python benchmarks/hf_backend.py [--model DIR] [--items N] [--max-tokens N]

Both backends answer the same N items of the bundled generic suite (vanilla prompts)
through the runner the plugin uses (no cache), with the same answer length. Without
--model the test model is made first: the embedded SmolLM2-135M GGUF saved as a
Hugging Face directory (tests/hf_support.py), so both run the same network: `local`
its Q4_1 GGUF through llama.cpp, `hf:` the de-quantized float32 weights through torch.
The machine is shared and noisy: the figures that mean something are the ratios to
`local` measured in this run (the load average is printed).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))


def requests_of(n: int, max_tokens: int) -> list:
    from pytest_tom import families
    from pytest_tom.backends.base import ModelRequest, SamplingParams
    from pytest_tom.catalogue.load import load_suite
    from pytest_tom.core.settings import Settings

    suite = load_suite(REPO / "suites" / "generic" / "classic-false-belief.tom.yaml", Settings())
    family = families.get(suite.family)
    params = SamplingParams(temperature=0.0, max_tokens=max_tokens, seed=0)
    return [ModelRequest(messages=family.conversation(item, "vanilla", []), params=params)
            for item in suite.items[:n]]


def items_per_second(backend, requests: list) -> tuple[float, list[str]]:
    from pytest_tom.asking.runner import Runner

    runner = Runner(backend, concurrency=16, retries=0)
    try:
        start = time.perf_counter()
        futures = [runner.submit(f"k{i}", lambda rs, r=r: None if rs else r)
                   for i, r in enumerate(requests)]
        done = [f.result() for f in futures]
        seconds = time.perf_counter() - start
    finally:
        runner.close()
    errors = [c.error for c in done if c.error]
    if errors:
        raise SystemExit(f"{backend.describe()}: {len(errors)} errors, e.g. {errors[0]}")
    return len(requests) / seconds, [c.final for c in done]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default="", help="a Hugging Face model directory "
                    "(default: the SmolLM2-135M test model, made in a temporary folder)")
    ap.add_argument("--items", type=int, default=24, help="items of the generic suite")
    ap.add_argument("--max-tokens", type=int, default=64, help="answer length of both backends")
    args = ap.parse_args()

    from pytest_tom.backends.hf import create as create_hf
    from pytest_tom.backends.local import create as create_local

    tmp = tempfile.TemporaryDirectory(prefix="tom-hf-bench-")
    model_dir = Path(args.model) if args.model else None
    if model_dir is None:
        from hf_support import make_smollm2_dir

        start = time.perf_counter()
        model_dir = make_smollm2_dir(Path(tmp.name) / "SmolLM2-135M-Instruct")
        print(f"test model made in {time.perf_counter() - start:.1f} s: {model_dir}")
    requests = requests_of(args.items, args.max_tokens)
    print(f"{len(requests)} items, max_tokens {args.max_tokens}, {os.cpu_count()} CPUs, "
          f"load average {' / '.join(f'{x:.2f}' for x in os.getloadavg())}")

    local = create_local("", {})
    local.loaded.server()  # loading is not part of the rate
    rates: dict[str, float] = {}
    answers: dict[str, list[str]] = {}
    rates["local"], answers["local"] = items_per_second(local, requests)
    for batch in (1, 4, 8):
        backend = create_hf(str(model_dir), {"batch_size": batch})
        if batch == 1:
            backend.target.loaded.parts()  # loaded once per process, before the clock
        name = f"hf batch {batch}"
        rates[name], answers[name] = items_per_second(backend, requests)
    rates["local again"], _ = items_per_second(local, requests)  # the load may have moved
    reference = (rates["local"] + rates["local again"]) / 2
    print(f"\n{'backend':<14}{'items/s':>9}{'x local':>9}")
    for name, rate in rates.items():
        print(f"{name:<14}{rate:>9.2f}{rate / reference:>9.2f}")
    same = all(answers[f"hf batch {b}"] == answers["hf batch 1"] for b in (4, 8))
    agree = sum(a == b for a, b in zip(answers["hf batch 1"], answers["local"], strict=True))
    print(f"\nhf answers identical at batch 1, 4 and 8: {same}; "
          f"equal to local's (Q4_1, llama.cpp): {agree}/{len(requests)}")
    print(f"load average after: {' / '.join(f'{x:.2f}' for x in os.getloadavg())}")
    tmp.cleanup()
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
