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

The plants also go into the placement file as the scatter writes it (:func:`plant_placements`:
``core.placement.scatter_entry``), trees scaled by their simulated height and canopy.
"""

from __future__ import annotations

import json
import math

import numpy as np

from .. import exact
from ..placement import scatter_entry
from ..preview import png_bytes
from ..scatter import sample_heights
from ..unity import unity_position
from . import _random as rnd
from ._chart import chart_image

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
]

FORMAT = "worldseed.ecosystem"
VERSION = 1
CSV_HEADER = "species,x,y,z,age,radius,height"


def file_names(name):
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


def ground_heights(hab, x, y):
    """Heights (metres) of the terrain mesh's triangles under points of the habitat's frame
    (``core.scatter.sample_heights``: the surface the exported terrain shows)."""
    x0, y0, x1, y1 = hab.extent
    centre = np.column_stack([np.asarray(x, np.float64) - 0.5 * (x0 + x1), np.asarray(y, np.float64) - 0.5 * (y0 + y1)])
    return sample_heights(hab.heights, centre, size=x1 - x0)


def _unity_rows(run, hab, blender_offset):
    z = ground_heights(hab, run.x, run.y)
    ox, oy, oz = blender_offset
    return unity_position(np.column_stack([run.x + ox, run.y + oy, z + oz]))


def _mm(values):
    return (np.round(np.asarray(values, np.float64), 3) + 0.0).tolist()  # + 0.0: no "-0.000"


def plants_csv_bytes(run, hab, *, blender_offset=(0.0, 0.0, 0.0)):
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


def _r4(values):
    return (np.round(np.asarray(values, np.float64), 4) + 0.0).tolist()


def ecosystem_json(run=None, *, animals=None, area_m2=None):
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


def ecosystem_json_bytes(run=None, *, animals=None, area_m2=None):
    """``<name>_ecosystem.json`` as UTF-8 bytes (compact, keys in a fixed order)."""
    return (json.dumps(ecosystem_json(run, animals=animals, area_m2=area_m2), separators=(",", ":")) + "\n").encode(
        "utf-8"
    )


def population_png_bytes(run=None, *, animals=None):
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
    run,
    hab,
    *,
    trees,
    scatter,
    terrain,
    size,
    height,
    blender_offset=(0.0, 0.0, 0.0),
    mesh_sizes=None,
    prop_names=None,
    seed=0,
):
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
