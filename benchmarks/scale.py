"""Large runs: time and memory of a whole pytest-tom run against a plain aiohttp script.

For each size N (default 2,000 / 20,000 / 100,000) a generic suite of N items is
generated (`tests/runner_support.numbers_suite`: 4 questions per scenario) and
answered by the loopback chat server (`tests/chat_server.py`, latency 0, in this
process). Four child processes are measured, each alone, then two together:

- `pytest --collect-only` of the suite: its peak RSS is the memory floor (the
  collected tree);
- the run: `--tom-model openai:bench --tom-concurrency 64 --tom-cache off
  --tom-report r.json --tom-html r.html`, only pytest-tom loaded
  (PYTEST_DISABLE_PLUGIN_AUTOLOAD): wall time and peak RSS;
- the plain aiohttp script: the same N chat-completion requests (one per item,
  64 at a time) from one `aiohttp.ClientSession`, no openai client, no pytest:
  wall time of the whole process, start-up included as in the run;
- pytest's floor: plain pytest running N trivial tests (one parametrized test
  function, `-q`, the same plugins: no pytest-tom), the least any pytest plugin
  running N items can take;
- then the script and the floor started at the same moment (`both s`): pytest's work
  and the requests with nothing joining them, the least a run that does both takes on
  this machine (on 2 cores, with the server on them too, more than the longer of the
  two: its ratio to that is printed beside it).
- a fully cached rerun (`cached s`: the same run with `--tom-cache=on` after one run that
  filled the cache, outside the repeats; no request is made: what a CI re-gate costs),
  against pytest's floor (`×floor`, target <= 1.3).

The run is also set against the two at once (`×both`, target <= 1.15) and its CPU against
the script's and the floor's added (`×s+f`, target <= 1.2).

Peak RSS is the child's own `ru_maxrss` (`os.wait4`, the `resource.getrusage`
figure of that one child). Printed per size and repeat: the whole run, the script
and the floor in seconds, the run over the larger of the two (`×bound`, target
<= 1.25), the CPU seconds (user + system) of the three and the run's over the
script's (target <= 4; less moved by the load of a shared machine than the wall
times), peak RSS of the run and of collect-only, KB per item above collect-only
(target <= 10, not growing with N), report and HTML sizes, the loopback server's
CPU while the run and the script ran, the script and the floor at once with its ratio,
and the load average after each. The four are interleaved `--repeat` times (default 3)
and their medians printed with the range of the load.

Why the wall-time ratio moves with the load: on an idle 2-core machine the run and
the server each have a core, so the run takes about its own CPU time (one busy
thread holding the GIL) while the script takes about the server's; on a machine
busy with other work the two compete for the same cores, and the ratio tends to the
ratio of *total* CPU (run + server against script + server). Quote it with the load.
Prints figures, asserts nothing.

    python benchmarks/scale.py [--sizes 2000 20000 100000] [--concurrency 64] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "benchmarks"))

from chat_server import ChatServer  # noqa: E402
from installed_bytecode import compile_checkout  # noqa: E402
from runner_support import expected_right, numbers_suite, respond  # noqa: E402

PLAIN = """
import asyncio, sys, aiohttp
URL, N, C = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
async def main():
    sem = asyncio.Semaphore(C)
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=C)) as s:
        async def one(i):
            body = {"model": "bench", "temperature": 0.0, "seed": 0, "max_tokens": 16,
                    "messages": [{"role": "user", "content": f"Is the number {i} even?"}]}
            async with sem:
                async with s.post(URL + "/chat/completions", json=body,
                                  headers={"Authorization": "Bearer not-needed"}) as r:
                    text = (await r.json())["choices"][0]["message"]["content"]
            assert text
        await asyncio.gather(*(one(i) for i in range(N)))
asyncio.run(main())
"""


def measure(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, int, int, str, float]:
    """(wall seconds, peak RSS in KB, exit status, stdout, CPU seconds) of one child process."""
    wall, [(status, usage, out)] = run_together([(cmd, cwd)], env)
    return wall, int(usage.ru_maxrss), status, out, usage.ru_utime + usage.ru_stime


def measure_together(cmds: list[tuple[list[str], Path]], env: dict[str, str]
                     ) -> tuple[float, float, list[int], list[str]]:
    """(wall seconds until the last one ended, CPU seconds of all, exit statuses, outputs) of
    child processes started at the same moment."""
    wall, ended = run_together(cmds, env)
    return (wall, sum(u.ru_utime + u.ru_stime for _, u, _ in ended),
            [status for status, _, _ in ended], [out for _, _, out in ended])


def run_together(cmds: list[tuple[list[str], Path]], env: dict[str, str]
                 ) -> tuple[float, list[tuple[int, Any, str]]]:
    """Start each (command, folder) at the same moment, its output to a file in its folder;
    (wall seconds until the last one ended, (exit status, `os.wait4`'s resource usage of
    that one child, output) of each)."""
    started = []
    start = time.perf_counter()
    for i, (cmd, cwd) in enumerate(cmds):
        out = cwd / f"child{i}.out"
        fh = open(out, "w")  # noqa: SIM115 closed below
        started.append((subprocess.Popen(cmd, cwd=cwd, env=env, stdout=fh,
                                         stderr=subprocess.STDOUT), fh, out))
    ended = []
    for proc, fh, out in started:
        _pid, status, usage = os.wait4(proc.pid, 0)
        fh.close()
        ended.append((os.waitstatus_to_exitcode(status), usage, out))
    wall = time.perf_counter() - start
    return wall, [(status, usage, out.read_text(errors="replace"))
                  for status, usage, out in ended]


FLOOR = """
import pytest


@pytest.mark.parametrize("i", range({n}))
def test_trivial(i):
    assert i >= 0
"""


def one_size(n: int, args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="tom-scale-") as tmp:
        root = Path(tmp)
        (root / "numbers.tom.yaml").write_text(numbers_suite(n))
        floor_dir = root / "floor"
        floor_dir.mkdir()
        (floor_dir / "test_floor.py").write_text(FLOOR.format(n=n))
        env = dict(os.environ, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1",
                   PYTHONPATH=os.pathsep.join(filter(None, [str(args.checkout),
                                                            os.environ.get("PYTHONPATH")])))
        with ChatServer(respond) as server:
            base = [sys.executable, "-m", "pytest", "numbers.tom.yaml", "-p", "pytest_tom.plugin",
                    "-p", "no:cacheprovider", "--tom-model=openai:bench",
                    f"--tom-base-url={server.base_url}", "--tom-cache=off", *args.tom_args]
            _, collected, status, out, _ = measure([*base, "--collect-only", "-q"], root, env)
            if status != 0:
                print(f"N {n}: collect-only failed ({status}):\n{out[-2000:]}")
                return
            rows: dict[str, list[tuple[float, float, float]]] = {
                "run": [], "script": [], "floor": [], "both": [], "cached": []}
            cached_cmd = [c if c != "--tom-cache=off" else "--tom-cache=on" for c in base]
            cached_cmd += [f"--tom-concurrency={args.concurrency}", "--tom-report=c.json", "-q",
                           "--tb=no"]
            _, _, status, out, _ = measure(cached_cmd, root, env)  # fills the cache
            if status not in (0, 1):
                print(f"N {n}: the run that fills the cache failed ({status}):\n{out[-2000:]}")
                return
            plain_cmd = [sys.executable, "-c", PLAIN, server.base_url, str(n),
                         str(args.concurrency)]
            floor_cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                         "test_floor.py"]
            for _ in range(args.repeat):  # the four interleaved: the same load for each
                asked = server.requests
                served = _server_cpu()
                whole, peak, status, out, cpu = measure(
                    [*base, f"--tom-concurrency={args.concurrency}", "--tom-report=r.json",
                     "--tom-html=r.html", "-q", "--tb=no"], root, env)
                served_run = _server_cpu() - served
                load_run = os.getloadavg()[0]
                if server.requests - asked != n or f"{expected_right(n)}" not in out:
                    print(f"N {n}: the run did not ask/score every item (requests "
                          f"{server.requests - asked}, status {status}):\n{out[-3000:]}")
                    return
                served = _server_cpu()
                plain, _, status, out, plain_cpu = measure(plain_cmd, root, env)
                served_plain = _server_cpu() - served
                load_plain = os.getloadavg()[0]
                if status != 0:
                    print(f"N {n}: the aiohttp script failed:\n{out[-2000:]}")
                    return
                floor, _, status, out, floor_cpu = measure(floor_cmd, floor_dir, env)
                load_floor = os.getloadavg()[0]
                if status != 0 or f"{n} passed" not in out:
                    print(f"N {n}: plain pytest failed:\n{out[-2000:]}")
                    return
                # the script and the floor at once: pytest's own work and the requests with
                # nothing joining them, the least a run doing both can take on this machine
                asked = server.requests
                both, both_cpu, statuses, outs = measure_together(
                    [(plain_cmd, root), (floor_cmd, floor_dir)], env)
                load_both = os.getloadavg()[0]
                if any(statuses) or server.requests - asked != n or f"{n} passed" not in outs[1]:
                    print(f"N {n}: the script and the floor together failed ({statuses}):\n"
                          f"{outs[0][-1000:]}\n{outs[1][-1000:]}")
                    return
                asked = server.requests
                cached, _, status, out, cached_cpu = measure(cached_cmd, root, env)
                load_cached = os.getloadavg()[0]
                if server.requests != asked or f"{expected_right(n)}" not in out:
                    print(f"N {n}: the cached rerun asked the server ({server.requests - asked} "
                          f"requests) or did not score every item:\n{out[-2000:]}")
                    return
                rows["cached"].append((cached, cached_cpu, load_cached))
                rows["run"].append((whole, cpu, load_run))
                rows["both"].append((both, both_cpu, load_both))
                rows["script"].append((plain, plain_cpu, load_plain))
                rows["floor"].append((floor, floor_cpu, load_floor))
                report = (root / "r.json").stat().st_size
                html = (root / "r.html").stat().st_size
                per_item = (peak - collected) / n
                bound = max(plain, floor)
                print(f"{n:>7} {whole:8.1f} {plain:8.1f} {floor:7.1f} {whole / bound:7.2f} "
                      f"{cpu:7.1f} {plain_cpu:7.1f} {floor_cpu:7.1f} {cpu / plain_cpu:6.2f} "
                      f"{peak / 1024:8.0f} {collected / 1024:8.0f} {per_item:7.2f} "
                      f"{report / 1e6:6.1f} {html / 1e6:6.1f} {served_run:5.1f}/{served_plain:4.1f}"
                      f" {both:7.1f} {both / bound:6.2f} {whole / both:6.2f}"
                      f" {cpu / (plain_cpu + floor_cpu):6.2f} {cached:7.1f} {cached / floor:6.2f}"
                      f"   {load_run:.2f} / {load_plain:.2f} / {load_floor:.2f} / {load_both:.2f}"
                      f" / {load_cached:.2f}", flush=True)
            if args.repeat > 1:
                med = {k: (statistics.median(r[0] for r in v), statistics.median(r[1] for r in v))
                       for k, v in rows.items()}
                bound = max(med["script"][0], med["floor"][0])
                loads = [r[2] for v in rows.values() for r in v]
                print(f"{n:>7} medians of {args.repeat}: run {med['run'][0]:.1f} s "
                      f"({med['run'][1]:.1f} s CPU), script {med['script'][0]:.1f} s "
                      f"({med['script'][1]:.1f} s CPU), floor {med['floor'][0]:.1f} s "
                      f"({med['floor'][1]:.1f} s CPU): run / max(script, floor) "
                      f"{med['run'][0] / bound:.2f}, run CPU / script CPU "
                      f"{med['run'][1] / med['script'][1]:.2f}, run CPU / floor CPU "
                      f"{med['run'][1] / med['floor'][1]:.2f}; the script and the floor at once "
                      f"{med['both'][0]:.1f} s, {med['both'][0] / bound:.2f} × max(script, floor)"
                      f"; run / both {med['run'][0] / med['both'][0]:.2f} (target <= 1.15), run "
                      f"CPU / (script + floor CPU) "
                      f"{med['run'][1] / (med['script'][1] + med['floor'][1]):.2f} (target <= 1.2)"
                      f", cached rerun {med['cached'][0]:.1f} s ({med['cached'][1]:.1f} s CPU) / "
                      f"floor {med['cached'][0] / med['floor'][0]:.2f} (target <= 1.3)"
                      f" · load {min(loads):.2f}-{max(loads):.2f}")


def _server_cpu() -> float:
    """CPU seconds of this process so far: the loopback server's threads, nearly all of it
    while a child runs (what the server spent answering that child)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[2000, 20000, 100000])
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--checkout", type=Path, default=REPO,
                    help="the pytest-tom checkout to measure (default: this one), e.g. a "
                         "worktree of an older commit for a before/after comparison")
    ap.add_argument("--repeat", type=int, default=3,
                    help="run, script, floor and both at once per size, interleaved; prints each "
                         "and the medians (default 3)")
    ap.add_argument("--tom-arg", dest="tom_args", action="append", default=[],
                    help="one more option for the pytest-tom run, repeatable, e.g. "
                         "--tom-arg=--tom-openai-transport=sdk")
    args = ap.parse_args()
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss > 0  # Linux: KB
    print(f"latency 0 · concurrency {args.concurrency} · cache off · --tom-report and --tom-html"
          f" · cpus {os.cpu_count()} · load {os.getloadavg()} · checkout {args.checkout}")
    print(compile_checkout(args.checkout))
    print(f"{'items':>7} {'run s':>8} {'aiohttp':>8} {'floor':>7} {'×bound':>7} {'run CPU':>7} "
          f"{'aio CPU':>7} {'flr CPU':>7} {'×aio':>6} {'peak MB':>8} {'collect':>8} "
          f"{'KB/item':>7} {'JSON':>6} {'HTML':>6} server CPU  {'both s':>7} {'×bound':>6}"
          f" {'×both':>6} {'×s+f':>6} {'cached':>7} {'×floor':>6}"
          f"   load (run / script / floor / both / cached)")
    for n in args.sizes:
        one_size(n, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
