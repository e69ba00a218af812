"""Shared set-up of the settlement tests: terrains with settlements built once, and the plane
geometry the tests measure with (convex polygons: overlap, distance, containment).

Run as a script to print what the cases hold::

    .venv/bin/python tests/core/_settlement_cases.py
"""

import functools
import os
import sys
from dataclasses import dataclass

import numpy as np

if __name__ == "__main__":  # run as a script: make the extension root importable as in the tests
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import conftest  # noqa: F401

from worldseed.core import recipe, rivers, settlements, terrain
from worldseed.core._polyline import grid_origin

#: Hills with biomes, roads and four settlements of every type (one terrain, built with its layers).
HILLS = """
[world]
seed = 7
[terrain]
resolution = 257
size = 512.0
height = 60.0
[biomes]
enabled = true
[roads]
enabled = true
[settlements]
enabled = true
count = 4
spacing = 140.0
"""

#: A river landscape: rivers carved first, then settlements near them and roads between them.
RIVERS = """
[world]
seed = 3
[terrain]
resolution = 257
size = 768.0
height = 50.0
scale = 400.0
[rivers]
enabled = true
threshold = 20000.0
[roads]
enabled = true
[settlements]
enabled = true
count = 4
types = "village"
spacing = 120.0
max_slope = 14.0
"""


#: A 2 x 2 world of 129-sample tiles with biomes, rivers, roads and four hamlets, planned over the
#: whole world: Hamlet3's pad crosses the seam at x = -256 m, the roads cross both seams.
TILED = """
[world]
name = "Shire"
seed = 2
tiles = [2, 2]
[terrain]
resolution = 129
size = 256.0
height = 30.0
scale = 200.0
normalize = "fixed"
[biomes]
enabled = true
[rivers]
enabled = true
threshold = 3000.0
[roads]
enabled = true
road_class = "trail"
trail_max_grade = 0.25
[settlements]
enabled = true
count = 4
types = "hamlet"
spacing = 100.0
"""


@dataclass(frozen=True, eq=False)
class Case:
    recipe: object
    before: np.ndarray  # metres, before the settlements
    built: object  # core.settlements.Settlements
    biomes: object  # ids or None
    biome_names: tuple
    rivers: object  # core.rivers.Rivers or None
    sea_level: float


@functools.cache
def hills():
    """HILLS built through the terrain's layers (biomes, then the settlements stage)."""
    r = recipe.loads(HILLS)
    h0 = terrain.terrain_heights(r.terrain, seed=r.world.seed)
    layers = terrain.terrain_layers(
        h0,
        terrain_spec=r.terrain,
        biomes_spec=r.biomes,
        seed=r.world.seed,
        settlements_spec=r.settlements,
        roads_spec=r.roads,
    )
    sea = float(np.float32(r.terrain.sea_level) * np.float32(r.terrain.height))
    return Case(
        r,
        h0.values.astype(np.float64) * r.terrain.height,
        layers.settlements,
        layers.biomes,
        layers.biome_names,
        None,
        sea,
    )


@functools.cache
def river_land():
    """RIVERS built in core: rivers carved, then the settlements (with their roads) on that ground."""
    r = recipe.loads(RIVERS)
    h = terrain.terrain_heights(r.terrain, seed=r.world.seed).metres.astype(np.float64)
    cell = r.terrain.cell_size
    riv = rivers.build_rivers(h, r.rivers, cell_size=cell)
    ground = riv.maps.heights
    built = settlements.build_settlements(
        ground,
        r.settlements,
        cell_size=cell,
        origin=grid_origin(h.shape, cell),
        seed=r.world.seed,
        rivers=riv,
        roads_spec=r.roads,
    )
    return Case(r, ground, built, None, (), riv, 0.0)


def cases():
    return {"hills": hills(), "rivers": river_land()}


# -- plane geometry (convex polygons as (n, 2) arrays, counter-clockwise) -------------------------


def penetration(a, b):
    """How deep convex polygons ``a`` and ``b`` overlap (separating axis theorem): <= 0 when they
    are apart or only touch."""
    depth = np.inf
    for poly in (a, b):
        for i in range(len(poly)):
            e = poly[(i + 1) % len(poly)] - poly[i]
            n = np.array([-e[1], e[0]]) / np.hypot(*e)
            pa, pb = a @ n, b @ n
            depth = min(depth, min(pa.max(), pb.max()) - max(pa.min(), pb.min()))
    return depth


def point_segment(p, a, b):
    """Distance from point ``p`` to segment ``a b``."""
    d = b - a
    t = np.clip(np.dot(p - a, d) / np.dot(d, d), 0.0, 1.0)
    return float(np.hypot(*(p - (a + t * d))))


def polygon_distance(a, b):
    """Distance between convex polygons (0 when they touch or overlap)."""
    if penetration(a, b) > -1e-9:
        return 0.0
    out = np.inf
    for p, q in ((a, b), (b, a)):
        for v in p:
            for i in range(len(q)):
                out = min(out, point_segment(v, q[i], q[(i + 1) % len(q)]))
    return out


def inside(points, poly):
    """Which ``points`` (m, 2) lie strictly inside convex ``poly`` (counter-clockwise)."""
    out = np.ones(len(points), bool)
    for i in range(len(poly)):
        a, b = poly[i], poly[(i + 1) % len(poly)]
        e = b - a
        out &= (e[0] * (points[:, 1] - a[1]) - e[1] * (points[:, 0] - a[0])) > 1e-9
    return out


def cell_centres(mask, built):
    """Blender x, y of the True cells of ``mask`` on the settlements' grid."""
    r, c = np.nonzero(mask)
    x0, y0 = built.origin
    return np.stack([x0 + c * built.cell_size, y0 + r * built.cell_size], axis=1).astype(np.float64)


if __name__ == "__main__":
    for name, case in cases().items():
        print(name)
        for s in case.built.sites:
            print(f"  {s.name:12} lots {len(s.lots):3} houses {len(s.buildings):3} gates {len(s.gates)} z {s.z:.2f}")
