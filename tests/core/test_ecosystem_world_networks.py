"""Plants in a tiled world with rivers, roads and settlements: each tile's plants keep off the world's
roads, rivers, lakes and pads (``core.world.plant_ground``: the world's plans carved whole, the same
ground whichever tile reads it) and stand on the tile's final heights (its RAW); the tiles still read
the same ground on the cells they share, and threads give the same bytes."""

import csv

import numpy as np
import pytest

from worldseed.core import recipe as core_recipe
from worldseed.core import world as core_world
from worldseed.core.scatter import sample_heights
from worldseed.core.world._tile import _shaper  # the tile's view of the world's heights around it

from ._network_cases import ERODED_WORLD
from ._settlement_cases import TILED as SETTLED
from ._world_cases import isle

SPECIES = """
[ecosystem]
years = 10
seed = 4
[[ecosystem.species]]
name = "Pine"
tree = "conifer"
initial_density = 400.0
dispersal = 5.0
max_radius = 2.0
"""


def _build(text, out, name, **kw):
    recipe = core_recipe.loads(text)
    grid = core_world.world_grid(recipe)
    run = core_world.run_world(recipe, str(out), name=name, **kw)
    assert run.complete
    return recipe, grid, core_world.cache_folder(str(out), name)


@pytest.fixture(scope="module")
def delta(tmp_path_factory):
    out = tmp_path_factory.mktemp("delta")
    recipe, grid, cache = _build(ERODED_WORLD + SPECIES, out, "Delta")
    return recipe, grid, cache, out


def _plants(out, base):
    """The tile's plants: Blender ``(x, y, z)`` (Unity ``(-x, y, -z)`` undone)."""
    with open(out / f"{base}_plants.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    return np.array([[-float(r["x"]), -float(r["z"]), float(r["y"])] for r in rows]).reshape(-1, 3)


def _segment_distance(p, a, b):
    """Distance of points ``p`` (N, 2) to the polyline segments ``a -> b`` (M, 2): (N,)."""
    ab = b - a
    length = np.maximum((ab * ab).sum(1), 1e-12)
    t = np.clip(((p[:, None, :] - a[None]) * ab[None]).sum(2) / length[None], 0.0, 1.0)
    foot = a[None] + t[..., None] * ab[None]
    return np.hypot(*(p[:, None, :] - foot).transpose(2, 0, 1)).min(1)


def _cells(grid, xy):
    """The world grid's nearest vertex ``(row, col)`` of Blender points."""
    x0, y0 = -grid.nx * grid.size, -grid.nz * grid.size
    return np.rint((xy[:, 1] - y0) / grid.cell_size).astype(int), np.rint((xy[:, 0] - x0) / grid.cell_size).astype(int)


def _raw(out, base, grid):
    n = grid.resolution
    data = (out / f"{base}.raw").read_bytes()
    return np.frombuffer(data, "<u2").reshape(n, n)[::-1, ::-1].astype(np.float64) / 65535.0 * grid.height


def _on_raw(points, raw, grid, x, z):
    """``|z - RAW's surface|`` under each plant, the smaller of the quad's two triangulations (where
    the RAW's rounding can flip the mesh's shorter diagonal of a saddle-shaped quad)."""
    cx, cy, _ = grid.blender_centre(x, z)
    local = points[:, :2] - [cx, cy]
    cell = grid.cell_size
    n = grid.resolution
    u = np.clip(local[:, 0] / cell + 0.5 * (n - 1), 0, n - 1)
    v = np.clip(local[:, 1] / cell + 0.5 * (n - 1), 0, n - 1)
    j, i = np.minimum(u.astype(int), n - 2), np.minimum(v.astype(int), n - 2)
    t, s = u - j, v - i
    z0, z1, z2, z3 = raw[i, j], raw[i, j + 1], raw[i + 1, j + 1], raw[i + 1, j]
    za = np.where(t >= s, z0 + (z1 - z0) * t + (z2 - z1) * s, z0 + (z2 - z3) * t + (z3 - z0) * s)
    zb = np.where(t + s <= 1.0, z0 + (z1 - z0) * t + (z3 - z0) * s, z2 + (z2 - z3) * (t - 1) + (z2 - z1) * (s - 1))
    mesh = sample_heights(raw, local, size=grid.size)  # the mesh's own cut: one of the two
    assert np.allclose(np.minimum(np.abs(mesh - za), np.abs(mesh - zb)), 0.0, atol=1e-9)
    return np.minimum(np.abs(points[:, 2] - za), np.abs(points[:, 2] - zb)), np.abs(points[:, 2] - mesh)


def test_no_plant_on_a_road_or_in_a_river_and_every_plant_on_the_tiles_raw(delta):
    recipe, grid, cache, out = delta
    nets = core_world.world_networks(recipe, grid, core_world.recipe_digest(recipe), cache)
    ground = core_world.plant_ground(recipe, grid, cache)
    cell = grid.cell_size
    ox, oy = nets.origin
    roads = []
    for e in nets.roads.edges:  # the centre lines away from bridges (a bridge spans water, cleared anyway)
        pts = np.column_stack([ox + e.cols * cell, oy + e.rows * cell])
        keep = ~(e.bridge[:-1] | e.bridge[1:])
        roads.append((pts[:-1][keep], pts[1:][keep], 0.5 * nets.roads.classes[e.road_class].width))
    rr, rc = nets.rivers.rows_cols()
    river = np.column_stack([ox + rc * cell, oy + rr * cell])
    quantum = grid.height / 65535.0
    near_networks = 0
    for x, z in grid.tiles():
        base = f"Delta_{x}_{z}"
        p = _plants(out, base)
        assert len(p) > 300
        for a, b, half in roads:
            d = _segment_distance(p[:, :2], a, b)
            assert (d >= half).all(), f"{base}: {int((d < half).sum())} plants within a road's half-width"
            near_networks += int((d < half + 4.0 * cell).sum())
        dr = np.hypot(p[:, None, 0] - river[None, :, 0], p[:, None, 1] - river[None, :, 1]).min(1)
        assert (dr >= 1.0).all(), f"{base}: {int((dr < 1.0).sum())} plants within 1 m of a river's centre line"
        near_networks += int((dr < 1.0 + 4.0 * cell).sum())
        r, c = _cells(grid, p)
        assert not ground.clearing[r, c].any()  # no plant on water, a river bed or a road's clearing
        either, mesh = _on_raw(p, _raw(out, base, grid), grid, x, z)
        assert either.max() <= quantum + 0.0006  # the CSV's millimetres
        assert (mesh <= quantum + 0.0006).mean() >= 0.99
    assert near_networks > 100  # the plants grow close by: the networks keep them off, not a sparse forest
    n = grid.resolution
    for x, z in grid.tiles():  # every tile has some of the networks' clearing to keep off
        r0, c0 = grid.origin(x, z)
        assert ground.clearing[r0 : r0 + n, c0 : c0 + n].sum() > 20
        assert ground.water[r0 : r0 + n, c0 : c0 + n].any() or x + z > 0


def test_neighbouring_tiles_read_the_same_ground_on_the_cells_they_share(delta):
    """Plants are simulated on the tile plus a halo of two interaction reaches: the ground each tile
    reads there (heights, water and clearing) is bit for bit the ground its neighbour reads."""
    recipe, grid, cache, _out = delta
    ground = core_world.plant_ground(recipe, grid, cache)
    load = core_world.window_loader(recipe, grid)
    habs = {}
    for t in grid.tiles():
        _run, hab = core_world.tile_plants(recipe, grid, *t, _shaper(recipe, grid, *t, load), ground=ground)
        habs[t] = hab
    cell = grid.cell_size

    def world_box(hab):
        x0, y0, _x1, _y1 = hab.extent
        c0 = int(round((x0 + grid.nx * grid.size) / cell))
        r0 = int(round((y0 + grid.nz * grid.size) / cell))
        return r0, c0

    shared = 0
    for a, b in (((0, 0), (1, 0)), ((0, 0), (0, 1)), ((1, 1), (0, 0)), ((1, 1), (1, 0))):
        ha, hb = habs[a], habs[b]
        ra, ca = world_box(ha)
        rb, cb = world_box(hb)
        r0, c0 = max(ra, rb), max(ca, cb)
        r1, c1 = min(ra + ha.shape[0], rb + hb.shape[0]), min(ca + ha.shape[1], cb + hb.shape[1])
        sa = (slice(r0 - ra, r1 - ra), slice(c0 - ca, c1 - ca))
        sb = (slice(r0 - rb, r1 - rb), slice(c0 - cb, c1 - cb))
        assert np.array_equal(ha.heights[sa], hb.heights[sb])
        assert np.array_equal(ha.water[sa], hb.water[sb])
        shared += int(ha.water[sa].sum())
        # inside the world, the habitat's water is the world's water and clearing
        wr0, wc0 = max(r0, 0), max(c0, 0)
        wr1, wc1 = min(r1, grid.shape[0]), min(c1, grid.shape[1])
        inner = ha.water[wr0 - ra : wr1 - ra, wc0 - ca : wc1 - ca]
        assert (inner >= ground.clearing[wr0:wr1, wc0:wc1]).all()
    assert shared > 0  # the networks reach into the shared strips


def test_threads_give_the_same_bytes(delta, tmp_path):
    recipe, grid, _cache, out = delta
    _build(ERODED_WORLD + SPECIES, tmp_path, "Delta", executor=core_world.ThreadExecutor(workers=2))
    for x, z in grid.tiles():
        for suffix in ("_plants.csv", "_placements.json", "_ecosystem.json", ".raw"):
            name = f"Delta_{x}_{z}{suffix}"
            assert (tmp_path / name).read_bytes() == (out / name).read_bytes(), name


def test_a_settled_tiled_world_keeps_its_plants_off_the_pads_and_roads(tmp_path):
    text = SETTLED.replace("resolution = 129\nsize = 256.0", "resolution = 65\nsize = 256.0") + SPECIES
    recipe, grid, cache = _build(text, tmp_path, "Shire")
    plan = core_world.world_settlements(recipe, grid, core_world.recipe_digest(recipe), cache)
    assert plan.settlements.sites and plan.clearing.sum() > 50
    ground = core_world.plant_ground(recipe, grid, cache, settlements=plan)
    assert (ground.clearing >= plan.clearing).all()
    quantum = grid.height / 65535.0
    total = 0
    for x, z in grid.tiles():
        base = f"Shire_{x}_{z}"
        p = _plants(tmp_path, base)
        total += len(p)
        r, c = _cells(grid, p)
        assert not ground.clearing[r, c].any()  # not on a pad, a road, a river or a lake
        assert not plan.clearing[r, c].any()
        either, _mesh = _on_raw(p, _raw(tmp_path, base, grid), grid, x, z)
        assert either.max() <= quantum + 0.0006
    assert total > 500


ANIMALS = """
[[ecosystem.animals]]
name = "Deer"
eats = "plants"
count = 60
"""


def test_no_plant_on_the_world_animals_trampled_ground(tmp_path):
    eco = SPECIES.replace("seed = 4\n", "seed = 4\nsteps = 80\nburn_in = 10\ntrampled = 0.2\n")
    text = isle(tiles=(2, 1), resolution=33, erosion=False, rocks=None) + eco + ANIMALS
    recipe, grid, cache = _build(text, tmp_path, "Isle")
    wear = core_world.world_animals(recipe, grid, core_world.recipe_digest(recipe), cache).wear
    trampled = wear >= np.float32(recipe.ecosystem.trampled)
    assert trampled.sum() > 20
    ground = core_world.plant_ground(recipe, grid, cache)
    assert ground.heights is None and (ground.clearing == trampled).all()  # no networks: the heights alone
    total = 0
    for x, z in grid.tiles():
        p = _plants(tmp_path, f"Isle_{x}_{z}")
        total += len(p)
        r, c = _cells(grid, p)
        assert not trampled[r, c].any()
    assert total > 300
