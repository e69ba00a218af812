"""Terrain colours: palettes of height bands with rock on steep slopes and water below the sea.

One palette drives the Blender material (as a colour ramp), the preview
render (as vertex colours) and the shaded-relief map, so all three agree.
The bands span the land from the sea level up, over at least :data:`SPAN_M`
metres: a 40 m hill stays green and only a real mountain gets snow.
"""

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from . import exact
from ._checks import check_array, check_choice, check_float

__all__ = [
    "Palette",
    "PALETTES",
    "PALETTE_NAMES",
    "SPAN_M",
    "ROCK_SLOPE",
    "palette_scale",
    "land_fraction",
    "terrain_colours",
    "srgb_to_linear",
]

#: The palette's bands cover at least this many metres above the sea.
SPAN_M = 300.0
#: Slopes (degrees) over which the bands give way to rock.
ROCK_SLOPE = (32.0, 46.0)


@dataclass(frozen=True)
class Palette:
    """``stops``: (land fraction in [0, 1], sRGB colour) pairs; ``rock`` for steep slopes; ``water``."""

    stops: tuple[tuple[float, tuple[float, float, float]], ...]
    rock: tuple[float, float, float]
    water: tuple[float, float, float]


PALETTES = {
    "temperate": Palette(
        stops=(
            (0.00, (0.76, 0.70, 0.50)),  # beach
            (0.02, (0.42, 0.56, 0.26)),  # grass
            (0.30, (0.26, 0.42, 0.20)),  # forest
            (0.62, (0.45, 0.40, 0.35)),  # bare rock
            (0.80, (0.92, 0.93, 0.95)),  # snow
            (1.00, (0.98, 0.98, 1.00)),
        ),
        rock=(0.40, 0.37, 0.34),
        water=(0.16, 0.33, 0.50),
    ),
    "desert": Palette(
        stops=(
            (0.00, (0.86, 0.74, 0.52)),  # pale sand
            (0.15, (0.80, 0.62, 0.40)),  # orange sand
            (0.45, (0.66, 0.44, 0.30)),  # red rock
            (0.80, (0.56, 0.40, 0.32)),
            (1.00, (0.62, 0.50, 0.42)),
        ),
        rock=(0.58, 0.38, 0.27),
        water=(0.20, 0.42, 0.50),
    ),
    "arctic": Palette(
        stops=(
            (0.00, (0.55, 0.55, 0.55)),  # shingle
            (0.03, (0.88, 0.90, 0.93)),  # snow
            (1.00, (0.97, 0.98, 1.00)),
        ),
        rock=(0.35, 0.36, 0.38),
        water=(0.12, 0.25, 0.36),
    ),
}
PALETTE_NAMES = tuple(PALETTES)


def srgb_to_linear(rgb: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """sRGB display values in [0, 1] to linear light (the IEC 61966-2-1 curve), as Blender's
    colour ramps and colour attributes expect them.

    >>> [round(float(v), 4) for v in srgb_to_linear(np.array([0.0, 0.5, 1.0]))]
    [0.0, 0.214, 1.0]
    """
    c = np.asarray(rgb, dtype=np.float32)
    curve = exact.pow((c + 0.055) / 1.055, 2.4)  # numpy's power differs between CPUs
    return np.where(c <= 0.04045, c / 12.92, curve).astype(np.float32)


def palette_scale(height_m: float) -> float:
    """How much of the palette a terrain ``height_m`` metres high spans: ``height / max(height, SPAN_M)``."""
    height_m = check_float(height_m, name="height_m", bounds=(0.0, None))
    return height_m / max(height_m, SPAN_M) if height_m > 0 else 0.0


def land_fraction(heights01: npt.ArrayLike, *, height_m: float, sea_level: float = 0.0) -> npt.NDArray[np.float32]:
    """Where each height falls in the palette: 0 at the sea level, 1 at the top of the palette.

    >>> [round(float(t), 3) for t in land_fraction(np.array([0.1, 0.55, 1.0]), height_m=600.0, sea_level=0.1)]
    [0.0, 0.5, 1.0]
    >>> [round(float(t), 3) for t in land_fraction(np.array([1.0]), height_m=60.0)]  # a low hill: lower fifth
    [0.2]
    """
    h = check_array(heights01, name="heights01")
    sea_level = check_float(sea_level, name="sea_level", bounds=(0.0, 1.0))
    above = (h - np.float32(sea_level)) / np.float32(max(1.0 - sea_level, 1e-6))
    return np.clip(above * np.float32(palette_scale(height_m)), 0.0, 1.0).astype(np.float32)


def terrain_colours(
    heights01: npt.ArrayLike,
    *,
    height_m: float,
    sea_level: float = 0.0,
    slope_degrees: npt.ArrayLike | None = None,
    palette: str = "temperate",
) -> npt.NDArray[np.float32]:
    """sRGB float32 colours (..., 3) for heights in [0, 1] of a terrain ``height_m`` metres high.

    >>> terrain_colours(np.array([[0.0, 1.0]]), height_m=600.0).shape
    (1, 2, 3)
    """
    h = check_array(heights01, name="heights01")
    pal = PALETTES[check_choice(palette, name="palette", choices=PALETTE_NAMES)]
    t = land_fraction(h, height_m=height_m, sea_level=sea_level)
    stops = np.array([s for s, _ in pal.stops], dtype=np.float32)
    cols = np.array([c for _, c in pal.stops], dtype=np.float32)
    rgb = np.stack([np.interp(t, stops, cols[:, k]) for k in range(3)], axis=-1).astype(np.float32)
    if slope_degrees is not None:
        rock = np.clip(
            (np.asarray(slope_degrees, np.float32) - ROCK_SLOPE[0]) / (ROCK_SLOPE[1] - ROCK_SLOPE[0]), 0.0, 1.0
        )[..., None]
        rgb = rgb * (1 - rock) + np.asarray(pal.rock, np.float32) * rock
    if sea_level > 0.0:
        water = (h <= sea_level + 1e-6)[..., None]
        rgb = np.where(water, np.asarray(pal.water, np.float32), rgb)
    return rgb.astype(np.float32)
