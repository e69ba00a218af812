"""Benchmark the world-wide plans of a tiled world: what planning once over the whole world costs.

Run from the repository root::

    .venv/bin/python bench/bench_world_plans.py              # all three, the default sizes
    .venv/bin/python bench/bench_world_plans.py --only animals --tiles 4 --resolution 513

(a) ``networks``: a 3 x 3 world of 257² tiles with erosion, rivers and roads (``run_world``, serial):
the process CPU time by task kind (the erosion windows, the ``world`` task that stitches the eroded
heights and plans the networks on them, the tiles), the wall time, the peak memory and the size of
the stitched heights in the cache.
(b) ``settlements``: the settlements' world (tests/core/_settlement_cases.py ``TILED``: biomes,
rivers, roads, four hamlets) at 2 x 2 tiles of 129² and 4 x 4 tiles of 257², each with and without
settlements and roads, interleaved: the plan's cost is the difference.
(c) ``animals``: the temperate ecosystem preset's animals (``presets/ecosystem/temperate.toml``)
roaming a ``--tiles`` x ``--tiles`` world of ``--resolution`` tiles once (``core.world.world_animals``):
the estimate the recipe check refuses by, the CPU and wall time, the peak memory above the start (alone:
``--only animals``; after (a) and (b) their peak hides it) and
the agent-steps.

The 1-minute load average is printed with each part (the machine may be shared: compare CPU times).
"""

import argparse
import os
import resource
import tempfile
import time

import _loader  # noqa: F401  (makes the extension importable as worldseed)

from worldseed.core import ecosystem as core_ecosystem
from worldseed.core import recipe as core_recipe
from worldseed.core import world as core_world

ROOT = _loader.ROOT

NETWORKS = """
[world]
seed = 11
tiles = [3, 3]
[terrain]
resolution = 257
size = 512.0
height = 60.0
scale = 400.0
octaves = 6
normalize = "fixed"
[terrain.erosion]
enabled = true
[rivers]
enabled = true
threshold = 5000.0
[roads]
enabled = true
road_class = "trail"
points = [[-1400.0, -1400.0], [-1300.0, -100.0], [-200.0, -300.0], [-150.0, -1350.0]]
"""


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _load() -> str:
    return f"load {_loader.load():.2f}"


def networks() -> None:
    recipe = core_recipe.loads(NETWORKS)
    last = [time.process_time()]
    kinds: dict[str, float] = {}

    def progress(done: int, total: int, label: str) -> None:
        now = time.process_time()
        kind = label.split("_")[0]
        kinds[kind] = kinds.get(kind, 0.0) + now - last[0]
        last[0] = now

    out = tempfile.mkdtemp()
    start = time.perf_counter()
    core_world.run_world(recipe, out, name="b", progress=progress)
    wall = time.perf_counter() - start
    cpu = ", ".join(f"{k} {v:.1f} s" for k, v in kinds.items())
    size = os.path.getsize(os.path.join(core_world.cache_folder(out, "b"), "world_heights.npz"))
    print(f"(a) networks, 3 x 3 tiles of 257², erosion: {wall:.1f} s wall; CPU by task: {cpu}")
    print(f"    peak {_peak_mb():.0f} MB, world_heights.npz {size / 1e6:.1f} MB, {_load()}")


def settlements() -> None:
    text = (ROOT / "tests" / "core" / "_settlement_cases.py").read_text().split('TILED = """')[1].split('"""')[0]
    for res, tiles in ((129, 2), (257, 4)):
        on = (
            text.replace("resolution = 129", f"resolution = {res}")
            .replace("size = 256.0", f"size = {2 * (res - 1)}.0")
            .replace("tiles = [2, 2]", f"tiles = [{tiles}, {tiles}]")
        )
        off = on.replace("[settlements]\nenabled = true", "[settlements]\nenabled = false").replace(
            "[roads]\nenabled = true", "[roads]\nenabled = false"
        )
        for label, body in (("with", on), ("without", off), ("with", on), ("without", off)):
            recipe = core_recipe.loads(body)
            cpu, wall = time.process_time(), time.perf_counter()
            core_world.run_world(recipe, tempfile.mkdtemp(), name="S")
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
            print(f"(b) {tiles} x {tiles} tiles of {res}², {label} settlements: {cpu:.2f} s CPU, {wall:.2f} s wall")
        print(f"    (a second run of one recipe keeps the plan: the first pair plans, the second reuses) {_load()}")


def animals(tiles: int, res: int) -> None:
    preset = (ROOT / "presets" / "ecosystem" / "temperate.toml").read_text()
    text = (
        f'[world]\nname = "B"\nseed = 3\ntiles = [{tiles}, {tiles}]\n[terrain]\nresolution = {res}\n'
        f'size = {float((res - 1) * 2)}\nheight = 60.0\nnormalize = "fixed"\nsea_level = 0.1\n' + preset
    )
    recipe = core_recipe.loads(text)
    grid = core_world.world_grid(recipe)
    estimate = core_ecosystem.estimate_world_animals(recipe.ecosystem, grid.shape, cell_size=grid.cell_size)
    base = _peak_mb()
    cpu, wall = time.process_time(), time.perf_counter()
    run = core_world.world_animals(recipe, grid, core_world.recipe_digest(recipe))
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    steps = int(run.run.history["population"].sum())
    print(
        f"(c) animals over {grid.shape[0]}² ({tiles} x {tiles} tiles of {res}), {recipe.ecosystem.steps} steps: "
        f"{cpu:.1f} s CPU, {wall:.1f} s wall, {steps / 1e6:.1f} M agent-steps; peak +{_peak_mb() - base:.0f} MB "
        f"(estimate {estimate / 1e6:.0f} MB), {_load()}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=("networks", "settlements", "animals"))
    parser.add_argument("--tiles", type=int, default=2, help="(c): tiles a side (default 2)")
    parser.add_argument("--resolution", type=int, default=257, help="(c): a tile's samples a side (default 257)")
    args = parser.parse_args()
    if args.only in (None, "networks"):
        networks()
    if args.only in (None, "settlements"):
        settlements()
    if args.only in (None, "animals"):
        animals(args.tiles, args.resolution)


if __name__ == "__main__":
    main()
