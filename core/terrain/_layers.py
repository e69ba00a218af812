"""The terrain's layers: erosion of the heights, water flow, moisture, biomes, texture-layer weights.

:func:`terrain_layers_steps` takes the :class:`~._heights.TerrainHeights` of a tile and the
recipe's ``[terrain.erosion]``, ``[biomes]`` and ``[[splat]]`` and returns a
:class:`TerrainLayers`: what the terrain mesh, its material, the scatter and the Unity package
are built from.  The engines are :mod:`core.erosion` and :mod:`core.biomes`; this module only
runs them in order, in metres, with the tile's seed and offset:

1. hydraulic erosion (droplets per square kilometre of the tile), then thermal erosion if asked;
2. flow accumulation of the (eroded) heights, when anything reads it;
3. the networks, when ``[rivers]`` / ``[roads]`` are on: rivers traced on the eroded heights and
   carved into them, then roads planned on them (bridging the rivers) and cut and filled; every
   later stage (and the mesh, the RAW heightmap, the FBX) reads the carved heights, the texture
   layers' ``river``, ``bank`` and ``road`` rules read their maps, and ``water`` / ``clearing`` say
   where open water is and where no prop stands;
4. moisture (noise, closeness to the sea and to flow lines) and the biome ids of the table (a
   tile reads its neighbours' heights within the sea's reach, so the moisture joins at its edges);
5. the texture layers' weights, resampled to the alphamap's texels and packed four to an image.

Each engine has its own random stream (``SeedSequence([seed, tag])``), so turning erosion on
or off changes nothing else, and with erosion off the heights are the very array
``heights_steps`` made (bit for bit).
"""

import dataclasses
from collections.abc import Callable, Generator, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt

from .. import biomes as core_biomes
from .. import erosion as core_erosion
from .. import heightmap
from .. import splat as core_splat
from .._polyline import grid_origin
from ..biomes import BiomesSpec
from ..erosion import ErosionSpec, HydraulicResult
from ..erosion.spec import droplet_count
from ..errors import ParameterError
from ..rivers import RiversSpec
from ..roads import RoadsSpec
from ..settlements import Settlements, SettlementsSpec, build_settlements_steps
from ..splat import SplatSpec
from ..steps import Steps, drive
from ..unity_package import alphamap_side, texel_weights
from ._heights import TerrainHeights, raw_noise, shape_heights
from ._networks import NETWORK_STEPS, network_steps
from .spec import TerrainSpec

__all__ = [
    "TerrainLayers",
    "terrain_layers_steps",
    "terrain_layers",
    "erosion_droplets",
    "erosion_steps",
    "LAYER_STEPS",
    "STREAM_AREA",
    "repaint_splats",
]

#: Progress units of each stage (the erosion reports its 100 over its batches, thermal its 10 over
#: chunks of its iterations).
LAYER_STEPS = {
    "erosion": 100,
    "thermal": 10,
    "flow": 10,
    **NETWORK_STEPS,
    "biomes": 10,
    "settlements": 10,
    "splats": 10,
}
#: Upstream area (m²) from which the flow counts as a stream that draws a settlement (without rivers).
STREAM_AREA = 50_000.0
#: ``shaper(margin) -> (heights, flow)`` of :func:`terrain_layers_steps`.
Shaper: TypeAlias = Callable[[int], tuple[npt.NDArray[np.float32], npt.NDArray[np.float64] | None]]
#: What the erosion stage returns: ``(heights, clipped, eroded, deposited, ledger)``.
Eroded: TypeAlias = tuple[
    TerrainHeights, dict[str, float | None], npt.NDArray[np.float32], npt.NDArray[np.float32], dict[str, float]
]


@dataclass(frozen=True, eq=False)
class TerrainLayers:
    """A terrain tile with its layers (every map (rows, cols) like the heights, row 0 at Blender -Y).

    Attributes
    ----------
    heights : TerrainHeights
        The heights after erosion, in [0, 1] of ``height`` metres (``heights_steps``' own object
        when erosion is off).  Erosion can lift a cell above the top or dig below 0: such
        values are clipped, and ``clipped`` says how many and how far.
    clipped : dict
        ``{"below": cells, "above": cells, "lowest_m": metres, "highest_m": metres}`` of the
        eroded heights before clipping (zeros when erosion is off).
    eroded, deposited : (rows, cols) float32 ndarray or None
        Metres of material taken from and laid on every cell (hydraulic, plus what thermal
        erosion moved); None without erosion.
    ledger : dict or None
        The hydraulic erosion's mass ledger (cubic metres: ``eroded``, ``deposited``,
        ``lost_at_edge``, ``relative_error``, ...), plus ``droplets``, ``thermal_moved`` and, with a sea,
        ``settled_in_sea`` (what settled on the sea floor, which keeps its level: taken off the heights).
    flow : (rows, cols) float64 ndarray or None
        Upstream area in square metres (:func:`core.erosion.flow_accumulation`), 0 on the sea's cells
        (at or below the sea level, as the biomes' water: no flow lines across the flat sea floor).
    moisture : (rows, cols) float32 ndarray or None
    biomes : (rows, cols) uint8 ndarray or None
        Ids into ``biome_names``.
    biome_names : tuple of str
    biome_colors : (n, 3) float32 ndarray or None
        The table's sRGB colours (the biome preview).
    weights : (L, rows, cols) float32 ndarray or None
        The texture layers' weights at the vertices, summing to 1.
    splats : tuple of (side, side, 4) uint8 ndarray
        The weights at the alphamap's texels (``unity_package.alphamap_side``), packed four
        layers to an image (R, G, B, A), every texel summing to exactly 255 over all images.
    details : tuple of (str, (r, r) uint16 ndarray)
        Detail layers' instance counts per detail cell.
    rivers, roads : object or None
        The networks planned over this terrain (``core.rivers.build_rivers``'s and
        ``core.roads.build_roads``' results) when ``[rivers]`` / ``[roads]`` are on; their carving is
        already in ``heights``.
    water : (rows, cols) bool ndarray or None
        Open water when the networks are worked out: the sea, lakes and river beds.
    clearing : (rows, cols) bool ndarray or None
        Cells kept free of props and plants: river and lake water, a road's width plus its margin,
        trampled ground (the ecosystem's trails); ``scatter_maps`` passes it on as ``"clearing"``.
    """

    heights: TerrainHeights
    clipped: dict[str, float | None] = field(
        default_factory=lambda: {"below": 0, "above": 0, "lowest_m": None, "highest_m": None}
    )
    eroded: npt.NDArray[np.float32] | None = None
    deposited: npt.NDArray[np.float32] | None = None
    ledger: dict[str, float] | None = None
    flow: npt.NDArray[np.float64] | None = None
    moisture: npt.NDArray[np.float32] | None = None
    biomes: npt.NDArray[np.integer[Any]] | None = None
    biome_names: tuple[str, ...] = ()
    biome_colors: npt.NDArray[np.float32] | None = None
    weights: npt.NDArray[np.float32] | None = None
    splats: tuple[npt.NDArray[np.uint8], ...] = ()
    details: tuple[tuple[str, npt.NDArray[np.uint16]], ...] = ()
    rivers: Any = None
    roads: Any = None
    water: npt.NDArray[np.bool_] | None = None
    clearing: npt.NDArray[np.bool_] | None = None
    settlements: Settlements | None = None

    @property
    def metres(self) -> npt.NDArray[np.float64]:
        """The heights in metres (float64)."""
        return self.heights.values.astype(np.float64) * self.heights.height

    @property
    def scatter_maps(self) -> dict[str, Any]:
        """The maps scatter rules read (``core.scatter.scatter_layers(..., maps=...)``): the biomes
        (when worked out), the deposits (zero everywhere without erosion) and the flow (when worked
        out: ask for it with ``flow=True`` when a scatter layer has a flow rule)."""
        maps: dict[str, Any] = {}
        if self.biomes is not None:
            maps["biomes"], maps["biome_names"] = self.biomes, self.biome_names
        maps["deposited"] = self.deposited if self.deposited is not None else np.zeros(self.heights.values.shape)
        if self.flow is not None:
            maps["flow"] = self.flow
        if self.clearing is not None:
            maps["clearing"] = self.clearing
        return maps


def erosion_droplets(terrain_spec: TerrainSpec, rows: int | None = None) -> int:
    """Droplets the hydraulic erosion of a tile runs: ``droplets_per_km2`` times the tile's area
    (``core.erosion.spec.droplet_count``; 0 when erosion is off).

    >>> from core.terrain import TerrainSpec
    >>> erosion_droplets(TerrainSpec(size=512.0))  # erosion off: none
    0
    """
    spec = terrain_spec.erosion
    if not spec.enabled:
        return 0
    side = terrain_spec.cell_size * ((rows or terrain_spec.resolution) - 1)
    return droplet_count(spec, size=side)


def _hydraulic(
    h: npt.NDArray[np.float64], cell: float, droplets: int, spec: ErosionSpec, seed: int
) -> Steps[HydraulicResult]:
    """The hydraulic erosion as steps (``hydraulic_steps`` when core.erosion offers it)."""
    settings: dict[str, Any] = dict(cell_size=cell, droplets=droplets, seed=seed, **spec.hydraulic_kwargs())
    steps = getattr(core_erosion, "hydraulic_steps", None)
    if steps is not None:
        return (yield from steps(h, **settings))
    return core_erosion.hydraulic(h, **settings)


def _eroded(heights: TerrainHeights, terrain_spec: TerrainSpec, seed: int) -> Generator[tuple[int, str], None, Eroded]:
    """Steps of the erosion stage, yielding ``(units done, label)`` (``LAYER_STEPS``' erosion, then
    thermal units); returns ``(heights, clipped, eroded, deposited, ledger)``."""
    spec = terrain_spec.erosion
    cell, top = heights.cell_size, heights.height
    h = heights.values.astype(np.float64) * top
    droplets = erosion_droplets(terrain_spec, heights.values.shape[0])
    eroded = np.zeros(h.shape)
    deposited = np.zeros(h.shape)
    ledger: dict[str, float] = {"droplets": droplets}
    units = LAYER_STEPS["erosion"]
    if droplets:
        steps = _hydraulic(h, cell, droplets, spec, seed)
        while True:
            try:
                done, total, _ = next(steps)
            except StopIteration as stop:
                result = stop.value
                break
            yield units * done // max(total, 1), "erosion"
        h = np.asarray(result.heights, np.float64)
        eroded += result.eroded
        deposited += result.deposited
        ledger.update({k: float(v) for k, v in result.ledger.items()})
    yield units, "erosion"
    if spec.thermal:
        # in chunks of iterations (each step is a function of the heights alone, so the chunks give
        # the same heights as one call), with progress (and a chance to cancel) between them
        kwargs = spec.thermal_kwargs()
        left = kwargs.pop("iterations")
        chunk = max(1, -(-left // LAYER_STEPS["thermal"]))
        settled, step = h, 0
        while left > 0:
            k = min(chunk, left)
            before, settled = (
                settled,
                np.asarray(core_erosion.thermal(settled, cell_size=cell, iterations=k, **kwargs), np.float64),
            )
            left -= k
            step += 1
            if np.array_equal(before, settled):
                break  # settled: the slopes are within the talus angle
            yield units + min(step, LAYER_STEPS["thermal"]), "thermal"
        yield units + LAYER_STEPS["thermal"], "thermal"
        moved = settled - h
        eroded += np.maximum(-moved, 0.0)
        deposited += np.maximum(moved, 0.0)
        ledger["thermal_moved"] = float(np.maximum(moved, 0.0).sum() * cell * cell)
        h = settled
    if terrain_spec.sea_level > 0.0:
        # the sea stays sea: what settled on the flat sea floor (below the water, out of sight) is
        # taken off and booked, so no cell of the sea rises above its level and turns into land
        sea = heights.values <= np.float32(terrain_spec.sea_level)
        before = heights.values.astype(np.float64)[sea] * top
        ledger["settled_in_sea"] = float((h[sea] - before).sum() * cell * cell)
        h = h.copy()
        h[sea] = before
        eroded[sea] = 0.0
        deposited[sea] = 0.0
    values = h / top
    clipped: dict[str, float | None] = {
        "below": int((values < 0.0).sum()),
        "above": int((values > 1.0).sum()),
        "lowest_m": float(h.min()),
        "highest_m": float(h.max()),
    }
    values = np.clip(values, 0.0, 1.0).astype(np.float32)
    margin = None
    if heights.margin is not None:  # the ring around the tile stays the neighbours' (un-eroded) heights
        margin = heights.margin.copy()
        margin[1:-1, 1:-1] = values
    out = TerrainHeights(values, cell, top, margin)
    return out, clipped, eroded.astype(np.float32), deposited.astype(np.float32), ledger


def erosion_steps(
    heights: TerrainHeights, *, terrain_spec: TerrainSpec, seed: int
) -> Generator[tuple[int, str], None, Eroded]:
    """The erosion stage of :func:`terrain_layers_steps` alone (hydraulic, thermal, the sea kept),
    as steps yielding ``(units done, label)`` out of ``LAYER_STEPS["erosion"] + ["thermal"]``.

    Returns ``(heights, clipped, eroded, deposited, ledger)`` as the :class:`TerrainLayers` fields
    of those names (a tiled world erodes each tile's window with it: ``core.world``).  The droplet
    count is ``droplets_per_km2`` times the area of ``heights``.
    """
    return (yield from _eroded(heights, terrain_spec, seed))


def _moisture_window(
    heights: TerrainHeights,
    terrain_spec: TerrainSpec,
    biomes_spec: BiomesSpec,
    seed: int,
    flow: npt.NDArray[np.float64] | None,
    shaper: Shaper | None = None,
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float64] | None, int]:
    """The heights (metres, float32) and flow the moisture reads, and their margin in cells.

    A tile (``normalize = "fixed"``, :class:`TerrainHeights` with a margin) with a sea term gets
    ``core.biomes.moisture_margin`` cells of its neighbours' (un-eroded) heights around its own,
    at most the tile's side, so the sea wets both sides of a tile edge alike; the flow is the
    tile's own (no flow lines in the margin: a tile's flow sees only its own catchment).
    """
    metres = heights.metres
    margin = 0
    if heights.margin is not None and biomes_spec.sea_weight > 0.0:
        margin = min(
            core_biomes.moisture_margin(cell_size=heights.cell_size, sea_reach=biomes_spec.sea_reach),
            heights.values.shape[0] - 1,
        )
    if not margin:
        return metres, flow, 0
    around = None
    if shaper is not None:
        window, around = shaper(margin)
    else:
        window = shape_heights(raw_noise(terrain_spec, seed=seed, margin=margin), terrain_spec, margin=margin)
    window[margin:-margin, margin:-margin] = heights.values  # the tile itself as the mesh shows it
    window *= np.float32(heights.height)
    if flow is not None:
        if around is not None:  # the flow past the edges too, the tile's own inside
            around = np.array(around, np.float64)
            around[margin:-margin, margin:-margin] = flow
            flow = around
        else:
            flow = np.pad(flow, margin)
    return window, flow, margin


def _wants_flow(
    terrain_spec: TerrainSpec, biomes_spec: BiomesSpec | None, splats: Iterable[SplatSpec], flow: bool
) -> bool:
    return bool(
        flow
        or terrain_spec.erosion.enabled
        or (biomes_spec is not None and biomes_spec.enabled and biomes_spec.flow_weight > 0.0)
        or any(s.flow for s in splats)
    )


def terrain_layers_steps(
    heights: TerrainHeights,
    *,
    terrain_spec: TerrainSpec,
    biomes_spec: BiomesSpec | None = None,
    splats: Iterable[SplatSpec] = (),
    seed: int,
    flow: bool = False,
    base: str | None = None,
    given: Mapping[str, Any] | None = None,
    shaper: Shaper | None = None,
    slope: npt.NDArray[np.float32] | None = None,
    rivers_spec: RiversSpec | None = None,
    roads_spec: RoadsSpec | None = None,
    planned: Mapping[str, Any] | None = None,
    settlements_spec: SettlementsSpec | None = None,
) -> Steps[TerrainLayers]:
    """The terrain's layers as a step generator (see :mod:`core.steps`).

    Parameters
    ----------
    heights : TerrainHeights
        The tile (``heights_steps`` / ``terrain_heights`` of ``terrain_spec``).
    terrain_spec : TerrainSpec
        Its ``erosion`` (``[terrain.erosion]``), ``sea_level``, ``height`` and ``offset`` are read.
    biomes_spec : core.biomes.BiomesSpec or None
        ``[biomes]``; None or not ``enabled``: no biome map.
    splats : sequence of core.splat.SplatSpec
        ``[[splat]]``, layer 0 the ground; empty: no texture layers.
    seed : int
        The world's seed; erosion, moisture and the splat noise each draw their own stream of it.
    flow : bool
        Also work out the water flow when nothing else needs it (a scatter rule, the flow map).
    base : str or None
        Folder a biome table's relative path is found in (recipes keep theirs absolute).
    given : dict or None
        Layers already worked out elsewhere (a tiled world's blended erosion windows): ``heights``
        is then the eroded tile, and the keys ``clipped``, ``eroded``, ``deposited``, ``ledger``
        (erosion) and ``flow`` given here are used as they are, their stages skipped.
    shaper : callable or None
        ``shaper(margin) -> (heights, flow)``: ``heights`` (rows + 2 margin, cols + 2 margin)
        float32 in [0, 1] around the tile, for the moisture's view of its neighbours (a tiled
        world's: its falloff spans the world, its neighbours eroded), and their ``flow`` (square
        metres, or None: no flow lines past the edges); None: ``terrain_spec``'s own noise and
        shaping, no flow past the edges.
    slope : (rows, cols) ndarray or None
        Slope in degrees the texture layers read (a tiled world's, from heights that see past the
        tile's edges); None: worked out from the tile's heights.
    rivers_spec, roads_spec : core.rivers.RiversSpec, core.roads.RoadsSpec or None
        ``[rivers]`` and ``[roads]``; on: the networks are planned on the eroded heights and
        carved into them (:func:`core.rivers.build_rivers`, then :func:`core.roads.build_roads`
        on the carved ground, bridging the rivers) before the biomes and the texture layers,
        which read the carved heights (and the ``river``, ``bank`` and ``road`` maps); the
        result's ``heights`` are the carved ones, with ``rivers``, ``roads``, ``water`` and
        ``clearing`` filled.  ``[roads] points`` are scene metres on the terrain
        (:func:`core.terrain.networks_origin`).  With ``[settlements]`` on, the roads are laid
        by the settlements' stage instead (joining the sites and the points), after the biomes.
    planned : dict or None
        Networks planned over a bigger grid (a tiled world's: ``{"rivers", "roads", "offset"}``,
        ``core.world``): this tile carves its part of them instead of planning its own.  With
        ``"settlements"`` (a tiled world's settlements, ``{"ground", "settled", "clearing", "roads",
        "sites", "offset"}``) and ``settlements_spec`` on: the tile takes the plan's ground where it
        levelled a pad or cut a road, its part of the plan's roads, and ``sites`` (its own) as its
        settlements.
    settlements_spec : core.settlements.SettlementsSpec or None
        ``[settlements]`` (on: sites chosen on the biome map, their pads levelled into the heights
        before the texture layers read them; ``[roads]`` on: its roads join the settlements).

    Yields ``(done, total, label)``; returns a :class:`TerrainLayers`.
    """
    if not isinstance(heights, TerrainHeights):
        raise ParameterError(f"heights must be a TerrainHeights, got {type(heights).__name__}")
    splats = tuple(splats)
    biomes_on = biomes_spec is not None and biomes_spec.enabled
    settle_on = settlements_spec is not None and settlements_spec.enabled
    wants_flow = _wants_flow(terrain_spec, biomes_spec, splats, flow or settle_on)
    erosion_on = terrain_spec.erosion.enabled
    rivers_on = rivers_spec is not None and rivers_spec.enabled
    roads_on = roads_spec is not None and roads_spec.enabled
    if (rivers_on or roads_on) and heights.height <= 0.0:
        raise ParameterError("rivers and roads need terrain.height > 0 (a flat terrain has no water to follow)")
    stages = [
        s
        for s, on in (
            ("erosion", erosion_on),
            ("thermal", erosion_on and terrain_spec.erosion.thermal),
            ("flow", wants_flow),
            ("rivers", rivers_on),
            ("roads", roads_on and not settle_on),  # with settlements, their stage lays the roads
            ("biomes", biomes_on),
            ("settlements", settle_on),
            ("splats", bool(splats)),
        )
        if on
    ]
    given = dict(given or {})
    if "eroded" in given:
        stages = [s for s in stages if s not in ("erosion", "thermal")]
        erosion_on = False
    if "flow" in given:
        stages = [s for s in stages if s != "flow"]
        wants_flow = False
    total = sum(LAYER_STEPS[s] for s in stages)
    done = 0
    out: dict[str, Any] = {k: given[k] for k in ("clipped", "eroded", "deposited", "ledger", "flow") if k in given}
    cell, top = heights.cell_size, heights.height
    if erosion_on:
        if top <= 0.0:
            raise ParameterError("terrain.erosion needs terrain.height > 0 (there is nothing to erode)")
        steps = _eroded(heights, terrain_spec, seed)
        while True:
            try:
                done, label = next(steps)
            except StopIteration as stop:
                heights, clipped, eroded, deposited, ledger = stop.value
                break
            yield done, total, label
        out.update(clipped=clipped, eroded=eroded, deposited=deposited, ledger=ledger)
    if wants_flow:  # of the heights the mesh shows (the eroded ones clipped to the terrain's range)
        metres = heights.values.astype(np.float64) * top
        upstream = np.asarray(core_erosion.flow_accumulation(metres, cell_size=cell), np.float64)
        # no flow lines over the sea (the cells biomes call water): on its flat floor the routing
        # draws straight parallel lines to the edge that the flow map and the flow rules would show
        sea_level_m = float(np.float32(terrain_spec.sea_level) * np.float32(top))
        upstream[core_biomes.sea_mask(heights.metres, sea_level=sea_level_m)] = 0.0
        out["flow"] = upstream
        done += LAYER_STEPS["flow"]
        yield done, total, "flow"
    network_maps: dict[str, Any] = {}
    if rivers_on or (roads_on and not settle_on):
        carving = network_steps(heights, terrain_spec, rivers_spec, None if settle_on else roads_spec, planned)
        start = done
        while True:
            try:
                units, label = next(carving)
            except StopIteration as stop:
                networks = stop.value
                break
            done = start + units
            yield done, total, label
        network_maps = networks.pop("splat_maps")
        heights = networks.pop("heights")
        out.update(networks)
        if slope is not None and heights.margin is not None:  # the carved ground's slope, past the edges too
            slope = heightmap.slope_degrees(heights.margin, cell_size=cell, height_scale=top)[1:-1, 1:-1]
        else:
            slope = None  # worked out from the carved heights
    table = None
    # float32 metres and sea level, as TerrainHeights.metres: a flat sea (values exactly the sea
    # level's float32) is exactly at the sea level, so it is water
    metres = heights.metres
    sea_level_m = float(np.float32(terrain_spec.sea_level) * np.float32(top))
    if biomes_on:
        assert biomes_spec is not None
        if top <= sea_level_m:
            raise ParameterError(f"biomes need terrain.height > 0 above the sea, got {top:g} m")
        table = core_biomes.load_table(biomes_spec.table, base=base)
        window, window_flow, margin = _moisture_window(
            heights, terrain_spec, biomes_spec, seed, out.get("flow"), shaper
        )
        moisture = core_biomes.moisture(
            window,
            cell_size=cell,
            seed=seed,
            sea_level=sea_level_m,
            flow=window_flow,
            offset=terrain_spec.offset,
            margin=margin,
            **core_biomes.moisture_kwargs(biomes_spec),
        )
        ids = core_biomes.classify(
            metres, moisture, table=table, sea_level=sea_level_m, height=top, lapse=biomes_spec.lapse
        )
        out.update(
            moisture=moisture,
            biomes=ids,
            biome_names=tuple(table.names),
            biome_colors=np.asarray(table.colors, np.float32),
        )
        done += LAYER_STEPS["biomes"]
        yield done, total, "biomes"
    if settle_on and planned is not None and planned.get("settlements") is not None:
        # a tiled world's: the plan's ground where it levelled a pad or cut a road, the tile's own elsewhere
        heights, tile_roads, kept = _planned_settlements(heights, planned["settlements"])
        out["settlements"] = planned["settlements"]["sites"]
        if tile_roads is not None and out.get("roads") is None:
            out["roads"] = tile_roads
            network_maps["road"] = tile_roads.maps.road
        metres = heights.metres
        slope = None  # worked out from the levelled heights
        out["clearing"] = kept if out.get("clearing") is None else (out["clearing"] | kept)
        done += LAYER_STEPS["settlements"]
        yield done, total, "settlements"
    elif settle_on:  # the pads edit the heights: before the texture layers and the scatter read them
        assert settlements_spec is not None
        settling = build_settlements_steps(
            heights.values.astype(np.float64) * top,
            settlements_spec,
            cell_size=cell,
            origin=grid_origin(heights.values.shape, cell),
            seed=seed,
            # in the float64 heights' own arithmetic, where the flat sea floor is exactly at it (the
            # float32 product may round below it: core.terrain._networks.network_steps)
            sea_level=float(np.float32(terrain_spec.sea_level)) * top if terrain_spec.sea_level > 0.0 else None,
            water=out["water"]
            if out.get("water") is not None
            else out["flow"] >= STREAM_AREA
            if "flow" in out
            else None,
            biomes=out.get("biomes"),
            biome_names=out.get("biome_names", ()),
            # roads already on the ground (the networks' stage) draw sites; otherwise [roads] joins them
            roads=out["roads"].maps.clearing if out.get("roads") is not None else None,
            roads_spec=roads_spec if out.get("roads") is None else None,
            rivers=out.get("rivers"),
        )
        while True:
            try:
                part, whole, label = next(settling)
            except StopIteration as stop:
                built = stop.value
                break
            yield done + LAYER_STEPS["settlements"] * part // max(whole, 1), total, label
        heights = dataclasses.replace(heights, values=(built.heights / top).astype(np.float32))
        metres = heights.metres
        out["settlements"] = built
        if built.roads is not None and out.get("roads") is None:
            out["roads"] = built.roads
            network_maps["road"] = built.roads.maps.road
        elif out.get("roads") is None and roads_spec is not None and roads_spec.enabled:
            # roads on, but fewer than two sites (and points) to join: no road, so a texture layer's
            # ``road`` rule paints nothing (the settlements' warnings say why)
            network_maps["road"] = np.zeros(metres.shape, np.float32)
        slope = None  # worked out from the levelled heights
        kept = built.clearing()
        out["clearing"] = kept if out.get("clearing") is None else (out["clearing"] | kept)
        done += LAYER_STEPS["settlements"]
    if splats:
        weights = core_splat.splat_weights(
            splats,
            heights=metres,
            cell_size=cell,
            biomes=out.get("biomes"),
            table=table,
            deposited=out["deposited"] if "deposited" in out else np.zeros(metres.shape, np.float32),
            flow=out.get("flow"),
            seed=seed,
            offset=terrain_spec.offset,
            slope=slope,
            **network_maps,
        )
        side = alphamap_side(heights.values.shape[0])
        out["weights"] = weights
        out["splats"] = tuple(core_splat.pack_splats(texel_weights(weights, side=side)))
        done += LAYER_STEPS["splats"]
        yield done, total, "splats"
    return TerrainLayers(heights, **out)


def terrain_layers(
    heights: TerrainHeights,
    *,
    terrain_spec: TerrainSpec,
    biomes_spec: BiomesSpec | None = None,
    splats: Iterable[SplatSpec] = (),
    seed: int,
    flow: bool = False,
    base: str | None = None,
    rivers_spec: RiversSpec | None = None,
    settlements_spec: SettlementsSpec | None = None,
    roads_spec: RoadsSpec | None = None,
) -> TerrainLayers:
    """:func:`terrain_layers_steps` run to the end."""
    return drive(
        terrain_layers_steps(
            heights,
            terrain_spec=terrain_spec,
            biomes_spec=biomes_spec,
            splats=splats,
            seed=seed,
            flow=flow,
            base=base,
            rivers_spec=rivers_spec,
            settlements_spec=settlements_spec,
            roads_spec=roads_spec,
        )
    )


def _planned_settlements(
    heights: TerrainHeights, plan: Mapping[str, Any]
) -> tuple[TerrainHeights, Any, npt.NDArray[np.bool_]]:
    """A tile's part of a world's settlements (``planned["settlements"]``: ``ground`` metres,
    ``settled`` and ``clearing`` masks over the world grid, ``roads``, ``offset`` the tile's first
    cell): ``(heights, roads, clearing)``, the heights the plan's ground on the cells it settled (and
    on the ring around the tile, for the edge normals), the roads with their maps cut to the tile."""
    ground = np.asarray(plan["ground"], np.float64)
    settled = np.asarray(plan["settled"], bool)
    r0, c0 = (int(v) for v in plan["offset"])
    rows, cols = heights.values.shape
    top = heights.height

    def take(target: npt.NDArray[np.float32], ra: int, ca: int) -> npt.NDArray[np.float32]:
        """``target`` (its cell (0, 0) at world (ra, ca)) with the settled cells of the world inside it."""
        out = target.copy()
        wr0, wc0 = max(ra, 0), max(ca, 0)
        wr1, wc1 = min(ra + target.shape[0], ground.shape[0]), min(ca + target.shape[1], ground.shape[1])
        if wr1 <= wr0 or wc1 <= wc0:
            return out
        m = settled[wr0:wr1, wc0:wc1]
        part = out[wr0 - ra : wr1 - ra, wc0 - ca : wc1 - ca]
        part[m] = (ground[wr0:wr1, wc0:wc1][m] / top).astype(np.float32)
        return out

    values = take(heights.values, r0, c0)
    margin = take(heights.margin, r0 - 1, c0 - 1) if heights.margin is not None else None
    if margin is not None:
        margin[1:-1, 1:-1] = values
    box = (slice(r0, r0 + rows), slice(c0, c0 + cols))
    roads = plan.get("roads")
    if roads is not None:
        cut = {f.name: getattr(roads.maps, f.name)[box] for f in dataclasses.fields(roads.maps)}
        roads = dataclasses.replace(roads, maps=dataclasses.replace(roads.maps, **cut))
    clearing = np.asarray(plan["clearing"], bool)[box].copy()
    return dataclasses.replace(heights, values=values, margin=margin), roads, clearing


def _network_splat_maps(layers: TerrainLayers) -> dict[str, Any]:
    """The ``river``, ``bank`` and ``road`` maps the texture rules read, from the networks ``layers``
    hold (as :func:`terrain_layers_steps` passed them on)."""
    maps: dict[str, Any] = {}
    if layers.rivers is not None:
        maps.update(layers.rivers.maps.splat_maps)
    if layers.roads is not None:
        maps["road"] = layers.roads.maps.road
    elif layers.settlements is not None:  # the settlements' roads, none laid (one site): as the build had it
        maps["road"] = np.zeros(layers.heights.values.shape, np.float32)
    return maps


def _settlement_water(out: Mapping[str, Any]) -> npt.NDArray[np.bool_] | None:
    """Open water for the settlements' sites: the rivers and lakes when the networks are worked out,
    else the streams of the flow (upstream area of at least :data:`STREAM_AREA`)."""
    if out.get("water") is not None:
        return np.asarray(out["water"], bool)
    if "flow" in out:
        return np.asarray(out["flow"] >= STREAM_AREA)
    return None


def repaint_splats(
    layers: TerrainLayers,
    *,
    terrain_spec: TerrainSpec,
    biomes_spec: BiomesSpec | None,
    splats: Iterable[SplatSpec],
    seed: int,
    trail: npt.NDArray[np.float32] | None = None,
    base: str | None = None,
) -> TerrainLayers:
    """``layers`` with the texture layers' weights and splat images worked out again from the maps
    they hold (biomes, deposits, flow) and ``trail`` (the ecosystem's wear at the vertices, in
    [0, 1]: the ``trail`` rule), as :func:`terrain_layers_steps` made them; the same layers
    when ``splats`` is empty.  The other maps are kept as they are."""
    splats = tuple(splats)
    if not splats:
        return layers
    table = None
    if biomes_spec is not None and biomes_spec.enabled:
        table = core_biomes.load_table(biomes_spec.table, base=base)
    metres = layers.heights.metres
    weights = core_splat.splat_weights(
        splats,
        heights=metres,
        cell_size=layers.heights.cell_size,
        biomes=layers.biomes,
        table=table,
        deposited=layers.deposited if layers.deposited is not None else np.zeros(metres.shape, np.float32),
        flow=layers.flow,
        trail=trail,
        seed=seed,
        offset=terrain_spec.offset,
        **_network_splat_maps(layers),
    )
    side = alphamap_side(layers.heights.values.shape[0])
    return dataclasses.replace(
        layers, weights=weights, splats=tuple(core_splat.pack_splats(texel_weights(weights, side=side)))
    )
