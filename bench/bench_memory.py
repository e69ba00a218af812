"""Peak memory of a 4097 x 4097 terrain build (16.8 M vertices), each case in a fresh process.

    .venv/bin/python bench/bench_memory.py

Cases: the core heightmap alone; the core heightmap plus everything the
Blender bridge feeds Blender (positions, topology, corner UVs); and the full
Blender build in the bpy module (mesh, UVs, material, linked object). Each
prints the peak resident memory (ru_maxrss) minus the process's resident
memory before the build, beside the size of the finished mesh data itself
(the anchor: what any loader must hold at least once). Target: under 3 GB.
"""

import json
import os
import subprocess
import sys

N = 4097
HERE = os.path.dirname(os.path.abspath(__file__))

CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, {here!r})
import _loader
case, n = sys.argv[1], int(sys.argv[2])
def rss_mb():
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * 4096 / 2**20
from worldseed.core import recipe as core_recipe, terrain as core_terrain
recipe = core_recipe.replace(core_recipe.Recipe(), terrain_resolution=n, terrain_size=8192.0, terrain_octaves=8)
if case == "blender":
    import bpy, importlib
    importlib.import_module("worldseed.addon").register()
    bpy.ops.wm.read_homefile(use_empty=True)
    from worldseed.operators.bridge import terrain as build
base = rss_mb()
t0 = time.perf_counter()
if case == "core":
    h = core_terrain.terrain_heights(recipe.terrain, seed=1)
elif case == "core+bridge":
    from worldseed.core import mesh as core_mesh
    import numpy as np
    h = core_terrain.terrain_heights(recipe.terrain, seed=1)
    topo = core_mesh.grid_topology(n, n)
    pos = np.empty((n * n, 3), np.float32)
else:
    root = build.build_terrain(recipe, collection=bpy.context.scene.collection)
seconds = time.perf_counter() - t0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(dict(case=case, base_mb=base, peak_mb=peak, seconds=seconds)))
"""


def run(case):
    proc = subprocess.run(
        [sys.executable, "-c", CHILD.format(here=HERE), case, str(N)], capture_output=True, text=True, timeout=1200
    )
    if proc.returncode != 0:
        raise SystemExit(proc.stderr)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main():
    quads = (N - 1) ** 2
    mesh_mb = (N * N * 12 + (N * (N - 1) * 2) * 8 + quads * 4 * (4 + 4 + 8) + quads * 4) / 2**20
    print(f"terrain {N}x{N}: {N * N:,} vertices, {quads:,} quads; finished mesh data about {mesh_mb:,.0f} MB")
    print(f"{'case':<14}{'peak MB':>10}{'before MB':>11}{'build MB':>10}{'x mesh':>8}{'seconds':>9}")
    for case in ("core", "core+bridge", "blender"):
        r = run(case)
        used = r["peak_mb"] - r["base_mb"]
        print(f"{case:<14}{r['peak_mb']:10.0f}{r['base_mb']:11.0f}{used:10.0f}{used / mesh_mb:8.2f}{r['seconds']:9.2f}")
        if case == "blender":
            print(f"target: build under 3 GB: {'met' if used < 3072 else 'NOT met'} ({used / 1024:.2f} GB)")


if __name__ == "__main__":
    main()
