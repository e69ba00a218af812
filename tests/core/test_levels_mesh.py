"""core.levels level_mesh / level_quads: the 3-D geometry of a level (pure numpy)."""

import numpy as np
import pytest

from core.errors import ParameterError
from core.levels import Level
from core.levels._mesh import MAX_MESH_CELLS, level_mesh, level_quads
from core.mesh import polygon_topology

CS, WH = 2.0, 3.0


def random_level(rows, cols, seed, fill=0.5):
    rng = np.random.default_rng(seed)
    grid = (rng.random((rows, cols)) < fill).astype(np.uint8)  # 1 floor, 0 wall
    grid[rng.random((rows, cols)) < 0.1] = 2  # some corridor, still walkable
    return Level(grid=grid)


def triangle_normals(vertices, tris):
    v = vertices.astype(np.float64)
    n = np.cross(v[tris[:, 1]] - v[tris[:, 0]], v[tris[:, 2]] - v[tris[:, 0]])
    area = np.linalg.norm(n, axis=1) / 2
    return n / np.linalg.norm(n, axis=1)[:, None], area


def boundary_edges_reference(walk):
    """Plain per-cell count of edges between a walkable cell and a wall (outside counts as wall)."""
    rows, cols = walk.shape
    count = 0
    for r in range(rows):
        for c in range(cols):
            if not walk[r, c]:
                continue
            for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                rr, cc = r + dr, c + dc
                if not (0 <= rr < rows and 0 <= cc < cols) or not walk[rr, cc]:
                    count += 1
    return count


def test_one_floor_cell_walled_in():
    g = np.zeros((3, 3), np.uint8)
    g[1, 1] = 1
    q = level_quads(Level(grid=g), cell_size=CS, wall_height=WH)
    assert q.n_quads == 1 + 8 + 4
    assert np.bincount(q.materials, minlength=3).tolist() == [1, 12, 0]
    floor = q.vertices[q.quads[q.materials == 0][0]]
    # cell (1, 1) of a 3-row map: X in [2, 4], Y in [(3-1-1)*2, (3-1)*2] = [2, 4], at z0
    assert sorted(map(tuple, floor.tolist())) == [(2, 2, 0), (2, 4, 0), (4, 2, 0), (4, 4, 0)]


def test_frame_row_zero_is_north_and_origin_shifts():
    g = np.zeros((4, 3), np.uint8)
    g[0, 2] = 1  # north-east cell
    origin = (10.0, -5.0, 1.5)
    q = level_quads(Level(grid=g), cell_size=CS, wall_height=WH, origin=origin)
    floor = q.vertices[q.quads[q.materials == 0][0]].astype(np.float64)
    assert floor[:, 0].min() == 10 + 2 * CS and floor[:, 0].max() == 10 + 3 * CS
    assert floor[:, 1].min() == -5 + 3 * CS and floor[:, 1].max() == -5 + 4 * CS
    assert np.all(floor[:, 2] == 1.5)
    moved = level_quads(Level(grid=g), cell_size=CS, wall_height=WH)
    assert np.allclose(q.vertices - moved.vertices, origin)
    assert q.uvs.tobytes() == moved.uvs.tobytes()  # UVs measured from the level's corner


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_no_side_face_between_two_wall_cells(seed):
    lv = random_level(23, 31, seed)
    walk = lv.walkable
    rows, cols = walk.shape
    q = level_quads(lv, cell_size=CS, wall_height=WH)
    sides = q.quads[(q.materials == 1) & (q.normals[q.quads[:, 0], 2] == 0)]
    mid = q.vertices[sides].astype(np.float64).mean(axis=1)
    n = q.normals[sides[:, 0]].astype(np.float64)

    def cell_walkable(p):
        col = np.floor(p[:, 0] / CS).astype(int)
        row = rows - 1 - np.floor(p[:, 1] / CS).astype(int)
        inside = (col >= 0) & (col < cols) & (row >= 0) & (row < rows)
        out = np.zeros(len(p), bool)
        out[inside] = walk[row[inside], col[inside]]
        return out

    assert cell_walkable(mid + n * CS / 2).all()  # the face looks into a walkable cell ...
    assert not cell_walkable(mid - n * CS / 2).any()  # ... from a wall (or outside)
    assert len(sides) == boundary_edges_reference(walk)


@pytest.mark.parametrize("ceiling", [False, True])
def test_areas_normals_and_winding(ceiling):
    lv = random_level(40, 27, 5)
    walk = lv.walkable
    m = level_mesh(lv, cell_size=CS, wall_height=WH, ceiling=ceiling)
    tri_n, area = triangle_normals(m.vertices, m.indices)
    for k in range(3):  # every corner's stored normal is its triangle's geometric normal (CCW from the front)
        assert np.allclose(m.normals[m.indices[:, k]], tri_n, atol=1e-6)
    floor = m.materials == 0
    assert area[floor].sum() == pytest.approx(walk.sum() * CS * CS)
    assert np.all(tri_n[floor, 2] > 0.999) and np.all(m.vertices[m.indices[floor], 2] == 0)
    wall = m.materials == 1
    sides = wall & (np.abs(tri_n[:, 2]) < 1e-6)
    tops = wall & (tri_n[:, 2] > 0.999)
    assert sides.sum() + tops.sum() == wall.sum()
    assert area[sides].sum() == pytest.approx(boundary_edges_reference(walk) * CS * WH)
    assert area[tops].sum() == pytest.approx((~walk).sum() * CS * CS)
    assert np.all(m.vertices[m.indices[tops], 2] == WH)
    ceil = m.materials == 2
    if ceiling:
        assert area[ceil].sum() == pytest.approx(walk.sum() * CS * CS)
        assert np.all(tri_n[ceil, 2] < -0.999) and np.all(m.vertices[m.indices[ceil], 2] == WH)
    else:
        assert not ceil.any()


def test_no_duplicate_vertices_within_a_surface():
    lv = random_level(30, 30, 7)
    m = level_mesh(lv, cell_size=CS, wall_height=WH, ceiling=True)
    key = np.concatenate([m.vertices, m.normals], axis=1)
    assert len(np.unique(key, axis=0)) == m.n_vertices  # no position repeats with the same normal
    used = np.zeros(m.n_vertices, bool)
    used[m.indices.ravel()] = True
    assert used.all()  # and no stray vertices
    # the floor has exactly one vertex per grid corner touched by a walkable cell
    walk = lv.walkable
    corners = np.zeros((31, 31), bool)
    for dr in (0, 1):
        for dc in (0, 1):
            corners[dr : dr + 30, dc : dc + 30] |= walk
    floor_vertices = np.unique(m.indices[m.materials == 0])
    assert len(floor_vertices) == corners.sum()


def test_straight_wall_run_shares_vertices():
    g = np.zeros((3, 6), np.uint8)
    g[1, :] = 1  # a corridor along the whole width: open at both map ends
    q = level_quads(Level(grid=g), cell_size=1.0, wall_height=2.0)
    side = q.normals[q.quads[:, 0], 1] != 0
    # two runs (north and south) of 6 faces each: 7 bottom + 7 top vertices each
    assert side.sum() == 12
    assert len(np.unique(q.quads[side])) == 28


def test_world_scaled_uvs():
    g = np.ones((2, 3), np.uint8)
    cs = 2.5
    q = level_quads(Level(grid=g), cell_size=cs, wall_height=4.0, origin=(100.0, 200.0, 0.0))
    floor = np.unique(q.quads[q.materials == 0])
    assert np.allclose(q.uvs[floor], q.vertices[floor, :2] - (100.0, 200.0))
    side = np.unique(q.quads[q.materials == 1])
    assert np.allclose(q.uvs[side, 1], q.vertices[side, 2])  # v = metres above the floor
    # u along each wall face spans exactly its length in metres, left to right seen from the front
    for quad in q.quads[q.materials == 1]:
        u = q.uvs[quad, 0]
        assert u[1] - u[0] == pytest.approx(cs) and u[2] - u[3] == pytest.approx(cs)


def test_index_dtype_rule_and_quads_agree():
    small = level_mesh(random_level(20, 20, 1))
    assert small.n_vertices <= 65_535 and small.indices.dtype == np.uint16
    big = level_mesh(random_level(150, 150, 1))
    assert big.n_vertices > 65_535 and big.indices.dtype == np.uint32
    q = level_quads(random_level(150, 150, 1))
    assert q.quads.dtype == np.int32 and q.quads.shape[1] == 4
    assert np.array_equal(big.indices[0::2], q.quads[:, :3])
    assert np.array_equal(big.materials, np.repeat(q.materials, 2))
    assert q.corner_uvs().shape == (4 * q.n_quads, 2)


@pytest.mark.parametrize("ceiling", [False, True])
def test_quads_topology_is_blender_ready(ceiling):
    q = level_quads(random_level(31, 23, 3), ceiling=ceiling)
    t = q.topology()
    assert t.polygon_size == 4 and t.n_polygons == q.n_quads
    assert np.array_equal(t.corner_verts, q.quads.ravel())
    # the analytic edges are exactly the unique edges polygon_topology finds by sorting
    ref = polygon_topology(q.quads)
    assert np.array_equal(np.unique(t.edges, axis=0), ref.edges)
    assert len(t.edges) == len(ref.edges) and np.all(t.edges[:, 0] < t.edges[:, 1])
    # and each corner's edge joins that corner to the next one of its quad
    here = q.quads
    after = np.roll(here, -1, axis=1)
    want = np.sort(np.stack([here.ravel(), after.ravel()], axis=1), axis=1)
    assert np.array_equal(t.edges[t.corner_edges], want)


def test_deterministic_bytes():
    a = level_mesh(random_level(33, 17, 9), ceiling=True, origin=(1.0, 2.0, 3.0))
    b = level_mesh(random_level(33, 17, 9), ceiling=True, origin=(1.0, 2.0, 3.0))
    for name in ("vertices", "indices", "uvs", "normals", "materials"):
        assert getattr(a, name).tobytes() == getattr(b, name).tobytes()


def test_all_wall_and_all_floor():
    walls = level_quads(Level(grid=np.zeros((4, 5), np.uint8)))
    assert walls.n_quads == 20 and np.all(walls.materials == 1)  # tops only: no faces on the outer boundary
    floor = level_quads(Level(grid=np.ones((4, 5), np.uint8)))
    assert np.bincount(floor.materials).tolist() == [20, 18]  # floor and the walls round the map edge


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"cell_size": 0.0}, "cell_size"),
        ({"cell_size": float("nan")}, "cell_size"),
        ({"wall_height": -1.0}, "wall_height"),
        ({"ceiling": "yes"}, "ceiling"),
        ({"origin": (0.0, 0.0)}, "origin"),
        ({"origin": (0.0, float("inf"), 0.0)}, r"origin\[1\]"),
    ],
)
def test_bad_options_named(kwargs, match):
    with pytest.raises(ParameterError, match=match):
        level_mesh(random_level(4, 4, 0), **kwargs)


def test_bad_level_and_too_large_refused_before_allocating():
    with pytest.raises(ParameterError, match="level"):
        level_mesh(np.zeros((4, 4), np.uint8))
    huge = Level(grid=np.broadcast_to(np.uint8(1), (4096, 4096)))  # a view: no 16 MB grid, and no mesh
    assert huge.grid.size > MAX_MESH_CELLS
    with pytest.raises(ParameterError, match=r"4096 x 4096 has 16,777,216 cells"):
        level_mesh(huge)


@pytest.mark.parametrize("generator", ["bsp", "cave", "maze", "walk", "rooms_caves"])
def test_every_generator_gives_consistent_outputs(generator):
    from core.levels import LevelSpec, generate, kit_placements, level_record, tiled_files

    lv = generate(LevelSpec(generator=generator, width=40, height=30, seed=3))
    walk = lv.walkable
    m = level_mesh(lv, cell_size=CS, wall_height=WH, ceiling=True)
    _, area = triangle_normals(m.vertices, m.indices)
    assert area[m.materials == 0].sum() == pytest.approx(walk.sum() * CS * CS)
    assert area[m.materials == 2].sum() == pytest.approx(walk.sum() * CS * CS)
    kit = kit_placements(lv, cell_size=CS)
    counts = kit.counts()
    assert counts["floor"] + counts["door"] == walk.sum()
    record = level_record(lv, name="Gen", cell_size=CS)
    floor_centres = m.vertices[m.indices[m.materials == 0]].astype(np.float64)
    for marker in record["markers"]:  # every marker stands on a walkable cell of the mesh's floor
        assert walk[marker["y"], marker["x"]]
        x, y, _ = marker["blender"]
        inside = (floor_centres[:, :, 0].min(1) <= x) & (x <= floor_centres[:, :, 0].max(1))
        inside &= (floor_centres[:, :, 1].min(1) <= y) & (y <= floor_centres[:, :, 1].max(1))
        assert inside.any()
    files = tiled_files(lv, name="Gen", cell_size=CS)
    assert b'<layer id="1" name="classes" width="%d" height="%d">' % (lv.width, lv.height) in files["Gen.tmx"]
