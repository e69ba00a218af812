"""WFC levels in Blender: the Levels panel's WFC (tiles) and WFC (sample), the artist's tile
objects placed per WFC cell, a sample image of the .blend, contradictions, and a headless recipe
(modal runs and Esc: test_levels_wfc_modal.py; global constraints: test_levels_wfc_constraints.py).

Real Blender (the bpy module); small grids.
"""

import json
import math
import os
import subprocess
import sys

import bpy
import numpy as np
import pytest

from worldseed.core import levels as core_levels
from worldseed.core.errors import ParameterError
from worldseed.operators.bridge import instancing, query
from worldseed.operators.bridge import levels as bridge_levels

from ._level_cases import IMPOSSIBLE, TILES, level_settings, scene_state, shown_props

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUN = os.path.join(ROOT, "worldseed_run.py")

#: An F tile (no symmetry: 8 variants, 4 of them mirrored) that meets itself in every orientation.
FLAGS = """
[[tile]]
name = "flag"
symmetry = "F"
sockets = { north = "a", east = "a", south = "a", west = "a" }
"""


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
    presets = settings.bl_rna.properties["wfc_tileset"]
    assert {i.identifier for i in presets.enum_items} == {"dungeon", "pipes", "roads", "FILE"}  # 2-D sets only
    assert presets.default == core_levels.LevelSpec().wfc_tileset == "dungeon"
    assert {i.identifier for i in settings.bl_rna.properties["autotile"].enum_items} == {"blob", "wang16"}
    samples = settings.bl_rna.properties["sample_preset"]
    assert [i.identifier for i in samples.enum_items] == ["caves"] and samples.default == core_levels.DEFAULT_SAMPLE


def test_the_panel_shows_each_generators_tileset_sample_and_tile_objects(empty_scene):
    shown = shown_props(generator="cave")
    assert "autotile" in shown and not shown & {"wfc_tileset", "tile_objects", "sample_source", "tileset"}
    shown = shown_props(generator="wfc_tiled", wfc_tileset="dungeon")
    assert {"wfc_tileset", "autotile", "tile_objects", "geometry", "attempts", "backtrack_limit", "connected"} <= shown
    assert not shown & {"tileset_file", "sample_source", "n", "tileset"}  # a WFC level has its auto-tiles too
    assert "tileset_file" in shown_props(wfc_tileset="FILE")
    shown = shown_props(tile_objects=_tile_objects(["rock"]))
    assert "tile_objects" in shown and "geometry" not in shown  # the tiles are the geometry
    shown = shown_props(generator="wfc_overlapping", sample_source="IMAGE")
    assert {"autotile", "sample_source", "sample_image", "classes", "n", "symmetry", "ground"} <= shown
    assert not shown & {"wfc_tileset", "tile_objects", "sample_preset", "sample", "tileset"}
    assert "sample_file" in shown_props(sample_source="FILE")


@pytest.mark.parametrize("generator", ["wfc_tiled", "wfc"])
def test_switching_add_level_to_wfc_builds_with_its_defaults(empty_scene, generator):
    """The auto-tile set and the WFC tileset have keys of their own: Add Level built from a cave's settings and
    switched to a WFC generator in its redo panel (the same call as here) keeps its auto-tiles and takes the
    default WFC tileset, where it was refused with "tileset ... got 'blob'"."""
    level_settings(generator="cave", width=16, height=12, autotile="wang16")
    assert bpy.ops.worldseed.level_add(from_settings=True) == {"FINISHED"}
    assert bpy.ops.worldseed.level_add(generator=generator, width=16, height=12) == {"FINISHED"}
    spec = bridge_levels.stored_spec(bpy.context.active_object)
    assert (spec.generator, spec.wfc_tileset) == (generator, core_levels.LevelSpec().wfc_tileset)
    assert bpy.ops.worldseed.level_add(generator="bsp", autotile="wang16", width=30, height=30) == {"FINISHED"}
    assert bridge_levels.stored_spec(bpy.context.active_object).autotile == "wang16"


def test_a_wfc_tiles_level_builds_from_the_panel_with_the_dungeon_preset(empty_scene):
    level_settings(**TILES, name="Keep", wfc_tileset="dungeon")
    assert bpy.ops.worldseed.level_add(from_settings=True) == {"FINISHED"}
    root = bpy.context.active_object
    assert root.name == "Keep" and bridge_levels.is_level(root) and root.type == "MESH"
    spec = bridge_levels.stored_spec(root)
    assert spec.generator == "wfc_tiled" and spec.wfc_tileset == "dungeon"
    level = core_levels.generate(core_levels.LevelSpec(**TILES, name="Keep", wfc_tileset="dungeon"))
    assert np.array_equal(bridge_levels.stored_level(root).grid, level.grid)
    assert level.wfc.model == "tiled" and level.wfc.ids.shape == (8, 10)
    # Load from Active brings the preset back; a grid generator shows the auto-tile set again
    level_settings(generator="cave", wfc_tileset="pipes", autotile="wang16")
    assert bpy.ops.worldseed.level_load_settings() == {"FINISHED"}
    settings = bpy.context.scene.worldseed.level
    assert (settings.generator, settings.wfc_tileset) == ("wfc_tiled", "dungeon")
    # its files: the Tiled map with the WFC layer, the JSON record with the tiles
    files = bridge_levels.level_files(root, "Keep")
    assert {"Keep_wfc.tsx", "Keep.tmx", "Keep_level.json"} <= set(files)
    assert b'name="wfc"' in files["Keep.tmx"]


def test_tile_objects_are_instanced_per_cell_as_their_variants_turn(empty_scene, tmp_path):
    path = tmp_path / "flags.toml"
    path.write_text(FLAGS)
    spec = core_levels.from_dict(dict(TILES, width=6, height=5, wfc_tileset=str(path)))
    record = core_levels.generate(spec).wfc
    assert any(record.mirrored) and len(set(record.turns)) == 4
    coll = _tile_objects(["Flag"])  # names compare without case
    level_settings(**dict(TILES, width=6, height=5), wfc_tileset="FILE", tileset_file=str(path), tile_objects=coll)
    assert bpy.ops.worldseed.level_add(from_settings=True) == {"FINISHED"}
    root = bpy.context.active_object
    assert root.type == "EMPTY" and list(root.get(bridge_levels.TILES_MISSING_KEY)) == []
    tiles = bridge_levels.level_kit_of(root)
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
    from worldseed.core.export import ExportSpec
    from worldseed.operators.bridge import world

    spec = core_levels.from_dict(dict(TILES, width=4, height=3, wfc_tileset="pipes", name="Pipes"))
    level = core_levels.generate(spec)
    coll = _tile_objects(list(dict.fromkeys(level.wfc.base_names)))
    root = bridge_levels.build_level(spec, collection=bpy.context.scene.collection, geometry="TILES", kit=coll)
    before = scene_state()
    written = world.write_exports([root], str(tmp_path), "pipes", ExportSpec(fbx=True, preview=False))
    assert scene_state() == before
    names = {os.path.basename(p) for p in written}
    assert {"pipes.fbx", "Pipes.tmx", "Pipes_wfc.tsx", "Pipes_wfc.png", "Pipes_level.json"} <= names
    nodes = _read_fbx(tmp_path / "pipes.fbx")
    cells = [n for n in nodes if n.startswith("Pipes_") and n[-5:].isdigit()]
    assert len(cells) == 12


def test_dungeon_tiles_with_one_object_missing_report_it_and_keep_the_mesh_there(empty_scene):
    level = core_levels.generate(core_levels.LevelSpec(**TILES, wfc_tileset="dungeon"))
    bases = list(dict.fromkeys(level.wfc.base_names))
    coll = _tile_objects([b for b in bases if b != "rock"])
    level_settings(**TILES, wfc_tileset="dungeon", tile_objects=coll)
    assert bpy.ops.worldseed.level_add(from_settings=True) == {"FINISHED"}
    root = bpy.context.active_object
    assert list(root[bridge_levels.TILES_MISSING_KEY]) == ["rock"]
    base_of = np.array(level.wfc.base_names, dtype=object)[level.wfc.ids]
    rock = base_of == "rock"
    assert rock.any() and not rock.all()
    tiles = bridge_levels.level_kit_of(root)
    assert len(tiles.data.vertices) == int((~rock).sum())
    # the instances' tiles: object k of the node tree is the k-th listed base tile
    _, _, _, which = instancing.read_points(tiles)
    names = list(tiles[bridge_levels.KIT_MODULES_KEY])
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
    assert root.type == "EMPTY" and list(root[bridge_levels.TILES_MISSING_KEY]) == []
    tiles = bridge_levels.level_kit_of(root)
    assert tiles.name == "Level_Tiles" and len(tiles.data.vertices) == 80
    assert bridge_levels.stored_geometry(root) == ("TILES", coll)


def test_tile_objects_of_no_tile_keep_the_whole_level_mesh(empty_scene):
    level_settings(**TILES, wfc_tileset="dungeon", tile_objects=_tile_objects(["unrelated"]))
    assert bpy.ops.worldseed.level_add(from_settings=True) == {"FINISHED"}
    root = bpy.context.active_object
    level = core_levels.generate(core_levels.LevelSpec(**TILES, wfc_tileset="dungeon"))
    assert sorted(root[bridge_levels.TILES_MISSING_KEY]) == sorted(
        set(level.wfc.base_names) & set(np.array(level.wfc.base_names)[np.unique(level.wfc.ids)])
    )
    assert root.type == "MESH" and bridge_levels.level_kit_of(root) is None
    quads = core_levels.level_quads(level, cell_size=2.0, wall_height=3.0)
    assert len(root.data.polygons) == len(quads.quads)


def test_an_edited_tileset_file_makes_a_new_level_on_update(empty_scene, tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text(FLAGS)
    level_settings(**dict(TILES, width=5, height=4), wfc_tileset="FILE", tileset_file=str(path))
    assert bpy.ops.worldseed.level_add(from_settings=True) == {"FINISHED"}
    first = bridge_levels.stored_level(bpy.context.active_object).wfc.names
    path.write_text(FLAGS.replace("flag", "banner"))
    assert bpy.ops.worldseed.level_update() == {"FINISHED"}
    assert bridge_levels.stored_level(bpy.context.active_object).wfc.names[0] == "banner 0" != first[0]


def test_an_image_loaded_from_a_png_gives_back_its_bytes_as_the_sample(empty_scene, tmp_path):
    from worldseed.core import preview

    rgb = np.random.default_rng(1).integers(0, 256, (5, 7, 3), dtype=np.uint8)
    (tmp_path / "s.png").write_bytes(preview.png_bytes(rgb))
    image = bpy.data.images.load(str(tmp_path / "s.png"))
    assert np.array_equal(bridge_levels.image_sample(image), rgb)  # row 0 on top, not colour-managed
    big = bpy.data.images.new("Photo", 300, 300)
    with pytest.raises(ParameterError, match="at most 65,536 pixels"):
        bridge_levels.image_sample(big)


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
    assert np.array_equal(bridge_levels.image_sample(image), rgb)
    level_settings(
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
    assert root[bridge_levels.SAMPLE_IMAGE_KEY] == image
    level = bridge_levels.stored_level(root)
    assert level.wfc.model == "overlapping" and level.grid.shape == (12, 16)
    assert set(level.wfc.palette) <= {tuple(c) for c in colours.tolist()}
    # the wall colour (the sample's border) is wall, the other floor
    wall = level.wfc.names.index("#282828")
    assert np.array_equal(level.grid == core_levels.WALL, level.wfc.ids == wall)
    # a later session: the sample's PNG is gone; the level finds its image again
    os.remove(bridge_levels.stored_spec(root).sample)
    assert np.array_equal(bridge_levels.stored_level(root).grid, level.grid)
    assert bpy.ops.worldseed.level_load_settings() == {"FINISHED"}
    settings = bpy.context.scene.worldseed.level
    assert settings.sample_source == "IMAGE" and settings.sample_image == image
    # the sample's colours as classes: the rooms' colour becomes corridor
    level_settings(classes="#c8b478 = corridor")
    assert bpy.ops.worldseed.level_update() == {"FINISHED"}
    level = bridge_levels.stored_level(bpy.context.active_object)
    assert set(np.unique(level.grid).tolist()) == {core_levels.WALL, core_levels.CORRIDOR}
    level_settings(classes="#123456 = floor")
    with pytest.raises(RuntimeError, match="lacks"):
        bpy.ops.worldseed.level_update()


def test_a_contradiction_is_an_error_report_naming_the_cell_and_the_scene_stays(empty_scene, tmp_path):
    path = tmp_path / "impossible.toml"
    path.write_text(IMPOSSIBLE)
    bpy.data.objects.new("Existing", None)
    before = scene_state()
    level_settings(**TILES, wfc_tileset="FILE", tileset_file=str(path), attempts=2)
    with pytest.raises(RuntimeError, match=r"cell \(\d+, \d+\)"):
        bpy.ops.worldseed.level_add(from_settings=True)
    assert scene_state() == before


# --------------------------------------------------------------------------- headless

RECIPE = """
[world]
name = "Keep"
[terrain]
enabled = false

[[level]]
name = "Keep"
generator = "wfc_tiled"
wfc_tileset = "tiles/flags.toml"
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
