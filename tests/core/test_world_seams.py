"""Tiled worlds: shared borders of neighbouring tiles, with and without erosion, and the seam report."""

import dataclasses
import json
import os

import numpy as np
import pytest

from core import recipe as core_recipe
from core.world import plan_world, run_task, seam_report, tile_layers, world_grid

from ._world_cases import run_tasks

WORLD = """
[world]
seed = 3
tiles = [{nx}, {nz}]
{halo}
[terrain]
normalize = "fixed"
resolution = {res}
size = 128.0
height = 40.0
scale = 64.0
falloff = "radial"
[terrain.erosion]
enabled = {erosion}
[biomes]
enabled = {biomes}
[[splat]]
name = "ground"
[[splat]]
name = "rock"
slope_range = [20.0, 90.0]
[[splat]]
name = "silt"
flow = 0.5
"""


def world(nx=2, nz=2, res=65, erosion=True, biomes=False, halo=""):
    text = WORLD.format(nx=nx, nz=nz, res=res, erosion=str(erosion).lower(), biomes=str(biomes).lower(), halo=halo)
    return core_recipe.loads(text)


def build(recipe, out, grid=None, tasks=None):
    grid = grid or world_grid(recipe)
    tasks = plan_world(grid, recipe) if tasks is None else tasks
    return grid, run_tasks(recipe, grid, out, tasks)


def raw(out, x, z, n):
    with open(os.path.join(out, f"world_{x}_{z}.raw"), "rb") as fh:
        return np.frombuffer(fh.read(), "<u2").reshape(n, n)


def check_borders(recipe, out, grid):
    n = grid.resolution
    cache = os.path.join(str(out), ".cache")
    layers = {t: tile_layers(recipe, grid, *t, cache_dir=cache) for t in grid.tiles()}
    for x, z in grid.tiles():
        a = layers[(x, z)].heights
        if grid.contains(x + 1, z):  # Unity X + 1 lies at Blender -X: our column 0 is its last
            b = layers[(x + 1, z)].heights
            assert a.values[:, 0].tobytes() == b.values[:, -1].tobytes()
            assert a.margin[:, :3].tobytes() == b.margin[:, -3:].tobytes()  # the normals' ring too
            assert raw(out, x, z, n)[:, -1].tobytes() == raw(out, x + 1, z, n)[:, 0].tobytes()
        if grid.contains(x, z + 1):
            b = layers[(x, z + 1)].heights
            assert a.values[0].tobytes() == b.values[-1].tobytes()
            assert a.margin[:3].tobytes() == b.margin[-3:].tobytes()
            assert raw(out, x, z, n)[-1].tobytes() == raw(out, x, z + 1, n)[0].tobytes()
    return layers


def test_borders_bit_identical_without_erosion(tmp_path):
    recipe = world(nx=3, nz=2, erosion=False)
    grid, _ = build(recipe, tmp_path)
    layers = check_borders(recipe, tmp_path, grid)
    assert layers[(0, 0)].eroded is None
    # the RAW is written as Unity's batch import names it, and the JSON points at it
    content = json.loads((tmp_path / "world_1_0_terrain.json").read_text())
    assert content["heightmap"]["file"] == "world_1_0.raw"


@pytest.fixture(scope="module")
def eroded(tmp_path_factory):
    out = tmp_path_factory.mktemp("eroded")
    recipe = world(nx=3, nz=3, res=65, erosion=True, biomes=True)
    grid, results = build(recipe, out)
    return recipe, out, grid, results


def test_borders_bit_identical_with_erosion(eroded):
    recipe, out, grid, _ = eroded
    layers = check_borders(recipe, out, grid)
    # erosion did something, and it is continuous: the eroded map and the flow agree on the border too
    a, b = layers[(1, 1)], layers[(2, 1)]
    assert float(np.abs(a.eroded).max()) > 0.0
    assert a.eroded[:, 0].tobytes() == b.eroded[:, -1].tobytes()
    assert a.flow[:, 0].tobytes() == b.flow[:, -1].tobytes()


def test_splats_and_biomes_continuous_across_borders(eroded):
    recipe, out, grid, _ = eroded
    cache = os.path.join(str(out), ".cache")
    a = tile_layers(recipe, grid, 1, 1, cache_dir=cache)
    b = tile_layers(recipe, grid, 2, 1, cache_dir=cache)
    c = tile_layers(recipe, grid, 1, 2, cache_dir=cache)
    # weights at the vertices of a shared border: the same samples, seen from both tiles
    da = np.abs(a.weights[:, :, 0] - b.weights[:, :, -1])
    dc = np.abs(a.weights[:, 0, :] - c.weights[:, -1, :])
    assert float(da.mean()) < 0.02 and float(dc.mean()) < 0.02
    assert float(np.percentile(da, 95)) < 0.1
    # biomes agree on nearly every border sample
    assert float((a.biomes[:, 0] == b.biomes[:, -1]).mean()) > 0.9


def test_seam_report_small_with_the_auto_halo(eroded):
    recipe, out, grid, _ = eroded
    report = seam_report(grid, os.path.join(str(out), ".cache"))
    assert report["borders"] == 12
    assert report["relief_m"] > 10.0
    assert 0.0 < report["max"] < 0.05 and report["mean"] < 0.01


def test_seam_report_larger_without_a_halo(tmp_path, eroded):
    recipe, out, grid, _ = eroded
    auto = seam_report(grid, os.path.join(str(out), ".cache"))
    bare = dataclasses.replace(grid, halo_cells=0)
    build(recipe, tmp_path, grid=bare, tasks=plan_world(bare, recipe))
    none = seam_report(bare, os.path.join(str(tmp_path), ".cache"))
    # without a halo a window's edge has no inflow and loses its droplets: its border disagrees more
    assert none["mean"] > 1.2 * auto["mean"], (none, auto)
    # the borders are still bit-identical: both tiles average the same two windows there
    cache = os.path.join(str(tmp_path), ".cache")
    a, b = (tile_layers(recipe, bare, *t, cache_dir=cache).heights for t in [(0, 0), (1, 0)])
    assert a.values[:, 0].tobytes() == b.values[:, -1].tobytes()


def test_moisture_biomes_and_splats_identical_when_the_halo_covers_the_sea_reach(tmp_path):
    # the moisture looks sea_reach (64 m = 32 cells) past the tile's edges: a 32-cell halo covers it,
    # so both tiles of a border see the same eroded heights and flow there
    recipe = world(nx=2, nz=1, erosion=True, biomes=True, halo="halo = 64.0")
    grid, _ = build(recipe, tmp_path)
    assert grid.halo_cells == 32
    cache = os.path.join(str(tmp_path), ".cache")
    a, b = (tile_layers(recipe, grid, x, 0, cache_dir=cache) for x in (0, 1))
    assert a.moisture[:, 0].tobytes() == b.moisture[:, -1].tobytes()
    assert a.biomes[:, 0].tobytes() == b.biomes[:, -1].tobytes()
    assert a.weights[:, :, 0].tobytes() == b.weights[:, :, -1].tobytes()
    assert len(set(a.biomes.ravel().tolist())) > 1  # the biomes vary (the test could fail)


if __name__ == "__main__":  # the seam figures: PYTHONPATH=. python tests/core/test_world_seams.py 1025
    import sys
    import tempfile

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from test_world_memory import TEXT

    res = int(sys.argv[1]) if len(sys.argv) > 1 else 513
    recipe = core_recipe.loads(TEXT.format(res=res))
    auto = world_grid(recipe)
    for grid in (auto, dataclasses.replace(auto, halo_cells=0)):
        with tempfile.TemporaryDirectory() as folder:
            for task in plan_world(grid, recipe):
                if task.kind == "window":
                    run_task(task, recipe=recipe, grid=grid, out_dir=folder, name="w", cache_dir=folder, deps={})
            rep = seam_report(grid, folder)
        print(
            f"2x2 world of {res}^2 tiles, halo {grid.halo_cells} cells: seam jump before blending max "
            f"{rep['max']:.2%}, mean {rep['mean']:.3%} of the relief {rep['relief_m']:.1f} m "
            f"(max {rep['max_m']:.3f} m, mean {rep['mean_m']:.4f} m over {rep['borders']} borders)"
        )
