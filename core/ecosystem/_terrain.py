"""An ecosystem on a terrain and its layers: the habitats the terrain's maps give, the run, and what
the run gives back to the terrain (trail wear for the ``trail`` texture rule, trampled ground for
the scatter's clearing).

Plants do not germinate on water nor on the terrain's clearing (river beds, roads: the networks'
``TerrainLayers.clearing``); animals drink at the water (``TerrainLayers.water`` when the networks
are worked out, else the sea) and walk on roads.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import ParameterError
from ..splat import SplatSpec
from ..steps import Steps
from ..terrain import TerrainLayers, TerrainSpec, repaint_splats
from ._animals import AnimalRun
from ._files import ground_heights, trail_map
from ._habitat import Habitat, terrain_habitat
from ._plants import PlantRun
from ._run import Ecosystem, ecosystem_steps
from ._snapshots import plant_rotations
from .spec import EcosystemSpec

__all__ = [
    "forest_at",
    "terrain_habitats",
    "terrain_ecosystem_steps",
    "trail_vertices",
    "trampled_mask",
    "trail_layers",
]


def terrain_habitats(
    layers: TerrainLayers, *, sea_level: float, lapse: float = 6.5, origin: tuple[float, float] | None = None
) -> tuple[Habitat, Habitat]:
    """``(plants' habitat, animals' habitat)`` of a terrain and its layers: the animals' water is
    ``layers.water`` when the networks worked it out (else the sea); the plants' is that and the
    terrain's ``clearing`` (no plant germinates in a river bed or on a road).

    >>> from ..terrain import TerrainHeights
    >>> heights = TerrainHeights(values=np.full((3, 3), 0.5, np.float32), cell_size=1.0, height=10.0)
    >>> clear = np.zeros((3, 3), bool)
    >>> clear[1, 1] = True
    >>> plants, animals = terrain_habitats(TerrainLayers(heights, clearing=clear), sea_level=0.0)
    >>> int(plants.water.sum()), int(animals.water.sum())
    (1, 0)
    """
    hab = terrain_habitat(layers, sea_level=sea_level, lapse=lapse, origin=origin)
    shape = hab.shape
    water = hab.water
    if layers.water is not None:
        water = _bool_map(layers.water, shape, "layers.water") | hab.water
    animals = dataclasses.replace(hab, water=water)
    if layers.clearing is None:
        return animals, animals
    return dataclasses.replace(hab, water=water | _bool_map(layers.clearing, shape, "layers.clearing")), animals


def _bool_map(value: Any, shape: tuple[int, ...], name: str) -> npt.NDArray[np.bool_]:
    a = np.asarray(value)
    if a.dtype != np.bool_ or a.shape != tuple(shape):
        raise ParameterError(f"{name} must be a bool map of the heights' shape {tuple(shape)}, got {a.dtype} {a.shape}")
    return a


def terrain_ecosystem_steps(
    spec: EcosystemSpec,
    layers: TerrainLayers,
    *,
    sea_level: float,
    lapse: float = 6.5,
    origin: tuple[float, float] | None = None,
    prefix: str = "ecosystem.",
) -> Steps[Ecosystem]:
    """The ecosystem of ``spec`` on a terrain (``layers``, a ``core.terrain.TerrainLayers``): the plants
    for ``spec.years`` on the plants' habitat, then the animals for ``spec.steps`` on the animals'
    (:func:`terrain_habitats`), grazing the grass the canopies leave.  ``sea_level`` in metres,
    ``lapse`` the biomes' lapse rate (degrees C per km).  Yields ``(done, total, "plants" |
    "animals")``; returns a :class:`Ecosystem` (its ``habitat`` the animals')."""
    plant_hab, animal_hab = terrain_habitats(layers, sea_level=sea_level, lapse=lapse, origin=origin)
    return (yield from ecosystem_steps(spec, plant_hab, animal_habitat=animal_hab, prefix=prefix))


def trail_vertices(animals: AnimalRun | None, shape: tuple[int, ...]) -> npt.NDArray[np.float32]:
    """Trail wear in [0, 1] at the heightmap's vertices ``shape`` (rows, cols): each vertex the most
    worn of the (up to four) cells around it (:func:`trail_map`: the wear over the most worn
    cell's); zeros without animals.

    >>> class Run:
    ...     wear = np.array([[0.0, 2.0], [0.0, 0.0]])
    >>> trail_vertices(Run(), (3, 3)).tolist()
    [[0.0, 1.0, 1.0], [0.0, 1.0, 1.0], [0.0, 0.0, 0.0]]
    """
    rows, cols = shape
    if animals is None:
        return np.zeros((rows, cols), np.float32)
    cells = trail_map(animals)
    if cells.shape != (rows - 1, cols - 1):
        raise ParameterError(f"the trail wear has {cells.shape} cells, the heights {(rows, cols)} vertices")
    padded = np.zeros((rows + 1, cols + 1), np.float32)
    padded[1:-1, 1:-1] = cells
    return np.maximum(
        np.maximum(padded[:-1, :-1], padded[:-1, 1:]), np.maximum(padded[1:, :-1], padded[1:, 1:])
    ).astype(np.float32)


def trampled_mask(animals: AnimalRun | None, shape: tuple[int, ...], *, threshold: float) -> npt.NDArray[np.bool_]:
    """Trampled ground: the vertices whose trail wear (:func:`trail_vertices`) is at least
    ``threshold`` (in (0, 1]); none for ``threshold`` 0, without animals or without wear."""
    if not 0.0 <= threshold <= 1.0:
        raise ParameterError(f"ecosystem.trampled must be in [0, 1], got {threshold!r}")
    wear = trail_vertices(animals, shape)
    if threshold <= 0.0 or not wear.any():
        return np.zeros(shape, bool)
    return wear >= np.float32(threshold)


def trail_layers(
    layers: TerrainLayers,
    eco: Ecosystem,
    *,
    spec: EcosystemSpec,
    terrain_spec: TerrainSpec,
    biomes_spec: Any,
    splats: tuple[SplatSpec, ...],
    seed: int,
) -> TerrainLayers:
    """``layers`` after the ecosystem ``eco`` (of ``spec``) ran on them: the trampled ground
    (:func:`trampled_mask` at ``spec.trampled``) added to their ``clearing`` and, when a texture layer
    of ``splats`` has a ``trail`` rule, the splat weights painted again with the wear
    (``core.terrain.repaint_splats``).  The same object when there is nothing to add."""
    rows, cols = layers.heights.values.shape
    shape = (rows, cols)
    trampled = trampled_mask(eco.animals, shape, threshold=spec.trampled)
    out = layers
    if trampled.any():
        clearing = trampled if layers.clearing is None else layers.clearing | trampled
        out = dataclasses.replace(out, clearing=clearing)
    if eco.animals is not None and any(s.trail != 0.0 for s in splats):
        out = repaint_splats(
            out,
            terrain_spec=terrain_spec,
            biomes_spec=biomes_spec,
            splats=splats,
            seed=seed,
            trail=trail_vertices(eco.animals, shape),
        )
    return out


def forest_at(run: PlantRun, hab: Habitat, *, year: int | None = None, seed: int = 0) -> dict[str, Any]:
    """The plants of ``run`` standing at the end of ``year`` (a snapshot year; None: the end of the
    run, exact sizes) as instances on the ground: ``positions`` (N, 3) float64 in the habitat's frame
    with the height of the terrain mesh under each trunk (:func:`ground_heights`), ``rotations``
    (N, 4) ``(w, x, y, z)`` turns about the vertical (keyed by each plant's identity: a plant keeps
    its turn from year to year, and the placement file's, :func:`plant_placements`), ``kind``,
    ``radius`` and ``height`` (metres)."""
    if year is None or year == run.years:
        x, y, kind, uid = run.x, run.y, run.kind, run.uid
        radius, height = run.radius, run.height
    else:
        snap = run.snapshot(year)
        life = run.life
        rows = np.flatnonzero((life["born"] <= year) & (life["died"] > year))
        x, y, kind, uid = snap["x"], snap["y"], snap["kind"], life["uid"][rows]
        radius, height = snap["radius"], snap["height"]
    return {
        "positions": np.column_stack([x, y, ground_heights(hab, x, y)]) if len(uid) else np.zeros((0, 3)),
        "rotations": plant_rotations(uid, seed),
        "kind": np.asarray(kind, np.int64),
        "radius": np.asarray(radius, np.float64),
        "height": np.asarray(height, np.float64),
    }
