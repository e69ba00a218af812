"""WFC levels in Blender (issue 11): the Levels panel's WFC (tiles) and WFC (sample), the artist's tile
objects placed per WFC cell, a sample image of the .blend, contradictions, Esc, and a headless recipe.

Real Blender (the bpy module); small grids.
"""

import json
import math
import os
import subprocess
import sys
import types

import bpy
import numpy as np
import pytest

from worldseed.core import levels as core_levels
from worldseed.operators.bridge import instancing, level_wfc, query
from worldseed.operators.bridge import level as bridge_level
from worldseed.operators.common import ModalBuild

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUN = os.path.join(ROOT, "worldseed_run.py")
TILES = dict(generator="wfc_tiled", width=10, height=8, seed=4)

#: One tile and no rule or socket: no two cells may stand side by side.
IMPOSSIBLE = '[[tile]]\nname = "lonely"\nsymmetry = "X"\n'
#: An F tile (no symmetry: 8 variants, 4 of them mirrored) that meets itself in every orientation.
FLAGS = """
[[tile]]
name = "flag"
symmetry = "F"
sockets = { north = "a", east = "a", south = "a", west = "a" }
"""


def _settings(**values):
    settings = bpy.context.scene.worldseed.level
    settings.auto_update = False
    for k, v in values.items():
        setattr(settings, k, v)
    return settings


def _scene_state():
    return (
        sorted(o.name for o in bpy.data.objects),
        sorted(m.name for m in bpy.data.meshes),
        sorted(i.name for i in bpy.data.images),
        sorted(g.name for g in bpy.data.node_groups),
    )


def _tile_objects(names, *, name="Tiles"):
    """A collection of tiny cube-like objects named after ``names`` (each its own mesh)."""
    coll = bpy.data.collections.new(name)
    bpy.context.scene.collection.children.link(coll)
    for k, n in enumerate(names):
        me = bpy.data.meshes.new(n)
        me.from_pydata([(0, 0, 0), (0.4, 0, 0), (0, 0.2, 0.1 * k)], [], [(0, 1, 2)])
        coll.objects.link(bpy.data.objects.new(n, me))
    return coll


def _expected_matrix(turns, mirrored):
    """The 3x3 linear part a variant's instance must have: turned clockwise (seen from above) after
    a left-right mirror."""
    a = -turns * math.pi / 2
    rz = np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]])
    return rz @ np.diag([-1.0 if mirrored else 1.0, 1.0, 1.0])


def _evaluated(obj):
    depsgraph = bpy.context.evaluated_depsgraph_get()
    return [
        (i.object.original.name, np.array(i.matrix_world))
        for i in depsgraph.object_instances
        if i.is_instance and i.parent and i.parent.original == obj
    ]


# --------------------------------------------------------------------------- panel


def test_the_wfc_generators_are_in_the_panel_and_the_redo_panel():
    settings = bpy.context.scene.worldseed.level
    for rna in (settings.bl_rna, bpy.ops.worldseed.level_add.get_rna_type()):
        items = {i.identifier: i.name for i in rna.properties["generator"].enum_items}
        assert items["wfc_tiled"] == "WFC (tiles)" and items["wfc_overlapping"] == "WFC (sample)"
    presets = {i.identifier for i in settings.bl_rna.properties["wfc_tileset"].enum_items}
    assert {"dungeon", "pipes", "FILE"} <= presets
    assert {i.identifier for i in settings.bl_rna.properties["autotile"].enum_items} == {"blob", "wang16"}
    samples = {i.identifier for i in settings.bl_rna.properties["sample_preset"].enum_items}
    assert "rooms" in samples


class _Recorder:
    """A stand-in layout that records what a panel draws (each property checked to exist)."""

    def __init__(self, calls):
        self.__dict__["calls"] = calls

    def __setattr__(self, name, value):
        pass

    def _child(self, *args, **kwargs):
        return _Recorder(self.calls)

    row = column = box = split = _child

    def prop(self, data, name, **kwargs):
        assert name in data.bl_rna.properties, f"{type(data).__name__} has no property {name!r}"
        self.calls.append(name)

    def operator(self, idname, **kwargs):
        return _Recorder([])

    def label(self, **kwargs):
        pass

    def icon(self, data):
        return 7

    def template_icon(self, icon_value, **kwargs):
        pass


def _shown(**values):
    _settings(**values)
    calls = []
    bpy.types.WORLDSEED_PT_level.draw(type("P", (), {"layout": _Recorder(calls)})(), bpy.context)
    return set(calls)


def test_the_panel_shows_each_generators_tileset_sample_and_tile_objects(empty_scene):
    shown = _shown(generator="cave")
    assert "autotile" in shown and not shown & {"wfc_tileset", "tile_objects", "sample_source", "tileset"}
    shown = _shown(generator="wfc_tiled", wfc_tileset="dungeon")
    assert {"wfc_tileset", "tile_objects", "geometry", "attempts", "backtrack_limit", "connected"} <= shown
    assert not shown & {"autotile", "tileset_file", "sample_source", "n", "tileset"}
    assert "tileset_file" in _shown(wfc_tileset="FILE")
    shown = _shown(tile_objects=_tile_objects(["rock"]))
    assert "tile_objects" in shown and "geometry" not in shown  # the tiles are the geometry
    shown = _shown(generator="wfc_overlapping", sample_source="IMAGE")
    assert {"autotile", "sample_source", "sample_image", "classes", "n", "symmetry", "ground"} <= shown
    assert not shown & {"wfc_tileset", "tile_objects", "sample_preset", "sample", "tileset"}
    assert "sample_file" in _shown(sample_source="FILE")


def test_a_wfc_tiles_level_builds_from_the_panel_with_the_dungeon_preset(empty_scene):
    _settings(**TILES, name="Keep", wfc_tileset="dungeon")
    assert bpy.ops.worldseed.level_add(from_settings=True) == {"FINISHED"}
    root = bpy.context.active_object
    assert root.name == "Keep" and query.is_level(root) and root.type == "MESH"
    spec = bridge_level.stored_spec(root)
    assert spec.generator == "wfc_tiled" and spec.tileset == "dungeon"
    level = core_levels.generate(core_levels.LevelSpec(**TILES, name="Keep", tileset="dungeon"))
    assert np.array_equal(bridge_level.stored_level(root).grid, level.grid)
    assert level.wfc.model == "tiled" and level.wfc.ids.shape == (8, 10)
    # Load from Active brings the preset back; a grid generator shows the auto-tile set again
    _settings(generator="cave", wfc_tileset="pipes", autotile="wang16")
    assert bpy.ops.worldseed.level_load_settings() == {"FINISHED"}
    settings = bpy.context.scene.worldseed.level
    assert (settings.generator, settings.wfc_tileset) == ("wfc_tiled", "dungeon")
    # its files: the Tiled map with the WFC layer, the JSON record with the tiles
    files = bridge_level.level_files(root, "Keep")
    assert {"Keep_wfc.tsx", "Keep.tmx", "Keep_level.json"} <= set(files)
    assert b'name="wfc"' in files["Keep.tmx"]


def test_tile_objects_are_instanced_per_cell_as_their_variants_turn(empty_scene, tmp_path):
    path = tmp_path / "flags.toml"
    path.write_text(FLAGS)
    spec = core_levels.from_dict(dict(TILES, width=6, height=5, tileset=str(path)))
    record = core_levels.generate(spec).wfc
    assert any(record.mirrored) and len(set(record.turns)) == 4
    coll = _tile_objects(["Flag"])  # names compare without case
    _settings(**dict(TILES, width=6, height=5), wfc_tileset="FILE", tileset_file=str(path), tile_objects=coll)
    assert bpy.ops.worldseed.level_add(from_settings=True) == {"FINISHED"}
    root = bpy.context.active_object
    assert root.type == "EMPTY" and list(root.get(bridge_level.TILES_MISSING_KEY)) == []
    tiles = query.level_kit_of(root)
    assert tiles.name == "Level_Tiles"
    pos, rot, scale, which = instancing.read_points(tiles)
    assert len(pos) == 30 and set(which.tolist()) == {0}
    instances = _evaluated(tiles)
    assert len(instances) == 30 and {n for n, _ in instances} == {"Flag"}
    # each instance stands on its cell's centre, turned and mirrored as core's variant
    ids = record.ids.ravel()
    at = {(round(m[0][3], 3), round(m[1][3], 3)): m for _, m in instances}
    for k, variant in enumerate(ids):
        y, x = divmod(k, 6)
        m = at[(round((x + 0.5) * 2.0, 3), round((5 - y - 0.5) * 2.0, 3))]
        expected = _expected_matrix(record.turns[variant], record.mirrored[variant])
        assert np.allclose(m[:3, :3], expected, atol=1e-5), (x, y, record.names[variant])
    # Make Real: one object per cell sharing the tile's mesh, with the same matrices
    assert bpy.ops.worldseed.level_make_real() == {"FINISHED"}
    real = [o for o in root.children if o.get(query.KIND_KEY) == "level_kit_module"]
    assert len(real) == 30 and all(o.data == bpy.data.objects["Flag"].data for o in real)
    dets = sorted(round(np.linalg.det(np.array(o.matrix_world)[:3, :3])) for o in real)
    assert dets.count(-1) == int(np.sum(np.asarray(record.mirrored)[ids]))


def test_a_tile_objects_level_exports_one_fbx_object_per_cell(empty_scene, tmp_path):
    from worldseed.core.recipe import ExportSpec
    from worldseed.operators.bridge import world

    spec = core_levels.from_dict(dict(TILES, width=4, height=3, tileset="pipes", name="Pipes"))
    level = core_levels.generate(spec)
    coll = _tile_objects(list(dict.fromkeys(level.wfc.base_names)))
    root = bridge_level.build_level(spec, collection=bpy.context.scene.collection, geometry="TILES", kit=coll)
    before = _scene_state()
    written = world.write_exports([root], str(tmp_path), "pipes", ExportSpec(fbx=True, preview=False))
    assert _scene_state() == before
    names = {os.path.basename(p) for p in written}
    assert {"pipes.fbx", "Pipes.tmx", "Pipes_wfc.tsx", "Pipes_wfc.png", "Pipes_level.json"} <= names
    nodes = _read_fbx(tmp_path / "pipes.fbx")
    cells = [n for n in nodes if n.startswith("Pipes_") and n[-5:].isdigit()]
    assert len(cells) == 12


def test_dungeon_tiles_with_one_object_missing_report_it_and_keep_the_mesh_there(empty_scene):
    level = core_levels.generate(core_levels.LevelSpec(**TILES, tileset="dungeon"))
    bases = list(dict.fromkeys(level.wfc.base_names))
    coll = _tile_objects([b for b in bases if b != "rock"])
    _settings(**TILES, wfc_tileset="dungeon", tile_objects=coll)
    assert bpy.ops.worldseed.level_add(from_settings=True) == {"FINISHED"}
    root = bpy.context.active_object
    assert list(root[bridge_level.TILES_MISSING_KEY]) == ["rock"]
    base_of = np.array(level.wfc.base_names, dtype=object)[level.wfc.ids]
    rock = base_of == "rock"
    assert rock.any() and not rock.all()
    tiles = query.level_kit_of(root)
    assert len(tiles.data.vertices) == int((~rock).sum())
    # the instances' tiles: object k of the node tree is the k-th listed base tile
    _, _, _, which = instancing.read_points(tiles)
    names = list(tiles[bridge_level.KIT_MODULES_KEY])
    assert [names[i] for i in which] == list(base_of[~rock])
    # the root keeps the level mesh of the rock cells only: every face's cell is a rock cell
    assert root.type == "MESH" and len(root.data.polygons) > 0
    centres = np.array([p.center for p in root.data.polygons])
    normals = np.array([p.normal for p in root.data.polygons])
    inside = centres - 0.5 * normals
    xs, ys = (inside[:, 0] // 2.0).astype(int), (8 - 1 - inside[:, 1] // 2.0).astype(int)
    assert rock[ys, xs].all()
    # the artist adds the rock; Update rebuilds in place with a tile on every cell and no mesh
    coll.objects.link(bpy.data.objects.new("Rock", None))
    assert bpy.ops.worldseed.level_update() == {"FINISHED"}
    root = bpy.data.objects["Level"]
    assert root.type == "EMPTY" and list(root[bridge_level.TILES_MISSING_KEY]) == []
    tiles = query.level_kit_of(root)
    assert tiles.name == "Level_Tiles" and len(tiles.data.vertices) == 80
    assert bridge_level.stored_geometry(root) == ("TILES", coll)


def test_tile_objects_of_no_tile_keep_the_whole_level_mesh(empty_scene):
    _settings(**TILES, wfc_tileset="dungeon", tile_objects=_tile_objects(["unrelated"]))
    assert bpy.ops.worldseed.level_add(from_settings=True) == {"FINISHED"}
    root = bpy.context.active_object
    level = core_levels.generate(core_levels.LevelSpec(**TILES, tileset="dungeon"))
    assert sorted(root[bridge_level.TILES_MISSING_KEY]) == sorted(
        set(level.wfc.base_names) & set(np.array(level.wfc.base_names)[np.unique(level.wfc.ids)])
    )
    assert root.type == "MESH" and query.level_kit_of(root) is None
    quads = core_levels.level_quads(level, cell_size=2.0, wall_height=3.0)
    assert len(root.data.polygons) == len(quads.quads)


def test_an_edited_tileset_file_makes_a_new_level_on_update(empty_scene, tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text(FLAGS)
    _settings(**dict(TILES, width=5, height=4), wfc_tileset="FILE", tileset_file=str(path))
    assert bpy.ops.worldseed.level_add(from_settings=True) == {"FINISHED"}
    first = bridge_level.stored_level(bpy.context.active_object).wfc.names
    path.write_text(FLAGS.replace("flag", "banner"))
    assert bpy.ops.worldseed.level_update() == {"FINISHED"}
    assert bridge_level.stored_level(bpy.context.active_object).wfc.names[0] == "banner 0" != first[0]


def test_an_image_loaded_from_a_png_gives_back_its_bytes_as_the_sample(empty_scene, tmp_path):
    from worldseed.core import preview

    rgb = np.random.default_rng(1).integers(0, 256, (5, 7, 3), dtype=np.uint8)
    (tmp_path / "s.png").write_bytes(preview.png_bytes(rgb))
    image = bpy.data.images.load(str(tmp_path / "s.png"))
    assert np.array_equal(level_wfc.image_sample(image), rgb)  # row 0 on top, not colour-managed
    big = bpy.data.images.new("Photo", 300, 300)
    with pytest.raises(bridge_level.ParameterError, match="at most 65,536 pixels"):
        level_wfc.image_sample(big)


def test_a_sample_image_of_the_blend_makes_a_wfc_sample_level(empty_scene):
    # rooms of one colour in walls of another, 12 x 12, drawn here
    grid = np.zeros((12, 12), np.uint8)
    grid[2:5, 2:9] = 1
    grid[7:10, 3:11] = 1
    grid[4:8, 5] = 1
    colours = np.array([[40, 40, 40], [200, 180, 120]], np.uint8)
    rgb = colours[grid]
    image = bpy.data.images.new("Dungeon Sample", 12, 12, alpha=False)
    px = np.ones((12, 12, 4), np.float32)
    px[..., :3] = rgb[::-1] / 255.0  # Blender's rows go up
    image.pixels.foreach_set(px.ravel())
    assert np.array_equal(level_wfc.image_sample(image), rgb)
    _settings(
        generator="wfc_overlapping",
        width=16,
        height=12,
        seed=1,
        n=3,
        symmetry=8,
        sample_source="IMAGE",
        sample_image=image,
        name="Sampled",
    )
    assert bpy.ops.worldseed.level_add(from_settings=True) == {"FINISHED"}
    root = bpy.context.active_object
    assert root[bridge_level.SAMPLE_IMAGE_KEY] == image
    level = bridge_level.stored_level(root)
    assert level.wfc.model == "overlapping" and level.grid.shape == (12, 16)
    assert set(level.wfc.palette) <= {tuple(c) for c in colours.tolist()}
    # the wall colour (the sample's border) is wall, the other floor
    wall = level.wfc.names.index("#282828")
    assert np.array_equal(level.grid == core_levels.WALL, level.wfc.ids == wall)
    # a later session: the sample's PNG is gone; the level finds its image again
    os.remove(bridge_level.stored_spec(root).sample)
    assert np.array_equal(bridge_level.stored_level(root).grid, level.grid)
    assert bpy.ops.worldseed.level_load_settings() == {"FINISHED"}
    settings = bpy.context.scene.worldseed.level
    assert settings.sample_source == "IMAGE" and settings.sample_image == image
    # the sample's colours as classes: the rooms' colour becomes corridor
    _settings(classes="#c8b478 = corridor")
    assert bpy.ops.worldseed.level_update() == {"FINISHED"}
    level = bridge_level.stored_level(bpy.context.active_object)
    assert set(np.unique(level.grid).tolist()) == {core_levels.WALL, core_levels.CORRIDOR}
    _settings(classes="#123456 = floor")
    with pytest.raises(RuntimeError, match="lacks"):
        bpy.ops.worldseed.level_update()


def test_a_contradiction_is_an_error_report_naming_the_cell_and_the_scene_stays(empty_scene, tmp_path):
    path = tmp_path / "impossible.toml"
    path.write_text(IMPOSSIBLE)
    bpy.data.objects.new("Existing", None)
    before = _scene_state()
    _settings(**TILES, wfc_tileset="FILE", tileset_file=str(path), attempts=2)
    with pytest.raises(RuntimeError, match=r"cell \(\d+, \d+\)"):
        bpy.ops.worldseed.level_add(from_settings=True)
    assert _scene_state() == before


# --------------------------------------------------------------------------- modal

RESULT = {}


class WORLDSEED_OT_test_level_modal(ModalBuild, bpy.types.Operator):
    """The Add Level modal run (:func:`bridge.level.build_steps`) fed TIMER and ESC events by hand."""

    bl_idname = "worldseed.test_level_modal"
    bl_label = "Test Level Modal"
    cancel_after: bpy.props.IntProperty(default=-1)
    tileset: bpy.props.StringProperty(default="dungeon")
    seed: bpy.props.IntProperty(default=4)

    def finished(self, context, root):
        RESULT["root"] = root.name

    def execute(self, context):
        spec = core_levels.from_dict(dict(TILES, width=70, height=70, tileset=self.tileset, name="Big", seed=self.seed))
        assert spec.width * spec.height > 64 * 64  # what the Add Level button runs modally
        steps = bridge_level.build_steps(spec, collection=context.scene.collection)
        assert self.start_modal(context, steps, "level Big", handler=False) == {"RUNNING_MODAL"}
        ticks, state = 0, {"RUNNING_MODAL"}
        while state == {"RUNNING_MODAL"}:
            kind = "ESC" if ticks == self.cancel_after else "TIMER"
            state = self.modal(context, types.SimpleNamespace(type=kind, value="PRESS"))
            ticks += 1
            RESULT.setdefault("objects", []).append(len(bpy.data.objects))
        RESULT["state"], RESULT["ticks"] = state, ticks
        return {"FINISHED"}


@pytest.fixture
def modal_op():
    bpy.utils.register_class(WORLDSEED_OT_test_level_modal)
    RESULT.clear()
    yield
    bpy.utils.unregister_class(WORLDSEED_OT_test_level_modal)


def test_escape_in_a_modal_wfc_build_leaves_the_scene_as_it_was(empty_scene, modal_op):
    before = _scene_state()
    bpy.ops.worldseed.test_level_modal()
    assert RESULT["state"] == {"FINISHED"} and RESULT["root"] == "Big"
    assert query.is_level(bpy.data.objects["Big"])
    ticks = RESULT["ticks"]
    assert ticks > 4  # the solver's progress, then the build
    assert RESULT["objects"][:-1] == [0] * (ticks - 1)  # nothing is made before the last step
    # Esc at the start, while solving, before the build (other seeds: a level made once is cached)
    for seed, cancel in ((5, 1), (6, ticks // 2), (4, 0)):
        before = _scene_state()
        RESULT.clear()
        bpy.ops.worldseed.test_level_modal(cancel_after=cancel, seed=seed)
        assert RESULT["state"] == {"CANCELLED"} and "root" not in RESULT
        assert _scene_state() == before


def test_the_add_level_button_on_a_large_wfc_grid_builds_without_a_window(empty_scene):
    from worldseed.operators.level import MODAL_WFC_CELLS, is_modal_level

    _settings(**dict(TILES, width=70, height=60), wfc_tileset="pipes", name="Pipes")
    spec = core_levels.from_dict(dict(TILES, width=70, height=60, tileset="pipes"))
    assert is_modal_level(spec) and 70 * 60 > MODAL_WFC_CELLS
    assert not is_modal_level(core_levels.from_dict(dict(TILES, tileset="pipes")))
    # background Blender has no window for a modal run: the button builds at once
    assert bpy.ops.worldseed.level_add("INVOKE_DEFAULT", from_settings=True) == {"FINISHED"}
    assert bpy.context.active_object.name == "Pipes"


def test_a_contradiction_in_a_modal_build_is_reported_and_builds_nothing(empty_scene, modal_op, tmp_path):
    path = tmp_path / "impossible.toml"
    path.write_text(IMPOSSIBLE)
    before = _scene_state()
    with pytest.raises(RuntimeError, match=r"cell \(\d+, \d+\)"):
        bpy.ops.worldseed.test_level_modal(tileset=str(path))
    assert RESULT["state"] == {"CANCELLED"} and _scene_state() == before


# --------------------------------------------------------------------------- headless

RECIPE = """
[world]
name = "Keep"
[terrain]
enabled = false

[[level]]
name = "Keep"
generator = "wfc_tiled"
tileset = "tiles/flags.toml"
width = 6
height = 5
seed = 3

[export]
fbx = true
preview = false
"""

_READ_FBX = """
import json, os, sys, ufbx
scene = ufbx.load_file(sys.argv[1], target_unit_meters=1.0)
out = {}
for node in list(scene.nodes):
    if not node.is_root:
        out[node.name] = len(list(node.mesh.faces)) if node.mesh is not None else 0
print(json.dumps(out), flush=True)
os._exit(0)
"""


def _read_fbx(path):
    # in a Python of its own: ufbx's objects can crash the garbage collector with bpy in the process
    done = subprocess.run([sys.executable, "-c", _READ_FBX, str(path)], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def test_a_recipe_with_a_relative_tileset_builds_and_exports_headless(tmp_path):
    (tmp_path / "tiles").mkdir()
    (tmp_path / "tiles" / "flags.toml").write_text(FLAGS)
    recipe = tmp_path / "keep.toml"
    recipe.write_text(RECIPE)
    out = tmp_path / "out"
    elsewhere = tmp_path / "tiles"  # run from another folder: the path is the recipe's
    done = subprocess.run(
        [sys.executable, RUN, "--recipe", str(recipe), "--out", str(out)],
        capture_output=True,
        text=True,
        cwd=str(elsewhere),
    )
    assert done.returncode == 0, done.stderr
    names = {p.name for p in out.iterdir()}
    assert {"world.fbx", "Keep.tmx", "Keep_wfc.tsx", "Keep_level.json", "Keep_level.png"} <= names
    record = json.loads((out / "Keep_level.json").read_text())
    assert json.dumps(record).count("flag") > 0
    nodes = _read_fbx(out / "world.fbx")
    assert nodes["Keep"] > 0


def test_the_run_knows_every_file_of_a_sample_level_before_it_starts(tmp_path):
    # the folder-in-the-way check and the stale-file list both come from output_paths
    from worldseed.addon import batch
    from worldseed.core import recipe as core_recipe

    text = '[[level]]\nname = "Garden"\ngenerator = "wfc_overlapping"\nsample = "flowers"\nwidth = 12\nheight = 12\n'
    paths = [os.path.basename(p) for p in batch.output_paths(core_recipe.loads(text), str(tmp_path))]
    assert "Garden_wfc.tsx" in paths and "Garden_wfc.png" in paths and "Garden_level.json" in paths
    text = text.replace('generator = "wfc_overlapping"\nsample = "flowers"', 'generator = "cave"')
    paths = [os.path.basename(p) for p in batch.output_paths(core_recipe.loads(text), str(tmp_path))]
    assert "Garden_wfc.tsx" not in paths and "Garden.tmx" in paths


# --------------------------------------------------------------------------- global constraints


def _doors(level):
    return int((np.array(level.wfc.base_names)[level.wfc.ids] == "door").sum())


def test_the_panel_shows_connect_points_and_counts_for_the_wfc_generators(empty_scene):
    for generator in ("wfc_tiled", "wfc_overlapping", "wfc"):
        assert {"connect_points", "counts", "connected"} <= _shown(generator=generator), generator
    assert not _shown(generator="cave") & {"connect_points", "counts"}
    redo = bpy.ops.worldseed.level_add.get_rna_type().properties
    assert "connect_points" in redo and "counts" in redo


def test_counts_and_connect_points_from_the_panel_build_a_level_that_keeps_them(empty_scene):
    # 20 x 14 dungeons have 5 to 13 doors without the key (seeds 0 to 3): 2 to 4 is the key's doing
    free = core_levels.generate(core_levels.LevelSpec(generator="wfc_tiled", tileset="dungeon", width=20, height=14))
    assert _doors(free) > 4
    dungeon = dict(generator="wfc_tiled", wfc_tileset="dungeon", width=20, height=14)
    for seed in (0, 1):
        _settings(**dungeon, seed=seed, name=f"Keep{seed}", connected=False, connect_points="", counts="door=2-4")
        assert bpy.ops.worldseed.level_add(from_settings=True) == {"FINISHED"}
        root = bpy.context.active_object
        assert bridge_level.stored_spec(root).counts == (("door", 2, 4),)
        assert 2 <= _doors(bridge_level.stored_level(root)) <= 4
    # connected with two points, and a count: the stored spec keeps both
    _settings(seed=2, name="Linked", connected=True, connect_points="1,1; 18,12", counts="door=2-10, junction=1-")
    assert bpy.ops.worldseed.level_add(from_settings=True) == {"FINISHED"}
    root = bpy.context.active_object
    spec = bridge_level.stored_spec(root)
    assert spec.connect_points == ((1, 1), (18, 12)) and spec.counts == (("door", 2, 10), ("junction", 1, -1))
    level = bridge_level.stored_level(root)
    labels, count = core_levels.label_regions(level.grid != core_levels.WALL)
    assert count == 1 and labels[1, 1] == labels[12, 18] >= 0  # [x, y]: column x, row y
    assert 2 <= _doors(level) <= 10
    # Load from Active gives the text back; Update reads it again
    _settings(connect_points="", counts="junction=9", connected=False)
    assert bpy.ops.worldseed.level_load_settings() == {"FINISHED"}
    settings = bpy.context.scene.worldseed.level
    assert (settings.connect_points, settings.counts, settings.connected) == (
        "1,1; 18,12",
        "door=2-10, junction=1-",
        True,
    )
    _settings(counts="door=3-5")
    assert bpy.ops.worldseed.level_update() == {"FINISHED"}
    root = bpy.context.active_object
    assert bridge_level.stored_spec(root).counts == (("door", 3, 5),)
    assert 3 <= _doors(bridge_level.stored_level(root)) <= 5


def test_the_redo_panel_takes_counts_of_sample_values(empty_scene):
    result = bpy.ops.worldseed.level_add(
        generator="wfc_overlapping", sample="rooms", width=24, height=16, seed=1, counts="2=2-4"
    )
    assert result == {"FINISHED"}
    level = bridge_level.stored_level(bpy.context.active_object)
    assert 2 <= int((level.wfc.ids == level.wfc.names.index("2")).sum()) <= 4
    free = core_levels.from_dict(dict(generator="wfc_overlapping", sample="rooms", width=24, height=16, seed=1))
    assert int((core_levels.generate(free).wfc.ids == 2).sum()) > 4  # 12: the bound is the key's doing


@pytest.mark.parametrize(
    "values, words",
    [
        ({"counts": "door=1-x"}, ["level.counts: write name=min-max", "'door=1-x'"]),
        ({"counts": "door"}, ["level.counts: write name=min-max pairs"]),
        ({"counts": "dor=1-2"}, ["level.counts names the tile 'dor'", "did you mean 'door'"]),
        ({"counts": "door=4-2"}, ["level.counts['door'] must have min <= max"]),
        ({"connect_points": "3"}, ["level.connect_points: write cells x,y", "'3'"]),
        ({"connect_points": "3,4"}, ["level.connect_points needs level.connected = true"]),
        ({"connect_points": "30,4", "connected": True}, ["level.connect_points[0] [30, 4] is off the level", "[0, 9]"]),
    ],
)
def test_bad_constraint_text_is_an_error_report_and_the_scene_stays(empty_scene, values, words):
    before = _scene_state()
    _settings(**{**TILES, "wfc_tileset": "dungeon", "connected": False, "connect_points": "", "counts": "", **values})
    with pytest.raises(RuntimeError) as err:  # an operator's ERROR report
        bpy.ops.worldseed.level_add(from_settings=True)
    for word in words:
        assert word in str(err.value), (word, str(err.value))
    assert "Traceback" not in str(err.value)
    assert _scene_state() == before


def test_the_constraint_texts_read_and_write_back():
    from worldseed.core.levels import spec as level_spec
    from worldseed.operators import level as level_ops

    assert level_ops.points_from_text(" 3, 4;20 ,10; ") == [[3, 4], [20, 10]]
    assert level_ops.counts_from_text("dead end = 1-4, #FF0000=2-, 3=5, x=-2") == [
        ["dead end", 1, 4],
        ["#FF0000", 2, -1],
        ["3", 5, 5],
        ["x", 0, 2],
    ]
    counts = level_spec.check_counts(level_ops.counts_from_text("door=1-4, junction=2-, rock=3"))
    assert level_ops.counts_to_text(counts) == "door=1-4, junction=2-, rock=3"
    assert level_spec.check_counts(level_ops.counts_from_text(level_ops.counts_to_text(counts))) == counts
    points = level_spec.check_connect_points(level_ops.points_from_text("3,4; 20,10"))
    assert level_ops.points_to_text(points) == "3,4; 20,10"
