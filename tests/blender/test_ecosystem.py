"""The ecosystem in Blender: headless world builds write its files in the folder's switch, the forest is
instanced and exported as a scatter (height and width scale), the scatter leaves the trampled trails
free; the Ecosystem panel's operators simulate, show any snapshot year, load presets, cancel cleanly."""

import os

import bpy
import numpy as np
import pytest

from worldseed.addon import batch
from worldseed.core import ecosystem as core_eco
from worldseed.core import recipe as core_recipe
from worldseed.core.errors import ParameterError
from worldseed.core.steps import drive
from worldseed.operators.bridge import ecosystem as bridge_ecosystem
from worldseed.operators.bridge import scatter as bridge_scatter
from worldseed.operators.common import FamilyOperator, ModalBuild
from worldseed.operators.ecosystem import WORLDSEED_OT_ecosystem_add

from ._ecosystem_cases import RECIPE, SIDE, TILED, TILED_ANIMALS, plants_csv, png_grey16, read_json, write_recipe
from ._modal_cases import drive_modal
from ._world_cases import fbx_nodes

RESULT = {}
FILES = ("Vale_plants.csv", "Vale_ecosystem.json", "Vale_population.png", "Vale_trails.png", "Vale_spawns.json")


@pytest.fixture(scope="module")
def headless(tmp_path_factory, addon):
    """The recipe built headless once: ``(folder, facts)``: what the scene held (each test starts from an
    empty scene): the forest's plants, its species' mesh sizes, the trampled ground, the rocks' positions,
    whether the terrain has the trails' vertex group."""
    folder = tmp_path_factory.mktemp("eco")
    out = folder / "out"
    bpy.ops.wm.read_homefile(use_empty=True)
    assert batch.main(["--recipe", write_recipe(folder), "--out", str(out), "--name", "Vale"]) == 0
    root = next(o for o in bpy.data.objects if bridge_ecosystem.is_ecosystem(o))
    terrain = root.parent
    spec = bridge_ecosystem.stored_spec(root)
    eco = bridge_ecosystem.kept(terrain, spec)
    scatter = next(o for o in terrain.children if o.get("worldseed_kind") == bridge_scatter.SCATTER_KIND)
    terrain_mesh = terrain if terrain.type == "MESH" else terrain.children[0]
    facts = {
        "name": root.name,
        "plants": len(root.data.vertices),
        "sizes": bridge_ecosystem._mesh_sizes(bridge_scatter.scatter_props(root)),  # noqa: SLF001 (the yardstick)
        "trampled": core_eco.trampled_mask(eco.animals, (SIDE, SIDE), threshold=spec.trampled),
        "trampled_of": bridge_ecosystem.trampled_of(terrain),
        "rocks": bridge_scatter.read_points(scatter)[0].copy(),
        "group": bridge_ecosystem.TRAILS_GROUP in terrain_mesh.vertex_groups,
    }
    return out, facts


def test_a_world_build_writes_the_ecosystem_files_with_the_others(headless):
    out, facts = headless
    names = set(os.listdir(out))
    assert set(FILES) <= names and {"Vale.fbx", "Vale_placements.json", "Vale_splat0.png"} <= names
    rows = plants_csv(out / "Vale_plants.csv")
    assert (out / "Vale_plants.csv").read_text().splitlines()[0] == core_eco.CSV_HEADER
    assert len(rows) == facts["plants"] > 20
    assert {r["species"] for r in rows} == {"Birch"}
    xs = np.array([float(r["x"]) for r in rows])
    assert np.abs(xs).max() <= 32.0  # Unity metres on the 64 m terrain
    doc = read_json(out / "Vale_ecosystem.json")
    assert (doc["format"], doc["version"], doc["species"]) == ("worldseed.ecosystem", 1, ["Birch"])
    assert len(doc["history"]) == 16 and doc["history"][-1]["alive"] == [len(rows)]
    assert doc["animals"]["names"] == ["Deer"] and len(doc["animals"]["history"]) == 121
    trails = png_grey16((out / "Vale_trails.png").read_bytes())
    assert trails.shape == (SIDE - 1, SIDE - 1) and trails.max() == 65535
    spawns = read_json(out / "Vale_spawns.json")
    assert spawns["format"] == "worldseed.spawns" and spawns["animals"][0]["name"] == "Deer"


def test_the_forest_is_in_the_placement_file_and_the_fbx_sized_by_height_and_canopy(headless):
    out, facts = headless
    rows = plants_csv(out / "Vale_plants.csv")
    entries = {e["scatter"]: e for e in read_json(out / "Vale_placements.json")["scatters"]}
    forest = entries[facts["name"]]
    assert len(forest["instances"]) == len(rows) and forest["layers"] == ["Birch"]
    assert len(forest["terrain_trees"]["instances"]) == len(rows)
    height = {(r["x"], r["z"]): float(r["height"]) for r in rows}
    radius = {(r["x"], r["z"]): float(r["radius"]) for r in rows}
    sizes = facts["sizes"]
    for rec in forest["instances"][:20]:
        key = (f"{rec['position'][0]:.3f}", f"{rec['position'][2]:.3f}")
        assert rec["scale"] == pytest.approx(height[key] / sizes[0, 0], rel=1e-3)
        assert rec["width_scale"] == pytest.approx(radius[key] / sizes[0, 1], rel=1e-3)
    tree = forest["terrain_trees"]["instances"][0]
    assert tree["height_scale"] != tree["width_scale"]
    nodes = fbx_nodes(out / "Vale.fbx")
    first = forest["instances"][0]
    translation, _rotation, scale, _bounds = nodes[first["object"]]
    assert scale[1] == pytest.approx(first["scale"], rel=1e-3)  # Unity Y: the height
    assert scale[0] == pytest.approx(first["width_scale"], rel=1e-3)
    x, y, z = first["position"]  # the FBX's right-handed frame: Unity's x mirrored
    assert translation == pytest.approx([-x, y, z], abs=1e-3)


def test_the_scatter_leaves_the_trampled_trails_free_and_the_trail_layer_is_painted(headless):
    out, facts = headless
    trampled = facts["trampled"]
    assert 0 < trampled.sum() < trampled.size // 2
    pos = facts["rocks"]
    assert len(pos) > 5
    cell = 64.0 / (SIDE - 1)
    ix = np.floor((pos[:, 0] + 32.0) / cell).astype(int)
    iy = np.floor((pos[:, 1] + 32.0) / cell).astype(int)
    corners = trampled[iy, ix] | trampled[iy + 1, ix] | trampled[iy, ix + 1] | trampled[iy + 1, ix + 1]
    assert not corners.any()  # no rock in a cell touching trampled ground
    assert facts["trampled_of"].tolist() == trampled.tolist()
    assert facts["group"]
    splat = read_json(out / "Vale_terrain.json")
    assert "Trail" in json_names(splat)


def json_names(doc):
    """Every string value in a JSON document (the texture layers' names among them)."""
    if isinstance(doc, dict):
        return [v for x in doc.values() for v in json_names(x)]
    if isinstance(doc, list):
        return [v for x in doc for v in json_names(x)]
    return [doc] if isinstance(doc, str) else []


def test_a_run_without_animals_removes_the_earlier_trail_files(headless, tmp_path):
    out, _facts = headless
    text = RECIPE.replace('[[ecosystem.animals]]\nname = "Deer"\ncount = 15\n', "")
    assert "Deer" not in text
    bpy.ops.wm.read_homefile(use_empty=True)
    assert batch.main(["--recipe", write_recipe(tmp_path, text), "--out", str(out), "--name", "Vale"]) == 0
    names = set(os.listdir(out))
    assert {"Vale_plants.csv", "Vale_ecosystem.json", "Vale_population.png"} <= names
    assert not {"Vale_trails.png", "Vale_spawns.json"} & names
    assert "animals" not in read_json(out / "Vale_ecosystem.json")


def _panel(years=8):
    ws = bpy.context.scene.worldseed
    ws.terrain.resolution, ws.terrain.size = SIDE, 64.0
    assert bpy.ops.worldseed.terrain_add(from_settings=True) == {"FINISHED"}
    assert bpy.ops.worldseed.ecosystem_species_add() == {"FINISHED"}
    assert bpy.ops.worldseed.ecosystem_animal_add() == {"FINISHED"}
    eco = ws.ecosystem
    eco.years, eco.steps, eco.burn_in = years, 40, 5
    eco.species[0].initial_density, eco.animals[0].count = 120.0, 10
    return ws


def test_simulate_shows_the_forest_and_the_year_slider_any_snapshot_year(addon, empty_scene):
    ws = _panel()
    terrain = bpy.context.active_object
    assert bpy.ops.worldseed.ecosystem_add() == {"FINISHED"}
    root = bpy.context.active_object
    assert bridge_ecosystem.is_ecosystem(root) and root.parent == terrain
    eco = bridge_ecosystem.kept(terrain, bridge_ecosystem.stored_spec(root))
    assert len(root.data.vertices) == len(eco.plants) > 0 and ws.ecosystem.year == 8
    assert bridge_ecosystem.snapshot_years(root) == tuple(range(9))
    counts = {}
    for year in (0, 4, 8):
        ws.ecosystem.year = year  # the slider
        assert bridge_ecosystem.shown_year(root) == year
        counts[year] = len(root.data.vertices)
        assert counts[year] == int(eco.plants.history["alive"][year].sum())
    assert counts[0] != counts[8]
    # the viewport's instances are sized as the FBX: the canopy across (ws_width), the height up (ws_scale)
    _pos, _rot, height_scale, _which = bridge_scatter.read_points(root)
    width_scale = bridge_scatter.width_scales(root)
    graph = bpy.context.evaluated_depsgraph_get()
    scales = sorted(
        tuple(round(v, 4) for v in i.matrix_world.to_scale()) for i in graph.object_instances if i.is_instance
    )
    expected = sorted((round(w, 4), round(w, 4), round(float(h), 4)) for w, h in zip(width_scale, height_scale))
    assert len(scales) == len(expected)
    assert np.abs(np.array(scales) - np.array(expected)).max() < 2e-4
    assert any(abs(w - h) > 0.05 for w, h in zip(width_scale, height_scale))
    image = bpy.data.images[bridge_ecosystem.CHART_IMAGE]
    assert tuple(image.size) == (640, 480)  # plants and animals
    # Update with a new setting simulates again in place
    ws.ecosystem.species[0].initial_density = 30.0
    assert bpy.ops.worldseed.ecosystem_update() == {"FINISHED"}
    assert bpy.context.active_object == root and len(root.data.vertices) < counts[8]
    assert bridge_ecosystem.stored_spec(root).species[0].initial_density == 30.0


def _forest_points(root):
    pos, rot, scale, which = (a.copy() for a in bridge_scatter.read_points(root))
    return pos, rot, scale, which, np.asarray(bridge_scatter.width_scales(root)).copy()


def test_the_year_slider_shows_the_stored_snapshots_after_the_blend_is_opened_again(addon, empty_scene, tmp_path):
    """Issue 23: the snapshots lived in memory only, so after saving and opening the .blend the slider
    did nothing until Simulate.  They are stored on the forest and the slider shows them again, the
    very instances the simulation gave, without simulating."""
    ws = _panel()
    assert bpy.ops.worldseed.ecosystem_add() == {"FINISHED"}
    root = bpy.context.active_object
    name, terrain_name = root.name, root.parent.name
    assert isinstance(root[bridge_ecosystem.SNAPSHOTS_KEY], bytes)
    before = {}
    for year in (2, 5, 8, 0):  # the last: the slider saved at year 0
        ws.ecosystem.year = year
        before[year] = _forest_points(root)
    assert len(before[0][0]) != len(before[8][0])
    path = tmp_path / "forest.blend"
    assert bpy.ops.wm.save_as_mainfile(filepath=str(path)) == {"FINISHED"}
    bridge_ecosystem.forget()  # a new session: nothing in memory
    assert bpy.ops.wm.open_mainfile(filepath=str(path)) == {"FINISHED"}
    root, terrain = bpy.data.objects[name], bpy.data.objects[terrain_name]
    spec = bridge_ecosystem.stored_spec(root)
    assert bridge_ecosystem.kept(terrain, spec) is None
    assert len(root.data.vertices) == len(before[0][0])
    bpy.context.view_layer.objects.active = root
    ws = bpy.context.scene.worldseed
    assert bridge_ecosystem.snapshot_years(root) == tuple(range(9))
    for year in (5, 8, 2):
        ws.ecosystem.year = year  # the slider
        assert bridge_ecosystem.shown_year(root) == year
        for mine, theirs in zip(_forest_points(root), before[year]):
            assert np.array_equal(mine, theirs)
    ws.ecosystem.year = 6
    assert bpy.ops.worldseed.ecosystem_show_year() == {"FINISHED"}  # the button alike
    assert bridge_ecosystem.shown_year(root) == 6
    assert bridge_ecosystem.kept(terrain, spec) is None  # shown from the file, not simulated again
    # bytes that are no snapshots: a report, the forest as it was
    root[bridge_ecosystem.SNAPSHOTS_KEY] = b"not snapshots"
    bridge_ecosystem.forget()
    shown = _forest_points(root)
    ws.ecosystem.year = 3  # the slider: the error in the panel, no traceback
    assert "no snapshot header" in ws.ecosystem.last_error and bridge_ecosystem.shown_year(root) == 6
    with pytest.raises(RuntimeError, match="no snapshot header"):
        bpy.ops.worldseed.ecosystem_show_year()
    for mine, theirs in zip(_forest_points(root), shown):
        assert np.array_equal(mine, theirs)


def test_a_forest_over_the_storage_budget_keeps_every_few_years(addon, empty_scene, monkeypatch):
    ws = _panel()
    assert bpy.ops.worldseed.ecosystem_add() == {"FINISHED"}
    root = bpy.context.active_object
    spec = bridge_ecosystem.stored_spec(root)
    eco = bridge_ecosystem.kept(root.parent, spec)
    whole = len(root[bridge_ecosystem.SNAPSHOTS_KEY])
    monkeypatch.setattr(bridge_ecosystem, "STORE_BUDGET", whole - 1)  # a run just too long for it
    assert bridge_ecosystem.store_snapshots(root, eco) < whole
    bridge_ecosystem.forget()
    assert bridge_ecosystem.snapshot_years(root) == (0, 2, 4, 6, 8)
    ws.ecosystem.year = 5
    assert bridge_ecosystem.shown_year(root) == 4  # the stored year at or below
    assert len(root.data.vertices) == int(eco.plants.history["alive"][4].sum())


def test_simulate_refuses_an_empty_panel_and_bad_values_with_a_report(addon, empty_scene):
    ws = bpy.context.scene.worldseed
    ws.terrain.resolution, ws.terrain.size = SIDE, 64.0
    assert bpy.ops.worldseed.terrain_add(from_settings=True) == {"FINISHED"}
    before = set(bpy.data.objects)
    assert not bpy.ops.worldseed.ecosystem_add.poll()  # the button waits for a species or an animal
    with pytest.raises(ParameterError, match="no species and no animals"):
        drive(bridge_ecosystem.simulate_steps(bpy.context.active_object, core_eco.EcosystemSpec()))
    bpy.ops.worldseed.ecosystem_animal_add()
    ws.ecosystem.animals[0].eats = "Wolf"
    with pytest.raises(RuntimeError, match="Wolf"):
        bpy.ops.worldseed.ecosystem_add()
    assert set(bpy.data.objects) == before


def test_a_preset_loads_into_the_panel_and_round_trips_through_a_recipe(addon, empty_scene, tmp_path):
    ws = bpy.context.scene.worldseed
    ws.ecosystem.preset = "temperate"
    assert bpy.ops.worldseed.ecosystem_preset() == {"FINISHED"}
    assert [s.name for s in ws.ecosystem.species] == ["Birch", "Beech", "Hazel"]
    assert [a.name for a in ws.ecosystem.animals] == ["Deer", "Wolf"]
    preset = core_eco.load_preset("temperate")
    path = tmp_path / "sidebar.toml"
    assert bpy.ops.worldseed.recipe_save(filepath=str(path)) == {"FINISHED"}
    spec = core_recipe.load(str(path)).ecosystem
    assert [s.name for s in spec.species] == [s.name for s in preset.species]
    assert spec.animals[1].eats == ("Deer",) and spec.years == preset.years
    # the panel's own values (float32 in Blender) are what the recipe holds, and read back the same
    bpy.ops.wm.read_homefile(use_empty=True)
    sections = __import__("worldseed.operators.bridge.sections", fromlist=["adapter"])
    sections.adapter("ecosystem").load(bpy.context.scene.worldseed.ecosystem, spec)
    again = tmp_path / "again.toml"
    assert bpy.ops.worldseed.recipe_save(filepath=str(again)) == {"FINISHED"}
    assert again.read_bytes() == path.read_bytes()


class WORLDSEED_OT_test_ecosystem_esc(ModalBuild, FamilyOperator, bpy.types.Operator):
    """Simulate's own run and end (the operator's functions), its steps fed to ModalBuild by hand
    (background Blender has no events), Esc at a tick."""

    bl_idname = "worldseed.test_ecosystem_esc"
    bl_label = "Test Ecosystem Esc"
    family = "ecosystem"
    seed: bpy.props.IntProperty(default=0)
    new_seed: bpy.props.BoolProperty(default=False)
    from_settings: bpy.props.BoolProperty(default=True)
    cancel_after: bpy.props.IntProperty(default=-1)
    run = WORLDSEED_OT_ecosystem_add.run
    finished = WORLDSEED_OT_ecosystem_add.finished

    def execute(self, context):
        return self.run(context, modal=True)

    def run_steps(self, context, steps, label, *, modal, note=None):
        return drive_modal(self, context, steps, label, RESULT)


@pytest.fixture
def esc_op():
    bpy.utils.register_class(WORLDSEED_OT_test_ecosystem_esc)
    RESULT.clear()
    yield
    bpy.utils.unregister_class(WORLDSEED_OT_test_ecosystem_esc)


def test_esc_during_simulate_leaves_the_scene_as_it_was_and_a_full_run_shows_progress(addon, esc_op):
    _panel(years=30)
    terrain = bpy.context.active_object
    bridge_ecosystem.forget()
    before = set(bpy.data.objects)
    assert bpy.ops.worldseed.test_ecosystem_esc(cancel_after=5) == {"FINISHED"}
    assert RESULT["state"] == {"CANCELLED"} and RESULT["ticks"] == 6
    assert set(bpy.data.objects) == before and bridge_ecosystem.forest_of(terrain) is None
    RESULT.clear()
    bpy.context.view_layer.objects.active = terrain
    assert bpy.ops.worldseed.test_ecosystem_esc() == {"FINISHED"}
    assert RESULT["state"] == {"FINISHED"} and RESULT["ticks"] > 30  # a tick a year, then the animals
    root = bridge_ecosystem.forest_of(terrain)
    assert root is not None and bpy.context.active_object == root


def test_a_tiled_world_grows_plants_per_tile_and_puts_their_trees_in_the_prop_library(addon, tmp_path):
    out = tmp_path / "out"
    assert batch.main(["--recipe", write_recipe(tmp_path, TILED), "--out", str(out), "--name", "Wold"]) == 0
    doc = read_json(out / "Wold_world.json")
    for tile in doc["tiles"]:
        listed = {f["name"] for f in tile["files"]}
        base = tile["name"]
        assert {f"{base}_plants.csv", f"{base}_ecosystem.json", f"{base}_population.png"} <= listed
        entries = {e["scatter"]: e for e in read_json(out / f"{base}_placements.json")["scatters"]}
        assert len(entries[f"{base}_Ecosystem"]["instances"]) == len(plants_csv(out / f"{base}_plants.csv")) > 5
    names = {f["name"] for f in doc["files"]}
    assert "Wold_props.fbx" in names
    nodes = fbx_nodes(out / "Wold_props.fbx")
    assert any(n.startswith("Conifer_P01") for n in nodes)


def test_a_tiled_world_headless_lets_its_animals_roam_the_whole_world(addon, tmp_path, capsys):
    """Animals in a tiled world were refused; one animal pass over the world now: each tile its part of the
    trails (and its props off the trampled ground), the world's spawns, history and chart once, all listed
    and kept through the run's switch of files (a single run's names of the same world)."""
    from worldseed.core import world as core_world

    out = tmp_path / "out"
    recipe_path = write_recipe(tmp_path, TILED_ANIMALS)
    assert batch.main(["--recipe", recipe_path, "--out", str(out), "--name", "Wold"]) == 0
    assert f"wrote {out / 'Wold_spawns.json'}" in capsys.readouterr().out
    doc = read_json(out / "Wold_world.json")
    world_files = {f["name"]: f for f in doc["files"]}
    assert {"Wold_spawns.json", "Wold_ecosystem.json", "Wold_population.png"} <= set(world_files)
    for name, record in world_files.items():
        assert (out / name).stat().st_size == record["bytes"], name
    spawns = read_json(out / "Wold_spawns.json")
    pts = np.array([p for a in spawns["animals"] for p in a["points"]])
    assert len(pts) > 3 and (pts[:, 0] >= 0).all() and (pts[:, 0] <= 128.0).all()  # Unity x: 2 tiles of 64 m
    history = read_json(out / "Wold_ecosystem.json")["animals"]["history"]
    assert history[0]["population"] == [30, 3] and len(history) == 81
    recipe = core_world.without_once(core_recipe.loads(TILED_ANIMALS))
    grid = core_world.world_grid(recipe)
    for tile in doc["tiles"]:
        base = tile["name"]
        assert f"{base}_trails.png" in {f["name"] for f in tile["files"]}
        trails = png_grey16((out / f"{base}_trails.png").read_bytes())
        assert trails.shape == (SIDE - 1, SIDE - 1)
    left = png_grey16((out / "Wold_0_0_trails.png").read_bytes())
    right = png_grey16((out / "Wold_1_0_trails.png").read_bytes())
    assert max(left.max(), right.max()) == 65535  # one scale for the world: its most worn cell is in one tile
    # the rocks keep off the trampled ground: no rock on a vertex whose wear is past the threshold
    world = core_world.world_animals(recipe, grid, core_world.recipe_digest(recipe))
    wear = world.vertices(grid, 0, 0)
    rocks = [
        r["position"]
        for s in read_json(out / "Wold_0_0_placements.json")["scatters"]
        for r in s["instances"]
        if r["layer"] == "Rocks"
    ]
    assert rocks and (wear >= 0.3).any()
    for ux, _uy, uz in rocks:  # Unity (x, z) is Blender (-x, -y); the tile's sample (0, 0) at Blender (-64, -64)
        col, row = round((64.0 - ux) / grid.cell_size), round((64.0 - uz) / grid.cell_size)
        assert wear[min(max(row, 0), SIDE - 1), min(max(col, 0), SIDE - 1)] < 0.3 + 1e-6
    # a second run keeps the world's animal files (listed whole for this recipe): nothing written again
    stamp = (out / "Wold_spawns.json").stat().st_ino
    assert batch.main(["--recipe", recipe_path, "--out", str(out), "--name", "Wold"]) == 0
    assert "Wold_spawns.json" not in capsys.readouterr().out
    assert (out / "Wold_spawns.json").stat().st_ino == stamp
    assert {f["name"] for f in read_json(out / "Wold_world.json")["files"]} >= set(world_files)


def test_the_sidebar_and_its_recipe_headless_write_the_same_ecosystem_files(addon, tmp_path):
    ws = _panel(years=6)
    ws.terrain.name = "Vale"
    bpy.ops.worldseed.terrain_add(from_settings=True)  # the panel's name (the first terrain: "World")
    bpy.data.objects.remove(bpy.data.objects["World"], do_unlink=True)
    bpy.context.view_layer.objects.active = bpy.data.objects["Vale"]
    ws.ecosystem.seed = 9
    ws.export.placements = True
    assert bpy.ops.worldseed.ecosystem_add() == {"FINISHED"}
    ui, headless = tmp_path / "ui", tmp_path / "headless"
    ui.mkdir()
    result = bpy.ops.worldseed.export_unity(filepath=str(ui / "world.fbx"), formats="FBX", placements=True)
    assert result == {"FINISHED"}
    path = tmp_path / "sidebar.toml"
    assert bpy.ops.worldseed.recipe_save(filepath=str(path)) == {"FINISHED"}
    assert core_recipe.load(str(path)).ecosystem.seed == 9
    bpy.ops.wm.read_homefile(use_empty=True)
    bridge_ecosystem.forget()  # the headless run simulates again
    assert batch.main(["--recipe", str(path), "--out", str(headless)]) == 0
    for name in ("world_plants.csv", "world_ecosystem.json", "world_population.png", "world_trails.png"):
        assert (ui / name).read_bytes() == (headless / name).read_bytes(), name
    ours = read_json(ui / "world_placements.json")["scatters"]
    theirs = read_json(headless / "world_placements.json")["scatters"]
    assert ours == theirs and ours[0]["scatter"] == "Vale_Ecosystem"
