"""Tiled worlds: props keep their spacing across tile borders, whatever order the tiles are built in."""

import dataclasses
import json
import os

import numpy as np
import pytest

from core import recipe as core_recipe
from core.errors import RecipeError
from core.world import plan_world, world_grid

from ._world_cases import run_tasks

TEXT = """
[world]
seed = 21
tiles = [3, 3]
[terrain]
normalize = "fixed"
resolution = 33
size = 64.0
height = 20.0
scale = 40.0
[terrain.erosion]
enabled = true
[[scatter]]
name = "rocks"
radius = 3.0
[[scatter]]
name = "tufts"
prop = "grass"
radius = 1.5
keep_away = 2.5
patchiness = 0.3
"""


def run(recipe, out, tasks):
    return run_tasks(recipe, world_grid(recipe), out, tasks)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    recipe = core_recipe.loads(TEXT)
    out = tmp_path_factory.mktemp("scatter")
    return recipe, out, run(recipe, out, plan_world(world_grid(recipe), recipe))


def props(out, x, z):
    with open(os.path.join(out, f"world_{x}_{z}_placements.json")) as fh:
        data = json.load(fh)["scatters"][0]
    pos = np.array([r["position"] for r in data["instances"]]).reshape(-1, 3)
    layer = np.array([data["layers"].index(r["layer"]) for r in data["instances"]], int)
    return pos[:, [0, 2]], layer


def files(results):
    return {k: r["files"] for k, r in results.items() if k.startswith("tile_") and r["files"]}


def test_props_keep_their_spacing_across_borders(built):
    recipe, out, _ = built
    grid = world_grid(recipe)
    tiles = {t: props(out, *t) for t in grid.tiles()}
    radius = [3.0, 1.5]
    keep = [None, 2.5]
    close_pairs = 0
    for (x, z), (a, la) in tiles.items():
        assert len(a) > 10
        # every prop lies on its own tile (Unity X in [x S, (x + 1) S], Z likewise)
        assert a[:, 0].min() >= x * 64.0 - 1e-4 and a[:, 0].max() <= (x + 1) * 64.0 + 1e-4
        assert a[:, 1].min() >= z * 64.0 - 1e-4 and a[:, 1].max() <= (z + 1) * 64.0 + 1e-4
        for dx, dz in ((1, 0), (0, 1), (1, 1), (-1, 1)):
            if not grid.contains(x + dx, z + dz):
                continue
            b, lb = tiles[(x + dx, z + dz)]
            d = np.hypot(a[:, None, 0] - b[None, :, 0], a[:, None, 1] - b[None, :, 1])
            for i in range(2):
                for j in range(2):
                    need = radius[max(i, j)] if i == j or keep[max(i, j)] is None else keep[max(i, j)]
                    pair = d[np.ix_(la == i, lb == j)]
                    if pair.size:
                        assert pair.min() >= need - 1e-3, ((x, z), (x + dx, z + dz), i, j, pair.min())
                        close_pairs += int((pair < need + 1.0).sum())
    assert close_pairs > 0  # props do come near the borders (the test could fail)


def test_same_bytes_in_another_valid_order(built, tmp_path):
    recipe, _, results = built
    grid = world_grid(recipe)
    tasks = plan_world(grid, recipe)
    windows = [t for t in tasks if t.kind == "window"][::-1]
    tiles = sorted((t for t in tasks if t.kind == "tile"), key=lambda t: (grid.colour(*t.tile), -t.tile[1], -t.tile[0]))
    other = windows + tiles
    assert [t.key for t in other] != [t.key for t in tasks]
    seen = set()
    for t in other:  # still a valid order
        assert set(t.deps) <= seen
        seen.add(t.key)
    assert files(run(recipe, tmp_path, other)) == files(results)


def test_a_subset_builds_the_same_bytes_as_the_whole_world(built, tmp_path):
    recipe, _, results = built
    grid = world_grid(recipe)
    again = run(recipe, tmp_path, plan_world(grid, recipe, tiles=[(1, 1), (2, 0)]))
    assert set(files(again)) == {"tile_1_1", "tile_2_0"}
    assert files(again)["tile_1_1"] == files(results)["tile_1_1"]
    assert files(again)["tile_2_0"] == files(results)["tile_2_0"]


def test_without_neighbours_props_would_crowd_the_border(built, tmp_path):
    # the same tile scattered with its neighbours' border props left out comes closer to them
    recipe, out, results = built
    grid = world_grid(recipe)
    tasks = [t for t in plan_world(grid, recipe, tiles=[(1, 0)]) if t.kind == "window" or t.tile == (1, 0)]
    tasks = [dataclasses.replace(t, deps=tuple(d for d in t.deps if d.startswith("window_"))) for t in tasks]
    run(recipe, tmp_path, tasks)
    mine, lm = props(tmp_path, 1, 0)
    theirs, lt = props(out, 0, 0)
    d = np.hypot(mine[lm == 0, None, 0] - theirs[None, lt == 0, 0], mine[lm == 0, None, 1] - theirs[None, lt == 0, 1])
    assert d.min() < 3.0


def test_a_spacing_wider_than_half_a_tile_is_refused():
    with pytest.raises(RecipeError, match=r"scatter\[0\]\.radius must be at most half a tile \(32 m\).*got 40"):
        core_recipe.loads(TEXT.replace("radius = 3.0", "radius = 40.0"))
    with pytest.raises(RecipeError, match=r"scatter\[1\]\.keep_away must be at most half a tile"):
        core_recipe.loads(TEXT.replace("keep_away = 2.5", "keep_away = 33.0"))


def test_patches_run_on_across_tile_borders():
    from core.scatter import ScatterRules, rule_mask

    rules = ScatterRules(above_sea=False, patchiness=0.5, patch_scale=20.0)
    grid = world_grid(core_recipe.loads(TEXT))
    cell = grid.cell_size
    flat = np.zeros((33, 33))

    def mask(x, z, seed=99):
        cx, cy = grid.blender_corner(x, z)
        return rule_mask(flat, size=64.0, rules=rules, patches=((cx / cell, cy / cell), seed))

    a, b, c = mask(0, 0), mask(1, 0), mask(0, 1)
    assert a[:, 0].tobytes() == b[:, -1].tobytes() and a[0].tobytes() == c[-1].tobytes()
    assert 0.0 < a.mean() < 1.0 and a[:, 0].min() != a[:, 0].max()  # patches do cross the border
    # every tile cuts the world's noise at the same levels: about half of the world is bare
    world = np.concatenate([mask(x, 0) for x in range(3)])
    assert 0.3 < world.mean() < 0.7
    # without patches= the mask is the tile's own (the old behaviour): thresholds of its own noise
    own = rule_mask(flat, size=64.0, rules=rules, seed=5)
    assert abs(own.mean() - 0.5) < 0.02


def test_detail_layers_of_a_world_follow_its_patches(tmp_path):
    recipe = core_recipe.loads(TEXT.replace("patchiness = 0.3", "patchiness = 0.3\nunity_detail = 2.0"))
    grid = world_grid(recipe)
    results = run(recipe, tmp_path, plan_world(grid, recipe, tiles=[(0, 0), (1, 0)]))
    names = {f["name"] for f in results["tile_1_0"]["files"]}
    assert "world_1_0_detail0.raw" in names
    from core.scatter import detail_layers

    flat = np.zeros((33, 33))
    cell = grid.cell_size
    specs = [core_recipe.scatter.LayerSpec(name="t", prop="grass", radius=1.5, patchiness=0.5, unity_detail=2.0)]

    def counts(x, patches=True):
        cx, cy = grid.blender_corner(x, 0)
        p = ((cx / cell, cy / cell), 7) if patches else None
        return detail_layers(flat, size=64.0, specs=specs, sea_level_m=-1.0, seed=x, patches=p)[0][1]

    a, b = counts(0), counts(1)
    # the detail cells either side of the shared edge lie in the same patches: bare on both or on neither
    assert ((a[:, 0] == 0) == (b[:, -1] == 0)).mean() > 0.9
    assert 0 < (a == 0).mean() < 1


def test_scatter_reads_a_given_slope():
    from core.heightmap import slope_degrees
    from core.scatter import Layer, ScatterRules, scatter_layers

    h = np.add.outer(np.linspace(0, 30, 33), np.zeros(33)) + np.sin(np.arange(33) / 3.0)[None, :] * 4.0
    layers = [Layer("steep", radius=2.0, rules=ScatterRules(above_sea=False, slope_range=(20.0, 90.0)))]
    own = scatter_layers(h, size=64.0, layers=layers, seed=4)
    given = scatter_layers(h, size=64.0, layers=layers, seed=4, slope=slope_degrees(h, cell_size=2.0))
    assert own[0].positions.tobytes() == given[0].positions.tobytes() and len(own[0].positions)
    flat = scatter_layers(h, size=64.0, layers=layers, seed=4, slope=np.zeros((33, 33)))
    assert len(flat[0].positions) == 0  # the given slope is what the rule reads
    with pytest.raises(Exception, match=r"slope must have the heights' shape \(33, 33\)"):
        scatter_layers(h, size=64.0, layers=layers, seed=4, slope=np.zeros((3, 3)))
