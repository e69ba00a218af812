"""What follows a terrain through a rebuild in place: its scatter and its forest on the new ground.

The Terrain panel's Update, the Networks panel's Build and the Settlements panel's Add/Update rebuild a
terrain's ground (:func:`.terrain.terrain_steps` with ``replace``); the objects standing on it stay
below it (:func:`.terrain.followers`), and :func:`follow_steps` (a :data:`.terrain.Follow`) puts them on
the new ground, in the same build:

* the forest (``<Terrain>_Ecosystem``) grown again from the settings stored on it (same species, years
  and seed) on the new ground -- its plants keep off the new water, roads and settlement pads as a
  forest grown there from the Ecosystem panel does;
* every scatter (``<Terrain>_Scatter``) placed again with its stored layers, props and seed, off the
  forest's trampled ground, as the Scatter panel's Update would.

Both are worked out before anything in the scene changes (progress; Esc or a failure leaves the scene as
it was) and written into the same objects after the terrain is in.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

import bpy
import numpy as np
import numpy.typing as npt

from ...core import terrain as core_terrain
from . import ecosystem as bridge_ecosystem
from . import scatter as bridge_scatter
from . import terrain as bridge_terrain
from .query import is_kind

if TYPE_CHECKING:
    from ...core.ecosystem import Ecosystem, EcosystemSpec
    from ...core.recipe import Recipe
    from ...core.scatter import LayerSpec
    from ...core.steps import Steps
    from ...core.terrain import TerrainHeights, TerrainLayers

__all__ = ["follow_steps"]

T = TypeVar("T")


def follow_steps(
    terrain: bpy.types.Object, recipe: Recipe, heights: TerrainHeights, layers: TerrainLayers | None
) -> Steps[Callable[[bpy.types.Object], None]]:
    """The scatter and the forest of ``terrain`` worked out on its new ground (``recipe``, ``heights``,
    ``layers``: the rebuild's), yielding ``(done, total, label)``; returns what writes them into their
    objects below the new root (see the module's docstring).  Nothing in the scene changes here."""
    forest = bridge_ecosystem.forest_of(terrain)
    scatters = sorted((c for c in terrain.children if is_kind(c, bridge_scatter.SCATTER_KIND)), key=lambda o: o.name)
    spec: EcosystemSpec | None = None
    eco: Ecosystem | None = None
    trampled: npt.NDArray[np.bool_] | None = None
    if forest is not None:
        spec = bridge_ecosystem.stored_spec(forest)
        ground = layers if layers is not None else core_terrain.TerrainLayers(heights)
        label = f"growing {forest.name}"
        grown = yield from _labelled(bridge_ecosystem.grow_steps(recipe, spec, ground), label)
        trampled = bridge_ecosystem.trampled(spec, grown)
        eco = grown
    placed: list[tuple[bpy.types.Object, list[LayerSpec], list[int], int, bridge_scatter.Points]] = []
    for obj in scatters:
        specs = bridge_scatter.stored_layers(obj)
        counts = bridge_scatter.stored_counts(obj, len(specs))
        seed = int(obj.get(bridge_scatter.SEED_KEY, 0))
        points = bridge_scatter.scatter_points(
            specs, counts, recipe=recipe, heights_m=heights.metres, layers=layers, seed=seed, clearing=trampled
        )
        placed.append((obj, specs, counts, seed, points))
    yield 1, 1, "scatter"

    def place(root: bpy.types.Object) -> None:
        if forest is not None and spec is not None and eco is not None:
            collection = forest.users_collection[0] if forest.users_collection else root.users_collection[0]
            bridge_ecosystem.remember(bridge_terrain.stored_recipe(root), spec, eco)
            bridge_ecosystem.build_forest(root, spec, eco, collection=collection, replace=forest)
        for obj, specs, counts, seed, points in placed:
            bridge_scatter.write_scatter(obj, specs, counts, seed=seed, points=points)

    return place


def _labelled(steps: Steps[T], label: str) -> Steps[T]:
    """``steps`` with their stage named ``label`` and one step to spare (the scatter's, after them)."""
    while True:
        try:
            at, of, _stage = next(steps)
        except StopIteration as stop:
            return stop.value
        yield at, of + 1, label
