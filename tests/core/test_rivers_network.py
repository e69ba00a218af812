"""Rivers: profiles, mouths, banks, lakes, hydraulic geometry, network statistics, files, bad input.

The statistics run on the shipped river valley (presets/worlds/river_valley.toml, 2 km square,
eroded), built once (``_network_cases.valley``); the rest on small terrains.
"""

import json

import numpy as np
import pytest

from worldseed.core import erosion, exact, recipe, rivers
from worldseed.core._polyline import bilinear
from worldseed.core.errors import ParameterError, RecipeError

from ._network_cases import valley


def _vee(rows=48, cols=40, fall=0.3, side=0.5):
    """A V-shaped valley draining to row 0 (its axis at the middle column)."""
    y, x = np.mgrid[0:rows, 0:cols].astype(np.float64)
    return side * np.abs(x - (cols - 1) / 2.0) + fall * y


def _next_segment(net):
    return net.next_segments()


def test_profiles_never_rise_and_every_river_reaches_a_mouth():
    v = valley()
    net = v.rivers.network
    rows, cols = v.heights.shape
    nxt = _next_segment(net)
    for s in range(net.segment_count):
        z = net.z[net.segment(s)]
        assert (np.diff(z) <= 0.0).all(), s  # upstream to downstream: never up
        down = net.downstream[s]
        if down >= 0:
            # the last point is the next segment's first: same cell, same height
            assert net.cells[net.starts[s + 1] - 1] == net.cells[net.starts[down]]
            assert z[-1] == net.z[net.starts[down]]
        else:
            last = int(net.cells[net.starts[s + 1] - 1])
            r, c = divmod(last, cols)
            kind = net.mouth[s]
            assert kind in rivers.MOUTHS
            if kind == "edge":
                assert r in (0, rows - 1) or c in (0, cols - 1)
            elif kind == "sea":
                assert v.heights[r, c] <= v.sea_level
            elif kind == "lake":
                assert last in set(net.lakes[net.mouth_lake[s]].cells.tolist())
    # following the segments (through lakes to their outlets) always ends at a mouth, never loops
    for s in range(net.segment_count):
        seen = set()
        while nxt[s] >= 0:
            assert s not in seen
            seen.add(s)
            s = int(nxt[s])
        assert net.mouth[s] in ("edge", "sea", "lake", "sink")


def test_the_points_lie_on_the_carved_heightmap():
    v = valley()
    net = v.rivers.network
    assert np.array_equal(v.rivers.maps.heights.reshape(-1)[net.cells], net.z)
    assert (v.rivers.maps.heights <= v.heights).all()  # rivers only ever dig
    assert (v.rivers.maps.heights < v.heights).sum() > 1000


def _other_lower(net, shape, radius=3):
    """``query(rows, cols, segment, z)``: is a point of another segment with a water surface below
    ``z`` within ``radius`` cells (a deeper river carving its own bank there)?"""
    n = shape[0] * shape[1]
    seg_of = np.repeat(np.arange(net.segment_count), np.diff(net.starts))
    order = np.lexsort((seg_of, net.surface, net.cells))
    cells, surf, seg = net.cells[order], net.surface[order], seg_of[order]
    best, best_seg, second = np.full(n, np.inf), np.full(n, -1), np.full(n, np.inf)
    first = np.r_[True, cells[1:] != cells[:-1]]
    best[cells[first]], best_seg[cells[first]] = surf[first], seg[first]
    rest = ~first & (seg != best_seg[cells])
    np.minimum.at(second, cells[rest], surf[rest])

    def query(ib, jb, s, z):
        out = np.zeros(ib.shape, bool)
        for dy in range(-radius, radius + 1):
            for dx in range(-radius, radius + 1):
                ii, jj = ib + dy, jb + dx
                ok = (ii >= 0) & (ii < shape[0]) & (jj >= 0) & (jj < shape[1])
                f = np.where(ok, ii * shape[1] + jj, 0)
                out |= ok & (np.where(best_seg[f] != s, best[f], second[f]) < z)
        return out

    return query


def test_every_carved_bed_lies_below_both_banks():
    """The banks: the carved ground half the water's width plus a cell to either side across the
    flow, wherever that is dry land (no river, lake or sea there) and no deeper river runs within
    3 cells (parallel channels about to join carve each other's banks)."""
    v = valley()
    net, carved, cell = v.rivers.network, v.rivers.maps.heights, v.cell
    shape = carved.shape
    wet = ((v.rivers.maps.river > 0) | v.rivers.maps.lake | (v.heights <= v.sea_level)).astype(np.float64)
    lower = _other_lower(net, shape)
    checked = 0
    for s in range(net.segment_count):
        sl = net.segment(s)
        r, c = net.rows_cols(net.cells[sl])
        if r.size < 2:
            continue
        dr, dc = np.gradient(r), np.gradient(c)
        norm = np.hypot(dr, dc)
        nr, nc = -dc / norm, dr / norm
        off = (net.half_width[sl] + cell) / cell
        ok = np.ones(r.size, bool)
        ok[-1] = net.mouth[s] in ("edge", "sink")  # otherwise the next segment's or the mouth's cell
        banks = []
        for sign in (1.0, -1.0):
            br, bc = r + sign * nr * off, c + sign * nc * off
            ok &= (br >= 0) & (br <= shape[0] - 1) & (bc >= 0) & (bc <= shape[1] - 1)
            ok &= bilinear(wet, br, bc) == 0.0
            ib = np.clip(np.rint(br).astype(int), 0, shape[0] - 1)
            jb = np.clip(np.rint(bc).astype(int), 0, shape[1] - 1)
            ok &= ~lower(ib, jb, s, net.z[sl])
            banks.append(bilinear(carved, br, bc))
        z = net.z[sl]
        assert (banks[0][ok] > z[ok]).all() and (banks[1][ok] > z[ok]).all(), s
        checked += int(ok.sum())
    assert checked > 3000  # most points have dry banks to check


def test_horton_and_hack_laws_hold_on_the_river_valley():
    """Horton's bifurcation ratio in [3, 5] and Hack's exponent in [0.5, 0.7] (natural networks),
    over rivers of at least 3 Strahler orders."""
    v = valley()
    net = v.rivers.network
    assert net.order.max() >= 3
    numbers = rivers.stream_numbers(net)
    assert list(numbers) == sorted(numbers) and all(a > b for a, b in zip(numbers.values(), list(numbers.values())[1:]))
    assert 3.0 <= rivers.horton_ratio(net) <= 5.0
    assert 0.5 <= rivers.hack_exponent(net, v.heights) <= 0.7


def test_strahler_order_follows_its_rule():
    net = valley().rivers.network
    donors = {}
    for s, d in enumerate(net.downstream.tolist()):
        if d >= 0:
            donors.setdefault(d, []).append(s)
    for s, ups in donors.items():
        orders = sorted(net.order[ups].tolist())
        top = orders[-1]
        expected = top + 1 if orders.count(top) >= 2 else top
        if net.source_lake[s] < 0:  # (a lake's outlet also counts the lake's inflows)
            assert net.order[s] == expected
    sources = [s for s in range(net.segment_count) if s not in donors and net.source_lake[s] < 0]
    assert (net.order[sources] == 1).all()


def test_widths_and_depths_follow_hydraulic_geometry():
    spec = rivers.RiversSpec(enabled=True, threshold=400.0, width_scale=7.0, depth_scale=2.0, min_width=0.5)
    out = rivers.build_rivers(_vee(), spec, cell_size=2.0)
    net = out.network
    km2 = net.area / 1e6
    assert np.array_equal(net.width, np.maximum(0.5, 7.0 * exact.pow(km2, 0.5)))
    assert np.array_equal(net.seg_depth, 2.0 * exact.pow(km2, 0.4))
    # one river down the valley's axis, leaving at the edge, its water in the maps
    main = int(np.argmax(net.area))
    assert net.mouth[main] == "edge"
    r, c = net.rows_cols(net.cells[net.segment(main)])
    assert (np.abs(c - 19.5) <= 0.5).all()
    assert out.maps.water[r.astype(int), c.astype(int)].all()
    m = out.maps
    assert (m.bank[m.water] == 0).all() and m.bank.max() > 0.0
    dry = ~m.water
    assert np.array_equal(m.bank[dry], np.clip(1.0 - m.water_distance[dry] / np.float32(4.0), 0.0, 1.0))


def test_lakes_are_flat_at_their_spill_height():
    # a bowl with a notch: the lake fills to the notch's height
    y, x = np.mgrid[0:41, 0:41].astype(np.float64)
    h = 0.02 * ((x - 20) ** 2 + (y - 20) ** 2) + 1.0
    h[20, 30:] = np.minimum(h[20, 30:], 3.0)  # the notch (lowest pass at 3 m) to the east edge
    spec = rivers.RiversSpec(enabled=True, threshold=100.0, lake_min_area=20.0, lake_min_depth=0.5)
    out = rivers.build_rivers(h, spec, cell_size=1.0)
    net = out.network
    assert len(net.lakes) == 1
    lake = net.lakes[0]
    filled = erosion.fill_pits(h, epsilon=0.0).reshape(-1)
    assert lake.level == 3.0 and (filled[lake.cells] == 3.0).all() and (h.reshape(-1)[lake.cells] < 3.0).all()
    assert out.maps.lake.reshape(-1)[lake.cells].all()
    mesh = rivers.water_mesh(net, origin=(0.0, 0.0))
    lake_vertices = np.unique(mesh.indices[mesh.materials == 1].astype(np.int64))
    assert lake_vertices.size and np.array_equal(np.unique(mesh.vertices[lake_vertices, 2]), [3.0])
    # the outlet river leaves from the lake and counts its inflows' order
    outlets = np.flatnonzero(net.source_lake == 0)
    assert outlets.size == 1 and net.mouth[int(np.argmax(net.area))] == "edge"


def test_the_exclusion_keeps_scatter_out_of_every_river_and_lake():
    maps = valley().rivers.maps
    assert not (maps.water & ~maps.exclusion).any()
    assert not ((maps.river > 0) & ~maps.exclusion).any()
    assert not (maps.lake & ~maps.exclusion).any()
    # the water distance is 0 on water and grows away from it
    assert (maps.water_distance[maps.water] == 0).all()
    assert (maps.water_distance[~maps.water] > 0).all()


def test_the_rivers_file_has_the_issue_fields():
    v = valley()
    data = rivers.rivers_json_bytes(v.rivers.network, name="RiverValley", origin=v.origin)
    doc = json.loads(data)
    assert (doc["format"], doc["version"]) == ("worldseed.rivers", 1)
    net = v.rivers.network
    assert len(doc["segments"]) == net.segment_count
    for seg in doc["segments"]:
        assert set(seg) >= {"points", "order", "area_m2", "width", "depth", "downstream"}
        pts = np.array(seg["points"])
        assert pts.shape[1] == 3 and (np.diff(pts[:, 1]) <= 0).all()  # Unity's y is up: the bed falls
        assert seg["downstream"] is None or 0 <= seg["downstream"] < len(doc["segments"])
        assert (seg["downstream"] is None) == (seg["mouth"] is not None)
    # Unity's frame: (-x, z, -y) of Blender metres
    r, c = net.rows_cols(net.cells[:1])
    x, y = v.origin[0] + c[0] * v.cell, v.origin[1] + r[0] * v.cell
    assert doc["segments"][0]["points"][0] == [round(-x, 4) + 0.0, round(float(net.z[0]), 4), round(-y, 4) + 0.0]
    for lake in doc["lakes"]:
        outline = np.array(lake["outline"])
        assert (outline[:, 1] == lake["water_height"]).all() and len(outline) >= 4
    assert data == rivers.rivers_json_bytes(v.rivers.network, name="RiverValley", origin=v.origin)


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"threshold": 0}, "rivers.threshold must be a finite number in [1, 1e+12], got 0"),
        ({"width_scale": -1.0}, "rivers.width_scale"),
        ({"bank_slope": 90.0}, "rivers.bank_slope"),
        ({"treshold": 5.0}, "did you mean 'treshold' -> 'threshold'"),
    ],
)
def test_bad_rivers_tables_are_refused_in_one_line(table, message):
    with pytest.raises(ParameterError, match=None) as err:
        rivers.from_dict(table)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_a_threshold_below_four_cells_is_refused_before_any_work():
    text = "[terrain]\nresolution = 1025\nsize = 2048.0\n[rivers]\nenabled = true\nthreshold = 10.0\n"
    with pytest.raises(RecipeError, match=r"rivers\.threshold 10 m² is less than 4 cells of 2 m \(16 m²\)"):
        recipe.loads(text)
    with pytest.raises(ParameterError, match="rivers.threshold 3 m²"):
        rivers.plan_rivers(_vee(), cell_size=1.0, threshold=3.0)


def test_rivers_need_the_terrain():
    with pytest.raises(RecipeError, match="rivers.enabled needs \\[terrain\\] enabled = true"):
        recipe.loads("[terrain]\nenabled = false\n[rivers]\nenabled = true\n")
