"""Scatter Props on real Blender: instances, rules, re-scatter, Make Real, undo, FBX and the placement file."""

import json
import re

import bpy
import numpy as np
import pytest

from worldseed.core import unity as core_unity
from worldseed.operators.bridge import export
from worldseed.operators.bridge import placements as scatter_export
from worldseed.operators.bridge import scatter as bridge_scatter
from worldseed.operators.bridge import scatter as scatter_build
from worldseed.operators.bridge.terrain import terrain_heights_of

from .test_export import read_fbx


def _terrain(name="Land", resolution=65, size=200.0, height=30.0, sea_level=0.15):
    bpy.ops.worldseed.terrain_add(
        resolution=resolution, size=size, height=height, name=name, sea_level=sea_level, octaves=4, scale=120.0
    )
    return bpy.context.active_object


def _layer(settings, builtin, **values):
    bpy.ops.worldseed.scatter_layer_add(builtin=builtin)
    layer = settings.layers[settings.active_layer]
    for key, value in values.items():
        setattr(layer, key, value)
    return layer


@pytest.fixture
def scattered(empty_scene):
    root = _terrain()
    settings = bpy.context.scene.worldseed.scatter
    _layer(settings, "abop_1_24b", name="Shrubs", radius=12.0, variants=2, slope_range=(0.0, 25.0), unity_tree=True)
    _layer(settings, "rock", name="Rocks", radius=6.0, variants=2, align=1.0, max_tilt=30.0)
    settings.seed = 5
    bpy.context.view_layer.objects.active = root
    assert bpy.ops.worldseed.scatter_add() == {"FINISHED"}
    return root, bpy.context.active_object


def test_scatter_makes_one_instancing_object_on_the_terrain(scattered):
    root, obj = scattered
    assert bridge_scatter.is_scatter(obj) and obj.parent == root
    n = len(obj.data.vertices)
    assert n > 50
    depsgraph = bpy.context.evaluated_depsgraph_get()
    meshes = [
        i.object.data.original.name
        for i in depsgraph.object_instances
        if i.is_instance and i.parent and i.parent.original == obj
    ]  # instance structs are transient
    assert len(meshes) == n
    # instances share data: a handful of prop meshes, not one per instance
    assert len(set(meshes)) <= 4
    props = scatter_build.scatter_props(obj)
    assert [p.name for p in props] == ["Plant_B_P01", "Plant_B_P02", "Rock_P01", "Rock_P02"]
    # every point shows its own prop: instance positions grouped by the object they show
    pos, _, _, which = scatter_build.read_points(obj)
    world = np.asarray(obj.matrix_world)
    shown = {}
    for inst in depsgraph.object_instances:
        if inst.is_instance and inst.parent and inst.parent.original == obj:
            key = tuple(np.round(np.asarray(inst.matrix_world.translation), 3))
            shown[key] = inst.object.original.name
    for p_local, k in zip(pos, which):
        key = tuple(np.round((world @ np.r_[p_local, 1.0])[:3], 3))
        assert shown[key] == scatter_build.prop_mesh_object(props[k]).name


def test_props_stand_on_the_terrain_and_obey_the_rules(scattered):
    root, obj = scattered
    pos, rot, scale, prop = scatter_build.read_points(obj)
    layer = np.empty(len(pos), np.int32)
    obj.data.attributes["ws_layer"].data.foreach_get("value", layer)
    heights, size, sea_m = terrain_heights_of(root)
    from worldseed.core import scatter as core_scatter

    ground = core_scatter.sample_heights(heights, pos[:, :2].astype(np.float64), size=size)
    sink = np.where(layer == 1, 0.15, 0.1)  # the suggested sinks of rocks and trees
    np.testing.assert_allclose(pos[:, 2], ground - sink * scale, atol=1e-3)
    assert np.all(ground > sea_m)  # above_sea is on for both layers
    normals = core_scatter.terrain_normals_at(heights, pos[:, :2].astype(np.float64), size=size)
    slope = np.degrees(np.arccos(np.clip(normals[:, 2], -1, 1)))
    assert np.all(slope[layer == 0] <= 25.0 + 1.0)
    # layer order: rocks keep at least their radius from every shrub
    shrubs, rocks = pos[layer == 0, :2], pos[layer == 1, :2]
    if len(shrubs) and len(rocks):
        d = np.linalg.norm(rocks[:, None] - shrubs[None], axis=2)
        assert d.min() >= 6.0 - 1e-3
    assert np.allclose(np.linalg.norm(rot, axis=1), 1.0, atol=1e-5)


def test_update_rescatters_in_place_and_seed_changes_positions(scattered):
    root, obj = scattered
    before = scatter_build.read_points(obj)[0].copy()
    settings = bpy.context.scene.worldseed.scatter
    assert bpy.ops.worldseed.scatter_update() == {"FINISHED"}
    np.testing.assert_array_equal(scatter_build.read_points(obj)[0], before)  # same seed, same props
    settings.seed = 6
    bpy.ops.worldseed.scatter_update()
    after = scatter_build.read_points(obj)[0]
    assert after.shape != before.shape or not np.array_equal(after, before)
    assert len([o for o in root.children if bridge_scatter.is_scatter(o)]) == 1


def test_undo_removes_the_scatter(empty_scene):
    root = _terrain(resolution=33)
    settings = bpy.context.scene.worldseed.scatter
    _layer(settings, "rock", radius=10.0)
    bpy.context.view_layer.objects.active = root
    bpy.ops.ed.undo_push(message="before")
    bpy.ops.worldseed.scatter_add()
    bpy.ops.ed.undo_push(message="Scatter Props")
    assert any(bridge_scatter.is_scatter(o) for o in bpy.data.objects)
    bpy.ops.ed.undo()
    assert not any(bridge_scatter.is_scatter(o) for o in bpy.data.objects)


def test_no_layers_or_no_terrain_is_a_clear_error(empty_scene):
    root = _terrain(resolution=17)
    bpy.context.view_layer.objects.active = root
    assert not bpy.ops.worldseed.scatter_add.poll()  # the button greys out, saying why
    with pytest.raises(RuntimeError, match="Add a prop layer with \\+ first"):
        bpy.ops.worldseed.scatter_add()
    bpy.ops.worldseed.scatter_layer_add()
    assert bpy.ops.worldseed.scatter_add.poll()
    bpy.ops.object.empty_add()
    assert not bpy.ops.worldseed.scatter_add.poll()


def test_make_real_makes_linked_duplicates(scattered):
    root, obj = scattered
    n = len(obj.data.vertices)
    pos = scatter_build.read_points(obj)[0]
    assert bpy.ops.worldseed.scatter_make_real() == {"FINISHED"}
    coll = next(c for c in bpy.data.collections if c.name.endswith("Objects"))
    tops = [o for o in coll.objects if o.parent is None]
    assert len(tops) == n and not any(bridge_scatter.is_scatter(o) for o in bpy.data.objects)
    rocks = [o for o in tops if o.name.startswith("Rock_P")]
    assert rocks and all(o.data.users > 2 for o in rocks)  # shared meshes
    shrub = next(o for o in tops if o.name.startswith("Plant_B"))
    assert sorted(c.name[len(shrub.name) :] for c in shrub.children) == ["_LOD0", "_LOD1", "_LOD2"]
    world = root.matrix_world
    assert np.allclose(
        sorted(np.asarray(o.matrix_world.translation)[0] for o in tops),
        sorted((np.asarray(world) @ np.c_[pos, np.ones(n)].T).T[:, 0]),
        atol=1e-4,
    )


def test_fbx_and_placement_file_agree(scattered, tmp_path):
    root, obj = scattered
    root.location = (30.0, -12.0, 4.0)  # the terrain moved: both must follow
    bpy.context.view_layer.update()
    n = len(obj.data.vertices)
    fbx = str(tmp_path / "world.fbx")
    export.export_unity([root], fbx)
    assert bridge_scatter.is_scatter(bpy.data.objects[obj.name]) and obj.parent == root  # restored
    assert not [o for o in bpy.data.objects if re.search(r"_\d{5}", o.name)]  # the temporary objects are gone
    settings, models, _ = read_fbx(fbx)
    placements = json.loads(open(scatter_export.write_placement_file([obj], str(tmp_path / "p.json"))).read())
    data = placements["scatters"][0]
    assert len(data["instances"]) == n and data["props"] == [p.name for p in scatter_build.scatter_props(obj)]
    # read the FBX back the way Unity does (Y up, -Z forward) and map each object as Unity would
    bpy.ops.wm.read_homefile(use_empty=True)
    bpy.ops.import_scene.fbx(filepath=fbx, axis_forward="-Z", axis_up="Y", bake_space_transform=True)
    for i, rec in enumerate(data["instances"]):
        imported = bpy.data.objects[f"{rec['prop']}_{i:05d}"]
        unity = core_unity.unity_position(np.asarray(imported.matrix_world.translation))
        np.testing.assert_allclose(unity, rec["position"], atol=2e-3)
        q = np.asarray(imported.matrix_world.to_quaternion())  # (w, x, y, z), Blender
        from worldseed.core import placement

        expect = np.asarray(rec["rotation"])
        got = placement.unity_rotation(q[None])[0]
        assert np.allclose(got, expect, atol=2e-3) or np.allclose(got, -expect, atol=2e-3)
        assert imported.matrix_world.to_scale()[0] == pytest.approx(rec["scale"], abs=1e-3)
    trees = data["terrain_trees"]
    assert trees["prototypes"] == ["Plant_B_P01", "Plant_B_P02"][: len(trees["prototypes"])]
    tpos = np.array([t["position"] for t in trees["instances"]])
    assert len(tpos) and np.all((tpos >= -1e-6) & (tpos <= 1 + 1e-6))
    assert data["terrain"]["position"] == pytest.approx(
        core_unity.unity_terrain_position(200.0, blender_centre=(30.0, -12.0, 4.0)).tolist()
    )
    assert settings["UpAxis"] == [1]


def test_scatter_panel_settings_in_a_recipe_run(tmp_path):
    from .test_batch import run

    recipe = tmp_path / "r.toml"
    recipe.write_text("""
[world]
name = "Isle"
seed = 3
[terrain]
resolution = 65
size = 256.0
height = 40.0
sea_level = 0.1
[[scatter]]
name = "Rocks"
prop = "rock"
radius = 8.0
[[scatter]]
name = "Grass"
prop = "grass"
radius = 4.0
[export]
fbx = true
placements = true
""")
    out = tmp_path / "out"
    proc = run("--recipe", str(recipe), "--out", str(out))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    data = json.loads((out / "world_placements.json").read_text())["scatters"][0]
    assert {r["prop"].split("_P")[0] for r in data["instances"]} == {"Rock", "Grass"}
    _settings, models, _ = read_fbx(str(out / "world.fbx"))
    assert sum(1 for m in models if m.startswith(("Rock_P", "Grass_P"))) == len(data["instances"])


def test_auto_update_rescatters_when_a_layer_changes(scattered):
    root, obj = scattered
    settings = bpy.context.scene.worldseed.scatter
    n = len(obj.data.vertices)
    settings.layers[1].radius = 12.0  # auto update off: nothing happens
    assert len(obj.data.vertices) == n
    settings.auto_update = True
    settings.layers[1].radius = 3.0  # background Blender re-scatters at once
    assert len(obj.data.vertices) > n
    settings.layers[1].height_range = (500.0, 400.0)  # low above high: refused, reported in the panel
    assert "height_range" in settings.last_error


def test_artist_objects_and_collections_as_props_and_the_export_operator(empty_scene, tmp_path):
    root = _terrain(resolution=33)
    bpy.ops.mesh.primitive_cube_add(size=1.0)
    cube = bpy.context.active_object
    coll = bpy.data.collections.new("MyRocks")
    bpy.context.scene.collection.children.link(coll)
    for _i in range(2):
        bpy.ops.mesh.primitive_ico_sphere_add(radius=0.5)
        ball = bpy.context.active_object
        for c in ball.users_collection:
            c.objects.unlink(ball)
        coll.objects.link(ball)
    settings = bpy.context.scene.worldseed.scatter
    _layer(settings, "rock", name="Cubes", radius=20.0, source="OBJECT", object=cube)
    _layer(settings, "rock", name="Balls", radius=12.0, source="COLLECTION", collection=coll)
    bpy.context.view_layer.objects.active = root
    bpy.ops.worldseed.scatter_add()
    obj = bpy.context.active_object
    assert [p.name for p in scatter_build.scatter_props(obj)] == ["Cube", "Icosphere", "Icosphere.001"]
    assert "Worldseed Props" not in bpy.data.collections  # no built-ins needed
    path = tmp_path / "w.fbx"
    assert bpy.ops.worldseed.export_unity(filepath=str(path)) == {"FINISHED"}
    data = json.loads((tmp_path / "w_placements.json").read_text())["scatters"][0]
    assert {r["layer"] for r in data["instances"]} == {"Cubes", "Balls"}
    _settings, models, _ = read_fbx(str(path))
    assert sum(1 for m in models if re.search(r"_\d{5}$", m)) == len(obj.data.vertices)
    settings.layers[0].object = None
    with pytest.raises(RuntimeError, match="choose an object"):
        bpy.ops.worldseed.scatter_update()
