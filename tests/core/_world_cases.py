"""Shared set-up of the tiled-world tests: the small world "Isle", file digests, running a plan.

``isle()`` writes the recipe text the world tests build (a 2 x 2 world of 33^2 tiles with erosion,
two texture layers and a rock scatter by default); each test names only what it changes.
"""

import hashlib
import os

from core.world import run_task

ROCK_SPLAT = """[[splat]]
name = "Rock"
color = [0.4, 0.4, 0.4]
slope_range = [{slope}, 90.0]
"""


def isle(
    *,
    seed=5,
    tiles=(2, 2),
    resolution=33,
    size=128.0,
    height=40.0,
    falloff="",
    erosion=True,
    biomes=False,
    splats=2,
    slope=20.0,
    rocks=8.0,
):
    """The recipe text of the world "Isle": ``falloff`` is extra ``[terrain]`` lines, ``splats`` how
    many of Grass and Rock (``slope``: Rock's lowest slope), ``rocks`` the rock scatter's radius (None:
    no scatter)."""
    parts = [
        f'[world]\nname = "Isle"\nseed = {seed}\ntiles = [{tiles[0]}, {tiles[1]}]\n',
        f'[terrain]\nresolution = {resolution}\nsize = {size}\nheight = {height}\nnormalize = "fixed"\n{falloff}',
    ]
    if erosion:
        parts.append("[terrain.erosion]\nenabled = true\ndroplets_per_km2 = 20000.0\n")
    if biomes:
        parts.append("[biomes]\nenabled = true\n")
    if splats >= 1:
        parts.append('[[splat]]\nname = "Grass"\ncolor = [0.1, 0.3, 0.1]\n')
    if splats >= 2:
        parts.append(ROCK_SPLAT.format(slope=slope))
    if rocks is not None:
        parts.append(f'[[scatter]]\nname = "Rocks"\nprop = "rock"\nradius = {rocks}\n')
    return "\n".join(parts)


def digests(folder, *, hidden=False):
    """``{name: sha256}`` of the regular files in ``folder`` (dot files only with ``hidden``)."""
    out = {}
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if (hidden or not name.startswith(".")) and os.path.isfile(path):
            with open(path, "rb") as fh:
                out[name] = hashlib.sha256(fh.read()).hexdigest()
    return out


def run_tasks(recipe, grid, out, tasks):
    """Run ``tasks`` in their order into ``out`` (cache ``out/.cache``); ``{key: result}``."""
    results = {}
    for t in tasks:
        results[t.key] = run_task(
            t,
            recipe=recipe,
            grid=grid,
            out_dir=str(out),
            name="world",
            cache_dir=os.path.join(str(out), ".cache"),
            deps={k: results[k] for k in t.deps},
        )
    return results
