"""Benchmark tiled worlds: serial against Dask's LocalCluster, and a 256-tile world.

Run from the repository root::

    .venv/bin/python bench/bench_world.py                 # (a): 16 tiles of 1025^2, serial vs 2 workers
    .venv/bin/python bench/bench_world.py --rounds 2      # (a), best of 2 interleaved rounds
    nice .venv/bin/python bench/bench_world.py --big      # (b) only: 256 tiles of 1025^2 (~10-20 min)

(a) A 4 x 4 world of 1025^2 tiles (1 km each, 4 km x 4 km) with hydraulic erosion
(``--droplets`` per km^2, 50,000 by default), three texture layers (height/slope rules and an
erosion-deposit layer) and the flow map: ``run_world`` with the serial executor and with
``DaskExecutor(workers=2)`` (an embedded LocalCluster, 2 processes of 1 thread), interleaved
(serial, dask, serial, dask, ...) into fresh folders, and every output file compared byte for
byte.  Printed: each side's wall time and tiles/s, the ratio (target >= 1.6x on 2 cores), each side's
CPU time (the main process, and with Dask both workers too: what the work costs on each side), the
1-minute load average read before each round (the machine is shared: the ratio is only as good as
the load), the cluster's start time (target <= 3 s), the per-task overhead of the Dask path
(200 empty tasks, independent: the throughput cost; and a chain of 50, each waiting for the one
before: the round trip), and the seam report of the erosion windows (the largest and mean jump of
``eroded - base`` between neighbouring windows along shared borders before blending, as a
fraction of the relief; measured on a 2 x 2 world of the same settings, to keep the run short).

(b) ``--big``: the same recipe on a 16 x 16 grid (16,385^2 samples, 16 km x 16 km), core outputs
only (RAW, splats, flow, terrain JSON, placements; no FBX), on ``--workers`` Dask workers (2).
Printed: total time; peak memory of every process (the main process and each worker: resident
memory at start, peak, and peak above start, from /proc and ``ru_maxrss``; targets: all under
2 GB together, each worker under 300 MB above its start); tiles/s for every chunk of 32 tiles in
the order they finished (the trend: flat means no slowdown with world size); and the outputs'
size on disk.
"""

import argparse
import hashlib
import os
import resource
import shutil
import sys
import tempfile
import threading
import time

import _loader  # noqa: F401  (makes the extension importable as worldseed)

from worldseed.core import recipe as core_recipe
from worldseed.core import world as core_world
from worldseed.scaleout.dask_executor import DaskExecutor

RECIPE = """
[world]
name = "Bench"
seed = 2026
tiles = [{n}, {n}]

[terrain]
resolution = {resolution}
size = {size}
height = 300.0
normalize = "fixed"
scale = 600.0
octaves = 8

[terrain.erosion]
enabled = true
droplets_per_km2 = {droplets}

[[splat]]
name = "Grass"
color = [0.1, 0.3, 0.1]

[[splat]]
name = "Rock"
color = [0.4, 0.4, 0.4]
slope_range = [28.0, 90.0]

[[splat]]
name = "Scree"
color = [0.5, 0.45, 0.4]
deposits = 1.0
"""


def world_recipe(n, args):
    """The bench's recipe on an n x n grid (1 m cells: a tile of 1025 samples is 1,024 m)."""
    text = RECIPE.format(n=n, droplets=args.droplets, resolution=args.resolution, size=args.resolution - 1.0)
    return core_recipe.loads(text)


class Noop:
    """A task of the overhead measurement (key and deps, as core.world's Task)."""

    def __init__(self, key, deps=()):
        self.key, self.deps = key, tuple(deps)


def noop(task, deps):
    return {"key": task.key}


def digests(folder):
    out = {}
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if not name.startswith(".") and os.path.isfile(path) and not name.endswith("_world.json"):
            with open(path, "rb") as fh:
                out[name] = hashlib.sha256(fh.read()).hexdigest()
    return out


def disk_bytes(folder):
    total = 0
    for root, _dirs, files in os.walk(folder):
        total += sum(os.path.getsize(os.path.join(root, f)) for f in files)
    return total


def rss_mb(pid):
    try:
        with open(f"/proc/{pid}/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:
        return None


def worker_info():
    """Run in each worker: its pid, resident memory now and its peak (ru_maxrss), MB."""
    import os as _os
    import resource as _resource

    with open(f"/proc/{_os.getpid()}/statm") as fh:
        rss = int(fh.read().split()[1]) * _os.sysconf("SC_PAGE_SIZE") / 2**20
    return {"pid": _os.getpid(), "rss_mb": rss, "peak_mb": _resource.getrusage(_resource.RUSAGE_SELF).ru_maxrss / 1024}


def cpu_seconds():
    """Run in each worker: the process's CPU time so far (user + system, all threads)."""
    import resource as _resource

    use = _resource.getrusage(_resource.RUSAGE_SELF)
    return use.ru_utime + use.ru_stime


def thread_seconds():
    """Run in each process (a worker, or this one): CPU seconds so far of its threads by kind,
    ``{"tasks", "main", "other"}``: Dask's task threads (``Dask-Default-Threads``), the main thread (a
    worker's event loop; this process's driver) and the rest (this process's scheduler and client
    loop); Linux only (``/proc/self/task``), else None."""
    import os as _os
    import threading as _threading

    if not _os.path.isdir("/proc/self/task"):
        return None
    names = {t.native_id: t.name for t in _threading.enumerate()}
    tick = _os.sysconf("SC_CLK_TCK")
    out = {"tasks": 0.0, "main": 0.0, "other": 0.0}
    for tid in _os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        name = names.get(int(tid), "")
        kind = "tasks" if "Dask-Default-Threads" in name else "main" if name == "MainThread" else "other"
        out[kind] += (int(fields[11]) + int(fields[12])) / tick
    return out


def overhead(ex, n_free=200, n_chain=50):
    """Seconds per empty task: independent tasks (throughput) and a dependent chain (round trip)."""
    free = [Noop(f"noop_{i}") for i in range(n_free)]
    chain = [Noop("chain_0")] + [Noop(f"chain_{i}", (f"chain_{i - 1}",)) for i in range(1, n_chain)]
    ex.run(free[:10], noop)  # warm: the bootstrap's first import in each worker
    t0 = time.perf_counter()
    ex.run(free, noop)
    t_free = (time.perf_counter() - t0) / n_free
    t0 = time.perf_counter()
    ex.run(chain, noop)
    t_chain = (time.perf_counter() - t0) / n_chain
    return t_free, t_chain


def _split(before, after, main):
    """The dask side's CPU seconds by kind of thread, from :func:`thread_seconds` ``(workers, main)``
    before and after a run; None where /proc is missing."""
    (w0, m0), (w1, m1) = before, after
    if m0 is None or any(v is None for v in (*w0.values(), *w1.values())):
        return None

    def grew(kinds):
        return sum(w1[w][k] - w0.get(w, w1[w])[k] for w in w1 for k in kinds)

    return {
        "tasks": grew(["tasks"]),
        "loops": grew(["main", "other"]),
        "main": main,
        "scheduler": m1["other"] - m0["other"],
    }


def bench_a(args):
    recipe = world_recipe(4, args)
    grid = core_world.world_grid(recipe)
    base = tempfile.mkdtemp(prefix="bench_world_", dir=args.tmp)
    print(
        f"(a) {grid.nx} x {grid.nz} tiles of {grid.resolution}^2 ({grid.size:g} m), erosion "
        f"{args.droplets:g} droplets/km^2, halo {grid.halo_cells} cells, 3 splat layers + flow; "
        f"serial vs DaskExecutor(workers={args.workers}), interleaved, {args.rounds} round(s)"
    )
    best = {"serial": float("inf"), "dask": float("inf")}
    cpu = dict(best)
    split = None
    starts, loads, outputs = [], [], {}
    try:
        for r in range(args.rounds):
            loads.append(os.getloadavg()[0])
            out = os.path.join(base, f"serial{r}")
            t0, c0 = time.perf_counter(), time.process_time()
            run = core_world.run_world(recipe, out)
            best["serial"] = min(best["serial"], time.perf_counter() - t0)
            cpu["serial"] = min(cpu["serial"], time.process_time() - c0)
            assert run.complete
            outputs.setdefault("serial", digests(out))
            print(f"  round {r + 1}: serial {time.perf_counter() - t0:7.1f} s  (load {loads[-1]:.1f})", flush=True)
            loads.append(os.getloadavg()[0])
            with DaskExecutor(workers=args.workers) as ex:
                starts.append(ex.start_seconds)
                out = os.path.join(base, f"dask{r}")
                before = ex.client.run(cpu_seconds)
                threads_before = ex.client.run(thread_seconds), thread_seconds()
                t0, c0 = time.perf_counter(), time.process_time()
                run = core_world.run_world(recipe, out, executor=ex)
                best["dask"] = min(best["dask"], time.perf_counter() - t0)
                after = ex.client.run(cpu_seconds)
                main = time.process_time() - c0
                used = main + sum(after[w] - before.get(w, 0.0) for w in after)
                if used < cpu["dask"]:
                    split = _split(threads_before, (ex.client.run(thread_seconds), thread_seconds()), main)
                cpu["dask"] = min(cpu["dask"], used)
                assert run.complete
                outputs.setdefault("dask", digests(out))
                print(
                    f"  round {r + 1}: dask   {time.perf_counter() - t0:7.1f} s  (load {loads[-1]:.1f}; "
                    f"cluster start {ex.start_seconds:.2f} s)",
                    flush=True,
                )
                if r == args.rounds - 1:
                    t_free, t_chain = overhead(ex)
                    # the seams of a 2 x 2 world of the same settings (its 4 windows, kept in a cache)
                    small = world_recipe(2, args)
                    cache = os.path.join(base, "windows")
                    os.makedirs(cache)
                    fn = core_world.WorldTaskFn(small, out_dir=base, name="seams", cache_dir=cache)
                    small_grid = core_world.world_grid(small)
                    ex.run([t for t in core_world.plan_world(small_grid, small) if t.kind == "window"], fn)
                    seams = core_world.seam_report(small_grid, cache)
            for name in [n for n in os.listdir(base) if n.startswith(("serial", "dask"))]:
                shutil.rmtree(os.path.join(base, name), ignore_errors=True)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    same = outputs["serial"] == outputs["dask"]
    tiles = grid.nx * grid.nz
    print(f"  outputs identical (serial vs dask, {len(outputs['serial'])} files, SHA-256): {same}")
    print(
        f"  serial {best['serial']:.1f} s = {tiles / best['serial']:.3f} tiles/s; dask {best['dask']:.1f} s = "
        f"{tiles / best['dask']:.3f} tiles/s; ratio {best['serial'] / best['dask']:.2f}x (target >= 1.6x); "
        f"load {min(loads):.1f}-{max(loads):.1f} on {os.cpu_count()} cores"
    )
    print(
        f"  CPU time (best round): serial {cpu['serial']:.1f} s, dask {cpu['dask']:.1f} s (main process + both "
        f"workers): the work itself costs {cpu['dask'] / cpu['serial']:.2f}x on the cluster; the most 2 cores can give "
        f"is then {2 * cpu['serial'] / cpu['dask']:.2f}x"
    )
    if split is not None:
        print(
            f"  where the dask CPU went (best round): workers' task threads {split['tasks']:.1f} s, workers' "
            f"other threads (event loop, comms) {split['loops']:.2f} s, main process {split['main']:.2f} s "
            f"(scheduler and client {split['scheduler']:.2f} s)"
        )
    print(f"  cluster start: {', '.join(f'{s:.2f}' for s in starts)} s (target <= 3 s)")
    print(
        f"  per-task overhead: {t_free * 1e3:.1f} ms per empty task (200 independent), "
        f"{t_chain * 1e3:.1f} ms per hop (chain of 50)"
    )
    print(
        f"  seams before blending (2 x 2 tiles): max {seams['max_m']:.3f} m, mean {seams['mean_m']:.4f} m of relief "
        f"{seams['relief_m']:.1f} m = max {seams['max']:.2e}, mean {seams['mean']:.2e} of relief"
    )
    if not same:
        raise SystemExit("outputs differ between serial and dask")


class Sampler:
    """Peak resident memory of this process and its children, sampled every ``period`` seconds."""

    def __init__(self, period=0.5):
        self.period, self.first, self.peak = period, {}, {}
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)

    def pids(self):
        me = os.getpid()
        out = [me]
        for name in os.listdir("/proc"):
            if name.isdigit():
                try:
                    with open(f"/proc/{name}/stat") as fh:
                        if int(fh.read().rsplit(")", 1)[1].split()[1]) == me:
                            out.append(int(name))
                except (OSError, ValueError, IndexError):
                    continue
        return out

    def _loop(self):
        while not self.stop.is_set():
            for pid in self.pids():
                mb = rss_mb(pid)
                if mb is not None:
                    self.first.setdefault(pid, mb)
                    self.peak[pid] = max(self.peak.get(pid, 0.0), mb)
            self.stop.wait(self.period)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()


def bench_b(args):
    n = 16
    recipe = world_recipe(n, args)
    grid = core_world.world_grid(recipe)
    out = tempfile.mkdtemp(prefix="bench_world_big_", dir=args.tmp)
    tiles = grid.nx * grid.nz
    side = grid.nx * (grid.resolution - 1) + 1
    print(
        f"(b) {grid.nx} x {grid.nz} tiles of {grid.resolution}^2 = {side:,}^2 samples "
        f"({grid.nx * grid.size / 1000:g} km square), erosion {args.droplets:g} droplets/km^2, core outputs only, "
        f"DaskExecutor(workers={args.workers}); out {out}",
        flush=True,
    )
    main_start = rss_mb(os.getpid())
    done_at = []
    t0 = time.perf_counter()

    def progress(done, total, label):
        if label.startswith("tile_"):
            done_at.append(time.perf_counter())
            if len(done_at) % 32 == 0:
                k = len(done_at)
                prev = done_at[k - 33] if k > 32 else t0
                print(
                    f"  tiles {k - 31:3d}-{k:3d}: {32 / (done_at[-1] - prev):.3f} tiles/s "
                    f"(at {done_at[-1] - t0:6.0f} s, load {os.getloadavg()[0]:.1f})",
                    flush=True,
                )

    try:
        with Sampler() as sampler, DaskExecutor(workers=args.workers) as ex:
            start_info = ex.client.run(worker_info)
            t0 = time.perf_counter()
            run = core_world.run_world(recipe, out, executor=ex, progress=progress)
            total = time.perf_counter() - t0
            end_info = ex.client.run(worker_info)
        assert run.complete and len(run.built) == tiles
        size = disk_bytes(out)
        files = sum(len(t["files"]) for t in run.document["tiles"])
    finally:
        shutil.rmtree(out, ignore_errors=True)
    print(
        f"  total {total:.0f} s = {tiles / total:.3f} tiles/s "
        f"({tiles} tiles, {files} files, {size / 2**30:.2f} GiB on disk)"
    )
    main_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"  main process: {main_start:.0f} MB at start, peak {main_peak:.0f} MB (ru_maxrss), "
        f"{main_peak - main_start:.0f} MB above its start"
    )
    together = main_peak
    for addr, info in sorted(end_info.items()):
        first = start_info.get(addr, {}).get("rss_mb")
        sampled = sampler.peak.get(info["pid"])
        peak = max(info["peak_mb"], sampled or 0.0)
        together += peak
        above = f"{peak - first:.0f} MB above its start" if first is not None else "restarted during the run"
        print(f"  worker {addr} (pid {info['pid']}): {first or 0:.0f} MB at start, peak {peak:.0f} MB, {above}")
    lost = set(sampler.peak) - {os.getpid()} - {i["pid"] for i in end_info.values()}
    for pid in sorted(lost):
        print(f"  other child {pid}: peak {sampler.peak[pid]:.0f} MB (sampled)")
        together += sampler.peak[pid]
    print(f"  all processes' peaks together: {together:.0f} MB (target < 2048 MB); load now {os.getloadavg()[0]:.1f}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--big", action="store_true", help="(b) only: the 256-tile world")
    parser.add_argument("--rounds", type=int, default=1, help="(a): interleaved rounds (default 1)")
    parser.add_argument("--workers", type=int, default=2, help="Dask workers (default 2)")
    parser.add_argument("--droplets", type=float, default=50_000.0, help="erosion droplets per km^2 (default 50,000)")
    parser.add_argument("--resolution", type=int, default=1025, help="tile resolution (default 1025; 1 m cells)")
    parser.add_argument("--tmp", default=None, help="folder for the outputs (default: the system's temp)")
    args = parser.parse_args(argv)
    print(f"bench_world: {time.strftime('%H:%M:%S')} load {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    if args.big:
        bench_b(args)
    else:
        bench_a(args)


if __name__ == "__main__":  # the LocalCluster's worker processes import this file again (spawn)
    sys.exit(main())
