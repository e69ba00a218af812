"""Animals in a tiled world: one animal pass over the whole world (``core.world.world_animals``); each
tile ORs its cut of the world's trail wear into its clearing and its ``trail`` texture rule and writes
``<tile>_trails.png``; the world writes ``<name>_spawns.json``, ``_ecosystem.json`` and
``_population.png`` once, every file listed in the world JSON."""

import hashlib
import json
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

from worldseed.core import ecosystem as eco
from worldseed.core import recipe as core_recipe
from worldseed.core import rivers, roads
from worldseed.core import world as core_world
from worldseed.core.errors import ParameterError

from ._world_cases import digests, isle
from .test_ecosystem_animals import decode_png_16

ANIMALS = """
[ecosystem]
seed = 4
steps = 60
burn_in = 10
trampled = 0.3
[[ecosystem.animals]]
name = "Deer"
eats = "plants"
count = 40
[[ecosystem.animals]]
name = "Wolf"
eats = ["Deer"]
count = 4
"""
TRAIL_SPLAT = '[[splat]]\nname = "Trail"\ncolor = [0.5, 0.4, 0.3]\ntrail = 1.0\n'
SPECIES = """
[[ecosystem.species]]
name = "Pine"
tree = "conifer"
initial_density = 60.0
dispersal = 5.0
max_radius = 2.0
"""
TILES = ((0, 0), (1, 0), (0, 1), (1, 1))
#: test_networks_tiled's world: rivers and roads crossing the seams of 2 x 2 tiles of 65
NETWORKS = """
[world]
name = "Delta"
seed = 11
tiles = [2, 2]
[terrain]
resolution = 65
size = 128.0
height = 30.0
scale = 160.0
octaves = 5
persistence = 0.5
normalize = "fixed"
[rivers]
enabled = true
threshold = 300.0
lake_min_area = 50.0
[roads]
enabled = true
road_class = "trail"
points = [[-236.0, -236.0], [-216.0, -20.0], [-56.0, -68.0], [-36.0, -216.0]]
"""


def _text(species=False, seed=4):
    base = isle(tiles=(2, 2), resolution=65, erosion=False, rocks=6.0, falloff="sea_level = 0.15\n")
    eco_text = ANIMALS.replace("seed = 4", f"seed = {seed}") + (SPECIES if species else "")
    return base + TRAIL_SPLAT + eco_text


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("animals")
    recipe = core_recipe.loads(_text())
    run = core_world.run_world(recipe, str(out), name="Isle")
    return recipe, run, out


def test_a_tiled_world_with_animals_builds_and_lists_every_file(built):
    recipe, run, out = built
    assert run.complete
    doc = json.loads((out / "Isle_world.json").read_text())
    world_files = {f["name"]: f for f in doc["files"]}
    assert set(core_world.animal_world_names("Isle")) <= set(world_files)
    for tile in doc["tiles"]:
        listed = {f["name"]: f for f in tile["files"]}
        assert f"{tile['name']}_trails.png" in listed
    for record in [*world_files.values(), *(f for t in doc["tiles"] for f in t["files"])]:
        data = (out / record["name"]).read_bytes()
        assert len(data) == record["bytes"] and hashlib.sha256(data).hexdigest() == record["sha256"]


def test_the_world_ledger_holds_and_spawns_stand_inside_the_world_on_its_ground(built):
    recipe, run, out = built
    doc = json.loads((out / "Isle_ecosystem.json").read_text())
    assert doc["animals"]["names"] == ["Deer", "Wolf"] and len(doc["animals"]["history"]) == 61
    pop = np.array([s["population"] for s in doc["animals"]["history"]])
    born = np.array([s["born"] for s in doc["animals"]["history"]])
    died = np.array([s["died"] for s in doc["animals"]["history"]])
    assert (pop[0] == [40, 4]).all() and (pop[1:] - pop[:-1] == born[1:] - died[1:]).all()
    grid = run.grid
    land = core_world.world_animals(recipe, grid, core_world.recipe_digest(recipe)).habitat
    assert doc["area_m2"] == pytest.approx(float((~eco.cell_fields(land)[1]).sum()) * 4.0, abs=1e-3)
    assert 0.0 < doc["area_m2"] <= (2 * 128.0) ** 2
    spawns = json.loads((out / "Isle_spawns.json").read_text())
    pts = np.array(spawns["animals"][0]["points"])
    assert len(pts) > 5
    # Unity's frame of the world: tile (x, z) spans [x S, (x + 1) S] in Unity x and z
    assert (pts[:, 0] >= 0.0).all() and (pts[:, 0] <= 2 * 128.0).all()
    assert (pts[:, 2] >= 0.0).all() and (pts[:, 2] <= 2 * 128.0).all()
    # on the ground the tiles show: the height of the RAW of the tile it stands in
    heights = {t: core_world.tile_layers(recipe, grid, *t).heights.values for t in TILES}
    for ux, uy, uz in pts[:10]:
        tx, tz = min(int(ux // 128.0), 1), min(int(uz // 128.0), 1)
        # Unity (x, z) is Blender (-x, -y); the tile's sample (0, 0) is its Blender minimum corner
        col, row = ((tx + 1) * 128.0 - ux) / 2.0, ((tz + 1) * 128.0 - uz) / 2.0
        h = heights[(tx, tz)] * grid.height
        r0, c0 = int(np.clip(row, 0, 63)), int(np.clip(col, 0, 63))
        near = h[r0 : r0 + 2, c0 : c0 + 2]
        assert near.min() - 0.5 <= uy <= near.max() + 0.5


def test_the_tiles_trails_agree_at_shared_samples_and_join_into_the_worlds(built):
    recipe, run, out = built
    grid = run.grid
    world = core_world.world_animals(recipe, grid, core_world.recipe_digest(recipe))
    wear = {t: world.vertices(grid, *t) for t in TILES}
    assert wear[(0, 0)].max() > 0.0
    # Blender x falls with the tile's x: tile (1, z)'s last column is tile (0, z)'s first
    for z in range(2):
        np.testing.assert_array_equal(wear[(1, z)][:, -1], wear[(0, z)][:, 0])
    for x in range(2):
        np.testing.assert_array_equal(wear[(x, 1)][-1, :], wear[(x, 0)][0, :])
    # the tiles' layers: the trampled ground in their clearing agrees at the seams too
    clear = {t: core_world.tile_layers(recipe, grid, *t).clearing for t in TILES}
    assert all(c is not None for c in clear.values()) and sum(int(c.sum()) for c in clear.values()) > 0
    for t in TILES:
        assert (clear[t] >= (wear[t] >= np.float32(0.3))).all()
    np.testing.assert_array_equal(clear[(1, 0)][:, -1], clear[(0, 0)][:, 0])
    # the tiles' PNGs side by side are the world's trail map (Unity's orientation undone)
    cells = np.rint(eco.trail_map(world.run).astype(np.float64) * 65535.0).astype(np.uint16)
    joined = np.zeros_like(cells)
    for x, z in TILES:
        r0, c0 = grid.origin(x, z)
        joined[r0 : r0 + 64, c0 : c0 + 64] = decode_png_16((out / f"Isle_{x}_{z}_trails.png").read_bytes())[:, ::-1]
    np.testing.assert_array_equal(joined, cells)
    assert joined.max() == 65535


def test_the_trail_rule_paints_the_tiles_splat_maps(built):
    recipe, run, out = built
    grid = run.grid
    painted = core_world.tile_layers(recipe, grid, 0, 0)
    trail = [s.name for s in recipe.splat].index("Trail")
    wear = core_world.world_animals(recipe, grid, core_world.recipe_digest(recipe)).vertices(grid, 0, 0)
    worn, bare = wear > 0.5, wear == 0.0
    assert worn.any() and bare.any()
    assert painted.weights[trail][worn].mean() > painted.weights[trail][bare].mean() + 0.3


def test_a_tile_is_the_same_whichever_tiles_were_built_first(built, tmp_path):
    recipe, run, out = built
    alone = tmp_path / "alone"
    core_world.run_world(core_recipe.loads(_text()), str(alone), name="Isle", tiles=[(1, 1)])
    a, b = digests(out), digests(alone)
    for name in ("Isle_1_1_trails.png", "Isle_1_1_splat0.png", "Isle_1_1_placements.json", "Isle_spawns.json"):
        assert a[name] == b[name], name
    assert "Isle_0_0_trails.png" not in b


def test_two_threads_write_the_same_bytes(built, tmp_path):
    """The tiles of a thread executor share one animal pass (the first thread's; the others wait)."""
    recipe, run, out = built
    other = core_recipe.loads(_text(seed=5))  # the process keeps the last world's pass: this one's is gone
    core_world.world_animals(other, run.grid, core_world.recipe_digest(other))
    with core_world.ThreadExecutor(2) as ex:
        core_world.run_world(core_recipe.loads(_text()), str(tmp_path), name="Isle", executor=ex)
    assert digests(tmp_path) == digests(out)


SCRIPT = """
import sys
sys.path.insert(0, {root!r})
from core import recipe, world
world.run_world(recipe.loads(open({toml!r}).read()), {out!r}, name="Isle")
"""


def test_same_seed_same_bytes_in_a_fresh_process_another_seed_other_trails(built, tmp_path):
    recipe, run, out = built
    toml = tmp_path / "world.toml"
    toml.write_text(_text())
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    code = SCRIPT.format(root=root, toml=str(toml), out=str(tmp_path / "again"))
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
    again = digests(tmp_path / "again")
    first = digests(out)
    assert again == first
    other = tmp_path / "other"
    core_world.run_world(core_recipe.loads(_text(seed=5)), str(other), name="Isle")
    assert digests(other)["Isle_0_0_trails.png"] != first["Isle_0_0_trails.png"]


def test_with_species_the_animals_graze_the_grass_the_habitat_leaves():
    recipe = core_recipe.loads(_text(species=True))
    grid = core_world.world_grid(recipe)
    world = core_world.world_animals(recipe, grid, core_world.recipe_digest(recipe))
    grass = core_world.world_forage(recipe.ecosystem, world.habitat)
    assert grass.shape == tuple(s - 1 for s in grid.shape)
    assert 1.0 - core_world.SHADE - 1e-9 <= grass.min() < grass.max() <= 1.0
    assert core_world.world_forage(core_recipe.loads(_text()).ecosystem, world.habitat) is None


def test_a_world_too_large_for_the_animal_pass_is_refused_in_one_line_before_any_work():
    big = isle(tiles=(9, 9), resolution=513, erosion=False, rocks=None) + ANIMALS
    with pytest.raises(ParameterError, match=r"ecosystem.animals roam the whole tiled world: 4,609 x 4,609") as err:
        core_recipe.loads(big)
    assert "\n" not in str(err.value)
    # 8 x 8 tiles of 513: 4,097^2 samples, within the cells; twelve animals' visit maps are too many bytes
    herd = "".join(f'[[ecosystem.animals]]\nname = "A{k}"\neats = "plants"\n' for k in range(10))
    heavy = isle(tiles=(8, 8), resolution=513, erosion=False, rocks=None) + ANIMALS + herd
    with pytest.raises(
        ParameterError, match=r"4,097 x 4,097 samples with 12 animals .* need about 5.3 GB; at most 4.3 GB"
    ):
        core_recipe.loads(heavy)
    assert core_recipe.loads(isle(tiles=(8, 8), resolution=513, erosion=False, rocks=None) + ANIMALS).ecosystem.animals


def test_with_rivers_and_roads_the_animals_drink_at_the_worlds_rivers_and_walk_its_carved_ground():
    recipe = core_recipe.loads(NETWORKS + ANIMALS.replace("steps = 60", "steps = 40"))
    grid = core_world.world_grid(recipe)
    world = core_world.world_animals(recipe, grid, core_world.recipe_digest(recipe))
    nets = core_world.world_networks(recipe, grid, core_world.recipe_digest(recipe))
    whole = rivers.carve_rivers(
        core_world.world_heights(recipe, grid), nets.rivers, carve=recipe.rivers.carve, reach=recipe.rivers.water_reach
    )
    assert whole.water.any() and (world.habitat.water >= whole.water).all()
    carved = roads.carve_roads(whole.heights, nets.roads).heights
    np.testing.assert_array_equal(world.habitat.heights, carved)
    # every tile's carved heights are the world's at its place: the spawns stand on the tiles' ground
    for x, z in grid.tiles():
        r0, c0 = grid.origin(x, z)
        metres = core_world.tile_layers(recipe, grid, x, z).heights.values.astype(np.float64) * grid.height
        np.testing.assert_allclose(metres, carved[r0 : r0 + 65, c0 : c0 + 65], atol=0.01)
    # no animal ever stood in the water: the cells it covers are off their map
    _, wet = eco.cell_fields(world.habitat)
    assert wet.any() and world.run.visits[:, wet].sum() == 0 and world.run.visits.sum() > 0


def test_too_many_agent_steps_for_the_world_are_refused_in_the_recipe_check():
    slow = isle(tiles=(2, 2), resolution=65, erosion=False, rocks=None) + ANIMALS.replace(
        "steps = 60", "steps = 1000000"
    ).replace("count = 40", "count = 5000")
    with pytest.raises(ParameterError, match=r"ecosystem.steps 1,000,000 with 5,004 animals .* agent-steps") as err:
        core_recipe.loads(slow)
    assert "\n" not in str(err.value)


def test_esc_stops_the_animal_pass_between_its_steps_and_the_next_run_finishes(tmp_path):
    recipe = core_recipe.loads(_text(seed=7))  # a pass no earlier test kept
    stop, said = threading.Event(), []

    def progress(done, total, label):
        said.append(label)
        stop.set()  # Esc as the pass begins

    with pytest.raises(core_world.Cancelled):
        core_world.run_world(recipe, str(tmp_path), name="Isle", progress=progress, cancel=stop)
    assert said == ["animals"]
    assert not [n for n in os.listdir(tmp_path) if n.endswith(("_spawns.json", "_trails.png", ".raw"))]
    run = core_world.run_world(recipe, str(tmp_path), name="Isle")
    assert run.complete and (tmp_path / "Isle_spawns.json").is_file()


def test_on_an_eroded_world_the_animals_roam_the_stitched_eroded_heights(tmp_path):
    """With ``[terrain.erosion]`` on, the pass runs after the world task, on the tiles' eroded heights
    stitched into the cache (the ground the tiles show), not on the un-eroded base heights."""
    text = isle(tiles=(2, 2), resolution=33, erosion=True, rocks=None, falloff="sea_level = 0.15\n") + ANIMALS
    recipe = core_recipe.loads(text)
    assert core_world.stitched_world(recipe)
    run = core_world.run_world(recipe, str(tmp_path), name="Isle")
    assert run.complete
    doc = json.loads((tmp_path / "Isle_world.json").read_text())
    listed = {f["name"]: f for f in doc["files"]}
    for name in core_world.animal_world_names("Isle"):
        data = (tmp_path / name).read_bytes()
        assert listed[name]["sha256"] == hashlib.sha256(data).hexdigest()
    grid, cache = run.grid, core_world.cache_folder(str(tmp_path), "Isle")
    animals = core_world.world_animals(recipe, grid, core_world.recipe_digest(recipe), cache)
    eroded = core_world.world_heights(recipe, grid, cache)
    np.testing.assert_array_equal(animals.habitat.heights, eroded)
    base = core_world.world_heights(core_recipe.loads(text.replace("enabled = true", "enabled = false")), grid)
    assert np.abs(eroded - base).max() > 0.05  # erosion moved the ground they walk
    again = tmp_path / "again"
    with core_world.ThreadExecutor(2) as ex:
        core_world.run_world(recipe, str(again), name="Isle", executor=ex)
    assert digests(again) == digests(tmp_path)
