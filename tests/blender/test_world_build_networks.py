"""Build Tiles with rivers and roads: every tile gets its part of the world's networks, its road curves
(``<Tile>_RoadCurves``, cut at its sides, meeting the neighbour's on the seam) and the bridge decks it
owns (each bridge of the world's plan in exactly one tile), and its FBX holds them (read by ufbx)."""

import bpy
import numpy as np

from worldseed.core import roads as core_roads
from worldseed.core import world as core_world
from worldseed.operators import world as world_ops

from ._network_cases import read_fbx

#: The 2 x 2 world "Delta" of ``_network_cases.TILED`` (a trail network over rivers: roads cross the
#: seams, bridges over the rivers), set in the sidebar.
POINTS = [[-236.0, -236.0], [-216.0, -20.0], [-56.0, -68.0], [-36.0, -216.0]]
SIZE = 128.0


def _sidebar(folder):
    ws = bpy.context.scene.worldseed
    t = ws.terrain
    t.name, t.seed, t.resolution, t.size, t.height = "Delta", 11, 65, SIZE, 30.0
    t.scale, t.octaves, t.persistence, t.normalize = 160.0, 5, 0.5, "fixed"
    ws.rivers.enabled, ws.rivers.threshold, ws.rivers.lake_min_area = True, 300.0, 50.0
    ws.roads.enabled, ws.roads.road_class = True, "trail"
    ws.roads.points_source = "TEXT"
    ws.roads.points_text = "; ".join(f"{x}, {y}" for x, y in POINTS)
    ws.world.tiles_x, ws.world.tiles_z = 2, 2
    ws.world.folder = str(folder)
    return ws


def _deck_count(obj):
    """Bridge decks in a ``_Roads`` mesh: connected groups of its ``Bridge Deck`` faces."""
    me = obj.data
    names = [m.name for m in me.materials]
    if "Bridge Deck" not in names:
        return 0
    deck = names.index("Bridge Deck")
    parent = {}

    def find(a):
        while parent.setdefault(a, a) != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for poly in me.polygons:
        if poly.material_index == deck:
            first, *rest = poly.vertices
            for v in rest:
                parent[find(v)] = find(first)
    return len({find(v) for v in list(parent)})


def _curve_points(obj):
    """World positions of the points of every spline of a curve object: list of (m, 3) arrays."""
    m = np.array(obj.matrix_world)
    out = []
    for spline in obj.data.splines:
        co = np.empty(4 * len(spline.points), np.float32)
        spline.points.foreach_get("co", co)
        p = co.reshape(-1, 4)[:, :3].astype(np.float64)
        out.append(p @ m[:3, :3].T + m[:3, 3])
    return out


def test_build_tiles_gives_each_tile_its_road_curves_and_bridge_decks_and_its_fbx_holds_them(addon, tmp_path):
    _sidebar(tmp_path)
    assert bpy.ops.worldseed.world_build() == {"FINISHED"}
    recipe = world_ops.world_recipe(bpy.context.scene)
    grid = core_world.world_grid(recipe)
    plan = core_world.world_networks(recipe, grid, core_world.recipe_digest(recipe))
    roots = {(x, z): bpy.data.objects[grid.object_name(x, z)] for x, z in grid.tiles()}
    bpy.context.view_layer.update()

    # every bridge of the world's plan is a deck in exactly one tile
    bridges = len(core_roads.bridge_spans(plan.roads))
    assert bridges >= 2
    decks = {}
    for tile, root in roots.items():
        roads = bpy.data.objects.get(root.name + "_Roads")
        decks[tile] = _deck_count(roads) if roads is not None else 0
        assert decks[tile] == len(core_roads.bridge_spans(plan.roads, plan.box(grid, *tile)))
    assert sum(decks.values()) == bridges
    assert sum(1 for n in decks.values() if n) >= 2  # spread over the tiles, not all in one

    # the road curves: in each tile, inside it (its Blender square), meeting the neighbour's on the seams
    lines = {}
    for tile, root in roots.items():
        curves = bpy.data.objects[root.name + "_RoadCurves"]
        assert curves.parent == root and curves.type == "CURVE"
        lines[tile] = _curve_points(curves)
        x, z = tile
        pts = np.concatenate(lines[tile])
        assert pts[:, 0].min() >= -(x + 1) * SIZE - 1e-3 and pts[:, 0].max() <= -x * SIZE + 1e-3
        assert pts[:, 1].min() >= -(z + 1) * SIZE - 1e-3 and pts[:, 1].max() <= -z * SIZE + 1e-3
    met = 0
    for a, b, axis in (((0, 0), (1, 0), 0), ((0, 1), (1, 1), 0), ((0, 0), (0, 1), 1), ((1, 0), (1, 1), 1)):
        seam = -SIZE  # tile x = 1 lies at Blender -X of tile x = 0; z = 1 at -Y
        ends = []
        for t in (a, b):
            e = np.array([p for line in lines[t] for p in (line[0], line[-1]) if abs(p[axis] - seam) < 1e-3])
            ends.append(e[np.lexsort(e.T[::-1])] if len(e) else e.reshape(0, 3))
        assert ends[0].shape == ends[1].shape, (a, b)
        np.testing.assert_allclose(ends[0], ends[1], atol=1e-3)  # x, y and the road's height
        met += len(ends[0])
    assert met >= 2  # roads do cross the seams
    # the same points as the plan's lines cut by core (float32 in the curve)
    for tile in roots:
        want = core_roads.road_lines(plan.roads, origin=plan.origin, box=plan.box(grid, *tile))
        assert len(want) == len(lines[tile])
        for mine, theirs in zip(lines[tile], want):
            np.testing.assert_allclose(mine, theirs, atol=1e-3)

    # Export World for Unity: each tile's FBX holds its roads with the decks it owns (curves stay in the .blend)
    assert bpy.ops.worldseed.world_export() == {"FINISHED"}
    name = world_ops.file_name(bpy.context.scene.worldseed.world)
    for (x, z), root in roots.items():
        nodes = read_fbx(tmp_path / f"{name}_{x}_{z}.fbx")
        node = nodes[root.name + "_Roads"]
        assert node["parent"] == root.name
        assert "Bridge Deck" in node["materials"]
        box = plan.box(grid, x, z)
        ribbons = core_roads.road_mesh(plan.roads, origin=plan.origin, box=box)
        deck = core_roads.bridge_mesh(plan.roads, origin=plan.origin, box=box)
        assert (deck is not None) == (decks[x, z] > 0)
        want = ribbons.n_vertices + (deck.n_vertices if deck is not None else 0)
        assert len(node["vertices"]) == len(bpy.data.objects[root.name + "_Roads"].data.vertices) == want
        assert root.name + "_RoadCurves" not in nodes

    # removing the tiles leaves no curve data behind
    from worldseed.operators.bridge import world_tiles

    world_tiles.remove_tiles(list(roots.values()))
    assert not [c for c in bpy.data.curves if c.name.endswith("_RoadCurves")]
