"""Tiled worlds: rivers and roads are planned once over the whole world, then each tile carves its
part from that plan; tiles agree with the world carved whole, so a river or road crossing a seam
has the same heights, maps and file points on both sides."""

import json

import numpy as np
import pytest

from worldseed.core import recipe, rivers, roads, terrain
from worldseed.core._polyline import grid_origin

TILE = 65  # samples a side; neighbours share their border samples
TILES = 2


@pytest.fixture(scope="module")
def world():
    r = recipe.loads(
        "[terrain]\nresolution = 129\nsize = 256.0\nheight = 30.0\nscale = 160.0\noctaves = 5\npersistence = 0.5\n"
    )
    h = terrain.terrain_heights(r.terrain, seed=11).metres.astype(np.float64)
    cell = r.terrain.cell_size
    river_net = rivers.plan_rivers(h, cell_size=cell, threshold=300.0, lake_min_area=50.0)
    whole = rivers.carve_rivers(h, river_net)
    ground = whole.heights
    pts = [(10, 10), (118, 20), (115, 118), (20, 110)]  # one in each tile
    road_net = roads.plan_roads(
        h,
        pts,
        cell_size=cell,
        classes=roads.DEFAULT_CLASSES,
        road_class="trail",
        water=whole.water & ~whole.lake,
        water_width=whole.width,
        blocked=whole.lake,
        ground=ground,
    )
    road_whole = roads.carve_roads(ground, road_net)
    return h, cell, river_net, whole, road_net, road_whole


def _tiles():
    step = TILE - 1
    for i in range(TILES):
        for j in range(TILES):
            yield (i, j), (i * step, j * step)


def test_there_is_something_across_the_seams(world):
    _h, _cell, river_net, whole, road_net, road_whole = world
    seam = TILE - 1
    assert whole.water[:, seam].any() or whole.water[seam, :].any()
    assert (road_whole.road[:, seam] > 0).any() and (road_whole.road[seam, :] > 0).any()
    assert river_net.segment_count > 5 and len(road_net.edges) >= 3


def test_every_tile_carved_from_the_plan_equals_the_world_carved_whole(world):
    h, _cell, river_net, whole, road_net, road_whole = world
    for _tile, (r0, c0) in _tiles():
        win = (slice(r0, r0 + TILE), slice(c0, c0 + TILE))
        part = rivers.carve_rivers(h[win], river_net, offset=(r0, c0))
        for name in ("heights", "river", "width", "bank", "lake", "water", "water_distance", "exclusion"):
            assert np.array_equal(getattr(part, name), getattr(whole, name)[win]), name
        road_part = roads.carve_roads(part.heights, road_net, offset=(r0, c0))
        for name in ("heights", "road", "clearing", "distance"):
            assert np.array_equal(getattr(road_part, name), getattr(road_whole, name)[win]), name


def test_neighbouring_tiles_hold_the_same_heights_along_their_seam(world):
    h, _cell, river_net, _whole, road_net, _road_whole = world
    parts = {}
    for tile, (r0, c0) in _tiles():
        win = (slice(r0, r0 + TILE), slice(c0, c0 + TILE))
        riv = rivers.carve_rivers(h[win], river_net, offset=(r0, c0))
        parts[tile] = roads.carve_roads(riv.heights, road_net, offset=(r0, c0)).heights
    assert np.array_equal(parts[0, 0][:, -1], parts[0, 1][:, 0])
    assert np.array_equal(parts[0, 0][-1, :], parts[1, 0][0, :])
    assert np.array_equal(parts[1, 1][:, 0], parts[1, 0][:, -1])


def _seam_points(doc, key, index, value):
    pts = [tuple(p) for item in doc[key] for p in item["points"] if p[index] == value]
    return sorted(pts)


def test_a_river_or_road_crossing_a_seam_has_the_same_points_on_both_sides(world):
    h, cell, river_net, _whole, road_net, _road_whole = world
    origin = grid_origin(h.shape, cell)
    docs = {}
    for tile, (r0, c0) in _tiles():
        box = (r0, c0, r0 + TILE - 1, c0 + TILE - 1)
        docs[tile] = (
            json.loads(rivers.rivers_json_bytes(river_net, name="W", origin=origin, box=box)),
            json.loads(roads.roads_json_bytes(road_net, name="W", origin=origin, box=box)),
        )
    # the seam between columns of tiles: Blender x of column TILE - 1, Unity x = -that
    seam_x = -round(origin[0] + (TILE - 1) * cell, 4)
    seam_z = -round(origin[1] + (TILE - 1) * cell, 4)
    crossings = 0
    for k, key in ((0, "segments"), (1, "edges")):
        for a, b, index, value in (
            ((0, 0), (0, 1), 0, seam_x),
            ((1, 0), (1, 1), 0, seam_x),
            ((0, 0), (1, 0), 2, seam_z),
            ((0, 1), (1, 1), 2, seam_z),
        ):
            left = _seam_points(docs[a][k], key, index, value)
            right = _seam_points(docs[b][k], key, index, value)
            assert left == right, (key, a, b)
            crossings += len(left)
    assert crossings >= 4
    # and the pieces inside every tile stay inside it
    for tile, (_r0, c0) in _tiles():
        for key, doc in (("segments", docs[tile][0]), ("edges", docs[tile][1])):
            for item in doc[key]:
                p = np.array(item["points"])
                x = -p[:, 0]
                assert (x >= origin[0] + c0 * cell - 1e-9).all() and (
                    x <= origin[0] + (c0 + TILE - 1) * cell + 1e-9
                ).all()


def _boxes():
    for tile, (r0, c0) in _tiles():
        yield tile, (r0, c0, r0 + TILE - 1, c0 + TILE - 1)


def test_the_road_centre_lines_of_neighbouring_tiles_meet_at_the_same_point_on_the_seam(world):
    """A tile's road curves (``road_lines`` with its box) end where the road crosses its side; the
    neighbour's piece starts at the very same point (bit for bit), height included; all pieces
    together are the whole lines' length."""
    h, cell, _river_net, _whole, road_net, _road_whole = world
    origin = grid_origin(h.shape, cell)
    lines = {tile: roads.road_lines(road_net, origin=origin, box=box) for tile, box in _boxes()}
    seam_x = origin[0] + (TILE - 1) * cell
    seam_y = origin[1] + (TILE - 1) * cell
    met = 0
    for a, b, axis, value in (
        ((0, 0), (0, 1), 0, seam_x),
        ((1, 0), (1, 1), 0, seam_x),
        ((0, 0), (1, 0), 1, seam_y),
        ((0, 1), (1, 1), 1, seam_y),
    ):
        ends = [sorted(tuple(p) for line in lines[t] for p in (line[0], line[-1]) if p[axis] == value) for t in (a, b)]
        assert ends[0] == ends[1], (a, b)
        met += len(ends[0])
    assert met >= 2
    whole = roads.road_lines(road_net, origin=origin)
    assert len(whole) == len(road_net.edges)

    def length(ls):
        return sum(float(np.hypot(*np.diff(p[:, :2], axis=0).T).sum()) for p in ls)

    assert sum(length(ls) for ls in lines.values()) == pytest.approx(length(whole), rel=1e-9)
    # in a tile's frame (``mesh_origin``: its centre) the same points, moved
    centre = (1.5, -2.0, 0.0)
    moved = roads.road_lines(road_net, origin=origin, mesh_origin=centre, box=next(_boxes())[1])
    assert all(np.array_equal(m + centre, p) for m, p in zip(moved, lines[0, 0]))


def test_every_bridge_deck_is_in_exactly_one_tile(world):
    h, cell, _river_net, _whole, road_net, _road_whole = world
    origin = grid_origin(h.shape, cell)
    spans = roads.bridge_spans(road_net)
    assert len(spans) >= 2  # the roads cross rivers
    owned = [s for _tile, box in _boxes() for s in roads.bridge_spans(road_net, box)]
    assert sorted(owned) == sorted(spans)  # each once, none lost
    decks = [roads.bridge_mesh(road_net, origin=origin, box=box) for _tile, box in _boxes()]
    whole = roads.bridge_mesh(road_net, origin=origin)
    assert sum(d.n_triangles for d in decks if d is not None) == whole.n_triangles
    assert len({tile for tile, box in _boxes() if roads.bridge_spans(road_net, box)}) >= 1


def test_a_piece_crossing_a_whole_tile_or_leaving_from_its_side_keeps_its_crossings():
    """Found while cutting the road curves: a segment whose first point lies on one side of the box
    and which leaves through the other lost its exit point (and a segment entering to a point on
    a side its entry), so the piece was dropped."""
    from worldseed.core._polyline import clip_polyline

    (piece,) = clip_polyline(np.array([2.0, 2.0]), np.array([0.0, 8.0]), np.zeros((2, 1)), (0, 0, 4, 4))
    assert piece[1].tolist() == [0.0, 4.0]
    (piece,) = clip_polyline(np.array([2.0, 2.0]), np.array([-4.0, 4.0]), np.arange(2.0)[:, None], (0, 0, 4, 4))
    assert piece[1].tolist() == [0.0, 4.0] and piece[2][:, 0].tolist() == [0.5, 1.0]
    (piece,) = clip_polyline(np.array([2.0, 2.0]), np.array([-4.0, 8.0]), np.zeros((2, 1)), (0, 0, 4, 4))
    assert piece[1].tolist() == [0.0, 4.0]
