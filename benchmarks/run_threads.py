"""Where a normal run's CPU goes: per thread of the pytest process and for its request process.

One run as `scale.py` makes it (N generic items, the loopback chat server at latency 0 in
this process, `--tom-cache off`, `--tom-concurrency 64`, `--tom-report` and `--tom-html`,
only pytest-tom loaded), and while it runs `/proc/<pid>/task/*/stat` of the run and of its
children is read every 0.1 s: the CPU seconds of pytest's main thread, of the runner's
loop thread (`tom-runner`), of the others, and of the request process
(`--tom-openai-transport=worker`), without a profiler's distortion. A `sitecustomize` put
on the run's PYTHONPATH names each Python thread for the kernel (`/proc/.../comm`), so that
the figures say which thread is which.

`--profile DIR` also writes a cProfile of each thread (`thread.NAME`) and of the request
process (`worker.PID`) into DIR (`python -m pstats DIR/thread.tom-runner`). cProfile
charges a thread's waits for the GIL to whatever function was running, so its per-call
times of the runner thread are much inflated while pytest's main thread is busy: read the
CPU split first, the profile for the counts and the shape.

Linux only. Prints figures, asserts nothing.

    python benchmarks/run_threads.py [-n 20000] [--checkout /work/main] [--profile /tmp/prof]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from chat_server import ChatServer  # noqa: E402
from runner_support import expected_right, numbers_suite, respond  # noqa: E402

# imported at the start of every Python process of the run (the run and its request
# process): names the threads for the kernel; with RUN_THREADS_PROFILE, profiles each
SITE = '''
import os, sys, threading
_dir = os.environ.get("RUN_THREADS_PROFILE")
_run = threading.Thread.run

def _name(name):
    try:
        with open(f"/proc/self/task/{threading.get_native_id()}/comm", "w") as fh:
            fh.write(name[:15])
    except OSError:
        pass

def run(self):
    _name(self.name)
    if not _dir:
        return _run(self)
    import cProfile
    prof = cProfile.Profile()
    prof.enable()
    try:
        return _run(self)
    finally:
        prof.disable()
        prof.dump_stats(os.path.join(_dir, "thread." + self.name.replace(" ", "_")))

threading.Thread.run = run
worker = sys.argv[:1] == ["-c"]  # the request process: `python -c _CHILD`
if _dir:
    import atexit, cProfile
    _main = cProfile.Profile()
    _main.enable()
    _out = f"worker.{os.getpid()}" if worker else "thread.MainThread"
    atexit.register(lambda: (_main.disable(), _main.dump_stats(os.path.join(_dir, _out))))
'''


def sample(pid: int, seen: dict[tuple[int, int], tuple[str, float]]) -> None:
    """Note the CPU seconds so far of every thread of `pid` and of its direct children."""
    tick = os.sysconf("SC_CLK_TCK")
    pids = [pid]
    try:
        pids += [int(c) for t in os.listdir(f"/proc/{pid}/task")
                 for c in Path(f"/proc/{pid}/task/{t}/children").read_text().split()]
    except OSError:
        return
    for p in pids:
        try:
            tasks = os.listdir(f"/proc/{p}/task")
        except OSError:
            continue
        for t in tasks:
            try:
                stat = Path(f"/proc/{p}/task/{t}/stat").read_text()
            except OSError:
                continue
            name = stat[stat.index("(") + 1:stat.rindex(")")]
            fields = stat[stat.rindex(")") + 2:].split()
            seen[(p, int(t))] = (name, (int(fields[11]) + int(fields[12])) / tick)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", type=int, default=20000, help="items (default 20,000)")
    ap.add_argument("--checkout", type=Path, default=REPO,
                    help="the pytest-tom checkout to run (default: this one)")
    ap.add_argument("--profile", type=Path, default=None,
                    help="also write a cProfile of each thread and of the request process here")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="tom-threads-") as tmp:
        root = Path(tmp)
        (root / "numbers.tom.yaml").write_text(numbers_suite(args.n))
        site = root / "site"
        site.mkdir()
        (site / "sitecustomize.py").write_text(SITE)
        env = dict(os.environ, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1",
                   PYTHONPATH=os.pathsep.join([str(args.checkout), str(site)]))
        if args.profile is not None:
            args.profile.mkdir(parents=True, exist_ok=True)
            env["RUN_THREADS_PROFILE"] = str(args.profile.resolve())
        with ChatServer(respond) as server:
            cmd = [sys.executable, "-m", "pytest", "numbers.tom.yaml", "-p", "pytest_tom.plugin",
                   "-p", "no:cacheprovider", "--tom-model=openai:bench",
                   f"--tom-base-url={server.base_url}", "--tom-cache=off",
                   "--tom-concurrency=64", "--tom-report=r.json", "--tom-html=r.html", "-q",
                   "--tb=no"]
            before = resource.getrusage(resource.RUSAGE_SELF)
            seen: dict[tuple[int, int], tuple[str, float]] = {}
            start = time.perf_counter()
            with open(root / "out.txt", "w") as out:
                proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=out,
                                        stderr=subprocess.STDOUT)
                while True:
                    pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
                    if pid:
                        break
                    sample(proc.pid, seen)
                    time.sleep(0.1)
            wall = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_SELF)
        text = (root / "out.txt").read_text(errors="replace")
        if f"{expected_right(args.n)}" not in text:
            print(f"the run did not score every item:\n{text[-2000:]}")
            return 1
        served = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        print(f"{args.n} items · checkout {args.checkout} · wall {wall:.2f} s · CPU of the run "
              f"and its request process {usage.ru_utime + usage.ru_stime:.2f} s · loopback "
              f"server {served:.2f} s · load {os.getloadavg()[0]:.2f}")
        for (p, t), (name, cpu) in sorted(seen.items(), key=lambda kv: -kv[1][1]):
            if cpu >= 0.05:
                if p != proc.pid:
                    name = f"request process {p}" if p == t else f"{name} (child {p})"
                elif p == t:
                    name = "MainThread"
                print(f"  {cpu:6.2f} s  {cpu / args.n * 1e6:6.1f} µs/item  {name}")
        print("  (sampled every 0.1 s: the last tenth of a second of a thread may be missing)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
