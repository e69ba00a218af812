"""A small PNG reader for sample images: 8-bit grey, RGB, RGBA or palette, not interlaced.

Only the standard library's zlib and numpy, so core stays free of imaging libraries. The reverse of
:func:`core.preview.png_bytes`; every malformed file is one :class:`~core.errors.ParameterError` line.
"""

import struct
import zlib
from collections.abc import Iterator

import numpy as np
import numpy.typing as npt

from ..errors import ParameterError, short

__all__ = ["read_png", "MAX_PNG_PIXELS"]

SIGNATURE = b"\x89PNG\r\n\x1a\n"
#: Largest picture read (4096 x 4096) without ``max_side``: a bomb must not fill memory (a sample is
#: smaller still: :func:`.read_sample` passes ``max_side=256``, :data:`._patterns.MAX_SAMPLE_SIDE`).
MAX_PNG_PIXELS = 4096 * 4096
#: Channels per colour type: grey, RGB, palette, RGBA (grey + alpha, type 4, is refused).
CHANNELS = {0: 1, 2: 3, 3: 1, 6: 4}


def _chunks(data: bytes, name: str) -> Iterator[tuple[bytes, bytes]]:
    """``(tag, body)`` of every chunk, CRCs checked, up to IEND."""
    pos = len(SIGNATURE)
    while True:
        if pos + 8 > len(data):
            raise ParameterError(f"{name} is not a valid PNG: it ends before IEND (truncated)")
        length, tag = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + length]
        crc = data[pos + 8 + length : pos + 12 + length]
        if len(body) != length or len(crc) != 4:
            raise ParameterError(f"{name} is not a valid PNG: chunk {short(tag)} is truncated")
        if struct.unpack(">I", crc)[0] != zlib.crc32(tag + body) & 0xFFFFFFFF:
            raise ParameterError(f"{name} is not a valid PNG: chunk {short(tag)} has a bad CRC")
        yield tag, body
        if tag == b"IEND":
            return
        pos += 12 + length


def _unfilter(raw: npt.NDArray[np.uint8], rows: int, stride: int, bpp: int, name: str) -> npt.NDArray[np.uint8]:
    """Undo the per-row filters (0 none, 1 sub, 2 up, 3 average, 4 Paeth) into (rows, stride) uint8."""
    lines = raw.reshape(rows, stride + 1)
    kinds, lines = lines[:, 0], lines[:, 1:]
    if kinds.max(initial=0) > 4:
        raise ParameterError(f"{name} is not a valid PNG: unknown row filter {int(kinds.max())}")
    if not kinds.any():  # the common case (png_bytes writes it): nothing to undo
        return lines.copy()
    out = np.zeros((rows + 1, stride), np.uint8)  # row 0 is the zero row above the picture
    for r in range(rows):
        line, up, kind = lines[r], out[r], kinds[r]
        if kind == 0:
            out[r + 1] = line
        elif kind == 1:  # sub: a running sum per channel (uint8 wraps mod 256)
            out[r + 1] = np.cumsum(line.reshape(-1, bpp), axis=0, dtype=np.uint8).ravel()
        elif kind == 2:
            out[r + 1] = line + up
        else:  # average and Paeth depend on the byte just decoded: a loop over one row's bytes
            cur, line_i, up_i = [0] * (stride + bpp), line.tolist(), up.tolist()
            for i in range(stride):
                a, b = cur[i], up_i[i]
                if kind == 3:
                    pred = (a + b) >> 1
                else:
                    c = up_i[i - bpp] if i >= bpp else 0
                    pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                    pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                cur[i + bpp] = (line_i[i] + pred) & 0xFF
            out[r + 1] = cur[bpp:]
    return out[1:]


def read_png(data: bytes, *, name: str = "sample", max_side: int | None = None) -> npt.NDArray[np.uint8]:
    """Decode PNG bytes to a uint8 array: (rows, cols) grey, (rows, cols, 3) RGB or palette, (rows, cols, 4) RGBA.

    Parameters
    ----------
    data : bytes
        The whole file. 8-bit samples, not interlaced; ancillary chunks are skipped (a palette's
        transparency too).
    name : str
        What error messages call the file.
    max_side : int, optional
        Refuse a picture wider or taller than this from its header (before decompressing):
        ``"... must be 1 to 256 pixels a side"``. Without it the limit is :data:`MAX_PNG_PIXELS`
        pixels (4096 x 4096).

    >>> from core.preview import png_bytes
    >>> img = np.arange(12, dtype=np.uint8).reshape(2, 2, 3)
    >>> bool((read_png(png_bytes(img)) == img).all())
    True
    """
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise ParameterError(f"{name} must be the bytes of a PNG file, got {type(data).__name__}")
    data = bytes(data)
    if not data.startswith(SIGNATURE):
        raise ParameterError(f"{name} is not a PNG file (no PNG signature), starts with {short(data[:8])}")
    header, palette, idat = None, None, []
    for tag, body in _chunks(data, name):
        if tag == b"IHDR":
            if len(body) != 13:
                raise ParameterError(f"{name} is not a valid PNG: IHDR has {len(body)} bytes, not 13")
            header = struct.unpack(">IIBBBBB", body)
        elif header is None:
            raise ParameterError(f"{name} is not a valid PNG: {short(tag)} comes before IHDR")
        elif tag == b"PLTE":
            if len(body) % 3 or not body:
                raise ParameterError(f"{name} is not a valid PNG: a palette of {len(body)} bytes")
            palette = np.frombuffer(body, np.uint8).reshape(-1, 3)
        elif tag == b"IDAT":
            idat.append(body)
    if header is None:
        raise ParameterError(f"{name} is not a valid PNG: no IHDR")
    cols, rows, depth, colour, compression, filtering, interlace = header
    if depth != 8 or colour not in CHANNELS:
        kind = "grey + alpha" if colour == 4 else f"colour type {colour}"
        raise ParameterError(
            f"{name} must be an 8-bit grey, RGB, RGBA or palette PNG, got {kind} at {depth} bits per sample"
        )
    if interlace or compression or filtering:
        raise ParameterError(f"{name} must be a non-interlaced PNG (save it without interlacing)")
    if max_side is not None and not (1 <= rows <= max_side and 1 <= cols <= max_side):
        raise ParameterError(f"{name} must be 1 to {max_side} pixels a side, got {cols} x {rows}")
    if not 1 <= rows * cols <= MAX_PNG_PIXELS or rows == 0 or cols == 0:
        raise ParameterError(f"{name} must have 1 to {MAX_PNG_PIXELS:,} pixels (4096 x 4096), got {cols} x {rows}")
    if colour == 3 and palette is None:
        raise ParameterError(f"{name} is not a valid PNG: a palette picture without PLTE")
    bpp = CHANNELS[colour]
    stride = cols * bpp
    expected = rows * (stride + 1)
    try:
        inflater = zlib.decompressobj()
        raw = inflater.decompress(b"".join(idat), expected)
    except zlib.error as err:
        raise ParameterError(f"{name} is not a valid PNG: its image data does not decompress ({err})") from None
    if len(raw) != expected:
        raise ParameterError(f"{name} is not a valid PNG: {len(raw):,} bytes of image data, expected {expected:,}")
    pixels = _unfilter(np.frombuffer(raw, np.uint8), rows, stride, bpp, name)
    if colour == 0:
        return pixels
    if colour == 3:
        assert palette is not None  # checked above
        if int(pixels.max()) >= len(palette):
            raise ParameterError(
                f"{name} is not a valid PNG: index {int(pixels.max())} past a palette of {len(palette)}"
            )
        return palette[pixels]
    return pixels.reshape(rows, cols, bpp)
