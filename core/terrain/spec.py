"""``[terrain]``: one square terrain tile, its fields and their limits (the one table of ranges)."""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .. import erosion as core_erosion
from .. import heightmap, noise, palette
from .._checks import check_float
from ..erosion import ErosionSpec
from ..erosion.spec import check_erosion as check_erosion_spec
from ..errors import ParameterError, short
from ..spec import choice, custom, flag, from_table, integer, number, to_table, vector

__all__ = [
    "TerrainSpec",
    "LIMITS",
    "from_dict",
    "to_dict",
    "RESOLUTION",
    "SIZE",
    "HEIGHT",
    "OFFSET",
    "SCALE_M",
    "LODS",
    "NORMALIZE_MODES",
    "IDENTITY_CURVE",
]

#: Vertices per terrain side. 4097 is Unity's largest heightmap resolution.
RESOLUTION = (2, 4097)
#: Terrain side length and height in metres.
SIZE = (1.0, 100_000.0)
HEIGHT = (0.0, 20_000.0)
OFFSET = (-1.0e7, 1.0e7)
#: Feature size of the first octave, in metres.
SCALE_M = (0.01, 1.0e6)
LODS = (1, 4)
NORMALIZE_MODES = ("stretch", "fixed")
IDENTITY_CURVE = ((0.0, 0.0), (1.0, 1.0))
#: Control points a height curve may have.
CURVE_POINTS = (2, 32)


def check_erosion(value: object, name: str) -> ErosionSpec:
    """``[terrain.erosion]``: a table of :class:`core.erosion.ErosionSpec` fields (or such a spec)."""
    if isinstance(value, ErosionSpec):
        return value
    if not isinstance(value, dict):
        raise ParameterError(f"{name} must be a table ([terrain.erosion]), got {short(value)}")
    return core_erosion.from_dict(value, prefix=f"{name}.")


def check_curve(value: Any, name: str) -> tuple[tuple[float, float], ...]:
    """Height-curve control points: 2 to 32 ``[x, y]`` pairs in [0, 1], sorted by x, x all different."""
    try:
        points = [tuple(p) for p in value]
    except TypeError:
        raise ParameterError(f"{name} must be a list of [x, y] points, got {short(value)}") from None
    if not CURVE_POINTS[0] <= len(points) <= CURVE_POINTS[1]:
        raise ParameterError(f"{name} must have {CURVE_POINTS[0]} to {CURVE_POINTS[1]} points, got {len(points)}")
    out = []
    for i, p in enumerate(points):
        if len(p) != 2:
            raise ParameterError(f"{name}[{i}] must be an [x, y] pair, got {short(list(p))}")
        out.append(
            (
                check_float(p[0], name=f"{name}[{i}].x", bounds=(0.0, 1.0)),
                check_float(p[1], name=f"{name}[{i}].y", bounds=(0.0, 1.0)),
            )
        )
    out.sort()
    xs = [p[0] for p in out]
    if any(b <= a for a, b in zip(xs, xs[1:])):
        raise ParameterError(f"{name} x values must all differ, got {xs}")
    return tuple(out)


#: Every field of :class:`TerrainSpec`: kind, range, label and description, written once.
LIMITS = {
    "resolution": integer(
        RESOLUTION,
        "Resolution",
        "Vertices per side (Unity terrains use 33, 65, 129, 257, 513, 1025, 2049 or 4097)",
        soft=(2, 2049),
    ),
    "size": number(SIZE, "Size", "Side length of the terrain", unit="m", soft=(1.0, 4096.0)),
    "height": number(HEIGHT, "Height", "Height of the highest possible point", unit="m", soft=(0.0, 1000.0)),
    "offset": vector(
        OFFSET, "Offset", "Position of this tile in the world; neighbouring tiles join seamlessly", size=2, unit="m"
    ),
    "basis": choice(
        (
            ("perlin", "Perlin", "Improved Perlin gradient noise"),
            ("simplex", "Simplex", "OpenSimplex2-style simplex noise: fewer axis-aligned artefacts"),
        ),
        "Noise",
        "Gradient noise basis",
    ),
    "kind": choice(
        (
            ("fbm", "fBm", "Fractal Brownian motion: rolling, natural hills"),
            ("ridged", "Ridged", "Sharp ridges and crests: mountains, canyons"),
            ("billow", "Billow", "Rounded, puffy shapes: dunes, hills"),
        ),
        "Fractal",
        "How octaves combine: fBm (smooth hills), ridged (sharp crests), billow (puffy dunes)",
    ),
    "scale": number(SCALE_M, "Feature Size", "Size of the largest features", unit="m", soft=(1.0, 4096.0)),
    "octaves": integer(noise.OCTAVES, "Octaves", "Number of noise layers; more gives finer detail"),
    "persistence": number(noise.PERSISTENCE, "Roughness", "Amplitude kept from one octave to the next (persistence)"),
    "lacunarity": number(noise.LACUNARITY, "Lacunarity", "Frequency multiplier from one octave to the next"),
    "warp": number(noise.WARP, "Warp", "Domain warp strength: bends the features into swirls and flows"),
    "normalize": choice(
        (
            ("stretch", "Stretch", "Use the full height range on this tile"),
            ("fixed", "Fixed", "Absolute noise values: neighbouring tiles join"),
        ),
        "Normalize",
        "Stretch this tile to the full height range, or keep absolute noise values "
        "(use Fixed for tiles that must join)",
    ),
    "falloff": choice(
        (
            ("none", "None", "No falloff"),
            ("square", "Square", "Edges fall along a square"),
            ("radial", "Radial", "Edges fall in a circle"),
        ),
        "Island Falloff",
        "Lower the edges to make an island",
    ),
    "falloff_width": number(
        heightmap.FALLOFF_WIDTH, "Falloff Width", "Fraction of the half-size over which the edges fall"
    ),
    "redistribution": number(
        heightmap.POWER, "Redistribution", "Height exponent: above 1 makes valleys wider and peaks sharper"
    ),
    "terraces": integer(heightmap.TERRACES, "Terraces", "Number of terrace steps (0 for none)"),
    "terrace_sharpness": number(heightmap.SHARPNESS, "Terrace Sharpness", "0 leaves slopes smooth, 1 makes flat steps"),
    "curve": custom(check_curve, "Height Curve", "Control points [x, y] of a curve that remaps the heights"),
    "sea_level": number(heightmap.SEA_LEVEL, "Sea Level", "Heights below this fraction become a flat sea floor"),
    "lods": integer(LODS, "LODs", "Number of levels of detail to build (Name_LOD0, Name_LOD1, ...)"),
    "material": flag("Material", "Give the terrain the height-and-slope material"),
    "palette": choice(
        (
            ("temperate", "Temperate", "Beach, grass, forest, rock and snow on the high peaks"),
            ("desert", "Desert", "Sand and red rock"),
            ("arctic", "Arctic", "Snow over grey rock"),
        ),
        "Palette",
        "Colours of the height-and-slope material and the previews",
    ),
    "enabled": flag("Terrain", "Build a terrain (false: trees only)"),
    "erosion": custom(
        check_erosion, "Erosion", "Hydraulic (droplets) and thermal erosion of the heights: the [terrain.erosion] table"
    ),
}
assert LIMITS["palette"].bounds == palette.PALETTE_NAMES and LIMITS["falloff"].bounds == heightmap.FALLOFF_MODES
assert LIMITS["basis"].bounds == noise.BASES and LIMITS["kind"].bounds == noise.KINDS


@dataclass(frozen=True)
class TerrainSpec:
    """``[terrain]``: one square terrain tile.

    ``resolution`` vertices per side over ``size`` metres (so the cell size is
    ``size / (resolution - 1)``), heights from 0 to ``height`` metres.
    ``offset`` is the tile's position in metres; tiles whose offsets differ by
    a whole number of cells share their edges exactly. The noise keys
    (``basis``, ``kind``, ``scale`` in metres, ``octaves``, ``persistence``,
    ``lacunarity``, ``warp``) go to :func:`core.noise.fbm`; the shaping keys
    are applied in order: normalize, falloff, redistribution, terraces,
    curve, sea level.  ``erosion`` (``[terrain.erosion]``, a
    :class:`core.erosion.ErosionSpec`, off by default) then erodes the shaped
    heights (see :func:`core.terrain.terrain_layers_steps`).  Ranges: :data:`LIMITS`.

    >>> TerrainSpec(resolution=65, size=128.0).cell_size
    2.0
    """

    resolution: int = 257
    size: float = 512.0
    height: float = 80.0
    offset: tuple[float, float] = (0.0, 0.0)
    basis: str = "perlin"
    kind: str = "fbm"
    scale: float = 256.0
    octaves: int = 6
    persistence: float = 0.5
    lacunarity: float = 2.0
    warp: float = 0.0
    normalize: str = "stretch"
    falloff: str = "none"
    falloff_width: float = 0.35
    redistribution: float = 1.0
    terraces: int = 0
    terrace_sharpness: float = 0.6
    curve: tuple[tuple[float, float], ...] = IDENTITY_CURVE
    sea_level: float = 0.0
    lods: int = 1
    material: bool = True
    palette: str = "temperate"
    enabled: bool = True
    erosion: ErosionSpec = ErosionSpec()

    @property
    def cell_size(self) -> float:
        """Metres between neighbouring vertices."""
        return self.size / (self.resolution - 1)


def check_spec(spec: TerrainSpec, *, prefix: str = "terrain.") -> TerrainSpec:
    """Checks across fields: the feature size against the cell size, the LODs against the resolution,
    the erosion against the tile (``core.erosion.spec.check_erosion``)."""
    if spec.scale / spec.cell_size < 1e-3:
        raise ParameterError(
            f"{prefix}scale {spec.scale:g} m is below a thousandth of the cell size {spec.cell_size:g} m; "
            "use a scale of at least size / (resolution - 1) / 1000"
        )
    min_res = 2 ** (spec.lods - 1) + 1
    if spec.resolution < min_res:
        raise ParameterError(f"{prefix}lods {spec.lods} needs {prefix}resolution >= {min_res}, got {spec.resolution}")
    if spec.erosion.enabled:  # the brush, the lifetime and the droplet count against this tile
        check_erosion_spec(spec.erosion, size=spec.size, cell_size=spec.cell_size, prefix=f"{prefix}erosion.")
    return spec


def from_dict(table: Mapping[str, Any], *, prefix: str = "terrain.") -> TerrainSpec:
    """A validated :class:`TerrainSpec` from a ``[terrain]`` table."""
    return check_spec(from_table(TerrainSpec, LIMITS, table, prefix=prefix), prefix=prefix)


def to_dict(spec: TerrainSpec) -> dict[str, Any]:
    """The spec as a table of plain TOML values; ``erosion`` as a sub-table, last, and only when it
    is not the default (so recipes without erosion read and write as before).

    >>> "erosion" in to_dict(TerrainSpec())
    False
    """
    table = to_table(spec)
    del table["erosion"]
    if spec.erosion != ErosionSpec():
        table["erosion"] = core_erosion.to_dict(spec.erosion)
    return table
