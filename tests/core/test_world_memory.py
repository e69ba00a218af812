"""Tiled worlds: a tile task's memory stays bounded (measured in a fresh process with getrusage).

Run as a script for the figure at another resolution (``python tests/core/test_world_memory.py
1025``: a 2 x 2 world of 1025^2 tiles with erosion, biomes, texture layers and a scatter layer;
each task of tile (0, 0) in a process of its own, its peak resident memory above the process's
after the imports).
"""

import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

TEXT = """
[world]
seed = 5
tiles = [2, 2]
[terrain]
normalize = "fixed"
resolution = {res}
size = 1024.0
height = 200.0
scale = 300.0
[terrain.erosion]
enabled = true
[biomes]
enabled = true
[[splat]]
name = "ground"
[[splat]]
name = "rock"
slope_range = [25.0, 90.0]
[[splat]]
name = "silt"
flow = 0.5
[[scatter]]
name = "rocks"
radius = 4.0
"""

TASK = """
import os, resource, sys
sys.path.insert(0, {root!r})
from core import recipe as core_recipe
from core.world import plan_world, run_task, world_grid
r = core_recipe.loads(open({toml!r}).read())
g = world_grid(r)
out, key = {out!r}, {key!r}
tasks = plan_world(g, r, tiles=[(0, 0)])
def window(t):
    return {{"kind": "window", "tile": t.tile, "path": os.path.join(out, ".c", "window_%d_%d.npz" % t.tile)}}
deps = {{t.key: window(t) for t in tasks if t.kind == "window"}}
start = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
task = next(t for t in tasks if t.key == key)
run_task(task, recipe=r, grid=g, out_dir=out, name="world", cache_dir=os.path.join(out, ".c"),
         deps={{k: deps[k] for k in task.deps if k in deps}})
print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - start) / 1024)
"""


def peaks(res, keys, out):
    """Peak MB above start of each task ``keys`` (run in order, each in a fresh process)."""
    toml = os.path.join(out, "world.toml")
    with open(toml, "w") as fh:
        fh.write(TEXT.format(res=res))
    figures = {}
    for key in keys:
        code = TASK.format(root=ROOT, toml=toml, out=out, key=key)
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        figures[key] = float(done.stdout.split()[-1])
    return figures


KEYS = ("window_0_0", "window_1_0", "window_0_1", "window_1_1", "tile_0_0")


def test_tile_tasks_stay_within_their_memory(tmp_path):
    figures = peaks(257, KEYS, str(tmp_path))
    assert max(figures.values()) < 100.0, figures  # 1025^2: about 155 MB (module docstring)


if __name__ == "__main__":
    res = int(sys.argv[1]) if len(sys.argv) > 1 else 1025
    with tempfile.TemporaryDirectory() as folder:
        for key, mb in peaks(res, KEYS, folder).items():
            print(f"{res}^2 {key}: {mb:.0f} MB above the process start")
