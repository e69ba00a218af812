"""A shaded-relief picture of a heightmap, and a tiny PNG writer.

The colours come from :data:`TERRAIN_PALETTE`, the same height bands the
Blender material uses, with steep slopes turning to rock, lit by a sun from
the north-west (the cartographers' convention). Pure numpy plus zlib, so the
picture is the same bytes on any machine.
"""
from __future__ import annotations

import struct
import zlib

import numpy as np

from ._checks import check_array, check_float

__all__ = ["srgb_to_linear", "TERRAIN_PALETTE", "ROCK_COLOUR", "WATER_COLOUR", "terrain_colours", "shaded_relief", "png_bytes"]

#: (height in [0, 1], linear-ish sRGB colour) stops: beach, grass, forest, rock, snow.
TERRAIN_PALETTE = (
    (0.00, (0.76, 0.70, 0.50)),
    (0.08, (0.42, 0.56, 0.26)),
    (0.40, (0.26, 0.42, 0.20)),
    (0.68, (0.45, 0.40, 0.35)),
    (0.86, (0.92, 0.93, 0.95)),
    (1.00, (0.98, 0.98, 1.00)),
)
ROCK_COLOUR = (0.40, 0.37, 0.34)
WATER_COLOUR = (0.16, 0.33, 0.50)
#: Slopes (degrees) over which grass gives way to rock.
ROCK_SLOPE = (28.0, 42.0)


def srgb_to_linear(rgb):
    """sRGB display values in [0, 1] to linear light (the IEC 61966-2-1 curve), as Blender's
    colour ramps and colour attributes expect them.

    >>> [round(float(v), 4) for v in srgb_to_linear(np.array([0.0, 0.5, 1.0]))]
    [0.0, 0.214, 1.0]
    """
    c = np.asarray(rgb, dtype=np.float32)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4).astype(np.float32)


def terrain_colours(heights01, *, slope_degrees=None, sea_level=0.0):
    """RGB float32 (rows, cols, 3) colours for heights in [0, 1].

    The palette spans the land, from ``sea_level`` (the beach) to 1 (the
    peaks); heights at or below the sea level are water.
    """
    h = check_array(heights01, name="heights01", ndim=2)
    land = (h - np.float32(sea_level)) / np.float32(1.0 - sea_level) if sea_level < 1.0 else h
    stops = np.array([s for s, _ in TERRAIN_PALETTE], dtype=np.float32)
    cols = np.array([c for _, c in TERRAIN_PALETTE], dtype=np.float32)
    rgb = np.stack([np.interp(land, stops, cols[:, k]) for k in range(3)], axis=-1).astype(np.float32)
    if slope_degrees is not None:
        t = np.clip((slope_degrees - ROCK_SLOPE[0]) / (ROCK_SLOPE[1] - ROCK_SLOPE[0]), 0.0, 1.0)
        t = (t * (land < TERRAIN_PALETTE[-2][0]))[..., None].astype(np.float32)
        rgb = rgb * (1 - t) + np.asarray(ROCK_COLOUR, np.float32) * t
    if sea_level > 0.0:
        water = (h <= sea_level + 1e-6)[..., None]
        rgb = np.where(water, np.asarray(WATER_COLOUR, np.float32), rgb)
    return rgb


def shaded_relief(heights01, *, cell_size, height, sea_level=0.0, azimuth=315.0, altitude=45.0,
                  max_side=1024):
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
    az, alt = np.radians(azimuth), np.radians(altitude)
    # Surface normal (-gx, -gy, 1); sun from azimuth (clockwise from +Y north) and altitude.
    sun = np.array([np.sin(az) * np.cos(alt), np.cos(az) * np.cos(alt), np.sin(alt)], dtype=np.float32)
    norm = np.sqrt(gx * gx + gy * gy + 1.0)
    shade = np.clip((-gx * sun[0] - gy * sun[1] + sun[2]) / norm, 0.0, 1.0)
    slope = np.degrees(np.arctan(np.hypot(gx, gy)))
    rgb = terrain_colours(h, slope_degrees=slope, sea_level=sea_level)
    lit = rgb * (0.35 + 0.65 * shade)[..., None]
    img = np.clip(np.round(lit ** (1 / 1.2) * 255.0), 0, 255).astype(np.uint8)
    return img[::-1]  # row 0 of the heightmap is the south edge; pictures start at the top


def png_bytes(image):
    """Encode a uint8 (rows, cols, 3) or (rows, cols) array as PNG bytes."""
    img = check_array(image, name="image", dtype_kind="u")
    if img.dtype != np.uint8 or img.ndim not in (2, 3) or (img.ndim == 3 and img.shape[2] not in (3, 4)):
        raise ValueError(f"image must be uint8 (rows, cols[, 3|4]), got {img.dtype} {img.shape}")
    rows, cols = img.shape[:2]
    colour_type = 0 if img.ndim == 2 else (2 if img.shape[2] == 3 else 6)  # grey, RGB, RGBA
    raw = np.concatenate([np.zeros((rows, 1), np.uint8), img.reshape(rows, -1)], axis=1).tobytes()

    def chunk(tag, data):
        body = tag + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", cols, rows, 8, colour_type, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))
