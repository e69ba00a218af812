"""The Networks panel in real Blender: Build Networks makes the carved terrain with its rivers, roads and
road curves; Update rebuilds in place; Esc leaves the scene as it was; Export for Unity writes the
rivers' and roads' files and the FBX objects (read back with json and ufbx); the scatter keeps off
the roads and the water."""

import json

import bpy
import numpy as np
import pytest

from worldseed.core import recipe as core_recipe
from worldseed.core import terrain as core_terrain
from worldseed.operators.bridge import networks as bridge_networks
from worldseed.operators.bridge import sections
from worldseed.operators.bridge import terrain as bridge_terrain
from worldseed.operators.bridge import terrain_layers as bridge_layers
from worldseed.operators.common import ModalBuild

from ._modal_cases import drive_modal
from ._network_cases import POINTS, networks_sidebar, read_fbx


def _build():
    networks_sidebar()
    assert bpy.ops.worldseed.networks_build() == {"FINISHED"}
    return bpy.context.active_object


def test_build_networks_makes_the_carved_terrain_with_rivers_roads_and_curves(empty_scene):
    root = _build()
    assert root.name == "Vale"
    kids = {o.name: o for o in bridge_networks.network_objects(root)}
    assert set(kids) == {"Vale_Rivers", "Vale_Roads", "Vale_RoadCurves"}
    roads, rivers, curves = kids["Vale_Roads"], kids["Vale_Rivers"], kids["Vale_RoadCurves"]
    assert [m.name for m in roads.data.materials] == ["Road highway", "Road road", "Road trail", "Bridge Deck"]
    assert [m.name for m in rivers.data.materials] == ["River Water", "Lake Water"]
    for obj in (roads, rivers):
        assert obj.data.validate() is False and len(obj.data.uv_layers) == 1
        assert tuple(obj.matrix_world.translation) == tuple(root.matrix_world.translation)
    used = {p.material_index for p in roads.data.polygons}
    assert 1 in used  # the road class's own material
    # the terrain mesh carries the carved heights of the layers (roads cut and filled, beds carved)
    recipe = bridge_terrain.stored_recipe(root)
    assert recipe.rivers.enabled and recipe.roads.enabled and recipe.roads.points == tuple(map(tuple, POINTS))
    layers = bridge_layers.layers_for(recipe)
    z = np.empty(len(root.data.vertices) * 3, np.float32)
    root.data.vertices.foreach_get("co", z)
    np.testing.assert_allclose(z[2::3], layers.heights.metres.ravel(), atol=1e-4)
    plain = core_terrain.terrain_heights(recipe.terrain, seed=recipe.world.seed)
    assert np.abs(plain.metres - layers.heights.metres).max() > 0.5
    # a curve spline per road edge, its points on the road surface
    network = layers.roads.network
    assert len(curves.data.splines) == len(network.edges)
    first = curves.data.splines[0].points
    assert len(first) == network.edges[0].rows.size
    assert first[0].co[2] == pytest.approx(float(network.edges[0].z[0]), abs=1e-3)


def test_update_rebuilds_in_place_and_turning_a_network_off_removes_its_objects(empty_scene):
    root = _build()
    ws = bpy.context.scene.worldseed
    ws.roads.road_class = "trail"
    assert bpy.ops.worldseed.networks_update() == {"FINISHED"}
    root = bpy.context.active_object
    assert root.name == "Vale" and len([o for o in bpy.data.objects if o.name.startswith("Vale")]) == 4
    assert bridge_terrain.stored_recipe(root).roads.road_class == "trail"
    ws.roads.enabled = False
    assert bpy.ops.worldseed.networks_update() == {"FINISHED"}
    root = bpy.context.active_object
    assert [o.name for o in bridge_networks.network_objects(root)] == ["Vale_Rivers"]
    assert "Vale_RoadCurves" not in bpy.data.curves


def test_load_from_active_brings_the_networks_back_into_the_panel(empty_scene):
    _build()
    ws = bpy.context.scene.worldseed
    ws.rivers.threshold, ws.roads.points_text, ws.roads.road_class = 9000.0, "", "highway"
    assert bpy.ops.worldseed.networks_load_settings() == {"FINISHED"}
    assert ws.rivers.threshold == 4000.0 and ws.roads.road_class == "road"
    assert sections.adapter("roads").points(ws.roads) == POINTS


RESULT = {}


class WORLDSEED_OT_test_networks_modal(ModalBuild, bpy.types.Operator):
    bl_idname = "worldseed.test_networks_modal"
    bl_label = "Test Networks Modal"
    cancel_after: bpy.props.IntProperty(default=-1)

    def finished(self, context, root):
        RESULT["root"] = root.name

    def execute(self, context):
        root = sections.adapter("terrain").root(context.active_object)
        plan = sections.adapter("terrain").rebuild_plan(root, context.scene)
        RESULT["modal"] = plan.modal
        return drive_modal(self, context, plan.steps, "networks", RESULT)


def test_escape_during_an_update_leaves_the_terrain_and_its_networks_as_they_were(empty_scene):
    root = _build()
    before = {o.name: (o.data.name, len(getattr(o.data, "vertices", ()))) for o in bpy.data.objects}
    bpy.context.scene.worldseed.roads.road_class = "trail"  # new layers to work out
    bpy.utils.register_class(WORLDSEED_OT_test_networks_modal)
    try:
        RESULT.clear()
        bpy.ops.worldseed.test_networks_modal(cancel_after=3)
        assert RESULT["modal"] and RESULT["state"] == {"CANCELLED"} and "root" not in RESULT
        after = {o.name: (o.data.name, len(getattr(o.data, "vertices", ()))) for o in bpy.data.objects}
        assert after == before
        assert bridge_terrain.stored_recipe(root).roads.road_class == "road"
        RESULT.clear()
        bpy.ops.worldseed.test_networks_modal()  # and to its end: the new roads are there
        assert RESULT["state"] == {"FINISHED"} and RESULT["root"] == "Vale"
    finally:
        bpy.utils.unregister_class(WORLDSEED_OT_test_networks_modal)
    assert bridge_terrain.stored_recipe(bpy.data.objects["Vale"]).roads.road_class == "trail"


def test_export_for_unity_writes_the_networks_files_and_objects(empty_scene, tmp_path):
    _build()
    path = tmp_path / "vale.fbx"
    assert bpy.ops.worldseed.export_unity(filepath=str(path), formats="FBX", heightmap_raw=True) == {"FINISHED"}
    rivers = json.loads((tmp_path / "vale_rivers.json").read_text())
    roads = json.loads((tmp_path / "vale_roads.json").read_text())
    assert (rivers["format"], rivers["version"], roads["format"], roads["version"]) == (
        "worldseed.rivers",
        1,
        "worldseed.roads",
        1,
    )
    assert rivers["segments"] and {"points", "order", "area_m2", "width", "depth", "downstream"} <= set(
        rivers["segments"][0]
    )
    assert [n["kind"] for n in roads["nodes"]].count("point") == len(POINTS)
    assert set(roads["classes"]) == {"highway", "road", "trail"}
    nodes = read_fbx(path)
    assert nodes["Vale_Rivers"]["parent"] == "Vale" and nodes["Vale_Roads"]["parent"] == "Vale"
    assert "Vale_RoadCurves" not in nodes  # curves stay in the .blend: the graph goes as JSON
    fbx_roads = nodes["Vale_Roads"]
    assert fbx_roads["uv_sets"] == 1 and "Road road" in fbx_roads["materials"]
    # every point of the JSON's road centre lines lies on the FBX's road ribbon (Unity frame, metres)
    verts = fbx_roads["vertices"]
    half = roads["classes"]["road"]["width"] / 2 + 0.1
    for edge in roads["edges"]:
        pts = np.array(edge["points"])[::7]
        d = np.hypot(pts[:, None, 0] - verts[None, :, 0], pts[:, None, 2] - verts[None, :, 2])
        nearest = d.argmin(1)
        assert d.min(1).max() <= half
        assert np.abs(verts[nearest, 1] - pts[:, 1]).max() < 1.0
    # the river water's FBX mesh sits where the JSON's rivers run
    water = nodes["Vale_Rivers"]["vertices"]
    seg = np.array(max(rivers["segments"], key=lambda s: s["width"])["points"])
    d = np.hypot(seg[:, None, 0] - water[None, :, 0], seg[:, None, 2] - water[None, :, 2]).min(1)
    assert d.max() <= max(s["width"] for s in rivers["segments"]) / 2 + 0.5


def test_the_networks_files_follow_a_moved_terrain(empty_scene, tmp_path):
    """The rivers' and roads' files are in Unity's frame where the terrain stands, x, y and z (as the
    placements, the heightmap and the settlements' file): a moved terrain moves every point and height."""
    root = _build()
    assert bpy.ops.worldseed.export_unity(filepath=str(tmp_path / "home.fbx"), formats="FBX") == {"FINISHED"}
    root.location = (120.0, -45.5, 7.25)
    bpy.context.view_layer.update()
    assert bpy.ops.worldseed.export_unity(filepath=str(tmp_path / "away.fbx"), formats="FBX") == {"FINISHED"}
    shift = np.array([-120.0, 7.25, 45.5])  # Unity's frame of the move
    for kind in ("rivers", "roads"):
        home = json.loads((tmp_path / f"home_{kind}.json").read_text())
        away = json.loads((tmp_path / f"away_{kind}.json").read_text())
        key = "segments" if kind == "rivers" else "edges"
        assert len(away[key]) == len(home[key]) >= 1
        for a, h in zip(away[key], home[key]):
            np.testing.assert_allclose(a["points"], np.array(h["points"]) + shift, atol=2e-3)
    lakes = [json.loads((tmp_path / f"{where}_rivers.json").read_text())["lakes"] for where in ("home", "away")]
    for h, a in zip(*lakes):
        assert a["water_height"] == pytest.approx(h["water_height"] + 7.25, abs=2e-3)
    roads = json.loads((tmp_path / "away_roads.json").read_text())
    curves = bpy.data.objects["Vale_RoadCurves"]
    first = curves.data.splines[0].points[0].co
    x, y, z = curves.matrix_world @ first.to_3d()
    np.testing.assert_allclose(roads["edges"][0]["points"][0], (-x, z, -y), atol=2e-3)  # where the curve is


def test_the_scatter_keeps_off_the_roads_and_the_water(empty_scene):
    root = _build()
    bpy.ops.worldseed.scatter_layer_add(builtin="rock")
    layer = bpy.context.scene.worldseed.scatter.layers[0]
    layer.radius, layer.above_sea, layer.slope_range = 3.0, False, (0.0, 90.0)
    bpy.context.view_layer.objects.active = root
    assert bpy.ops.worldseed.scatter_add() == {"FINISHED"}
    scatter = bpy.context.active_object
    co = np.empty(len(scatter.data.vertices) * 3, np.float32)
    scatter.data.vertices.foreach_get("co", co)
    xy = co.reshape(-1, 3)[:, :2].astype(np.float64)
    layers = bridge_layers.layers_for(bridge_terrain.stored_recipe(root))
    clearing = layers.clearing
    cell, half = layers.heights.cell_size, (clearing.shape[0] - 1) * layers.heights.cell_size / 2
    c, r = (xy[:, 0] + half) / cell, (xy[:, 1] + half) / cell
    c0, r0 = np.floor(c).astype(int), np.floor(r).astype(int)
    c1, r1 = np.minimum(c0 + 1, clearing.shape[1] - 1), np.minimum(r0 + 1, clearing.shape[0] - 1)
    on = clearing[r0, c0] | clearing[r0, c1] | clearing[r1, c0] | clearing[r1, c1]
    assert len(xy) > 200 and not on.any()
    assert clearing.mean() > 0.02  # there was ground to keep off


def test_a_bad_road_point_is_a_report_and_the_scene_stays_as_it_was(empty_scene):
    ws = networks_sidebar()
    ws.roads.points_text = "-200, -180; 900, 0"
    with pytest.raises(RuntimeError, match=r"roads\.points\[1\] \(900, 0\) lies outside the terrain"):
        bpy.ops.worldseed.networks_build()
    assert len(bpy.data.objects) == 0
    ws.roads.points_text = "-200, -180; nine, 0"
    with pytest.raises(RuntimeError, match=r"roads\.points\[1\] must be 'x, y'"):
        bpy.ops.worldseed.networks_build()


def test_the_points_come_from_a_collection_or_picked_objects(empty_scene):
    ws = networks_sidebar()
    for x, y in POINTS:
        bpy.context.scene.cursor.location = (x, y, 0.0)
        assert bpy.ops.worldseed.road_point_add() == {"FINISHED"}
    assert ws.roads.points_source == "COLLECTION" and len(ws.roads.points_collection.objects) == 3
    roads = sections.adapter("roads")
    assert roads.points(ws.roads) == POINTS
    for obj in ws.roads.points_collection.objects:
        obj.select_set(True)
    assert bpy.ops.worldseed.road_points_pick() == {"FINISHED"}
    assert ws.roads.points_source == "OBJECTS" and roads.points(ws.roads) == POINTS
    recipe = sections.recipe_from_sidebar(bpy.context.scene)
    assert recipe.roads.points == tuple(map(tuple, POINTS))
    assert core_recipe.loads(core_recipe.dumps(recipe)) == recipe


def test_auto_update_of_the_terrain_follows_a_change_on_the_networks_panel(empty_scene):
    root = _build()
    ws = bpy.context.scene.worldseed
    ws.terrain.auto_update = True
    ws.roads.road_class = "trail"  # background: the rebuild runs at once
    root = bpy.data.objects["Vale"]
    assert bridge_terrain.stored_recipe(root).roads.road_class == "trail"
    ws.rivers.enabled = False
    left = {o.name for o in bridge_networks.network_objects(bpy.data.objects["Vale"])}
    assert left == {"Vale_RoadCurves", "Vale_Roads"}
