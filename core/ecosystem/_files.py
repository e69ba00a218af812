"""The ecosystem's files, as bytes (the caller writes them: ``core.unity.write_bytes_atomic``).

``<name>_plants.csv``
    Header ``species,x,y,z,age,radius,height``; one row per living plant at the end, in Unity's frame
    (metres, x east, y up at the ground the trunk stands on, z north) as the exported FBX puts the
    terrain: a Blender point ``(x, y, z)`` is Unity ``(-x, z, -y)`` (:func:`core.unity.unity_position`).
    Positions and sizes to the millimetre, ages in years.
``<name>_ecosystem.json``
    ``format`` ``"worldseed.ecosystem"``, ``version`` 1; ``species`` (the names, in order),
    ``area_m2``, ``years`` and ``history``: one object per year ``0 .. years`` with ``year`` and lists
    (one entry per species) ``alive``, ``born``, ``died``, ``mean_radius``, ``mean_height`` (metres).
    With animals, ``animals``: ``names``, ``steps`` and ``history``, one object per step ``0 .. steps``
    with ``step`` and lists (one entry per animal) ``population``, ``born``, ``died``.
``<name>_population.png``
    The chart (:mod:`._chart`): plants per species over the years, animals over the steps below.
``<name>_trails.png``
    Trail wear as 16-bit grey, one texel per heightmap cell, in Unity's orientation as the splat maps
    (``core.unity_package.unity_image``: the last row is the Terrain's -Z edge); 65535 is the most
    worn cell (``trail_scale`` in the spawns JSON gives its wear).
``<name>_spawns.json``
    ``format`` ``"worldseed.spawns"``, ``version`` 1, ``coordinates``; ``animals``: per animal its
    ``name``, ``home_range`` (metres: 95 % of its steps after the burn-in stayed this close to its
    den) and ``points``: spawn points ``[x, y, z]`` in Unity's frame, a Poisson-disk sample of its
    density after the burn-in (``core.scatter.poisson_disk_variable``: dense where the animal spent
    most steps), as many as lived at the end (at most); and ``trail_scale``.

The plants also go into the placement file as the scatter writes it (:func:`plant_placements`:
``core.placement.scatter_entry``), trees scaled by their simulated height and canopy.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from .. import exact
from ..placement import scatter_entry
from ..preview import png_bytes
from ..scatter import RADIUS, RADIUS_RATIO, poisson_disk_variable, sample_heights
from ..unity import unity_position
from ..unity_package import unity_image
from . import _random as rnd
from ._chart import chart_image

if TYPE_CHECKING:
    from ._animals import AnimalRun
    from ._habitat import Habitat
    from ._plants import PlantRun

__all__ = [
    "FORMAT",
    "VERSION",
    "CSV_HEADER",
    "ground_heights",
    "plants_csv_bytes",
    "ecosystem_json",
    "ecosystem_json_bytes",
    "population_png_bytes",
    "plant_placements",
    "file_names",
    "SPAWNS_FORMAT",
    "trail_map",
    "trails_png_bytes",
    "spawn_density",
    "spawn_points",
    "spawns_json",
    "spawns_json_bytes",
    "grass_capacity",
]

FORMAT = "worldseed.ecosystem"
VERSION = 1
CSV_HEADER = "species,x,y,z,age,radius,height"
SPAWNS_FORMAT = "worldseed.spawns"


def file_names(name: str) -> dict[str, str]:
    """``{role: file name}`` of the ecosystem's files for the output name ``name``.

    >>> file_names("Valley")["plants"]
    'Valley_plants.csv'
    """
    return {
        "plants": f"{name}_plants.csv",
        "ecosystem": f"{name}_ecosystem.json",
        "population": f"{name}_population.png",
        "trails": f"{name}_trails.png",
        "spawns": f"{name}_spawns.json",
    }


def ground_heights(hab: Habitat, x: npt.ArrayLike, y: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Heights (metres) of the terrain mesh's triangles under points of the habitat's frame
    (``core.scatter.sample_heights``: the surface the exported terrain shows)."""
    x0, y0, x1, y1 = hab.extent
    centre = np.column_stack([np.asarray(x, np.float64) - 0.5 * (x0 + x1), np.asarray(y, np.float64) - 0.5 * (y0 + y1)])
    return sample_heights(hab.heights, centre, size=x1 - x0)


def _unity_rows(run: PlantRun, hab: Habitat, blender_offset: tuple[float, float, float]) -> npt.NDArray[np.float64]:
    z = ground_heights(hab, run.x, run.y)
    ox, oy, oz = blender_offset
    return unity_position(np.column_stack([run.x + ox, run.y + oy, z + oz]))


def _mm(values: npt.ArrayLike) -> list[float]:
    return (np.round(np.asarray(values, np.float64), 3) + 0.0).tolist()  # + 0.0: no "-0.000"


def plants_csv_bytes(
    run: PlantRun, hab: Habitat, *, blender_offset: tuple[float, float, float] = (0.0, 0.0, 0.0)
) -> bytes:
    """``<name>_plants.csv``: the living plants of ``run`` (a :class:`PlantRun`) in Unity's frame.

    ``blender_offset`` is added to the habitat's frame to give Blender world positions (the terrain
    object's location; zero for a world's tiles, whose frame is the world's).
    """
    p = _unity_rows(run, hab, blender_offset)
    names = [run.species[k] for k in run.kind.tolist()]
    lines = [CSV_HEADER]
    lines += [
        f"{s},{a:.3f},{b:.3f},{c:.3f},{g},{r:.3f},{h:.3f}"
        for s, a, b, c, g, r, h in zip(
            names, _mm(p[:, 0]), _mm(p[:, 1]), _mm(p[:, 2]), run.age.tolist(), _mm(run.radius), _mm(run.height)
        )
    ]
    return ("\n".join(lines) + "\n").encode("utf-8")


def _r4(values: npt.ArrayLike) -> list[float]:
    return (np.round(np.asarray(values, np.float64), 4) + 0.0).tolist()


def ecosystem_json(
    run: PlantRun | None = None, *, animals: AnimalRun | None = None, area_m2: float | None = None
) -> dict[str, Any]:
    """The ``<name>_ecosystem.json`` document (plain values): the plant history of ``run`` and, when
    given, the animal history of ``animals`` (an :class:`AnimalRun`)."""
    doc = {"format": FORMAT, "version": VERSION}
    if run is not None:
        h = run.history
        doc["species"] = list(run.species)
        doc["area_m2"] = round(float(run.area_m2), 3)
        doc["years"] = run.years
        doc["history"] = [
            {
                "year": t,
                "alive": h["alive"][t].tolist(),
                "born": h["born"][t].tolist(),
                "died": h["died"][t].tolist(),
                "mean_radius": _r4(h["mean_radius"][t]),
                "mean_height": _r4(h["mean_height"][t]),
            }
            for t in range(run.years + 1)
        ]
    else:
        doc["species"] = []
        doc["area_m2"] = round(float(area_m2 or 0.0), 3)
        doc["years"] = 0
        doc["history"] = []
    if animals is not None:
        a = animals.history
        doc["animals"] = {
            "names": list(animals.names),
            "steps": animals.steps,
            "history": [
                {
                    "step": t,
                    "population": a["population"][t].tolist(),
                    "born": a["born"][t].tolist(),
                    "died": a["died"][t].tolist(),
                }
                for t in range(animals.steps + 1)
            ],
        }
    return doc


def ecosystem_json_bytes(
    run: PlantRun | None = None, *, animals: AnimalRun | None = None, area_m2: float | None = None
) -> bytes:
    """``<name>_ecosystem.json`` as UTF-8 bytes (compact, keys in a fixed order)."""
    return (json.dumps(ecosystem_json(run, animals=animals, area_m2=area_m2), separators=(",", ":")) + "\n").encode(
        "utf-8"
    )


def population_png_bytes(run: PlantRun | None = None, *, animals: AnimalRun | None = None) -> bytes:
    """``<name>_population.png``: plants per species over the years (top), animals over the steps."""
    panels = []
    if run is not None:
        panels.append(run.history["alive"])
    if animals is not None:
        panels.append(animals.history["population"])
    if not panels:
        panels.append(np.zeros((1, 0)))
    return png_bytes(chart_image(*panels))


def plant_placements(
    run: PlantRun,
    hab: Habitat,
    *,
    trees: Sequence[str],
    scatter: str,
    terrain: str,
    size: float,
    height: float,
    blender_offset: tuple[float, float, float] = (0.0, 0.0, 0.0),
    mesh_sizes: npt.ArrayLike | None = None,
    prop_names: Sequence[str] | None = None,
    seed: int = 0,
) -> dict[str, Any]:
    """The plants as one scatter entry of the placement file (``core.placement.scatter_entry``).

    Parameters
    ----------
    run : PlantRun
    hab : Habitat
    trees : sequence of str
        Each species' ``tree`` (its trees-family species or built-in prop).
    scatter, terrain : str
        Names of the scatter (the plants' parent object) and of the terrain object.
    size, height : float
        The Unity Terrain's width and height in metres.
    blender_offset : (x, y, z)
        Added to the habitat's frame for Blender world positions (the terrain's location).
    mesh_sizes : sequence of (height, radius), optional
        The height and canopy radius of each species' mesh at scale 1; default: the species'
        maximum (scale 1 is a full-grown plant).
    prop_names : sequence of str, optional
        The props' object names (one per species; default: ``trees``).
    seed : int
        Keys the plants' turns about their trunks (with their identities).

    Every plant is a record (``prop``, ``position``, ``rotation``: a turn about the vertical,
    ``scale`` = its height over its mesh's height, ``layer`` = its species) and a Unity Terrain tree
    instance with ``height_scale`` (height over the mesh's height) and ``width_scale`` (canopy
    radius over the mesh's).
    """
    kinds = run.kind.astype(np.int64)
    ms = np.array(mesh_sizes if mesh_sizes is not None else list(zip(run.max_height, run.max_radius)), np.float64)
    height_scale = run.height / ms[kinds, 0]
    width_scale = run.radius / ms[kinds, 1]
    z = ground_heights(hab, run.x, run.y)
    ox, oy, oz = blender_offset
    positions = np.column_stack([run.x + ox, run.y + oy, z + oz])
    turn = rnd.uniform(run.uid, rnd.stream_key(seed, rnd.BIRTH, 1), 0) * math.pi  # half the yaw angle
    s, c = exact.sincos(turn)
    rotations = np.column_stack([c, np.zeros(len(c)), np.zeros(len(c)), s])
    names = list(prop_names) if prop_names is not None else list(trees)
    entry = scatter_entry(
        positions,
        rotations,
        height_scale,
        kinds,
        names,
        layers=kinds,
        layer_names=list(run.species),
        tree_layers=list(range(len(run.species))),
        object_name=lambda prop, index: f"{prop}_{index:05d}",
        scatter=scatter,
        terrain=terrain,
        blender_centre=tuple(blender_offset),
        size=size,
        height=height,
    )
    widths = _r4(width_scale)
    for rec, w in zip(entry["instances"], widths):
        rec["width_scale"] = w
    for rec, w in zip(entry["terrain_trees"]["instances"], widths):
        rec["width_scale"] = w
    return entry


def trail_map(animals: AnimalRun) -> npt.NDArray[np.float32]:
    """Trail wear in [0, 1] per heightmap cell (our layout): the wear over the most worn cell's
    (float32; zeros without wear) -- the ``trail`` splat rule and the trampled-ground mask read it."""
    wear = animals.wear
    top = float(wear.max()) if wear.size else 0.0
    return (wear / top if top > 0.0 else np.zeros(wear.shape)).astype(np.float32)


def trails_png_bytes(animals: AnimalRun) -> bytes:
    """``<name>_trails.png``: 16-bit grey wear, one texel per heightmap cell, Unity's orientation."""
    grey = np.rint(trail_map(animals).astype(np.float64) * 65535.0).astype(np.uint16)
    return png_bytes(unity_image(grey))


def spawn_density(animals: AnimalRun) -> npt.NDArray[np.float32]:
    """``(A, rows - 1, cols - 1)`` float32: each animal's steps per cell after the burn-in over its
    busiest cell's (our layout); zeros for an animal with no steps then."""
    v = animals.visits.astype(np.float64)
    top = v.reshape(len(v), -1).max(axis=1) if v.size else np.zeros(len(v))
    return (v / np.maximum(top, 1.0)[:, None, None]).astype(np.float32)


def spawn_points(animals: AnimalRun, hab: Habitat, *, seed: int = 0) -> list[npt.NDArray[np.float64]]:
    """Spawn points per animal (a list of ``(M, 2)`` arrays, the habitat's frame): a Poisson-disk
    sample of its density (:func:`spawn_density`) on the cells it used, spacing chosen so about as
    many points fit as lived at the end; the densest first when more fit."""
    density = spawn_density(animals)
    rows, cols = density.shape[1:]
    cell = hab.cell_size
    x0, y0 = hab.origin
    width, height = cell * max(cols - 1, 1), cell * max(rows - 1, 1)
    out = []
    for k in range(len(animals.names)):
        d = density[k].astype(np.float64)
        n = int((animals.kind == k).sum())
        used = d > 0.0
        if not n or used.sum() < 4 or rows < 2 or cols < 2:
            out.append(np.empty((0, 2)))
            continue
        area = float(used.sum()) * cell * cell
        r_min = min(max((0.7 * area / n) ** 0.5, RADIUS[0]), RADIUS[1] / RADIUS_RATIO)
        pts, _ = poisson_disk_variable(
            width, height, d, r_min=r_min, r_max=min(4.0, RADIUS_RATIO) * r_min, seed=seed + k, where=used
        )
        if len(pts) > n:
            ix = np.clip(np.rint(pts[:, 0] / cell), 0, cols - 1).astype(np.int64)
            iy = np.clip(np.rint(pts[:, 1] / cell), 0, rows - 1).astype(np.int64)
            keep = np.lexsort((np.arange(len(pts)), -d[iy, ix]))[:n]
            pts = pts[np.sort(keep)]
        out.append(pts + [x0 + 0.5 * cell, y0 + 0.5 * cell])
    return out


def spawns_json(
    animals: AnimalRun, hab: Habitat, *, blender_offset: tuple[float, float, float] = (0.0, 0.0, 0.0), seed: int = 0
) -> dict[str, Any]:
    """The ``<name>_spawns.json`` document (plain values)."""
    entries = []
    ox, oy, oz = blender_offset
    for name, pts, home in zip(animals.names, spawn_points(animals, hab, seed=seed), animals.home_range.tolist()):
        z = ground_heights(hab, pts[:, 0], pts[:, 1]) if len(pts) else np.empty(0)
        unity = unity_position(np.column_stack([pts[:, 0] + ox, pts[:, 1] + oy, z + oz])) if len(pts) else pts
        entries.append({"name": name, "home_range": round(float(home), 3), "points": _mm(unity) if len(pts) else []})
    return {
        "format": SPAWNS_FORMAT,
        "version": VERSION,
        "coordinates": "Unity: left-handed, Y up, metres",
        "trail_scale": round(float(animals.wear.max()) if animals.wear.size else 0.0, 6),
        "animals": entries,
    }


def spawns_json_bytes(
    animals: AnimalRun, hab: Habitat, *, blender_offset: tuple[float, float, float] = (0.0, 0.0, 0.0), seed: int = 0
) -> bytes:
    """``<name>_spawns.json`` as UTF-8 bytes."""
    doc = spawns_json(animals, hab, blender_offset=blender_offset, seed=seed)
    return (json.dumps(doc, separators=(",", ":")) + "\n").encode("utf-8")


def grass_capacity(
    run: PlantRun, hab: Habitat, *, shade: float = 0.6, min_height: float = 2.0
) -> npt.NDArray[np.float64]:
    """The grass each heightmap cell can grow under the plants of ``run`` (for
    ``animals_steps(vegetation=...)``): ``1 - shade * cover``, ``cover`` the crown area of the plants
    at least ``min_height`` tall standing in the cell over its area (at most 1)."""
    rows, cols = hab.shape
    cell = hab.cell_size
    x0, y0 = hab.origin
    tall = run.height >= min_height
    cx = np.clip(np.floor((run.x[tall] - x0) / cell), 0, cols - 2).astype(np.int64)
    cy = np.clip(np.floor((run.y[tall] - y0) / cell), 0, rows - 2).astype(np.int64)
    crowns = math.pi * run.radius[tall] * run.radius[tall]
    area = np.bincount(cy * (cols - 1) + cx, weights=crowns, minlength=(rows - 1) * (cols - 1))
    cover = np.minimum(area / (cell * cell), 1.0).reshape(rows - 1, cols - 1)
    return 1.0 - shade * cover
