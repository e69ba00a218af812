"""Splat weights: how much of each texture layer covers each cell, from the layers' rules.

Layers are painted in order, like layers in a paint program: layer 0 is the ground everywhere;
every later layer covers what lies below it with an opacity, the product of its rules (height,
slope, biomes, deposits, flow, noise patches) times its strength. So the weights of a cell sum to
1, and every rule's smooth ramp gives a smooth blend.
"""

from collections.abc import Iterable
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import exact
from .._checks import check_array, check_float, check_heights, check_int, check_pair
from ..biomes import BiomeTable, noise_uniform
from ..errors import ParameterError, short
from ..heightmap import slope_degrees
from ..noise import fbm
from ._limits import (
    DEPOSIT_DEPTH,
    FADE_DEG,
    FADE_M,
    FLOW_AREA,
    HEIGHT,
    MAX_LAYERS,
    NOISE_SCALE,
    RULE_WEIGHT,
    SLOPE,
    SPLAT_STREAM,
    TILE_SIZE,
    UNIT,
)
from .spec import SplatSpec

__all__ = [
    "splat_weights",
    "splat_margin",
    "smooth_ramp",
    "box_blur",
    "HEIGHT",
    "SLOPE",
    "FADE_M",
    "FADE_DEG",
    "RULE_WEIGHT",
    "DEPOSIT_DEPTH",
    "FLOW_AREA",
    "UNIT",
    "NOISE_SCALE",
    "TILE_SIZE",
    "MAX_LAYERS",
    "SPLAT_STREAM",
]

#: Octaves of the patch noise.
NOISE_OCTAVES = 4


def smooth_ramp(
    v: npt.NDArray[np.float32], lo: float, hi: float, fade: float, *, fade_low: bool = True, fade_high: bool = True
) -> npt.NDArray[np.float32]:
    """1 inside [lo, hi] away from its limits, rising from 0 at each limit over ``fade``
    (smoothstep of the distance to the nearer limit), 0 outside.

    ``fade = 0`` gives a hard 0/1 step. ``fade_low`` / ``fade_high`` False: no limit on that side.

    >>> smooth_ramp(np.array([0.0, 1.0, 2.0, 3.0, 9.0, 11.0], np.float32), 0.0, 10.0, 2.0).tolist()
    [0.0, 0.5, 1.0, 1.0, 0.5, 0.0]
    """
    v = np.asarray(v, dtype=np.float32)
    if not (fade_low or fade_high):
        return np.ones(v.shape, np.float32)
    if fade_low and fade_high:
        d = v - np.float32(lo)
        np.minimum(d, np.float32(hi) - v, out=d)
    elif fade_low:
        d = v - np.float32(lo)
    else:
        d = np.float32(hi) - v
    if fade <= 1.0e-30:  # (a fade this small is a step; 1 / fade would overflow float32)
        return (d >= 0.0).astype(np.float32)
    d *= np.float32(1.0 / fade)
    np.clip(d, 0.0, 1.0, out=d)
    # smoothstep 3t^2 - 2t^3 = t * t * (3 - 2t)
    s = d * np.float32(-2.0)
    s += np.float32(3.0)
    s *= d
    s *= d
    return s


def box_blur(a: npt.NDArray[np.float32], radius: int) -> npt.NDArray[np.float32]:
    """Two passes of a (2 radius + 1)-wide box filter along both axes (a tent-like blur), edges
    extended; float32.

    >>> a = np.zeros((1, 7), np.float32)
    >>> a[0, 3] = 1.0
    >>> [round(float(v), 3) for v in box_blur(a, 1)[0]]
    [0.0, 0.111, 0.222, 0.333, 0.222, 0.111, 0.0]
    """
    out = np.asarray(a, dtype=np.float32)
    k = int(radius)
    if k < 1:
        return out.copy()
    scale = np.float32(1.0 / (2 * k + 1))
    for _ in range(2):
        for axis in (0, 1):
            n = out.shape[axis]
            pad = [(0, 0), (0, 0)]
            pad[axis] = (k, k)
            p = np.pad(out, pad, mode="edge")
            if k <= 8:  # a few shifted adds beat a cumulative sum
                if axis == 0:
                    acc = p[:n].copy()
                    for d in range(1, 2 * k + 1):
                        acc += p[d : d + n]
                else:
                    acc = p[:, :n].copy()
                    for d in range(1, 2 * k + 1):
                        acc += p[:, d : d + n]
            else:
                c = np.cumsum(p, axis=axis, dtype=np.float64)
                hi = np.take(c, np.arange(2 * k, 2 * k + n), axis=axis)
                lo = np.take(c, np.arange(-1, n - 1), axis=axis)
                if axis == 0:
                    lo[0] = 0.0
                else:
                    lo[:, 0] = 0.0
                acc = (hi - lo).astype(np.float32)
            acc *= scale
            out = acc
    return out


def _check_layers(layers: Iterable[SplatSpec]) -> tuple[SplatSpec, ...]:
    try:
        layers = tuple(layers)
    except TypeError:
        raise ParameterError(f"layers must be a sequence of SplatSpec, got {short(layers)}") from None
    if not 1 <= len(layers) <= MAX_LAYERS:
        raise ParameterError(f"layers must hold 1 to {MAX_LAYERS} SplatSpec layers, got {len(layers)}")
    for i, layer in enumerate(layers):
        if not isinstance(layer, SplatSpec):
            raise ParameterError(f"layers[{i}] must be a SplatSpec, got {type(layer).__name__}")
    return layers


def _map(value: object, name: str, shape: tuple[int, ...], why: str, kinds: str = "f") -> npt.NDArray[Any]:
    if value is None:
        raise ParameterError(f"{name} is needed: {why}")
    return check_array(value, name=name, shape=shape, dtype_kind=kinds)


def splat_weights(
    layers: Iterable[SplatSpec],
    *,
    heights: npt.ArrayLike,
    cell_size: float,
    slope: npt.ArrayLike | None = None,
    biomes: npt.ArrayLike | None = None,
    table: BiomeTable | None = None,
    deposited: npt.ArrayLike | None = None,
    flow: npt.ArrayLike | None = None,
    river: npt.ArrayLike | None = None,
    bank: npt.ArrayLike | None = None,
    road: npt.ArrayLike | None = None,
    trail: npt.ArrayLike | None = None,
    seed: int = 0,
    offset: tuple[float, float] = (0.0, 0.0),
    margin: int = 0,
) -> npt.NDArray[np.float32]:
    """Weights (L, rows, cols) of the texture layers, summing to 1 per cell.

    Parameters
    ----------
    layers : sequence of SplatSpec
        1 to ``MAX_LAYERS`` layers. Layer 0 is the ground (its rules are not used); each later
        layer covers the layers before it with an opacity: the product of its rule factors
        (each in [0, 1]) times its ``strength``.
    heights : (rows, cols) array_like of float
        Heights in metres (row 0 at the smallest Y).
    cell_size : float
        Metres between neighbouring cells.
    slope : (rows, cols) array_like of float or None
        Slope in degrees; None: :func:`core.heightmap.slope_degrees` of the heights (when a layer
        has a slope rule).
    biomes : (rows, cols) uint8 array_like or None
        Biome ids (:func:`core.biomes.classify`), with ``table``, for layers with a biome rule.
    table : BiomeTable or None
    deposited : (rows, cols) array_like of float or None
        Deposited depth per cell in metres (hydraulic erosion), for layers with a deposit rule.
    flow : (rows, cols) array_like of float or None
        Upstream area per cell in m^2 (flow accumulation), for layers with a flow rule.
    river, bank, road : (rows, cols) array_like of float in [0, 1] or None
        The networks' maps (``core.rivers.RiverMaps.river`` and ``.bank``, ``core.roads.RoadMaps.road``),
        for layers with a ``river``, ``bank`` or ``road`` rule.
    trail : (rows, cols) array_like of float in [0, 1] or None
        Trail wear (``core.ecosystem.trail_map`` at the vertices), for layers with a ``trail``
        rule; None: no trails anywhere (the terrain's layers are worked out before its ecosystem
        runs: the ecosystem paints them again with its wear).
    seed : int >= 0
        Seeds the patch noise (layer ``i`` draws from ``SeedSequence([seed, SPLAT_STREAM, i])``).
    offset : (float, float)
        The tile's position in metres (of its first vertex, inside any margin): the patch noise
        is sampled in world coordinates.
    margin : int >= 0
        Cells around the tile that every map given here has on every side (what the
        neighbouring tiles hold there); the weights are those of the tile inside. With a margin
        of :func:`splat_margin` cells the weights along a shared edge equal the neighbour's.

    Returns
    -------
    weights : (L, rows, cols) float32 ndarray
        In [0, 1], summing to 1 per cell (to float32 rounding); :func:`core.splat.pack_splats`
        turns them into 8-bit splat images that sum to exactly 255.

    Notes
    -----
    Rule factors, each a smoothstep ramp (a hard step when its fade is 0):

    * height: 1 inside ``height_range``, rising over ``height_fade`` metres inside each limit;
    * slope: the same over ``slope_fade`` degrees (a lower limit of 0 does not fade);
    * biomes: the named biomes' weights, blurred over ``biome_fade`` metres across borders;
    * deposits ``w``: ``d = smoothstep(deposited / deposit_depth)``; ``1 - w + w d`` for
      ``w > 0`` (only on deposits at 1), ``1 + w d`` for ``w < 0`` (never on them at -1);
    * flow ``w``: the same with ``d`` the logarithmic ramp of the upstream area over
      ``flow_range``;
    * river, bank, road ``w``: the same with ``d`` the network's map (water cover, bank
      preference, road cover, each in [0, 1]);
    * trail ``w``: the same with ``d`` the trail wear in [0, 1] (0 without a trail map);
    * patches: the layer's fBm (world coordinates, fixed curve :func:`core.biomes.noise_uniform`)
      above ``patchiness``, rising over ``noise_fade``.

    Every factor but the slope (central differences) and the biome blur is per cell, so tiles
    join; those two need the neighbours' cells near the edge: pass maps with ``margin =
    splat_margin(layers, cell_size=...)`` cells around the tile (without a margin the edge
    cells are extended outwards, and a shared edge may differ slightly). With the margin the
    shared edge is bit for bit the same for blur radii up to 8 cells (shifted sums), and equal
    to float rounding beyond (a cumulative sum).

    Examples
    --------
    >>> h = np.tile(np.linspace(0.0, 40.0, 9, dtype=np.float32), (4, 1))
    >>> w = splat_weights([SplatSpec(name="Grass"), SplatSpec(name="Snow", height_range=(20.0, 1e6),
    ...                    height_fade=10.0)], heights=h, cell_size=1.0)
    >>> w[1, 0].round(2).tolist()
    [0.0, 0.0, 0.0, 0.0, 0.0, 0.5, 1.0, 1.0, 1.0]
    >>> bool(np.allclose(w.sum(axis=0), 1.0))
    True
    """
    layers = _check_layers(layers)
    h = check_heights(heights, name="heights")
    if min(h.shape) < 2:
        raise ParameterError(f"heights must have at least 2 rows and 2 columns, got shape {h.shape}")
    cell_size = check_float(cell_size, name="cell_size", bounds=(0.0, None), open_low=True)
    seed = check_int(seed, name="seed", bounds=(0, 2**63 - 1))
    ox, oy = check_pair(offset, name="offset", bounds=(-1.0e7, 1.0e7))
    margin = check_int(margin, name="margin", bounds=(0, max(0, (min(h.shape) - 2) // 2)))
    ox, oy = ox / cell_size - margin, oy / cell_size - margin
    shape = h.shape
    h32 = h.astype(np.float32, copy=False)
    L = len(layers)
    out = np.empty((L,) + shape, dtype=np.float32)
    rest = np.ones(shape, dtype=np.float32)
    maps: dict[str, npt.NDArray[Any]] = {}
    biome_cache = {}

    def slope_map() -> npt.NDArray[np.float32]:
        if "slope" not in maps:
            maps["slope"] = (
                slope_degrees(h32, cell_size=cell_size)
                if slope is None
                else check_array(slope, name="slope", shape=shape).astype(np.float32, copy=False)
            )
        return maps["slope"]

    for i in range(L - 1, 0, -1):
        layer = layers[i]
        where = f"layers[{i}] ({layer.name!r})"
        f = None  # the product of the rule factors so far (None: 1 everywhere)
        key: tuple[tuple[tuple[str, float], ...], float] | str  # a biome rule's cache key, a network map's name

        def times(g: npt.NDArray[np.float32], own: bool = True) -> None:
            nonlocal f
            if f is None:
                f = g if own else g.copy()
            else:
                f *= g

        lo, hi = layer.height_range
        if lo > HEIGHT[0] or hi < HEIGHT[1]:
            times(smooth_ramp(h32, lo, hi, layer.height_fade, fade_low=lo > HEIGHT[0], fade_high=hi < HEIGHT[1]))
        lo, hi = layer.slope_range
        if lo > SLOPE[0] or hi < SLOPE[1]:
            times(smooth_ramp(slope_map(), lo, hi, layer.slope_fade, fade_low=lo > SLOPE[0], fade_high=hi < SLOPE[1]))
        if layer.biomes:
            key = (layer.biomes, layer.biome_fade)
            if key not in biome_cache:
                if not isinstance(table, BiomeTable):
                    raise ParameterError(f"{where} has a biome rule: table (a BiomeTable) is needed")
                if "biomes" not in maps:
                    ids = _map(biomes, "biomes", shape, f"{where} has a biome rule", kinds="ui")
                    if ids.size and (int(ids.min()) < 0 or int(ids.max()) >= len(table.names)):
                        raise ParameterError(f"biomes must hold ids below {len(table.names)} of table {table.name!r}")
                    maps["biomes"] = ids
                lut = np.zeros(len(table.names), np.float32)
                for name, weight in layer.biomes:
                    lut[table.index(name, where=f"{where}.biomes:")] = weight
                factor = lut.take(maps["biomes"])
                radius = round(layer.biome_fade / (4.0 * cell_size))  # two box passes of width 2r+1: ~fade
                biome_cache[key] = box_blur(factor, radius) if radius >= 1 else factor
            times(biome_cache[key], own=False)
        if layer.deposits != 0.0:
            if "deposited" not in maps:
                maps["deposited"] = _map(deposited, "deposited", shape, f"{where} has a deposit rule").astype(
                    np.float32, copy=False
                )
            d = smooth_ramp(maps["deposited"], 0.0, 0.0, layer.deposit_depth, fade_high=False)
            times(_follow(d, layer.deposits))
        if layer.flow != 0.0:
            if "flow" not in maps:
                maps["flow"] = _map(flow, "flow", shape, f"{where} has a flow rule").astype(np.float32, copy=False)
            lo, hi = layer.flow_range
            # log from core.exact: numpy's differs between CPUs
            d = exact.log(np.maximum(maps["flow"], np.float32(lo)) * np.float32(1.0 / lo)).astype(np.float32)
            d *= np.float32(1.0 / exact.log(hi / lo))
            np.clip(d, 0.0, 1.0, out=d)
            times(_follow(d, layer.flow))
        for key, given in (("river", river), ("bank", bank), ("road", road)):
            weight = getattr(layer, key)
            if weight != 0.0:
                if key not in maps:
                    d = _map(given, key, shape, f"{where} has a {key} rule").astype(np.float32, copy=False)
                    maps[key] = np.clip(d, 0.0, 1.0)
                times(_follow(maps[key], weight))
        if layer.trail != 0.0:
            if "trail" not in maps:
                wear = (
                    np.zeros(shape, np.float32) if trail is None else _map(trail, "trail", shape, "").astype(np.float32)
                )
                maps["trail"] = np.clip(wear, 0.0, 1.0)
            times(_follow(maps["trail"], layer.trail))
        if layer.patchiness > 0.0:
            rng = np.random.default_rng(np.random.SeedSequence([seed, SPLAT_STREAM, i]))
            n = fbm(
                shape, scale=min(layer.noise_scale / cell_size, 1.0e6), octaves=NOISE_OCTAVES, seed=rng, offset=(ox, oy)
            )
            times(smooth_ramp(noise_uniform(n), layer.patchiness, 1.0, layer.noise_fade, fade_high=False))
        if f is None:
            np.multiply(rest, np.float32(layer.strength), out=out[i])
        else:
            if layer.strength != 1.0:
                f *= np.float32(layer.strength)
            np.multiply(f, rest, out=out[i])
        rest -= out[i]
    out[0] = rest
    if margin:
        return np.ascontiguousarray(out[:, margin:-margin, margin:-margin])
    return out


def splat_margin(layers: Iterable[SplatSpec], *, cell_size: float) -> int:
    """Cells of margin :func:`splat_weights` needs for a tile's weights to equal its neighbours'
    along shared edges: 1 for a slope rule (central differences), the blur's reach (2 passes of
    ``round(biome_fade / (4 cell_size))`` cells) for a biome rule; 0 when every rule is per cell.

    >>> splat_margin([SplatSpec(), SplatSpec(biomes=(("forest", 1.0),), biome_fade=8.0)], cell_size=1.0)
    4
    """
    layers = _check_layers(layers)
    cell_size = check_float(cell_size, name="cell_size", bounds=(0.0, None), open_low=True)
    need = 0
    for layer in layers[1:]:
        lo, hi = layer.slope_range
        if lo > SLOPE[0] or hi < SLOPE[1]:
            need = max(need, 1)
        if layer.biomes:
            need = max(need, 2 * round(layer.biome_fade / (4.0 * cell_size)))
    return need


def _follow(d: npt.NDArray[np.float32], weight: float) -> npt.NDArray[np.float32]:
    """A rule's factor from its map ``d`` in [0, 1]: ``1 - w + w d`` (w > 0) or ``1 + w d`` (w < 0)."""
    if weight > 0.0:
        d = d * np.float32(weight)
        d += np.float32(1.0 - weight)
        return d
    d = d * np.float32(weight)
    d += np.float32(1.0)
    return d
