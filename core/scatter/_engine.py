"""Scatter of props on a terrain: layers of rule-driven Poisson-disk samples, and their placements.

Positions here are terrain-local metres with the origin at the terrain's centre (x and y in
``[-size/2, size/2]`` for a square heightmap), Z up: the frame of ``mesh.grid_mesh(...,
cell_size=size / (cols - 1), origin="center")``.  Heights are in metres, row 0 at the smallest
Y, column 0 at the smallest X.

`rule_mask` (in the private `_rules`) turns `ScatterRules` (height range, slope range, sea level,
noise patches) into a density grid in [0, 1]; `scatter_layers` scatters `Layer` after `Layer` with the
sampler of `_sampling`, each keeping its distance from the props of the layers before it, and returns
one `Placement` (positions, rotations, scales) per layer.

Randomness
----------
Everything random comes from ``make_rng(seed)``: it seeds a ``SeedSequence`` whose ``i``-th
child drives layer ``i`` (grandchildren: the patch noise, the sampling, the placement, a
fourth drawn from only when biome weights thin a fixed-spacing layer, and a fifth for the
layer's Unity detail counts), so appending a layer, or
changing one layer's scale range, leaves the other draws as they were.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np
import numpy.typing as npt

from .. import _quaternion as quat
from .._checks import Seed, check_bool, check_float, make_rng
from ..errors import ParameterError
from ..heightmap import slope_degrees
from ..placement import unity_rotation
from ..unity import unity_position
from . import _poisson
from . import _terrain_sample as ts
from ._rules import (
    DEPOSITS,
    FLOW,
    Patches,
    ScatterRules,
    biome_weights,
    check_maps,
    check_range,
    density_mask,
)
from ._sampling import MISSES, RADIUS, RADIUS_RATIO, check_cells

if TYPE_CHECKING:
    from .spec import LayerSpec  # the spec module reads this one's ranges

#: Props already placed around a terrain: ``(xy (k, 2), radii (k,), layer (k,))`` (:func:`scatter_layers`).
PlacedProps: TypeAlias = tuple[npt.ArrayLike, npt.ArrayLike, npt.ArrayLike]

#: Prop scale factors.
SCALE = (0.001, 1000.0)
#: How far props lean with the ground (0 upright, 1 along the normal).
ALIGN = (0.0, 1.0)
#: Largest lean in degrees.
TILT = (0.0, 90.0)
#: How far props sink into the ground, metres at scale 1.
SINK = (-100.0, 100.0)


# ---------------------------------------------------------------------------------------------
# layers and placements


@dataclass(frozen=True)
class Layer:
    """One kind of prop to scatter: spacing, rules and how each prop is placed.

    Attributes
    ----------
    name : str
        A label (kept in the `Placement`).
    radius : float
        Smallest distance between two props of the layer, metres, within ``RADIUS``.
    radius_max : float or None
        With a value above ``radius`` (at most ``RADIUS_RATIO`` times it), the spacing follows
        the rule mask: ``radius`` where it is 1, ``radius_max`` where it approaches 0 (see
        `poisson_disk_variable`).  None or ``radius``: a fixed spacing.
    rules : ScatterRules
    scale_range : (float, float)
        Uniform scale factors, drawn uniformly within the pair (each within ``SCALE``).
    align : float
        Within ``ALIGN``: 0 stands props upright, 1 leans them with the ground's normal,
        between them part of the way (a slerp from upright).
    max_tilt : float
        Largest lean in degrees, within ``TILT``.
    sink : float
        How far props sink into the ground in metres at scale 1 (scaled with the prop),
        within ``SINK``.
    yaw : bool
        Turn each prop by a random angle about its up axis.
    """

    name: str = "layer"
    radius: float = 2.0
    radius_max: float | None = None
    rules: ScatterRules = field(default_factory=ScatterRules)
    scale_range: tuple[float, float] = (0.8, 1.2)
    align: float = 0.0
    max_tilt: float = 30.0
    sink: float = 0.0
    yaw: bool = True

    def __post_init__(self) -> None:
        s = object.__setattr__
        if not isinstance(self.name, str):
            raise ParameterError(f"name must be a string, got {self.name!r}")
        s(self, "radius", check_float(self.radius, name="radius", bounds=RADIUS))
        if self.radius_max is not None:
            s(
                self,
                "radius_max",
                check_float(
                    self.radius_max, name="radius_max", bounds=(self.radius, min(RADIUS_RATIO * self.radius, RADIUS[1]))
                ),
            )
        if not isinstance(self.rules, ScatterRules):
            raise ParameterError(f"rules must be a ScatterRules, got {type(self.rules).__name__}")
        s(self, "scale_range", check_range(self.scale_range, "scale_range", SCALE))
        s(self, "align", check_float(self.align, name="align", bounds=ALIGN))
        s(self, "max_tilt", check_float(self.max_tilt, name="max_tilt", bounds=TILT))
        s(self, "sink", check_float(self.sink, name="sink", bounds=SINK))
        s(self, "yaw", check_bool(self.yaw, name="yaw"))

    @property
    def r_min(self) -> float:
        """Spacing where the rule mask is 1."""
        return self.radius

    @property
    def r_max(self) -> float:
        """Spacing where the rule mask approaches 0."""
        return self.radius if self.radius_max is None else self.radius_max


@dataclass(frozen=True, eq=False)
class Placement:
    """The props of one layer.

    Attributes
    ----------
    layer : Layer
    positions : (N, 3) float64 ndarray
        Terrain-local metres, origin at the terrain's centre, Z up.
    rotations : (N, 4) float64 ndarray
        Unit quaternions ``(w, x, y, z)`` in Blender's right-handed Z-up frame (the order of
        ``mathutils.Quaternion``).
    scales : (N,) float64 ndarray
        Uniform scale factors.
    radii : (N,) float64 ndarray
        The spacing radius at each prop (the layer's radius unless it varies).
    """

    layer: Layer
    positions: npt.NDArray[np.float64]
    rotations: npt.NDArray[np.float64]
    scales: npt.NDArray[np.float64]
    radii: npt.NDArray[np.float64]

    def __len__(self) -> int:
        return len(self.positions)


def layer_streams(seed: Seed, n: int) -> list[list[np.random.SeedSequence]]:
    """Per layer: the seed sequences of its patch noise, sampling, placement, thinning and detail counts."""
    root = np.random.SeedSequence(make_rng(seed).integers(0, 2**63, size=4))
    return [child.spawn(5) for child in root.spawn(n)]  # the first three as spawn(3) gives them


def scatter_layers(
    heights: npt.ArrayLike,
    *,
    size: float,
    layers: Sequence[Layer],
    seed: Seed = 0,
    maps: Mapping[str, Any] | None = None,
    existing: PlacedProps | None = None,
    patches: Patches | None = None,
    slope: npt.NDArray[np.floating[Any]] | None = None,
) -> tuple[Placement, ...]:
    """Scatter layers of props over a terrain, in order, each clear of the ones before.

    Parameters
    ----------
    heights : (rows, cols) array_like of float
        Heights in metres, rows and cols at least 2 (row 0 at the smallest Y).
    size : float
        The terrain's extent along X in metres; cells are ``size / (cols - 1)`` square.
    layers : sequence of Layer
        Scattered in order.  Layer ``i``'s props keep their own spacing from each other and
        ``max(own radius, keep_away)`` (or the earlier prop's radius when ``keep_away`` is
        None) from the props of layers ``0 .. i-1``.
    seed : int >= 0 or numpy.random.Generator, optional
    maps : dict, optional
        The terrain's layers that the rules ``biomes``, ``deposits`` and ``flow`` read:
        ``{"biomes", "biome_names", "deposited", "flow"}`` (``TerrainLayers.scatter_maps``), each
        (rows, cols) like ``heights`` (no ``deposited``: none anywhere; no ``flow``: worked out
        from ``heights``).  Layers without those rules ignore it (and place what
        they placed without it, bit for bit).
    existing : tuple or None
        Props already placed around the terrain (a tiled world's neighbouring tiles):
        ``(xy, radii, layer)`` with ``xy`` (k, 2) in this terrain's coordinates (as ``positions``,
        centred), ``radii`` (k,) their spacing and ``layer`` (k,) their layer index.  Layer ``i``
        keeps its spacing from those of layer ``i``, from those of layers ``0 .. i-1`` as from its own
        earlier layers, and from those of later layers by their ``keep_away`` (they were placed
        first).  None or empty: as without it, bit for bit.
    patches : ((float, float), int) or None
        A tiled world's patches (``rule_mask``'s ``patches``): ``((ox, oy), seed)``; layer ``i`` draws
        its patch noise from ``SeedSequence([seed, i])``, the same field in every tile.  None: each
        terrain's own patches.
    slope : (rows, cols) ndarray or None
        Slope in degrees the slope rules read (a tiled world's, from heights that see past the
        tile's edges); None: ``heightmap.slope_degrees`` of ``heights``.

    Returns
    -------
    placements : tuple of Placement
        One per layer, in order.

    Notes
    -----
    Per layer: `rule_mask` gives the density; props go only into heightmap cells whose four
    corners have a density above 0, as a maximal packing (`poisson_disk_variable`, with the
    mask as density when ``radius_max`` is set).  Then, with the layer's random stream:
    scales uniform in ``scale_range``, then yaw angles uniform in [0, 2 pi) (when ``yaw``).
    A prop's height is the terrain's at its (x, y) (`sample_heights`: on the triangle that
    FBX readers cut the mesh's quad into) minus ``sink * scale``; its rotation is the yaw about
    +Z followed by a lean towards the interpolated (smooth) terrain normal by ``align`` of the
    way, at most ``max_tilt`` degrees.

    Examples
    --------
    >>> h = np.zeros((33, 33))
    >>> rocks = Layer("rocks", radius=4.0, rules=ScatterRules(above_sea=False))
    >>> tufts = Layer("tufts", radius=1.0, rules=ScatterRules(above_sea=False, keep_away=1.5))
    >>> p = scatter_layers(h, size=32.0, layers=[rocks, tufts], seed=3)
    >>> [x.layer.name for x in p], bool(np.abs(p[0].positions[:, :2]).max() <= 16.0)
    (['rocks', 'tufts'], True)
    """
    h, size, cell = ts.check_terrain(heights, size)
    try:
        layers = tuple(layers)
    except TypeError:
        raise ParameterError(f"layers must be a sequence of Layer, got {layers!r}") from None
    for i, layer in enumerate(layers):
        if not isinstance(layer, Layer):
            raise ParameterError(f"layers[{i}] must be a Layer, got {type(layer).__name__}")
    width, height = ts.extent(h, cell)
    for layer in layers:
        check_cells(width, height, layer.radius)
    maps = check_maps(maps, h.shape, [layer.rules for layer in layers], heights=h, cell=cell)
    streams = layer_streams(seed, len(layers))
    if slope is not None:
        slope = np.asarray(slope, np.float32)
        if slope.shape != h.shape:
            raise ParameterError(f"slope must have the heights' shape {h.shape}, got {slope.shape}")
    elif any(layer.rules.slope_range != (0.0, 90.0) for layer in layers):
        slope = slope_degrees(h, cell_size=cell)
    normals = None
    done_xy, done_r = np.empty((0, 2)), np.empty(0)
    ex_xy, ex_r, ex_layer = _existing(existing, width, height, len(layers))
    out = []
    for index, (layer, (mask_ss, sample_ss, place_ss, thin_ss, _)) in enumerate(zip(layers, streams)):
        mask = density_mask(
            h, cell, layer.rules, np.random.default_rng(mask_ss), slope, maps, layer_patches(patches, index)
        )
        where = None if mask.min() > 0.0 else mask > 0.0
        variable = layer.r_max > layer.r_min
        keep = layer.rules.keep_away
        near_xy, near_r = done_xy, (done_r if keep is None else np.full(len(done_r), keep))
        if len(ex_xy):
            # a neighbour's props: those of earlier layers as this terrain's own earlier layers; its
            # own layer at their spacing; later layers (placed there before this one here) at the
            # distance they keep from this layer's props (their keep_away, at least their spacing)
            own, before, after = ex_layer == index, ex_layer < index, ex_layer > index
            earlier = ex_r[before] if keep is None else np.full(int(before.sum()), keep)
            keeps = np.array([layer_j.rules.keep_away or 0.0 for layer_j in layers], np.float64)
            later = np.maximum(ex_r[after], keeps[ex_layer[after]])
            near_xy = np.concatenate([near_xy, ex_xy[before], ex_xy[own], ex_xy[after]])
            near_r = np.concatenate([near_r, earlier, ex_r[own], later])
        if where is not None and not where.any():
            xy, radii = np.empty((0, 2)), np.empty(0)
        else:
            xy, radii = _poisson.sample(
                width,
                height,
                r_min=layer.r_min,
                r_max=layer.r_max,
                rng=np.random.default_rng(sample_ss),
                k=30,
                misses=MISSES,
                density=mask.astype(np.float64) if variable else None,
                where=where,
                existing=near_xy if len(near_xy) else None,
                existing_radii=near_r if len(near_xy) else None,
            )
        if not variable and any(w < 1.0 for _, w in layer.rules.biomes) and len(xy):
            xy, radii = _thin(xy, radii, biome_weights(layer.rules, maps), cell, width, height, thin_ss)
        if normals is None and len(xy):
            normals = ts.vertex_normals(h, cell)
        out.append(_place(layer, xy, radii, h, cell, width, height, normals, np.random.default_rng(place_ss)))
        done_xy = np.concatenate([done_xy, xy])
        done_r = np.concatenate([done_r, radii])
    return tuple(out)


def layer_patches(patches: Patches | None, index: int) -> Patches | None:
    """Layer ``index``'s share of a world's ``patches`` ``((ox, oy), seed)``: its own seed
    ``SeedSequence([seed, index])``; None stays None."""
    if patches is None:
        return None
    word = np.random.SeedSequence([int(patches[1]), index]).generate_state(1, np.uint32)[0]
    return (patches[0], int(word))


def _existing(
    existing: PlacedProps | None, width: float, height: float, count: int
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    """``existing`` of :func:`scatter_layers` in the sampler's coordinates (corner at 0), checked."""
    if existing is None:
        return np.empty((0, 2)), np.empty(0), np.empty(0, np.int64)
    try:
        xy, radii, layer = existing
        xy = np.asarray(xy, np.float64).reshape(-1, 2)
        radii = np.asarray(radii, np.float64).reshape(-1)
        layer = np.asarray(layer, np.int64).reshape(-1)
    except (TypeError, ValueError):
        raise ParameterError("existing must be (xy (k, 2), radii (k,), layer (k,)) arrays") from None
    if not len(xy) == len(radii) == len(layer) or not np.isfinite(xy).all() or (radii < 0).any():
        raise ParameterError("existing must be (xy (k, 2), radii (k,), layer (k,)) of one length, finite, radii >= 0")
    if len(layer) and (layer.min() < 0 or layer.max() >= count):
        raise ParameterError(
            f"existing layer indices must be in [0, {count}), got {int(layer.min())}..{int(layer.max())}"
        )
    return xy + np.array([0.5 * width, 0.5 * height]), radii, layer


def _thin(
    xy: npt.NDArray[np.float64],
    radii: npt.NDArray[np.float64],
    weights: npt.NDArray[np.floating[Any]],
    cell: float,
    width: float,
    height: float,
    seed_seq: np.random.SeedSequence,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Keep each prop with the probability its biomes' weight gives at its point (blended bilinearly)."""
    keep_p = ts.bilinear(weights.astype(np.float64), cell, xy[:, 0] - 0.5 * width, xy[:, 1] - 0.5 * height)
    keep = np.random.default_rng(seed_seq).random(len(xy)) < keep_p
    return xy[keep], radii[keep]


def _place(
    layer: Layer,
    xy: npt.NDArray[np.float64],
    radii: npt.NDArray[np.float64],
    h: npt.NDArray[np.float64],
    cell: float,
    width: float,
    height: float,
    normals: npt.NDArray[np.float64] | None,
    rng: np.random.Generator,
) -> Placement:
    n = len(xy)
    x = xy[:, 0] - 0.5 * width
    y = xy[:, 1] - 0.5 * height
    lo, hi = layer.scale_range
    scales = lo + (hi - lo) * rng.random(n)
    yaw = rng.random(n) * (2.0 * math.pi) if layer.yaw else np.zeros(n)
    z = ts.triangle_heights(h, cell, x, y) - layer.sink * scales
    rotations = quat.about_z(yaw)
    if n and layer.align > 0.0 and layer.max_tilt > 0.0:
        assert normals is not None, "props come with the terrain's normals"
        up = ts.bilinear(normals, cell, x, y)
        up /= np.linalg.norm(up, axis=1, keepdims=True)
        rotations = quat.multiply(quat.tilt_towards(up, layer.align, math.radians(layer.max_tilt)), rotations)
    positions = np.stack([x, y, z], axis=1) if n else np.empty((0, 3))
    return Placement(layer, positions, rotations.reshape(n, 4), scales, radii)


def layer_from_spec(spec: LayerSpec, *, sea_level_m: float) -> Layer:
    """The `Layer` a recipe's ``scatter_spec.LayerSpec`` describes, on a terrain whose sea is at
    ``sea_level_m`` metres.

    ``radius_max`` 0 means a fixed spacing; above ``radius``, the spacing follows the rules, so
    their edges are softened: slopes fade over 10 degrees (at most half the range), heights
    over a tenth of the range (at most 50 m) and patches over a quarter of the terrain.
    ``keep_away`` is the distance from earlier layers' props (at least the layer's radius).
    ``biomes``, ``deposits`` and ``flow`` become the map rules (the spec's "no rule" values:
    ``()``, and ranges that start at 0 and end at the top of their limits, stay off).
    """
    variable = bool(spec.radius_max) and spec.radius_max > spec.radius
    h_lo, h_hi = spec.height_range
    s_lo, s_hi = spec.slope_range
    rules = ScatterRules(
        height_range=(h_lo, h_hi),
        slope_range=(s_lo, s_hi),
        patchiness=spec.patchiness,
        patch_scale=spec.patch_scale,
        above_sea=spec.above_sea,
        sea_level_m=sea_level_m,
        keep_away=spec.keep_away,
        patch_fade=0.25 if variable else 0.0,
        slope_fade=min(10.0, 0.5 * (s_hi - s_lo)) if variable else 0.0,
        height_fade=min(50.0, 0.1 * (h_hi - h_lo)) if variable else 0.0,
        biomes=spec.biomes,
        deposits=None if tuple(spec.deposits) == (0.0, DEPOSITS[1]) else spec.deposits,
        flow=None if tuple(spec.flow) == (0.0, FLOW[1]) else spec.flow,
    )
    return Layer(
        name=spec.name,
        radius=spec.radius,
        radius_max=spec.radius_max if variable else None,
        rules=rules,
        scale_range=spec.scale_range,
        align=spec.align,
        max_tilt=spec.max_tilt,
        sink=spec.sink,
        yaw=True,
    )


# ---------------------------------------------------------------------------------------------
# terrain look-ups and Unity


def sample_heights(heights: npt.ArrayLike, xy: npt.ArrayLike, *, size: float) -> npt.NDArray[np.float64]:
    """Heights of the terrain mesh's triangles at terrain-local points.

    Each quad of the mesh (`mesh.grid_faces`) is cut into two triangles along its shorter 3-D
    diagonal, as ``ufbx`` cuts the FBX's quads (and, it aims, as Autodesk's FBX SDK that Unity
    imports with does; see the module ``_terrain_sample``): the surface an exported terrain
    shows, which a bilinear blend of the quad's corners misses by up to a quarter of its twist.

    Parameters
    ----------
    heights : (rows, cols) array_like of float
        Heights in metres.
    xy : (N, 2) array_like of float
        Points, origin at the terrain's centre; points outside take the nearest edge's value.
    size : float
        The terrain's extent along X in metres.

    Returns
    -------
    z : (N,) float64 ndarray

    Examples
    --------
    >>> h = np.array([[0.0, 2.0], [4.0, 6.0]])              # 2 x 2 vertices over 10 m
    >>> sample_heights(h, [[-5.0, -5.0], [0.0, 0.0], [5.0, -5.0]], size=10.0).tolist()
    [0.0, 3.0, 2.0]
    >>> ridge = np.array([[0.0, 0.0], [0.0, 4.0]])          # one corner up: cut v1 -- v3
    >>> sample_heights(ridge, [[0.0, 0.0]], size=10.0).tolist()   # bilinear would say 1.0
    [0.0]
    """
    h, size, cell = ts.check_terrain(heights, size)
    p = ts.check_points(xy)
    return ts.triangle_heights(h, cell, p[:, 0], p[:, 1])


def terrain_normals_at(heights: npt.ArrayLike, xy: npt.ArrayLike, *, size: float) -> npt.NDArray[np.float64]:
    """Unit terrain normals at terrain-local points: the vertex normals blended bilinearly.

    The vertex normals are ``(-dz/dx, -dz/dy, 1)`` normalised with the gradient of
    `heightmap.gradient`, the ones the terrain mesh is shaded with.

    Returns
    -------
    normals : (N, 3) float64 ndarray
        Unit vectors with ``z > 0``.

    Examples
    --------
    >>> h = np.tile(np.arange(3.0), (3, 1))                  # rises 1 m per metre along +x
    >>> terrain_normals_at(h, [[0.3, -0.2]], size=2.0).round(6).tolist()
    [[-0.707107, 0.0, 0.707107]]
    """
    h, size, cell = ts.check_terrain(heights, size)
    p = ts.check_points(xy)
    return ts.normals_at(h, cell, p[:, 0], p[:, 1])


def unity_transforms(
    placement: Placement,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """A placement in Unity's coordinates, as a Worldseed FBX puts the same instances.

    Returns
    -------
    positions : (N, 3) float64 ndarray
        ``(-x, z, -y)`` (`unity.unity_position`), metres.
    rotations : (N, 4) float64 ndarray
        Quaternions in Unity's ``(x, y, z, w)`` order for ``M R M^-1`` (``M`` the map above,
        determinant -1; see `placement.unity_rotation`): Blender ``(w, x, y, z)`` becomes
        ``(x, -z, y, w)``.
    scales : (N,) float64 ndarray
        Unchanged (uniform scales survive the mirror).

    Examples
    --------
    >>> p = Placement(Layer(), np.array([[1.0, 2.0, 3.0]]), np.array([[1.0, 0.0, 0.0, 0.0]]),
    ...               np.array([1.5]), np.array([2.0]))
    >>> [a.tolist() for a in unity_transforms(p)]
    [[[-1.0, 3.0, -2.0]], [[0.0, 0.0, 0.0, 1.0]], [1.5]]
    """
    if not isinstance(placement, Placement):
        raise ParameterError(f"placement must be a Placement, got {type(placement).__name__}")
    if not len(placement):
        return np.empty((0, 3)), np.empty((0, 4)), np.empty(0)
    rotations = unity_rotation(placement.rotations) + 0.0  # + 0.0: no -0.0 in the files
    return unity_position(placement.positions), rotations, placement.scales.astype(np.float64, copy=True)
