"""Rule masks for scatter layers: where props may stand on a heightmap (height, slope, sea, noise patches,
and, from the terrain's layers, biomes, erosion deposits and water flow).

`ScatterRules` holds the rules; `rule_mask` turns them into a density in [0, 1] per heightmap
cell.  The map rules read ``maps``: ``{"biomes": uint8 ids, "biome_names": names of the ids,
"deposited": metres, "flow": upstream square metres, "clearing": bool}``, each (rows, cols) like the heights
(``core.terrain.TerrainLayers.scatter_maps`` gives them); without ``deposited`` nothing is
deposited, without ``flow`` it is worked out from the heights.  Public through :mod:`core.scatter`.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt

from .. import biomes
from .._checks import Seed, check_bool, check_float, make_rng
from ..erosion import flow_accumulation
from ..errors import ParameterError
from ..heightmap import slope_degrees
from ..noise import fbm, fbm_at
from ..spec import did_you_mean
from . import _terrain_sample as ts

#: Slope limits in degrees.
SLOPE = (0.0, 90.0)
#: Height limits in metres.
HEIGHT = (-10_000_000.0, 10_000_000.0)
#: Share of the terrain left bare by the noise patches.
PATCHINESS = (0.0, 1.0)
#: Feature size of the patch noise, in metres.
PATCH_SCALE = (0.01, 1_000_000.0)
#: Fades: metres (height), degrees (slope) or share of the terrain (patches).
FADE = (0.0, 1_000_000.0)
#: Distance kept from earlier layers' props, metres.
KEEP_AWAY = (0.0, 100_000.0)
#: Depth of eroded material deposited on a cell, metres.
DEPOSITS = (0.0, 100_000.0)
#: Upstream area draining through a cell (flow accumulation), square metres.
FLOW = (0.0, 1.0e12)
#: The maps a rule may read, and the rule that needs each.
MAP_KEYS = ("biomes", "biome_names", "deposited", "flow", "clearing")
#: A tiled world's patches: ``((ox, oy), seed)`` (:func:`rule_mask`).
Patches: TypeAlias = tuple[tuple[float, float], int]

# ---------------------------------------------------------------------------------------------
# rules


def check_range(value: Any, name: str, bounds: tuple[float, float]) -> tuple[float, float]:
    try:
        lo, hi = value
    except (TypeError, ValueError):
        raise ParameterError(f"{name} must be a pair (low, high), got {value!r}") from None
    lo = check_float(lo, name=f"{name}[0]", bounds=bounds)
    hi = check_float(hi, name=f"{name}[1]", bounds=bounds)
    if hi < lo:
        raise ParameterError(f"{name} must have low <= high, got ({lo:g}, {hi:g})")
    return lo, hi


def check_biomes(value: object, name: str) -> tuple[tuple[str, float], ...]:
    """Biome names with weights, as :func:`core.biomes.check_biome_weights` reads them (one reader for
    scatter and texture layers alike).

    >>> check_biomes("forest, grassland = 0.25", "biomes")
    (('forest', 1.0), ('grassland', 0.25))
    """
    return biomes.check_biome_weights(value, name)


@dataclass(frozen=True)
class ScatterRules:
    """Where a layer's props may stand, and how densely.

    Attributes
    ----------
    height_range : (float, float) or None
        Heights in metres (within ``HEIGHT``) props may stand at; None for no limit.
    slope_range : (float, float)
        Slopes in degrees (within ``SLOPE``) props may stand on; (0, 90) for no limit.
    patchiness : float
        Share of the terrain, within ``PATCHINESS``, left bare by fractal-noise patches
        (0: none, 0.5: half); the count falls roughly in proportion.
    patch_scale : float
        Size of the patches in metres (the noise's first octave), within ``PATCH_SCALE``.
    patch_fade : float
        Share of the terrain over which a patch's density rises from 0 to 1 at its edge,
        within [0, 1]; 0 gives hard edges.
    height_fade, slope_fade : float
        Metres and degrees inside the height and slope ranges over which the density rises
        from 0 at the limit to 1 (0: a hard edge).  The slope's lower limit fades only when
        it is above 0 (nothing is flatter than flat).
    above_sea : bool
        Keep props above ``sea_level_m``.
    sea_level_m : float
        The water line in metres (within ``HEIGHT``); props stand only strictly above it.
    keep_away : float or None
        Distance in metres (within ``KEEP_AWAY``) this layer's props keep from the props of
        earlier layers, at least their own radius.  None: the earlier prop's own radius
        (``max(this radius, earlier radius)``, so a layer only fills room the earlier layers
        left); 0: this layer's radius only (an understory under a canopy).
    biomes : tuple of (str, float)
        Biomes the props grow in, with weights in [0, 1] (other biomes: 0); ``()`` for no
        rule.  Needs ``maps["biomes"]`` and ``maps["biome_names"]``.  A weight is a density:
        with a varying spacing it sets the spacing, with a fixed one the layer's props in that
        biome are thinned to that share (`scatter_layers`).
    deposits : (float, float) or None
        Depth in metres (within ``DEPOSITS``) of eroded material deposited on the ground that
        props stand on (scree on deposits: ``(0.2, 1e5)``); needs ``maps["deposited"]``.
    flow : (float, float) or None
        Upstream area in square metres (within ``FLOW``) draining through the ground props
        stand on (reeds along streams: ``(5000, 1e12)``), the largest within a cell of it (a flow
        line is one cell wide); reads ``maps["flow"]``.

    Notes
    -----
    Every rule gives a factor in [0, 1] per heightmap vertex and `rule_mask` multiplies them.
    A prop goes only into heightmap cells whose four corners all have a density above 0, so
    every rule holds at the prop itself: its height (on the mesh's triangles, a blend of the
    cell's corners) is within the height range and above the sea, the bilinear slope (and the
    tilt of the interpolated normal) within the slope range's upper limit.
    """

    height_range: tuple[float, float] | None = None
    slope_range: tuple[float, float] = (0.0, 35.0)
    patchiness: float = 0.0
    patch_scale: float = 50.0
    patch_fade: float = 0.0
    height_fade: float = 0.0
    slope_fade: float = 0.0
    above_sea: bool = True
    sea_level_m: float = 0.0
    keep_away: float | None = None
    biomes: tuple[tuple[str, float], ...] = ()
    deposits: tuple[float, float] | None = None
    flow: tuple[float, float] | None = None

    def __post_init__(self) -> None:
        s = object.__setattr__
        if self.height_range is not None:
            s(self, "height_range", check_range(self.height_range, "height_range", HEIGHT))
        s(self, "slope_range", check_range(self.slope_range, "slope_range", SLOPE))
        s(self, "patchiness", check_float(self.patchiness, name="patchiness", bounds=PATCHINESS))
        s(self, "patch_scale", check_float(self.patch_scale, name="patch_scale", bounds=PATCH_SCALE))
        s(self, "patch_fade", check_float(self.patch_fade, name="patch_fade", bounds=(0.0, 1.0)))
        s(self, "height_fade", check_float(self.height_fade, name="height_fade", bounds=FADE))
        s(self, "slope_fade", check_float(self.slope_fade, name="slope_fade", bounds=SLOPE))
        s(self, "above_sea", check_bool(self.above_sea, name="above_sea"))
        s(self, "sea_level_m", check_float(self.sea_level_m, name="sea_level_m", bounds=HEIGHT))
        if self.keep_away is not None:
            s(self, "keep_away", check_float(self.keep_away, name="keep_away", bounds=KEEP_AWAY))
        s(self, "biomes", check_biomes(self.biomes, "biomes"))
        if self.deposits is not None:
            s(self, "deposits", check_range(self.deposits, "deposits", DEPOSITS))
        if self.flow is not None:
            s(self, "flow", check_range(self.flow, "flow", FLOW))

    @property
    def maps_needed(self) -> tuple[str, ...]:
        """The keys of ``maps`` these rules read."""
        return (
            (("biomes", "biome_names") if self.biomes else ())
            + (("deposited",) if self.deposits is not None else ())
            + (("flow",) if self.flow is not None else ())
        )


def _ramp(
    v: npt.NDArray[np.floating[Any]], lo: float, hi: float, fade: float, fade_low: bool = True
) -> npt.NDArray[np.float32]:
    """1 inside [lo, hi] (fading to 0 at the limits over ``fade``), 0 outside."""
    inside = (v >= lo) & (v <= hi)
    if fade <= 0.0:
        return inside.astype(np.float32)
    up = (v - lo) / fade if fade_low else np.ones_like(v)
    down = (hi - v) / fade
    return np.where(inside, np.clip(np.minimum(up, down), 0.0, 1.0), 0.0).astype(np.float32)


def check_maps(
    maps: Mapping[str, Any] | None,
    shape: tuple[int, ...],
    rules_list: Sequence[ScatterRules],
    *,
    heights: npt.NDArray[np.float64] | None = None,
    cell: float | None = None,
) -> dict[str, Any]:
    """``maps`` checked against the heights' ``shape`` and what ``rules_list`` need: a dict of arrays.

    What a rule needs and ``maps`` lacks is made when it can be: no ``deposited`` is a terrain
    without erosion (nothing deposited anywhere), no ``flow`` is worked out from ``heights``
    (metres, cells of ``cell`` metres) with :func:`core.erosion.flow_accumulation`.  Biomes come
    only from the terrain's layers.
    """
    if maps is None:
        maps = {}
    if not isinstance(maps, dict):
        raise ParameterError(f"maps must be a dict of {', '.join(MAP_KEYS)}, got {type(maps).__name__}")
    unknown = sorted(set(maps) - set(MAP_KEYS))
    if unknown:
        raise ParameterError(f"maps has unknown key(s) {unknown}; allowed: {list(MAP_KEYS)}")
    out: dict[str, Any] = {}
    for key in MAP_KEYS:
        value = maps.get(key)
        if value is None:
            continue
        if key == "biome_names":
            out[key] = tuple(str(n) for n in value)
            continue
        arr = np.asarray(value)
        if arr.dtype.kind == "f" and not np.isfinite(arr).all():
            raise ParameterError(f"maps[{key!r}] must contain only finite values (found NaN or inf)")
        kinds, what = {"biomes": ("iu", "integer"), "clearing": ("b", "bool")}.get(key, ("f", "float"))
        if arr.dtype.kind not in kinds or arr.shape != tuple(shape):
            raise ParameterError(
                f"maps[{key!r}] must be a {what} array of the heights' shape {tuple(shape)}, "
                f"got {arr.dtype} {arr.shape}"
            )
        out[key] = arr
    needed = {k for rules in rules_list for k in rules.maps_needed}
    if "deposited" in needed and "deposited" not in out:
        out["deposited"] = np.zeros(tuple(shape))
    if "flow" in needed and "flow" not in out and heights is not None:
        assert cell is not None, "heights come with their cell size"
        out["flow"] = flow_accumulation(heights, cell_size=cell)
    for rules in rules_list:
        missing = [k for k in rules.maps_needed if k not in out]
        if missing:
            raise ParameterError(
                f"a rule needs maps {missing} (the biome map: build the terrain's layers with [biomes] on), "
                f"got {sorted(out)}"
            )
    return out


def biome_weights(rules: ScatterRules, maps: Mapping[str, Any]) -> npt.NDArray[np.float32]:
    """The rules' biome weight at every cell: (rows, cols) float32 (0 in biomes not named)."""
    names = maps["biome_names"]
    lut = np.zeros(max(len(names), int(maps["biomes"].max(initial=0)) + 1), np.float32)
    for name, weight in rules.biomes:
        if name not in names:
            raise ParameterError(
                f"biomes names {name!r}, which is not a biome of the table{did_you_mean(name, names)}; "
                f"biomes: {', '.join(names)}"
            )
        lut[names.index(name)] = weight
    return lut[maps["biomes"]]


def _widened(grid: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """The largest value of every cell's 3 x 3 neighbourhood: a flow line (one cell wide) reaches the
    cells beside it, so props can stand along it (a prop needs its cell's four corners allowed)."""
    padded = np.pad(grid, 1, mode="edge")
    rows, cols = grid.shape
    out = grid.copy()
    for dy in range(3):
        for dx in range(3):
            np.maximum(out, padded[dy : dy + rows, dx : dx + cols], out=out)
    return out


#: Samples a side of the grid a world's patch thresholds are taken over (``patches=`` of
#: :func:`rule_mask`), spaced a quarter of the patch scale apart.
PATCH_SAMPLES = 128


def _world_patches(
    shape: tuple[int, ...], scale: float, rules: ScatterRules, patches: Patches
) -> tuple[npt.NDArray[np.float32], np.floating[Any], np.floating[Any]]:
    """Patch noise of a tile of a world at its offset, and thresholds of the world's noise.

    ``patches = ((ox, oy), seed)``: the tile's first vertex in cells and the world's patch seed.
    The thresholds are quantiles over a fixed grid of the same noise (not the tile's), so every tile
    cuts the one noise field at the same levels: the patches run on across tile borders.
    """
    (ox, oy), seed = patches
    n = fbm(shape, scale=scale, octaves=4, seed=seed, offset=(ox, oy))
    step = max(scale / 4.0, 1.0)
    axis = np.arange(PATCH_SAMPLES, dtype=np.float64) * step
    ref = fbm_at(axis[None, :], axis[:, None], scale=scale, octaves=4, seed=seed).ravel()
    t0 = np.quantile(ref, rules.patchiness)
    t1 = np.quantile(ref, min(1.0, rules.patchiness + rules.patch_fade)) if rules.patch_fade > 0.0 else t0
    return n, t0, t1


def density_mask(
    h: npt.NDArray[np.float64],
    cell: float,
    rules: ScatterRules,
    rng: np.random.Generator,
    slope: npt.NDArray[np.floating[Any]] | None = None,
    maps: Mapping[str, Any] | None = None,
    patches: Patches | None = None,
) -> npt.NDArray[np.float32]:
    mask = np.ones(h.shape, np.float32)
    if rules.above_sea:
        mask *= h > rules.sea_level_m
    if rules.height_range is not None:
        mask *= _ramp(h, *rules.height_range, rules.height_fade)
    lo, hi = rules.slope_range
    if lo > 0.0 or hi < 90.0:
        if slope is None:
            slope = slope_degrees(h, cell_size=cell)
        mask *= _ramp(slope, lo, hi, rules.slope_fade, fade_low=lo > 0.0)
    if rules.patchiness > 0.0:
        if rules.patchiness >= 1.0:
            return np.zeros(h.shape, np.float32)
        scale = min(rules.patch_scale / cell, 1_000_000.0)
        if patches is not None:
            n, t0, t1 = _world_patches(h.shape, scale, rules, patches)
        else:
            n = fbm(h.shape, scale=scale, octaves=4, seed=rng)
            t0 = np.quantile(n, rules.patchiness)
        if rules.patch_fade > 0.0:
            if patches is None:
                t1 = np.quantile(n, min(1.0, rules.patchiness + rules.patch_fade))
            mask *= np.clip((n - t0) / max(t1 - t0, 1e-12), 0.0, 1.0).astype(np.float32)
        else:
            mask *= n > t0
    if rules.biomes:
        assert maps is not None, "check_maps gives the maps the rules read"
        mask *= biome_weights(rules, maps)
    if rules.deposits is not None:
        assert maps is not None
        mask *= _ramp(maps["deposited"], *rules.deposits, 0.0)
    if rules.flow is not None:
        assert maps is not None
        mask *= _ramp(_widened(maps["flow"]), *rules.flow, 0.0)
    if maps is not None and maps.get("clearing") is not None:
        mask[maps["clearing"]] = 0.0  # cleared ground (water, roads, trampled trails): no prop, whatever the rules
    return mask


def rule_mask(
    heights: npt.ArrayLike,
    *,
    size: float,
    rules: ScatterRules,
    seed: Seed = 0,
    maps: Mapping[str, Any] | None = None,
    patches: Patches | None = None,
) -> npt.NDArray[np.float32]:
    """Density in [0, 1] per heightmap vertex from `ScatterRules`: the product of every rule's factor.

    Parameters
    ----------
    heights : (rows, cols) array_like of float
        Heights in metres, rows and cols at least 2 (row 0 at the smallest Y).
    size : float
        The terrain's extent along X in metres (cells are ``size / (cols - 1)`` square).
    rules : ScatterRules
    seed : int >= 0 or numpy.random.Generator, optional
        Seeds the patch noise (only drawn from when ``patchiness > 0``).
    maps : dict, optional
        The terrain's layers the rules ``biomes``, ``deposits`` and ``flow`` read (see the
        module notes).
    patches : ((float, float), int) or None
        A tiled world's patches: ``((ox, oy), seed)``, the tile's first vertex in cells (its
        ``offset / cell``) and the world's patch seed; the noise is sampled there and cut at
        quantiles of the world's noise (a fixed grid of it), so patches continue across tile
        borders.  None: the tile's own noise, cut at its own quantiles (as before).

    Returns
    -------
    mask : (rows, cols) float32 ndarray in [0, 1]
        0 where a rule forbids props; masks of several rule sets combine by multiplication.

    Notes
    -----
    Slopes are `heightmap.slope_degrees` of the heights (central differences), the gradient
    the terrain mesh is shaded with.  The patches threshold fractal noise at its
    ``patchiness`` quantile over the grid, so exactly that share of the vertices is bare.

    Examples
    --------
    >>> h = np.tile(np.arange(5.0), (5, 1)) * 10.0          # heights 0..40 m along x
    >>> m = rule_mask(h, size=4.0, rules=ScatterRules(height_range=(5.0, 35.0), slope_range=(0.0, 90.0)))
    >>> m[0].tolist()
    [0.0, 1.0, 1.0, 1.0, 0.0]
    """
    h, size, cell = ts.check_terrain(heights, size)
    if not isinstance(rules, ScatterRules):
        raise ParameterError(f"rules must be a ScatterRules, got {type(rules).__name__}")
    maps = check_maps(maps, h.shape, [rules], heights=h, cell=cell)
    return density_mask(h, cell, rules, make_rng(seed), maps=maps, patches=patches)
