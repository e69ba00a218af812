"""A shaded-relief picture of a heightmap, the colours of texture layers, and a tiny PNG writer.

The relief's colours come from :mod:`.palette`, the same bands the Blender
material uses, or from a colour image (the texture layers blended as Unity
blends them, :func:`splat_colours`), lit by a sun from the north-west (the
cartographers' convention). Pure numpy plus zlib.  Linear colours become sRGB
bytes through a table worked out once with :mod:`decimal` (software
arithmetic) and indexed by exact float steps (:func:`srgb_bytes`), so that
step is the same bytes on any CPU.
"""

import struct
import zlib
from decimal import Decimal, localcontext
from typing import overload

import numpy as np
import numpy.typing as npt

from . import exact
from ._checks import check_array, check_float
from .errors import ParameterError
from .palette import terrain_colours

__all__ = ["shaded_relief", "png_bytes", "splat_colours", "srgb_bytes", "cell_colours", "sample_image"]

#: Steps of linear light the sRGB table resolves (16 bits: finer than an sRGB byte everywhere).
_SRGB_STEPS = 65535


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
    colours: npt.NDArray[np.uint8] | None = None,
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
    colours : (R, C, 3) uint8 ndarray, optional
        The ground's sRGB colours instead of the palette's (the texture layers:
        ``srgb_bytes(splat_colours(...))``), row 0 at the south edge as the heights, any
        size: texel ``(i, j)`` covers ``[j / C, (j + 1) / C] x [i / R, (i + 1) / R]`` of the
        map (:func:`sample_image`).  The sea (heights at or below ``sea_level``, when above 0)
        keeps the palette's water.

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
    if colours is not None:
        ground = sample_image(colours, h.shape).astype(np.float32) * np.float32(1.0 / 255.0)
        water = h <= np.float32(sea_level) + np.float32(1e-6) if sea_level > 0.0 else np.zeros(h.shape, bool)
        rgb = np.where(water[..., None], rgb, ground)
    lit = rgb * (0.35 + 0.65 * shade)[..., None]
    lit = exact.pow(lit, 1 / 1.2).astype(np.float32)  # numpy's power differs between CPUs
    img = np.clip(np.round(lit * 255.0), 0, 255).astype(np.uint8)
    return img[::-1]  # row 0 of the heightmap is the south edge; pictures start at the top


def png_bytes(image: npt.NDArray[np.uint8] | npt.NDArray[np.uint16]) -> bytes:
    """Encode a uint8 (rows, cols, 3|4) or (rows, cols) array, or a uint16 (rows, cols) array (16-bit
    grey, as height and wear maps need), as PNG bytes.

    >>> png_bytes(np.array([[0, 65535]], np.uint16))[24:26]   # bit depth 16, colour type 0 (grey)
    b'\\x10\\x00'
    """
    img = check_array(image, name="image", dtype_kind="u")
    wide = img.dtype == np.uint16 and img.ndim == 2
    if not wide and (img.dtype != np.uint8 or img.ndim not in (2, 3) or (img.ndim == 3 and img.shape[2] not in (3, 4))):
        raise ValueError(f"image must be uint8 (rows, cols[, 3|4]) or uint16 (rows, cols), got {img.dtype} {img.shape}")
    rows, cols = img.shape[:2]
    colour_type = 0 if img.ndim == 2 else (2 if img.shape[2] == 3 else 6)  # grey, RGB, RGBA
    # 16-bit samples are big-endian in a PNG, two bytes each
    body = img.astype(">u2").view(np.uint8) if wide else img
    raw = np.concatenate([np.zeros((rows, 1), np.uint8), body.reshape(rows, -1)], axis=1).tobytes()

    def chunk(tag: bytes, data: bytes) -> bytes:
        body = tag + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", cols, rows, 16 if wide else 8, colour_type, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b"")


def _srgb_thresholds() -> npt.NDArray[np.float64]:
    """The 255 linear values where an sRGB byte steps up: byte ``b`` from ``((b - 0.5) / 255)``
    decoded by the IEC 61966-2-1 curve, in decimal arithmetic (the same digits on any CPU)."""
    out: list[float] = []
    with localcontext() as ctx:
        ctx.prec = 40
        for b in range(1, 256):
            s = Decimal(2 * b - 1) / Decimal(510)
            lin = (
                s / Decimal("12.92")
                if s <= Decimal("0.04045")
                else ((s + Decimal("0.055")) / Decimal("1.055")) ** Decimal("2.4")
            )
            out.append(float(lin))
    return np.array(out, np.float64)


_SRGB_TABLE = np.searchsorted(_srgb_thresholds(), np.arange(_SRGB_STEPS + 1) / _SRGB_STEPS, side="right").astype(
    np.uint8
)


def srgb_bytes(linear: npt.ArrayLike) -> npt.NDArray[np.uint8]:
    """Linear light in [0, 1] as sRGB bytes (the display encoding of PNGs): uint8 of the same shape.

    Values are clipped to [0, 1] and rounded to 1/65535 first (exact float steps), then looked
    up in a table made with decimal arithmetic: the same bytes on any machine.

    >>> srgb_bytes(np.array([0.0, 0.0031308, 0.5, 1.0])).tolist()
    [0, 10, 188, 255]
    """
    v = check_array(linear, name="linear")
    steps = np.rint(np.clip(v, 0.0, 1.0) * np.float64(_SRGB_STEPS)).astype(np.int32)
    return _SRGB_TABLE[steps]


def splat_colours(weights: npt.ArrayLike, colours: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """The ground colour of texture layers blended by their weights, as Unity's terrain shader
    blends its alphamaps: ``sum_i weights[i] * colours[i]`` per texel.

    Parameters
    ----------
    weights : (L, R, C) array_like
        Each layer's weight per texel: floats in [0, 1], or the bytes of splat images (uint8,
        0..255, as ``core.splat.unpack_splats`` reads them back times 255).
    colours : (L, 3) array_like of float
        Each layer's linear RGB colour (its flat colour, or its texture's mean).

    Returns
    -------
    rgb : (R, C, 3) float32 ndarray
        Linear RGB in [0, 1] (the weights sum to 1 per texel).

    >>> w = np.array([[[1.0, 0.5]], [[0.0, 0.5]]])
    >>> splat_colours(w, [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]).tolist()
    [[[1.0, 0.0, 0.0], [0.5, 0.0, 0.5]]]
    """
    w = np.asarray(weights)
    scale = np.float32(1.0 / 255.0) if w.dtype == np.uint8 else np.float32(1.0)
    w = check_array(w, name="weights", ndim=3, dtype_kind="fiu")
    c = check_array(colours, name="colours", ndim=2, shape=(w.shape[0], 3))
    out = np.zeros((*w.shape[1:], 3), np.float32)
    for layer, colour in zip(w, c.astype(np.float32)):  # one layer at a time: fixed order, small peak memory
        weight = layer.astype(np.float32) * scale
        out += weight[..., None] * colour
    return np.clip(out, 0.0, 1.0, out=out)


def cell_colours(vertex_colours: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """Colours at the vertices of a grid ``(R, C, k)`` as an image of its cells ``(R - 1, C - 1, k)``
    float32: each texel the mean of its cell's four corners (a texel of a ``C - 1`` wide image
    spans one cell of the terrain, as Unity's alphamaps do).

    >>> cell_colours(np.array([[[0.0], [2.0]], [[4.0], [6.0]]])).tolist()
    [[[3.0]]]
    """
    v = check_array(vertex_colours, name="vertex_colours", ndim=3).astype(np.float32)
    if min(v.shape[:2]) < 2:
        raise ParameterError(f"vertex_colours must have at least 2 x 2 vertices, got shape {v.shape}")
    out = v[:-1, :-1] + v[:-1, 1:]
    out += v[1:, :-1]
    out += v[1:, 1:]
    out *= np.float32(0.25)
    return out


@overload
def sample_image(image: npt.NDArray[np.uint8], shape: tuple[int, ...]) -> npt.NDArray[np.uint8]: ...
@overload
def sample_image(image: npt.ArrayLike, shape: tuple[int, ...]) -> npt.NDArray[np.uint8] | npt.NDArray[np.float32]: ...
def sample_image(image: npt.ArrayLike, shape: tuple[int, ...]) -> npt.NDArray[np.uint8] | npt.NDArray[np.float32]:
    """An image ``(R, C, ...)`` sampled bilinearly at the points of a ``shape`` grid that spans it
    corner to corner (a heightmap over the same ground); texel ``(i, j)`` is centred at
    ``((j + 0.5) / C, (i + 0.5) / R)`` of the square, as a GPU samples a texture (clamped at the
    edges).  Bytes come back as bytes (rounded), floats as float32.

    >>> sample_image(np.array([[0, 100], [200, 255]], np.uint8), (3, 3)).tolist()
    [[0, 50, 100], [100, 139, 178], [200, 228, 255]]
    """
    img = np.asarray(image)
    if img.ndim < 2 or min(img.shape[:2]) < 1:
        raise ParameterError(f"image must be (rows, cols[, channels]), got shape {img.shape}")
    rows, cols = shape

    def axis(n_out: int, n_in: int) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp], npt.NDArray[np.float32]]:
        t = np.clip(np.linspace(0.0, 1.0, n_out) * n_in - 0.5, 0.0, n_in - 1.0)
        lo = np.minimum(t.astype(np.intp), max(n_in - 2, 0))
        return lo, np.minimum(lo + 1, n_in - 1), (t - lo).astype(np.float32)

    r0, r1, fr = axis(rows, img.shape[0])
    c0, c1, fc = axis(cols, img.shape[1])
    f = img.astype(np.float32)
    extra = (None,) * (img.ndim - 2)
    fc = fc[(None, slice(None), *extra)]
    top = f[r0][:, c0] * (1 - fc) + f[r0][:, c1] * fc
    bottom = f[r1][:, c0] * (1 - fc) + f[r1][:, c1] * fc
    fr = fr[(slice(None), None, *extra)]
    out = top * (1 - fr) + bottom * fr
    if img.dtype == np.uint8:
        return np.clip(np.rint(out), 0, 255).astype(np.uint8)
    return out
