"""The scatter and the forest follow their terrain through every rebuild of its ground: the Terrain
panel's Update, the Networks panel's Build, the Settlements panel's Add and Update, and Auto Update.
After each, ``<Terrain>_Scatter`` and ``<Terrain>_Ecosystem`` are still there, every point stands on
the new ground (Blender's own ray cast on the new LOD0) and none on a road or in a river; Esc (the
build's steps closed) at any stage, and a failure, leave the scene as it was.

Real Blender (the bpy module)."""

import bpy
import numpy as np
import pytest
from mathutils import Vector

from worldseed.operators.bridge import ecosystem as bridge_ecosystem
from worldseed.operators.bridge import scatter as bridge_scatter
from worldseed.operators.bridge import sections
from worldseed.operators.bridge import terrain as bridge_terrain
from worldseed.operators.bridge import terrain_layers as bridge_layers

from ._network_cases import networks_sidebar

NAME = "Vale"


def _points(obj):
    """World positions (N, 3) of a point object's points."""
    co = np.empty(len(obj.data.vertices) * 3, np.float32)
    obj.data.vertices.foreach_get("co", co)
    co = co.reshape(-1, 3).astype(np.float64)
    m = np.array(obj.matrix_world)
    return co @ m[:3, :3].T + m[:3, 3]


def _lod0(terrain):
    if terrain.type == "MESH":  # one LOD: the root is the mesh
        return terrain
    return next(c for c in terrain.children if c.type == "MESH" and c.name.endswith("_LOD0"))


def _ground(terrain, xy):
    """The height of the terrain's LOD0 under each ``xy`` (world), by Blender's ray cast."""
    lod0 = _lod0(terrain)
    inverse = lod0.matrix_world.inverted()
    out = np.full(len(xy), np.nan)
    for k, (x, y) in enumerate(xy):
        origin = inverse @ Vector((x, y, 1.0e4))
        hit, location, _normal, _index = lod0.ray_cast(origin, inverse.to_3x3() @ Vector((0.0, 0.0, -1.0)))
        if hit:
            out[k] = (lod0.matrix_world @ location).z
    return out


def _cleared(terrain, xy, *, nearest=False):
    """Whether each ``xy`` (terrain-local) touches a vertex of the terrain's clearing (river beds, roads
    and their margins); ``nearest``: whether the vertex nearest to it is cleared (the ecosystem's test:
    a plant germinates on the cell its trunk stands in)."""
    layers = bridge_layers.layers_for(bridge_terrain.stored_recipe(terrain))
    clearing = layers.clearing
    cell, half = layers.heights.cell_size, (clearing.shape[0] - 1) * layers.heights.cell_size / 2
    c, r = (xy[:, 0] + half) / cell, (xy[:, 1] + half) / cell
    if nearest:
        return clearing[np.rint(r).astype(int), np.rint(c).astype(int)]
    c0, r0 = np.floor(c).astype(int), np.floor(r).astype(int)
    c1, r1 = np.minimum(c0 + 1, clearing.shape[1] - 1), np.minimum(r0 + 1, clearing.shape[0] - 1)
    return clearing[r0, c0] | clearing[r0, c1] | clearing[r1, c0] | clearing[r1, c1]


def _state():
    """Every object's name, parent, world place and (meshes) vertex positions: the scene as it is."""
    state = {}
    for obj in bpy.data.objects:
        co = None
        if obj.type == "MESH":
            co = np.empty(len(obj.data.vertices) * 3, np.float32)
            obj.data.vertices.foreach_get("co", co)
            co = co.tobytes()
        state[obj.name] = (obj.parent.name if obj.parent else None, tuple(obj.matrix_world.translation), co)
    return state


def _world():
    """The Networks test world (rivers and roads) with a scatter of rocks and a grown forest on it."""
    ws = networks_sidebar()
    ws.terrain.lods = 2
    assert bpy.ops.worldseed.networks_build() == {"FINISHED"}
    terrain = bpy.data.objects[NAME]
    bpy.ops.worldseed.scatter_layer_add(builtin="rock")
    layer = ws.scatter.layers[0]
    layer.radius, layer.above_sea, layer.slope_range = 6.0, False, (0.0, 90.0)
    bpy.context.view_layer.objects.active = terrain
    assert bpy.ops.worldseed.scatter_add() == {"FINISHED"}
    bpy.context.view_layer.objects.active = terrain
    assert bpy.ops.worldseed.ecosystem_preset() == {"FINISHED"}
    ws.ecosystem.years, ws.ecosystem.steps = 8, 10
    assert bpy.ops.worldseed.ecosystem_add() == {"FINISHED"}
    bpy.context.view_layer.objects.active = terrain
    return ws, terrain


def _check_followed(before):
    """The scatter and the forest still there, on the new ground, off the roads and rivers; returns
    how many of their points moved from ``before`` (``{name: points}``)."""
    terrain = bpy.data.objects[NAME]
    scatter, forest = bpy.data.objects.get(f"{NAME}_Scatter"), bpy.data.objects.get(f"{NAME}_Ecosystem")
    assert scatter is not None and forest is not None, sorted(o.name for o in bpy.data.objects)
    assert scatter.parent == terrain and forest.parent == terrain
    assert bridge_ecosystem.forest_of(terrain) == forest
    assert not [o.name for o in bpy.data.objects if o.name.startswith(NAME) and "." in o.name]  # no .001
    moved = 0
    local = np.array(terrain.matrix_world.inverted())
    for obj in (scatter, forest):
        world = _points(obj)
        assert len(world) > 50, obj.name
        ground = _ground(terrain, world[:, :2])
        assert not np.isnan(ground).any()
        if obj == scatter:  # rocks sink into the ground by the layer's sink at their scale
            scales = np.empty(len(world), np.float32)
            obj.data.attributes["ws_scale"].data.foreach_get("value", scales)
            ground -= bridge_scatter.stored_layers(obj)[0].sink * scales
        np.testing.assert_allclose(world[:, 2], ground, atol=0.02, err_msg=obj.name)  # on the new ground
        xy = (world @ local[:3, :3].T + local[:3, 3])[:, :2]
        assert not _cleared(terrain, xy, nearest=obj == forest).any(), obj.name  # none on a road or in a river
        old = before[obj.name]
        moved += len(old) != len(world) or not np.allclose(old, world, atol=0.05)
    return moved


def _before():
    return {n: _points(bpy.data.objects[n]) for n in (f"{NAME}_Scatter", f"{NAME}_Ecosystem")}


@pytest.mark.parametrize("how", ["terrain_update", "networks_build", "auto_update", "lods_3", "lods_1"])
def test_a_rebuild_of_the_ground_carries_the_scatter_and_the_forest(empty_scene, how):
    ws, terrain = _world()
    before = _before()
    scatter = bpy.data.objects[f"{NAME}_Scatter"]
    layers, seed = bridge_scatter.stored_layers(scatter), scatter[bridge_scatter.SEED_KEY]
    if how == "networks_build":
        ws.roads.road_class = "trail"  # new roads: the ground carved again
        assert bpy.ops.worldseed.networks_build() == {"FINISHED"}
    else:
        ws.terrain.height *= 1.3  # new ground
        if how.startswith("lods"):  # another layout: the root (and its LODs) made anew
            ws.terrain.lods = int(how[-1])
        if how != "auto_update":
            assert bpy.ops.worldseed.terrain_update() == {"FINISHED"}
        else:
            from worldseed.addon import live

            live.auto_rebuild(sections.adapter("terrain"), terrain, bpy.context.scene)
    assert _check_followed(before) == 2  # both moved with the ground
    scatter, forest = bpy.data.objects[f"{NAME}_Scatter"], bpy.data.objects[f"{NAME}_Ecosystem"]
    assert bridge_scatter.stored_layers(scatter) == layers and scatter[bridge_scatter.SEED_KEY] == seed
    # the forest grown again on the new ground: the simulation kept for it (the year slider, the export)
    assert bridge_ecosystem.kept(bpy.data.objects[NAME], bridge_ecosystem.stored_spec(forest)) is not None


def test_settlements_add_and_update_carry_the_scatter_and_the_forest(empty_scene):
    ws, terrain = _world()
    settings = ws.settlements
    settings.count, settings.spacing, settings.max_slope = 1, 120.0, 25.0
    before = _before()
    assert bpy.ops.worldseed.settlements_add(from_settings=True) == {"FINISHED"}
    assert _check_followed(before) == 2  # the pads changed the ground under both
    bpy.context.view_layer.objects.active = bpy.data.objects[f"{NAME}_Settlements"]
    settings.types = "hamlet"
    before = _before()
    assert bpy.ops.worldseed.settlements_update() == {"FINISHED"}
    _check_followed(before)
    assert all(s["worldseed_site_type"] == "hamlet" for s in bpy.data.objects[f"{NAME}_Settlements"].children)


def test_esc_at_any_stage_and_a_failure_leave_the_scene_as_it_was(empty_scene):
    ws, terrain = _world()
    state = _state()
    ws.terrain.height *= 1.3
    adapter = sections.adapter("terrain")
    labels = [step[2] for step in adapter.rebuild_plan(terrain, bpy.context.scene).steps]  # to its end, once
    assert any(label.startswith("growing") for label in labels) and "scatter" in labels
    ws.terrain.height *= 1.3  # other ground again (the first is built now)
    state = _state()
    for stop in ("growing", "scatter", "followers"):
        plan = adapter.rebuild_plan(terrain, bpy.context.scene)
        assert plan.modal  # a forest grows again: progress and Esc
        done = []
        for at, _total, label in plan.steps:
            done.append(at)
            if label.startswith(stop):
                break
        plan.steps.close()  # what Esc does
        assert done == sorted(done)  # progress only rises
        assert _state() == state, stop
    # a failure while the followers are worked out: a stored scatter layer this terrain refuses
    scatter = bpy.data.objects[f"{NAME}_Scatter"]
    good = list(scatter[bridge_scatter.LAYERS_KEY])
    bad = [text.replace("radius = 6.0", "radius = 0.05") for text in good]
    assert bad != good
    scatter[bridge_scatter.LAYERS_KEY] = bad
    with pytest.raises(RuntimeError, match="scatter layer 'Rocks': radius 0.05 m would place"):
        bpy.ops.worldseed.terrain_update()
    scatter[bridge_scatter.LAYERS_KEY] = good
    assert _state() == state
