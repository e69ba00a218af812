"""Shared set-up of the rivers and roads tests: the shipped river valley built once, small terrains,
and the measurements the tests (and the report) read: grades along the roads, levelness across
them, switchbacks, detour indices.

``valley()`` builds ``presets/worlds/river_valley.toml`` (eroded terrain, rivers, roads) once per
process; run this module as a script to print its statistics::

    .venv/bin/python tests/core/_network_cases.py
"""

import functools
import json
import os
import pathlib
import sys
from dataclasses import dataclass

import numpy as np

if __name__ == "__main__":  # run as a script: make the extension root importable as in the tests
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import conftest  # noqa: F401

from worldseed.core import recipe, rivers, roads, terrain
from worldseed.core._polyline import bilinear, grid_origin
from worldseed.core.steps import drive

ROOT = pathlib.Path(__file__).resolve().parents[2]
VALLEY = ROOT / "presets" / "worlds" / "river_valley.toml"

#: A 2 x 2 world of 65² tiles with rivers and roads crossing its seams (erosion off: the networks are
#: planned over its base heights).
TILED = """
[world]
name = "Delta"
seed = 11
tiles = [2, 2]
[terrain]
resolution = 65
size = 128.0
height = 30.0
scale = 160.0
octaves = 5
persistence = 0.5
normalize = "fixed"
[rivers]
enabled = true
threshold = 300.0
lake_min_area = 50.0
[roads]
enabled = true
road_class = "trail"
points = [[-236.0, -236.0], [-216.0, -20.0], [-56.0, -68.0], [-36.0, -216.0]]
"""
#: :data:`TILED` with erosion (the networks planned on its stitched eroded heights).
ERODED_WORLD = TILED.replace("[rivers]", "[terrain.erosion]\nenabled = true\n[rivers]", 1)


@dataclass(frozen=True, eq=False)
class Built:
    recipe: object
    heights: np.ndarray  # eroded, metres
    sea_level: float
    origin: tuple
    rivers: object
    roads: object

    @property
    def cell(self):
        return self.recipe.terrain.cell_size

    @property
    def final(self):
        """The ground after rivers and roads."""
        return self.roads.maps.heights if self.roads is not None else self.rivers.maps.heights


def build(r):
    """Terrain (eroded), rivers and roads of a recipe ``r`` (one terrain)."""
    h0 = terrain.terrain_heights(r.terrain, seed=r.world.seed)
    h = drive(terrain.terrain_layers_steps(h0, terrain_spec=r.terrain, seed=r.world.seed)).metres
    cell = r.terrain.cell_size
    sea = float(np.float32(r.terrain.sea_level) * np.float32(r.terrain.height)) if r.terrain.sea_level > 0 else None
    riv = rivers.build_rivers(h, r.rivers, cell_size=cell, sea_level=sea) if r.rivers.enabled else None
    origin = grid_origin(h.shape, cell)
    rd = None
    if r.roads.enabled:
        rd = roads.build_roads(h, r.roads, cell_size=cell, origin=origin, sea_level=sea, rivers=riv)
    return Built(r, h, sea, origin, riv, rd)


@functools.cache
def valley():
    """The shipped river valley, built once."""
    return build(recipe.load(VALLEY))


def stations(edge, cell, step=1.0):
    """Points every ``step`` metres along an edge: ``(rows, cols, z of the profile, bridge flag)``."""
    r, c = edge.rows, edge.cols
    s = np.concatenate([[0.0], np.cumsum(np.hypot(np.diff(r), np.diff(c)))]) * cell
    t = np.arange(0.0, s[-1] + 1e-9, step)
    br = np.interp(t, s, edge.bridge.astype(np.float64)) > 0.0
    return np.interp(t, s, r), np.interp(t, s, c), np.interp(t, s, edge.z), br


def near_bridge(network, rows, cols, cells=2.0):
    """Points within ``cells`` of any bridge sample (where the deck meets the ground)."""
    pts = [(e.rows[e.bridge], e.cols[e.bridge]) for e in network.edges if e.bridge.any()]
    if not pts:
        return np.zeros(np.shape(rows), bool)
    br = np.concatenate([p[0] for p in pts])
    bc = np.concatenate([p[1] for p in pts])
    out = np.zeros(np.shape(rows), bool)
    for i in range(0, len(rows), 512):
        d = np.hypot(rows[i : i + 512, None] - br[None, :], cols[i : i + 512, None] - bc[None, :])
        out[i : i + 512] = d.min(axis=1) <= cells
    return out


def worst_grade(network, ground, cell):
    """Largest ``grade / class max grade`` sampled every metre on ``ground`` along every edge,
    away from bridges (more than 2 cells from any bridge sample); and how many metres were checked."""
    worst, checked = 0.0, 0
    for edge in network.edges:
        r, c, _z, br = stations(edge, cell)
        if r.size < 2:
            continue
        z = bilinear(ground, r, c)
        grade = np.abs(np.diff(z)) / 1.0
        ok = ~(br[1:] | br[:-1])
        far = ~near_bridge(network, r, c)
        ok &= far[1:] & far[:-1]
        if ok.any():
            worst = max(worst, float(grade[ok].max()) / network.classes[edge.road_class].max_grade)
            checked += int(ok.sum())
    return worst, checked


def across_width(network, ground, cell):
    """Largest ``|ground - road surface|`` (metres) across every road's width (every 0.5 m) at every
    sample away from bridges, where that sample (or its neighbour) is the nearest centre line point
    of the whole network; and how many points were checked."""
    from worldseed.core.roads._carve import samples  # the carve's own view of the centre lines

    s = samples(network)
    worst, checked = 0.0, 0
    for e, edge in enumerate(network.edges):
        half = 0.5 * network.classes[edge.road_class].width
        r, c = edge.rows, edge.cols
        if r.size < 2:
            continue
        dr, dc = np.gradient(r), np.gradient(c)
        n = np.hypot(dr, dc)
        nr, nc = -dc / n, dr / n
        far = ~near_bridge(network, r, c) & ~edge.bridge
        for off in np.arange(-half, half + 1e-9, 0.5):
            pr, pc = r + nr * off / cell, c + nc * off / cell
            j = np.empty(r.size, np.int64)
            for i in range(0, r.size, 256):
                d = np.hypot(pr[i : i + 256, None] - s["rows"][None, :], pc[i : i + 256, None] - s["cols"][None, :])
                j[i : i + 256] = d.argmin(axis=1)
            own = (s["edge"][j] == e) & (np.abs(s["index"][j] - np.arange(r.size)) <= 1)
            ok = own & far
            if ok.any():
                diff = np.abs(bilinear(ground, pr[ok], pc[ok]) - edge.z[ok])
                worst = max(worst, float(diff.max()))
                checked += int(ok.sum())
    return worst, checked


def switchbacks(edge, span=20):
    """Hairpins of an edge: places where its heading turns back (by more than 110 degrees) within
    ``span`` samples (10 cells), counted once per run."""
    d = np.stack([np.diff(edge.rows), np.diff(edge.cols)], 1)
    if len(d) <= span:
        return 0
    a, b = d[:-span], d[span:]
    cos = (a * b).sum(1) / (np.hypot(*a.T) * np.hypot(*b.T))
    turns = np.flatnonzero(cos < -0.35)
    return 0 if not turns.size else 1 + int((np.diff(turns) > 2 * span).sum())


def length(edge, cell):
    return float(np.hypot(np.diff(edge.rows), np.diff(edge.cols)).sum() * cell)


if __name__ == "__main__":
    import time

    t0 = time.process_time()
    v = valley()
    net = v.rivers.network
    print(f"river valley built in {time.process_time() - t0:.1f} s CPU")
    orders = np.bincount(net.order)[1:].tolist()
    print(f"rivers: {net.segment_count} segments, Strahler orders {orders}, lakes {len(net.lakes)}")
    print(f"  stream numbers N_k {rivers.stream_numbers(net)}; Horton bifurcation ratio {rivers.horton_ratio(net):.2f}")
    print(f"  Hack's exponent {rivers.hack_exponent(net, v.heights):.3f}")
    rn = v.roads.network
    print(
        f"roads: {len(rn.nodes)} nodes ({rn.node_kind.count('point')} points), {len(rn.edges)} edges, "
        f"{sum(len(e.spans()) for e in rn.edges)} bridges, switchbacks {sum(switchbacks(e) for e in rn.edges)}"
    )
    g, n = worst_grade(rn, v.final, v.cell)
    print(f"  worst grade / class max, every metre on the edited ground: {g:.3f} over {n} m")
    a, m = across_width(rn, v.final, v.cell)
    print(f"  worst |ground - road| across the width: {a:.3f} m over {m} points")


def seam_points(folder, name, kind, tiles, seam_x):
    """``{id: set of points on the seam}`` of the features (segments, edges) in the tiled world
    ``name``'s ``<name>_<x>_<z>_<kind>.json`` files of ``tiles`` in ``folder``: the points whose Unity x
    is ``seam_x``."""
    out = {}
    for x, z in tiles:
        data = json.loads((pathlib.Path(folder) / f"{name}_{x}_{z}_{kind}.json").read_text())
        for item in data["segments"] if kind == "rivers" else data["edges"]:
            on = {tuple(p) for p in item["points"] if abs(p[0] - seam_x) < 1e-9}
            out.setdefault(item["id"], set()).update(on)
    return out


def seam_crossings(folder, name, seam_x):
    """How many points rivers and roads share on the seam between tiles ``(0, z)`` and ``(1, z)`` of a
    2 x 2 world (Unity x ``seam_x``); asserts each such point has the same height in both tiles' files."""
    crossing = 0
    for kind in ("rivers", "roads"):
        a = seam_points(folder, name, kind, [(0, 0), (0, 1)], seam_x)
        b = seam_points(folder, name, kind, [(1, 0), (1, 1)], seam_x)
        for ident in set(a) & set(b):  # a feature in both halves crosses the seam at the same points
            at_a = {(p[0], p[2]): p[1] for p in a[ident]}
            at_b = {(p[0], p[2]): p[1] for p in b[ident]}
            common = set(at_a) & set(at_b)
            assert all(at_a[k] == at_b[k] for k in common), (kind, ident)
            crossing += len(common)
    return crossing
