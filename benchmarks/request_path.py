"""CPU per request of the ways to call a chat-completions server, side by side.

Starts the loopback test server (`tests/chat_server.py`) with a fixed latency
L, then makes the same N calls at concurrency C in one fresh process per
variant, and prints each variant's wall time, its ratio to the ideal N·L/C,
its CPU per request, and both as ratios to the two references measured in the
same run (at `--latency 0` the ideal is 0 s: no ratio to it is printed, the wall time's
ratio to the raw aiohttp loop's is):

- `raw aiohttp`: an aiohttp session posting JSON (no openai client at all): the
  floor of an asyncio HTTP client in Python;
- `openai httpx`: `AsyncOpenAI().chat.completions.create` with the client's
  default transport (httpx): what a bare openai loop costs;
- `openai aiohttp`: the same with `http_client=openai.DefaultAioHttpClient()`;
- `openai aiohttp, lean`: `client.post("/chat/completions", cast_to=object)`,
  which skips the per-call parameter transform and the response model;
- `direct POST alone, no runner`: `backends/openai_api/direct_post.DirectPost` (what the worker's
  child runs) in this process, driven by the same plain loop as the references: what
  pytest-tom's own POST costs;
- `pytest-tom backend (...)`: pytest-tom's own `openai:` backend driven by its
  runner (slots, retries, deadline; no cache) on each request path: `worker` (the direct
  POST made in a child process, the default; its CPU is this process's and the child's,
  less the child's start-up: the references import aiohttp before their clock starts, so
  one child is started and closed before the clock on a backend of its own, and its CPU
  is subtracted for the measured child's start),
  and the openai client (`sdk`) over aiohttp and over httpx.

Every variant runs alone (the others are idle), `--repeat` times; the run with
the least CPU counts. pytest-tom's bytecode is compiled first, as an install has it
(`installed_bytecode.py`). The machine's load average is printed with the figures:
on a shared machine the absolute numbers move, the ratios much less.

    python benchmarks/request_path.py [--n 2000] [--latency 0.1] [--concurrency 64]
                                      [--repeat 2] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from chat_server import ChatServer  # noqa: E402
from installed_bytecode import compile_checkout  # noqa: E402

PRELUDE = """
import asyncio, sys, time
URL, N, C = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])

def prompt(i):
    return [{"role": "user", "content": f"Is the number {i} even? Answer yes or no."}]

async def drive(one):
    sem = asyncio.Semaphore(C)
    async def guarded(i):
        async with sem:
            text = await one(i)
            assert text, "empty answer"
    start, cpu = time.perf_counter(), time.process_time()
    await asyncio.gather(*(guarded(i) for i in range(N)))
    print(time.perf_counter() - start, time.process_time() - cpu)
"""

VARIANTS: dict[str, str] = {
    "raw aiohttp": """
import aiohttp
async def main():
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=C)) as s:
        async def one(i):
            body = {"model": "bench", "temperature": 0.0, "seed": 0, "messages": prompt(i)}
            async with s.post(URL + "/chat/completions", json=body,
                              headers={"Authorization": "Bearer not-needed"}) as r:
                return (await r.json())["choices"][0]["message"]["content"]
        await drive(one)
asyncio.run(main())
""",
    "openai httpx": """
import openai
async def main():
    client = openai.AsyncOpenAI(api_key="not-needed", base_url=URL, max_retries=0)
    async def one(i):
        r = await client.chat.completions.create(model="bench", temperature=0.0, seed=0,
                                                 messages=prompt(i))
        return r.choices[0].message.content
    await drive(one)
    await client.close()
asyncio.run(main())
""",
    "openai aiohttp": """
import openai
async def main():
    client = openai.AsyncOpenAI(api_key="not-needed", base_url=URL, max_retries=0,
                                http_client=openai.DefaultAioHttpClient())
    async def one(i):
        r = await client.chat.completions.create(model="bench", temperature=0.0, seed=0,
                                                 messages=prompt(i))
        return r.choices[0].message.content
    await drive(one)
    await client.close()
asyncio.run(main())
""",
    "openai aiohttp, lean": """
import openai
async def main():
    client = openai.AsyncOpenAI(api_key="not-needed", base_url=URL, max_retries=0,
                                http_client=openai.DefaultAioHttpClient())
    async def one(i):
        r = await client.post("/chat/completions", cast_to=object,
                              body={"model": "bench", "temperature": 0.0, "seed": 0,
                                    "messages": prompt(i)})
        return r["choices"][0]["message"]["content"]
    await drive(one)
    await client.close()
asyncio.run(main())
""",
}

TOM = """
import os
if sys.argv[5] == "worker":
    import aiohttp  # imported before the clock starts, as by the raw loop
else:
    import openai  # ... as by the openai loops
from pytest_tom.backends.openai_api.openai_backend import create
from pytest_tom.backends.options import BackendOptions
from pytest_tom.backends.base import ModelRequest, SamplingParams
from pytest_tom.asking.runner import Runner
backend = create("bench", BackendOptions(base_url=URL, timeout=120.0, transport=sys.argv[4],
                           openai_transport=sys.argv[5]))
runner = Runner(backend, concurrency=C, retries=5, backoff=0.05)
params = SamplingParams(temperature=0.0, seed=0)
async def start_and_close(spare):
    await spare.warm()
    await spare.aclose()
if sys.argv[5] == "worker":  # one child's start-up (its imports): before the clock, as the
    # raw loop imports aiohttp before its clock; measured on a backend of its own, subtracted
    asyncio.run(start_and_close(create("bench", BackendOptions(base_url=URL,
                                                               openai_transport="worker"))))
spent = os.times()
started = spent.children_user + spent.children_system
def conv(i):
    return lambda responses: None if responses else ModelRequest(prompt(i), params)
start, cpu = time.perf_counter(), time.process_time()
futures = [runner.submit(str(i), conv(i)) for i in range(N)]
comps = [f.result() for f in futures]
wall, used = time.perf_counter() - start, time.process_time() - cpu
assert all(c.responses and not c.error for c in comps), [c.error for c in comps if c.error][:3]
runner.close()
child = os.times()  # the worker path's child process, ended and reaped by close
child_cpu = child.children_user + child.children_system - 2 * started  # less the two starts
print(wall, used + child_cpu, f"{backend.path}/{backend.transport}")
"""
# pytest-tom's own POST (what the worker's child runs) driven by the plain loop above
BACKEND_ALONE = """
import aiohttp  # imported before the clock starts, as by the raw loop
from pytest_tom.backends.openai_api.direct_post import DirectPost
from pytest_tom.backends.openai_api.openai_headers import request_headers
from pytest_tom.backends.reply_parts import DEFAULT_TAGS, chat_reply
async def main():
    post = DirectPost(URL, request_headers("not-needed", 120.0, None, None), 5.0)
    async def one(i):
        body = {"model": "bench", "temperature": 0.0, "seed": 0, "messages": prompt(i)}
        return chat_reply(await post.post(body), DEFAULT_TAGS).text
    await drive(one)
    await post.close()
asyncio.run(main())
"""
ALONE_VARIANTS = {"direct POST alone, no runner": ("worker", "aiohttp")}
TOM_VARIANTS = {"pytest-tom backend (worker)": ("worker", "aiohttp"),
                "pytest-tom backend (sdk aiohttp)": ("sdk", "aiohttp"),
                "pytest-tom backend (sdk httpx)": ("sdk", "httpx")}


def run_variant(name: str, url: str,
                args: argparse.Namespace) -> tuple[float, float, float] | None:
    """(wall s, CPU s, the whole process's wall s: interpreter start and imports included)
    of the best of `repeat` runs, or None when the variant failed."""
    best: tuple[float, float, float] | None = None
    for _ in range(args.repeat):
        if name in TOM_VARIANTS:
            path, transport = TOM_VARIANTS[name]
            code, extra = PRELUDE + TOM, [transport, path]
        elif name in ALONE_VARIANTS:
            path, transport = ALONE_VARIANTS[name]
            code, extra = PRELUDE + BACKEND_ALONE, [transport, path]
        else:
            code, extra = PRELUDE + VARIANTS[name], []
        env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        began = time.perf_counter()
        proc = subprocess.run([sys.executable, "-c", code, url, str(args.n), str(args.concurrency),
                               *extra], capture_output=True, text=True, env=env)
        process = time.perf_counter() - began
        try:
            wall, cpu = (float(x) for x in proc.stdout.split()[:2])
        except ValueError:
            print(f"{name}: failed: {proc.stderr.strip()[-800:]}")
            return None
        if name in TOM_VARIANTS and proc.stdout.split()[2] != "/".join(TOM_VARIANTS[name]):
            print(f"{name}: the backend used {proc.stdout.split()[2]} (is aiohttp installed?)")
            return None
        if best is None or cpu < best[1]:
            best = (wall, cpu, process)
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--latency", type=float, default=0.1)
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--only", nargs="*", default=None, help="variant names (default: all)")
    args = ap.parse_args()
    names = list(VARIANTS) + list(ALONE_VARIANTS) + list(TOM_VARIANTS)
    if args.only:
        names = [n for n in names if any(o in n for o in args.only)]
    ideal = args.n * args.latency / args.concurrency
    compiled = compile_checkout(REPO)
    results: dict[str, tuple[float, float, float]] = {}
    loads: dict[str, float] = {}
    with ChatServer(lambda body: "Yes.", latency=args.latency) as server:
        for name in names:
            got = run_variant(name, server.base_url, args)
            loads[name] = os.getloadavg()[0]
            if got is not None:
                results[name] = got
    print(f"N {args.n} · latency {args.latency * 1000:.0f} ms · concurrency {args.concurrency} · "
          f"ideal N·L/C {ideal:.2f} s · cpus {os.cpu_count()} · best of {args.repeat}")
    print(compiled)
    raw = results.get("raw aiohttp")
    bare = results.get("openai httpx")
    if not ideal:
        print("latency 0: the ideal is 0 s, so there is no ×ideal; wall ×raw compares the walls")
    print(f"{'variant':32} {'wall':>7} {'×ideal':>7} {'wall ×raw':>9} {'ms CPU/req':>10} "
          f"{'CPU ×raw':>9} {'CPU ×openai':>11} {'load':>5}")
    for name, (wall, cpu, _process) in results.items():
        per = cpu / args.n * 1000
        x_ideal = f"{wall / ideal:.2f}" if ideal else "-"  # latency 0: nothing to divide by
        x_wall = f"{wall / raw[0]:.2f}" if raw and raw[0] else "-"
        x_raw = f"{cpu / raw[1]:.2f}" if raw and raw[1] else "-"
        x_bare = f"{cpu / bare[1]:.2f}" if bare and bare[1] else "-"
        print(f"{name:32} {wall:6.2f}s {x_ideal:>7} {x_wall:>9} {per:10.2f} {x_raw:>9} "
              f"{x_bare:>11} {loads[name]:5.2f}")
    return 0 if len(results) == len(names) else 1


if __name__ == "__main__":
    sys.exit(main())
