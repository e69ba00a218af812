"""Tiled worlds in Blender (issue 13): tiles assembled from their files side by side, Build Tiles
(the world run on a worker thread, modal, Esc) and Export World for Unity (FBX per tile, world JSON).

The tile files come from core: the bridge tests write the heights of each tile's own recipe (noise in
world coordinates, so neighbours share their border samples), the operator tests run
``core.world.run_world`` itself.  Background Blender delivers no events, so the modal operator is
fed TIMER (and Esc) events by hand, as the erosion modal tests do.
"""

import json
import os
import subprocess
import sys

import bpy
import numpy as np
import pytest

from worldseed.core import recipe as core_recipe
from worldseed.core import terrain as core_terrain
from worldseed.core import unity as core_unity
from worldseed.operators.bridge import world_build, world_export, world_tiles

SIDE = 65
SIZE = 128.0

WORLD_TOML = f"""
[world]
name = "Land"
seed = 3
tiles = [2, 2]

[terrain]
resolution = {SIDE}
size = {SIZE}
height = 40.0
normalize = "fixed"
lods = {{lods}}
"""


def world_recipe(lods=1):
    return core_recipe.loads(WORLD_TOML.format(lods=lods))


def write_tile_heights(recipe, folder, name="world", tiles=((0, 0), (1, 0), (0, 1), (1, 1))):
    """Each tile's RAW, as core writes it: its own terrain at the tile's noise offset, turned for Unity."""
    for x, z in tiles:
        spec = world_tiles.tile_recipe(recipe, x, z).terrain
        heights = core_terrain.terrain_heights(spec, seed=recipe.world.seed)
        raw = core_unity.heightmap_raw16(core_unity.unity_heights(heights.values))
        core_unity.write_bytes_atomic(os.path.join(folder, f"{name}_{x}_{z}.raw"), raw)


def world_positions(obj):
    """(side, side, 3) float64 world positions of a tile mesh's vertices (row 0 at Blender -Y)."""
    me = obj.data
    co = np.empty(len(me.vertices) * 3, np.float32)
    me.attributes["position"].data.foreach_get("vector", co)
    m = np.array(obj.matrix_world, np.float64)
    side = int(round(np.sqrt(len(me.vertices))))
    return (co.reshape(-1, 3).astype(np.float64) @ m[:3, :3].T + m[:3, 3]).reshape(side, side, 3)


def snapshot():
    return (
        sorted((o.name, tuple(round(v, 6) for v in o.matrix_world.translation)) for o in bpy.data.objects),
        sorted(m.name for m in bpy.data.meshes),
        sorted(m.name for m in bpy.data.materials),
        sorted(i.name for i in bpy.data.images),
        sorted(g.name for g in bpy.data.node_groups),
        sorted(c.name for c in bpy.data.collections),
    )


# --------------------------------------------------------------------------- the bridge


def test_tiles_lie_side_by_side_and_share_their_edges(empty_scene, tmp_path):
    recipe = world_recipe()
    write_tile_heights(recipe, str(tmp_path))
    made = world_build.assemble_tiles(
        recipe, str(tmp_path), "world", [(0, 0), (1, 0), (0, 1), (1, 1)], collection=empty_scene.collection
    )
    assert {k: v.name for k, v in made.items()} == {(x, z): f"Land_{x}_{z}" for x in range(2) for z in range(2)}
    bpy.context.view_layer.update()
    pos = {}
    for (x, z), root in made.items():
        assert tuple(root.location) == (-(x + 0.5) * SIZE, -(z + 0.5) * SIZE, 0.0)
        assert tuple(root.rotation_euler) == (0.0, 0.0, 0.0) and tuple(root.scale) == (1.0, 1.0, 1.0)
        assert root.data.validate() is False
        pos[(x, z)] = world_positions(root)
        # Unity X in [x S, (x + 1) S] is Blender x in [-(x + 1) S, -x S]
        assert pos[(x, z)][..., 0].min() == -(x + 1) * SIZE and pos[(x, z)][..., 0].max() == -x * SIZE
        assert pos[(x, z)][..., 1].min() == -(z + 1) * SIZE and pos[(x, z)][..., 1].max() == -z * SIZE
    # tile (x + 1, z) lies at Blender -X of tile (x, z): its last column is the other's first, exactly
    assert np.array_equal(pos[(0, 0)][:, 0], pos[(1, 0)][:, -1])
    assert np.array_equal(pos[(0, 1)][:, 0], pos[(1, 1)][:, -1])
    # tile (x, z + 1) at Blender -Y: its last row is the other's first
    assert np.array_equal(pos[(0, 0)][0, :], pos[(0, 1)][-1, :])
    assert np.array_equal(pos[(1, 0)][0, :], pos[(1, 1)][-1, :])
    assert np.ptp(pos[(0, 0)][..., 2]) > 1.0  # real relief, not a flat grid


def test_shared_edges_have_the_same_normals(empty_scene, tmp_path):
    """The normals along a shared edge see the neighbour's heights (the margin from its file), so
    the tiles join without a lighting seam."""
    recipe = world_recipe()
    write_tile_heights(recipe, str(tmp_path))
    coll = empty_scene.collection
    made = world_build.assemble_tiles(recipe, str(tmp_path), "world", [(0, 0), (1, 0)], collection=coll)
    normals = {}
    for key, root in made.items():
        me = root.data
        assert me.has_custom_normals
        if "custom_normal" in me.attributes:  # 4.5 and later: the floats as they were written
            n = np.empty(len(me.vertices) * 3, np.float32)
            me.attributes["custom_normal"].data.foreach_get("vector", n)
        else:  # 4.2: per corner, as 16-bit offsets in each corner's fan space (back within 2e-4)
            corners = np.empty(len(me.loops) * 3, np.float32)
            me.corner_normals.foreach_get("vector", corners)
            corner_verts = np.empty(len(me.loops), np.int32)
            me.attributes[".corner_vert"].data.foreach_get("value", corner_verts)
            n = np.empty((len(me.vertices), 3), np.float32)
            n[corner_verts] = corners.reshape(-1, 3)
        normals[key] = n.reshape(SIDE, SIDE, 3)
    if bpy.app.version >= (4, 5, 0):
        assert np.array_equal(normals[(0, 0)][:, 0], normals[(1, 0)][:, -1])
    else:
        np.testing.assert_allclose(normals[(0, 0)][:, 0], normals[(1, 0)][:, -1], atol=2e-4)
    assert not np.array_equal(normals[(0, 0)][:, 0], normals[(0, 0)][:, 1])


def test_tile_heights_are_the_raw_turned_back(empty_scene, tmp_path):
    recipe = world_recipe()
    write_tile_heights(recipe, str(tmp_path), tiles=((1, 0),))
    spec = world_tiles.tile_recipe(recipe, 1, 0).terrain
    expected = core_terrain.terrain_heights(spec, seed=3).values
    got = world_tiles.read_tile_heights(str(tmp_path / "world_1_0.raw"), side=SIDE)
    assert np.abs(got - expected).max() <= 0.5 / 65535 + 1e-7  # 16-bit quantised, same layout


def test_lods_and_rebuild_replace_the_tile(empty_scene, tmp_path):
    recipe = world_recipe(lods=2)
    write_tile_heights(recipe, str(tmp_path), tiles=((0, 0),))
    folder, coll = str(tmp_path), empty_scene.collection
    world_build.assemble_tiles(recipe, folder, "world", [(0, 0)], collection=coll)
    names = sorted(o.name for o in bpy.data.objects)
    assert names == ["Land_0_0", "Land_0_0_LOD0", "Land_0_0_LOD1"]
    assert len(bpy.data.objects["Land_0_0_LOD1"].data.vertices) == 33 * 33
    before = snapshot()
    world_build.assemble_tiles(recipe, folder, "world", [(0, 0)], collection=coll)  # again: replaced, not added
    assert snapshot() == before


def test_closing_an_assembly_leaves_the_scene_as_it_was(empty_scene, tmp_path):
    recipe = world_recipe()
    write_tile_heights(recipe, str(tmp_path))
    folder, coll = str(tmp_path), empty_scene.collection
    world_build.assemble_tiles(recipe, folder, "world", [(0, 0)], collection=coll)
    before = snapshot()
    steps = world_build.assemble_steps(recipe, folder, "world", [(0, 0), (1, 0), (0, 1)], collection=coll)
    for _ in range(6):
        next(steps)
    steps.close()
    assert snapshot() == before


def test_missing_tile_files_and_foreign_objects_are_clear_errors(empty_scene, tmp_path):
    from worldseed.core.errors import ParameterError

    recipe = world_recipe()
    write_tile_heights(recipe, str(tmp_path), tiles=((0, 0),))
    with pytest.raises(ParameterError, match=r"tile \(1, 0\) has no heights"):
        world_build.assemble_tiles(recipe, str(tmp_path), "world", [(1, 0)], collection=empty_scene.collection)
    bpy.data.objects.new("Land_0_0", None)
    with pytest.raises(ParameterError, match="'Land_0_0' is in the way"):
        world_build.assemble_tiles(recipe, str(tmp_path), "world", [(0, 0)], collection=empty_scene.collection)


# ufbx's Python objects can crash the garbage collector with bpy in the process (see
# test_export_scatter.py): read the FBX in a Python of its own that prints plain values
_READ_FBX = """
import json, os, sys, ufbx
scene = ufbx.load_file(sys.argv[1], target_unit_meters=1.0)
out = {}
for node in list(scene.nodes):
    if node.is_root:
        continue
    lt = node.local_transform
    t, r, s = lt.translation, lt.rotation, lt.scale
    box = None
    if node.mesh is not None:
        vs = [(v.x, v.y, v.z) for v in node.mesh.vertices]
        box = [[min(v[i] for v in vs) for i in range(3)], [max(v[i] for v in vs) for i in range(3)]]
    out[node.name] = [[t.x, t.y, t.z], [r.x, r.y, r.z, r.w], [s.x, s.y, s.z], box]
print(json.dumps(out), flush=True)
os._exit(0)
"""


def fbx_nodes(path):
    """``{name: (translation, rotation (x, y, z, w), scale, mesh bounds)}`` as ufbx reads them."""
    done = subprocess.run([sys.executable, "-c", _READ_FBX, str(path)], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def test_tile_fbx_has_rotation_zero_scale_one_and_the_tile_extent(empty_scene, tmp_path):
    recipe = world_recipe()
    write_tile_heights(recipe, str(tmp_path), tiles=((1, 0),))
    made = world_build.assemble_tiles(recipe, str(tmp_path), "world", [(1, 0)], collection=empty_scene.collection)
    before = snapshot()
    path = world_export.export_tile_fbx(made[(1, 0)], str(tmp_path / "world_1_0.fbx"))
    assert snapshot() == before
    nodes = fbx_nodes(path)
    assert list(nodes) == ["Land_1_0"]
    t, r, s, box = nodes["Land_1_0"]
    assert r == [0.0, 0.0, 0.0, 1.0] and s == [1.0, 1.0, 1.0]
    # Blender (x, y, z) is the file's (x, z, -y); Unity then flips X: the tile lands at Unity x in [S, 2S]
    assert t == pytest.approx([-1.5 * SIZE, 0.0, 0.5 * SIZE])
    (x0, _y0, z0), (x1, _y1, z1) = box
    assert (x1 - x0, z1 - z0) == pytest.approx((SIZE, SIZE))


def test_export_tile_fbx_assembles_a_tile_from_its_files(empty_scene, tmp_path):
    """The headless run's way: a tile given as (x, z) is assembled, written and removed again."""
    recipe = world_recipe()
    write_tile_heights(recipe, str(tmp_path), tiles=((0, 1),))
    before = snapshot()
    path = world_export.export_tile_fbx(
        (0, 1), str(tmp_path / "world_0_1.fbx"), recipe=recipe, folder=str(tmp_path), name="world"
    )
    assert snapshot() == before
    assert list(fbx_nodes(path)) == ["Land_0_1"]


# --------------------------------------------------------------------------- the operators

from types import SimpleNamespace  # noqa: E402

from worldseed.core import world as core_world  # noqa: E402
from worldseed.operators import world as world_ops  # noqa: E402
from worldseed.operators.common import ModalBuild  # noqa: E402

from .test_erosion_build import Tap  # noqa: E402

RESULT = {}


class Driven:
    """Mixed into Build Tiles' own methods: ``execute`` calls ``invoke`` (as the button in a window
    does), and the modal build it starts is fed TIMER events -- Esc once a label starting with
    ``RESULT["cancel_at"]`` has shown -- until it ends (background Blender delivers no events)."""

    def execute(self, context):
        RESULT["invoked"] = self.invoke(context, SimpleNamespace(type="NONE", value="NOTHING"))
        return {"FINISHED"}

    def start_modal(self, context, steps, label, *, handler=True):
        labels = RESULT.setdefault("labels", [])
        state = super().start_modal(context, Tap(steps, labels), label, handler=False)
        RESULT["poll_while_running"] = bpy.ops.worldseed.world_build.poll()
        cancel_at = RESULT.get("cancel_at")
        while state == {"RUNNING_MODAL"}:
            cancel = cancel_at is not None and any(label.startswith(cancel_at) for label in labels)
            state = self.modal(context, SimpleNamespace(type="ESC" if cancel else "TIMER", value="PRESS"))
        RESULT["state"] = state
        return {"RUNNING_MODAL"}

    def finished(self, context, result):
        RESULT["result"] = result
        if isinstance(result, tuple):
            RESULT["run"] = result[0]
        super().finished(context, result)


def _driven(cls, idname):
    own = {k: v for k, v in vars(cls).items() if not k.startswith("__") and not k.startswith("bl_")}
    base = type(f"{cls.__name__}_methods", (ModalBuild,), own)
    namespace = {"bl_idname": idname, "bl_label": idname}
    return type(idname.replace(".", "_OT_"), (Driven, base, bpy.types.Operator), namespace)


TEST_BUILD = _driven(world_ops.WORLDSEED_OT_world_build, "worldseed.test_world_build")
TEST_EXPORT = _driven(world_ops.WORLDSEED_OT_world_export, "worldseed.test_world_export")


@pytest.fixture
def driven():
    for cls in (TEST_BUILD, TEST_EXPORT):
        bpy.utils.register_class(cls)
    RESULT.clear()
    yield
    for cls in (TEST_BUILD, TEST_EXPORT):
        bpy.utils.unregister_class(cls)
    ModalBuild.running.clear()


def panel_world(folder, *, erosion=False, lods=1):
    settings = bpy.context.scene.worldseed
    terrain = settings.terrain
    terrain.name, terrain.seed, terrain.resolution, terrain.size = "Land", 3, SIDE, SIZE
    terrain.height, terrain.normalize, terrain.lods = 40.0, "fixed", lods
    terrain.erosion_enabled = erosion
    settings.world.tiles_x, settings.world.tiles_z = 2, 2
    settings.world.folder = str(folder)
    return settings


def test_build_tiles_runs_the_world_modally_and_lays_the_tiles_side_by_side(empty_scene, driven, tmp_path):
    panel_world(tmp_path, erosion=True)
    bpy.ops.worldseed.test_world_build()
    assert RESULT["invoked"] == {"RUNNING_MODAL"} and RESULT["state"] == {"FINISHED"}
    assert RESULT["poll_while_running"] is False and bpy.ops.worldseed.world_build.poll()  # one run at a time
    labels = RESULT["labels"]
    assert any(label.startswith("building tiles: tile_") for label in labels) and labels[-1] == "done"
    assert sorted(RESULT["run"].built) == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert sorted(o.name for o in bpy.data.objects) == ["Land_0_0", "Land_0_1", "Land_1_0", "Land_1_1"]
    assert {o.name for o in bpy.context.selected_objects} == {"Land_0_0", "Land_0_1", "Land_1_0", "Land_1_1"}
    for name in ("world_0_0.raw", "world_1_1.raw", "world_world.json"):
        assert (tmp_path / name).is_file()
    bpy.context.view_layer.update()
    pos = {}
    for x in range(2):
        for z in range(2):
            obj = bpy.data.objects[f"Land_{x}_{z}"]
            assert tuple(obj.matrix_world.translation) == (-(x + 0.5) * SIZE, -(z + 0.5) * SIZE, 0.0)
            pos[(x, z)] = world_positions(obj)
    # eroded, the shared borders still meet exactly (core blends the windows; Blender keeps the bits)
    assert np.array_equal(pos[(0, 0)][:, 0], pos[(1, 0)][:, -1])
    assert np.array_equal(pos[(0, 0)][0, :], pos[(0, 1)][-1, :])
    assert np.array_equal(pos[(1, 0)][0, :], pos[(1, 1)][-1, :])
    # the tile's heights are the RAW's: 16-bit steps of the 40 m height
    raw = world_tiles.read_tile_heights(str(tmp_path / "world_1_1.raw"), side=SIDE)
    assert np.allclose(pos[(1, 1)][..., 2], raw * np.float32(40.0), atol=1e-4)


def test_esc_leaves_the_scene_as_it_was_and_keeps_the_finished_tiles(empty_scene, driven, tmp_path):
    panel_world(tmp_path)
    before = snapshot()
    RESULT["cancel_at"] = "building tiles: tile_0_0"  # Esc once the first tile is written
    bpy.ops.worldseed.test_world_build()
    assert RESULT["state"] == {"CANCELLED"} and "run" not in RESULT
    assert snapshot() == before
    assert world_build.wait_for_runs(timeout=60)  # the worker ends its running tasks after the Esc
    assert bpy.ops.worldseed.world_build.poll()
    document = core_world.read_world_json(str(tmp_path / "world_world.json"))
    complete = {(t["x"], t["z"]) for t in document["tiles"] if t["complete"]}
    assert (0, 0) in complete  # how many more finished before the Esc landed depends on the machine
    noted = bpy.context.scene.worldseed.world.complete_tiles  # what the panel's grid shows as built
    assert (0, 0) in {tuple(int(v) for v in t.split(",")) for t in noted.split(";")}
    timer = world_ops._noting_when_stopped(bpy.context.scene.name, str(tmp_path))  # Esc's timer, run by hand
    assert timer() is None  # the worker has ended: noted, no further calls
    noted = bpy.context.scene.worldseed.world.complete_tiles
    assert {tuple(int(v) for v in t.split(",")) for t in noted.split(";")} == complete
    # Esc while the tiles become objects (the run has finished every tile): nothing of them stays either
    RESULT.clear()
    RESULT["cancel_at"] = "tile 1, 0"
    bpy.ops.worldseed.test_world_build()
    assert RESULT["state"] == {"CANCELLED"} and snapshot() == before
    document = core_world.read_world_json(str(tmp_path / "world_world.json"))
    assert all(t["complete"] for t in document["tiles"])
    # the next build keeps the finished tiles: nothing to build, only to assemble
    RESULT.clear()
    bpy.ops.worldseed.test_world_build()
    run = RESULT["run"]
    assert run.built == () and sorted(run.skipped) == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert bpy.context.scene.worldseed.world.complete_tiles == "0,0;1,0;0,1;1,1"
    assert sorted(o.name for o in bpy.data.objects) == ["Land_0_0", "Land_0_1", "Land_1_0", "Land_1_1"]


def test_building_again_replaces_the_tiles_and_builds_a_range(empty_scene, driven, tmp_path):
    settings = panel_world(tmp_path, lods=2)
    assert bpy.ops.worldseed.world_build() == {"FINISHED"}  # background: at once
    names = sorted(o.name for o in bpy.data.objects)
    assert len(names) == 12 and "Land_1_1_LOD1" in names
    settings.world.build_all = False
    settings.world.x0, settings.world.x1, settings.world.z0, settings.world.z1 = 1, 1, 0, 1
    settings.terrain.seed = 4  # another recipe: its tiles are built anew
    assert bpy.ops.worldseed.world_build() == {"FINISHED"}
    assert sorted(o.name for o in bpy.data.objects) == names  # replaced in place, no .001
    document = core_world.read_world_json(str(tmp_path / "world_world.json"))
    assert sorted((t["x"], t["z"]) for t in document["tiles"] if t["complete"]) == [(1, 0), (1, 1)]
    # the tiles still in the scene from the first seed no longer match the folder: not exported
    with pytest.raises(RuntimeError, match="tiles Land_0_0, Land_0_1 in the scene do not match the tile files"):
        bpy.ops.worldseed.world_export()
    assert not list(tmp_path.glob("*.fbx"))


def test_export_world_writes_an_fbx_per_tile_and_the_world_json(empty_scene, tmp_path):
    panel_world(tmp_path)
    assert bpy.ops.worldseed.world_build() == {"FINISHED"}
    before = snapshot()
    assert bpy.ops.worldseed.world_export() == {"FINISHED"}
    assert snapshot() == before
    fbx = sorted(p.name for p in tmp_path.glob("*.fbx"))
    assert fbx == ["world_0_0.fbx", "world_0_1.fbx", "world_1_0.fbx", "world_1_1.fbx"]
    document = core_world.read_world_json(str(tmp_path / "world_world.json"))
    for tile in document["tiles"]:
        files = {f["name"]: f for f in tile["files"]}
        record = files[f"world_{tile['x']}_{tile['z']}.fbx"]
        assert record == core_world.file_record(str(tmp_path / record["name"]))
        assert f"world_{tile['x']}_{tile['z']}.raw" in files
    # the FBX listed, the tiles still verify: a resumed run skips them all
    assert sorted(core_world.verify_tiles(str(tmp_path), document)) == [(0, 0), (0, 1), (1, 0), (1, 1)]
    nodes = fbx_nodes(tmp_path / "world_1_0.fbx")
    assert list(nodes) == ["Land_1_0"]
    t, r, s, box = nodes["Land_1_0"]
    assert r == [0.0, 0.0, 0.0, 1.0] and s == [1.0, 1.0, 1.0]
    assert t == pytest.approx([-1.5 * SIZE, 0.0, 0.5 * SIZE])
    (x0, _y0, z0), (x1, _y1, z1) = box
    assert (x1 - x0, z1 - z0) == pytest.approx((SIZE, SIZE))


def test_tiles_get_their_splat_material_and_props(empty_scene, tmp_path):
    settings = panel_world(tmp_path)
    bpy.ops.worldseed.splat_layer_add()
    bpy.ops.worldseed.splat_layer_add()
    settings.terrain.splats[1].height_range = (0.3, 1.0)
    bpy.ops.worldseed.scatter_layer_add(builtin="rock")
    settings.scatter.layers[0].radius = 8.0
    assert bpy.ops.worldseed.world_build() == {"FINISHED"}
    recipe = world_ops.world_recipe(bpy.context.scene)
    grid = core_world.world_grid(recipe)
    from worldseed.operators.bridge.materials import splat_pixels

    root = bpy.data.objects["Land_1_0"]
    image = bpy.data.images["Land_1_0_splat0"]
    assert root.data.materials[0].name == "Worldseed Terrain Splat Land_1_0"
    expected = core_world.tile_layers(recipe, grid, 1, 0).splats[0]
    assert np.array_equal(splat_pixels(image), expected)  # the PNG turned back into our layout
    scatter = bpy.data.objects["Land_1_0_Scatter"]
    with open(tmp_path / "world_1_0_placements.json") as f:
        records = [r for s in json.load(f)["scatters"] for r in s["instances"]]
    assert len(scatter.data.vertices) == len(records) > 10
    from worldseed.operators.bridge import placements

    data = placements.placement_data(scatter)  # Blender's own placement records of the tile's props
    for mine, theirs in zip(data["instances"][:50], records[:50]):
        assert mine["prop"] == theirs["prop"]
        assert mine["position"] == pytest.approx(theirs["position"], abs=1e-3)
        assert abs(np.dot(mine["rotation"], theirs["rotation"])) == pytest.approx(1.0, abs=1e-5)  # q and -q alike


def test_the_headless_export_writes_the_same_files_as_the_sidebar(empty_scene, tmp_path):
    """``[export] fbx`` of a world run without Blender objects (what ``worldseed_run.py`` does after the
    tiles are built): each tile assembled from its files, written, removed; the same bytes as Export
    World from the sidebar, and the scene left as it was."""
    settings = panel_world(tmp_path / "ui")
    file_name = settings.world.file_name
    bpy.ops.worldseed.scatter_layer_add(builtin="rock")  # props to make and remove again
    settings.scatter.layers[0].radius = 16.0
    assert bpy.ops.worldseed.world_build() == {"FINISHED"}
    assert bpy.ops.worldseed.world_export() == {"FINISHED"}
    recipe = world_ops.world_recipe(bpy.context.scene)
    bpy.ops.wm.read_homefile(use_empty=True)  # a fresh file, as the headless run's
    before = snapshot()
    headless = tmp_path / "headless"
    core_world.run_world(recipe, str(headless), name=file_name)
    seen = []
    paths = world_export.export_world_fbx(recipe, str(headless), "world", progress=lambda *step: seen.append(step))
    assert snapshot() == before
    assert sorted(os.path.basename(p) for p in paths) == [
        "world_0_0.fbx",
        "world_0_1.fbx",
        "world_1_0.fbx",
        "world_1_1.fbx",
        "world_props.fbx",
        "world_world.json",
    ]
    assert seen[-1][2] == "done"
    variants = recipe.scatter[0].variants
    assert sorted(fbx_nodes(headless / "world_props.fbx")) == [f"Rock_P{k + 1:02d}" for k in range(variants)]
    for name in ("world_0_0.fbx", "world_1_1.fbx", "world_props.fbx", "world_world.json"):
        assert (headless / name).read_bytes() == (tmp_path / "ui" / name).read_bytes(), name


def test_a_run_that_fails_is_reported_and_leaves_the_scene(empty_scene, driven, tmp_path):
    blocked = tmp_path / "a_file"
    blocked.write_text("not a folder")
    panel_world(blocked)  # the world folder is a file: the run cannot write there
    before = snapshot()
    with pytest.raises(RuntimeError, match="a_file' is a file"):
        bpy.ops.worldseed.test_world_build()
    assert snapshot() == before
    assert "a_file' is a file" in bpy.context.scene.worldseed.world.last_error
    # a failure inside the run (the folder cannot be made) ends the modal build with the error
    panel_world(blocked / "tiles")
    with pytest.raises(RuntimeError, match="Not a directory"):
        bpy.ops.worldseed.test_world_build()
    assert RESULT["state"] == {"CANCELLED"} and snapshot() == before


def test_a_tile_with_lods_exports_its_lod_group(empty_scene, tmp_path):
    recipe = world_recipe(lods=3)
    write_tile_heights(recipe, str(tmp_path), tiles=((1, 1),))
    made = world_build.assemble_tiles(recipe, str(tmp_path), "world", [(1, 1)], collection=empty_scene.collection)
    assert [c.hide_get() for c in sorted(made[(1, 1)].children, key=lambda o: o.name)] == [False, True, True]
    nodes = fbx_nodes(world_export.export_tile_fbx(made[(1, 1)], str(tmp_path / "world_1_1.fbx")))
    assert sorted(nodes) == ["Land_1_1", "Land_1_1_LOD0", "Land_1_1_LOD1", "Land_1_1_LOD2"]
    assert nodes["Land_1_1"][0] == pytest.approx([-1.5 * SIZE, 0.0, 1.5 * SIZE])
    for level, side in enumerate((SIDE, 33, 17)):
        t, r, s, box = nodes[f"Land_1_1_LOD{level}"]
        assert t == [0.0, 0.0, 0.0] and r == [0.0, 0.0, 0.0, 1.0] and s == [1.0, 1.0, 1.0]
        (x0, _y0, z0), (x1, _y1, z1) = box
        assert (x1 - x0, z1 - z0) == pytest.approx((SIZE, SIZE)), side


def test_export_for_unity_takes_the_tiles_and_their_props_too(empty_scene, tmp_path):
    """The Export panel's Export for Unity sees world tiles as Worldseed objects: one FBX of them all and
    the placement file of their props (each tile keeps its own recipe, as a terrain does)."""
    settings = panel_world(tmp_path / "world")
    bpy.ops.worldseed.scatter_layer_add(builtin="rock")
    settings.scatter.layers[0].radius = 12.0  # few props: the export runs at once
    assert bpy.ops.worldseed.world_build() == {"FINISHED"}
    path = tmp_path / "all.fbx"
    assert bpy.ops.worldseed.export_unity(filepath=str(path), scatter_mode="LIBRARY") == {"FINISHED"}
    nodes = fbx_nodes(path)
    assert {"Land_0_0", "Land_1_0", "Land_0_1", "Land_1_1"} <= set(nodes)
    with open(tmp_path / "all_placements.json") as f:
        scatters = json.load(f)["scatters"]
    assert sorted(s["terrain"]["name"] for s in scatters) == ["Land_0_0", "Land_0_1", "Land_1_0", "Land_1_1"]
    # the tile's terrain position in the placement file is the Unity position of the world JSON
    by_name = {s["terrain"]["name"]: s for s in scatters}
    assert by_name["Land_1_0"]["terrain"]["position"] == [SIZE, 0.0, 0.0]


def test_tile_quads_are_cut_as_a_terrain_of_the_same_heights(empty_scene, tmp_path):
    """The cached grid turned where the heights say: the corners core's own turned topology has."""
    from worldseed.core import mesh as core_mesh

    recipe = world_recipe()
    write_tile_heights(recipe, str(tmp_path), tiles=((0, 0),))
    made = world_build.assemble_tiles(recipe, str(tmp_path), "world", [(0, 0)], collection=empty_scene.collection)
    me = made[(0, 0)].data
    heights = world_tiles.tile_heights(recipe, str(tmp_path), "world", 0, 0)
    turn = core_mesh.grid_turns(heights.metres, cell_size=heights.cell_size)
    assert turn.any() and not turn.all()
    expected = core_mesh.grid_topology(SIDE, SIDE, turn=turn)
    got = np.empty(len(me.loops), np.int32)
    me.attributes[".corner_vert"].data.foreach_get("value", got)
    assert np.array_equal(got, expected.corner_verts)
    uvs = np.empty(len(me.loops) * 2, np.float32)
    me.attributes["UVMap"].data.foreach_get("vector", uvs)
    assert np.array_equal(uvs.reshape(-1, 2), core_mesh.grid_corner_uvs(SIDE, SIDE, turn=turn))


def test_export_world_runs_modally_and_esc_leaves_the_folder_as_it_was(empty_scene, driven, tmp_path):
    panel_world(tmp_path)
    assert bpy.ops.worldseed.world_build() == {"FINISHED"}
    files = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
    RESULT["cancel_at"] = "writing world_1_0.fbx"  # Esc with world_0_0.fbx written (staged)
    bpy.ops.worldseed.test_world_export()
    assert RESULT["state"] == {"CANCELLED"}
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()} == files  # all or nothing
    RESULT.clear()
    bpy.ops.worldseed.test_world_export()
    assert RESULT["state"] == {"FINISHED"}
    assert sorted(os.path.basename(p) for p in RESULT["result"]) == [
        "world_0_0.fbx",
        "world_0_1.fbx",
        "world_1_0.fbx",
        "world_1_1.fbx",
        "world_world.json",
    ]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".worldseed")]  # no staging left behind
