"""A shaded-relief picture of a heightmap, and a tiny PNG writer.

The colours come from :mod:`.palette`, the same bands the Blender material
uses, lit by a sun from the north-west (the cartographers' convention). Pure
numpy plus zlib, so the picture is the same bytes on any machine.
"""

import struct
import zlib

import numpy as np
import numpy.typing as npt

from . import exact
from ._checks import check_array, check_float
from .palette import terrain_colours

__all__ = ["shaded_relief", "png_bytes"]


def shaded_relief(
    heights01: npt.ArrayLike,
    *,
    cell_size: float,
    height: float,
    sea_level: float = 0.0,
    palette: str = "temperate",
    azimuth: float = 315.0,
    altitude: float = 45.0,
    max_side: int = 1024,
) -> npt.NDArray[np.uint8]:
    """Coloured hillshade as uint8 RGB (rows, cols, 3), north (last row) at the top.

    Parameters
    ----------
    heights01 : (M, N) float array in [0, 1]
    cell_size, height : float
        Metres between samples and metres for a height of 1.
    azimuth, altitude : float
        Sun direction in degrees (azimuth clockwise from north).
    max_side : int
        Larger maps are subsampled to at most this many pixels a side.

    >>> img = shaded_relief(np.zeros((4, 5), np.float32), cell_size=1.0, height=10.0)
    >>> img.shape, img.dtype
    ((4, 5, 3), dtype('uint8'))
    """
    h = check_array(heights01, name="heights01", ndim=2)
    cell_size = check_float(cell_size, name="cell_size", bounds=(0.0, None), open_low=True)
    height = check_float(height, name="height", bounds=(0.0, None))
    step = max(1, -(-max(h.shape) // max_side))
    h = h[::step, ::step].astype(np.float32)
    metres = h * np.float32(height)
    gy, gx = np.gradient(metres, np.float32(cell_size * step))
    (sin_az, sin_alt), (cos_az, cos_alt) = exact.sincos(np.radians([azimuth, altitude]))
    # Surface normal (-gx, -gy, 1); sun from azimuth (clockwise from +Y north) and altitude.
    sun = np.array([sin_az * cos_alt, cos_az * cos_alt, sin_alt], dtype=np.float32)
    norm = np.sqrt(gx * gx + gy * gy + 1.0)
    shade = np.clip((-gx * sun[0] - gy * sun[1] + sun[2]) / norm, 0.0, 1.0)
    gx64, gy64 = gx.astype(np.float64), gy.astype(np.float64)
    slope = exact.degrees_atan(np.sqrt(gx64 * gx64 + gy64 * gy64)).astype(np.float32)  # as heightmap.slope_degrees
    rgb = terrain_colours(h, height_m=height, slope_degrees=slope, sea_level=sea_level, palette=palette)
    lit = rgb * (0.35 + 0.65 * shade)[..., None]
    lit = exact.pow(lit, 1 / 1.2).astype(np.float32)  # numpy's power differs between CPUs
    img = np.clip(np.round(lit * 255.0), 0, 255).astype(np.uint8)
    return img[::-1]  # row 0 of the heightmap is the south edge; pictures start at the top


def png_bytes(image: npt.NDArray[np.uint8]) -> bytes:
    """Encode a uint8 (rows, cols, 3) or (rows, cols) array as PNG bytes."""
    img = check_array(image, name="image", dtype_kind="u")
    if img.dtype != np.uint8 or img.ndim not in (2, 3) or (img.ndim == 3 and img.shape[2] not in (3, 4)):
        raise ValueError(f"image must be uint8 (rows, cols[, 3|4]), got {img.dtype} {img.shape}")
    rows, cols = img.shape[:2]
    colour_type = 0 if img.ndim == 2 else (2 if img.shape[2] == 3 else 6)  # grey, RGB, RGBA
    raw = np.concatenate([np.zeros((rows, 1), np.uint8), img.reshape(rows, -1)], axis=1).tobytes()

    def chunk(tag: bytes, data: bytes) -> bytes:
        body = tag + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", cols, rows, 8, colour_type, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b"")
