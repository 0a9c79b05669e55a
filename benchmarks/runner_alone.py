"""CPU per call of the runner alone: no HTTP, no pytest.

The runner (`asking/runner.Runner`) as a run of `openai:` has it (concurrency 64, no
cache, the early-stop rules of a server backend, so the in-flight sharing, the retry
policy, the slots, the deadline and the attempt's watch all run) drives N one-call
conversations against a backend that answers at once (one `await asyncio.sleep(0)`).
What is measured is the CPU of this process from the first `submit` until every future
is done, over N: the runner's own bookkeeping per call, which in a pytest run is spent
in the runner's thread beside pytest's main thread (issue 35). Each repeat is a fresh
process; every repeat is printed and the least counts (a shared machine only adds).

Prints figures, asserts nothing.

    python benchmarks/runner_alone.py [--n 20000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

from installed_bytecode import compile_checkout  # noqa: E402

CHILD = """
import asyncio, sys, time
from pytest_tom.backends.base import Backend, BackendAbilities, ItemView, ModelReply, ModelRequest, SamplingParams
from pytest_tom.asking.runner import Runner


class Instant(Backend):
    name = "instant"
    # cacheable: calls in flight are shared, as for openai:; server: the early-stop rules of
    # a server, each attempt watched
    abilities = BackendAbilities(cacheable=True, server=True)

    def identity(self):
        return {"backend": "instant"}

    async def acomplete(self, request):
        await asyncio.sleep(0)
        return ModelReply(text="yes", usage={"prompt_tokens": 9, "completion_tokens": 1,
                                             "total_tokens": 10}, model="m",
                          finish_reason="stop")


n = int(sys.argv[1])
params = SamplingParams(temperature=0.0, max_tokens=16, seed=0)
view = ItemView(id="x", suite="s", family="generic", kind="choice", question="q",
                choices=[], gold=None, tags=[], source={})
requests = [ModelRequest(messages=[{"role": "user", "content": f"Is the number {i} even?"}],
                         params=params, item=view) for i in range(n)]


def once(request):
    return lambda responses: None if responses else request


runner = Runner(Instant(), concurrency=64, cut_off="--tom-max-tokens")
conversations = [once(r) for r in requests]
start, cpu = time.perf_counter(), time.process_time()
futures = [runner.submit(f"k{i}", c) for i, c in enumerate(conversations)]
answers = [f.result() for f in futures]
wall, cpu = time.perf_counter() - start, time.process_time() - cpu
runner.close()
assert all(a.final == "yes" and not a.error for a in answers)
print(wall, cpu)
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    print(compile_checkout(REPO))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    best = None
    for _ in range(args.repeat):
        out = subprocess.run([sys.executable, "-c", CHILD, str(args.n)], env=env,
                             capture_output=True, text=True, check=True).stdout.split()
        wall, cpu = float(out[0]), float(out[1])
        best = cpu if best is None else min(best, cpu)
        print(f"N {args.n}: wall {wall:.2f} s, CPU {cpu:.2f} s: {1e6 * cpu / args.n:.0f} µs "
              f"per call · load {os.getloadavg()[0]:.2f}", flush=True)
    assert best is not None
    print(f"least: {1e6 * best / args.n:.0f} µs of CPU per call, {best:.2f} s for {args.n} calls")
    return 0


if __name__ == "__main__":
    sys.exit(main())
