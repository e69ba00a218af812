"""A small PNG reader for sample images: every colour type and bit depth PNG allows, Adam7 too.

Grey at 1, 2, 4, 8 or 16 bits, palette at 1, 2, 4 or 8, grey + alpha, RGB and RGBA at 8 or 16, each
with or without a ``tRNS`` transparency, interlaced (Adam7) or not.  Only the standard library's
zlib and numpy, so core stays free of imaging libraries. The reverse of :func:`core.preview.png_bytes`;
every malformed file is one :class:`~core.errors.ParameterError` line (quoting nothing of the file).

What comes back is 8-bit, as a sample compares colours (:func:`read_png`): grey samples of fewer bits
are scaled to 0..255 (a 1-bit 1 is 255, a 4-bit 15 is 255: as 8-bit viewers show them), 16-bit
samples rounded to the nearest 8-bit value (``v * 255 / 65535``: colours closer than an 8-bit step
become one, as the reference WFC's 8-bit bitmaps see them); a palette picture is the palette's colours.
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
#: Samples per pixel of each colour type: grey, RGB, palette, grey + alpha, RGBA.
CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}
#: The bit depths PNG allows for each colour type.
DEPTHS = {0: (1, 2, 4, 8, 16), 2: (8, 16), 3: (1, 2, 4, 8), 4: (8, 16), 6: (8, 16)}
KIND_NAMES = {0: "grey", 2: "RGB", 3: "palette", 4: "grey + alpha", 6: "RGBA"}
#: The seven passes of Adam7 interlacing: (first column, first row, column step, row step).
ADAM7 = ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2))


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
    """Undo the per-row filters (0 none, 1 sub, 2 up, 3 average, 4 Paeth) into (rows, stride) uint8;
    ``bpp`` is the bytes a filter reaches back (a whole pixel's, at least 1)."""
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


def _samples(lines: npt.NDArray[np.uint8], rows: int, cols: int, depth: int, channels: int) -> npt.NDArray[np.uint16]:
    """(rows, cols, channels) uint16 sample values of unfiltered scanlines ``lines`` (rows, stride) uint8."""
    if depth == 8:
        return lines[:, : cols * channels].reshape(rows, cols, channels).astype(np.uint16)
    if depth == 16:
        pairs = lines[:, : cols * channels * 2].reshape(rows, cols * channels, 2).astype(np.uint16)
        return (pairs[..., 0] << 8 | pairs[..., 1]).reshape(rows, cols, channels).astype(np.uint16, copy=False)
    bits = np.unpackbits(lines, axis=1)[:, : cols * depth].reshape(rows, cols, depth)  # one channel below 8 bits
    weights = (1 << np.arange(depth - 1, -1, -1)).astype(np.uint16)
    return (bits.astype(np.uint16) * weights).sum(axis=2, dtype=np.uint16)[..., None]


def _passes(rows: int, cols: int, interlace: int) -> list[tuple[int, int, int, int, int, int]]:
    """``(x0, y0, dx, dy, pass rows, pass cols)`` of each pass holding pixels (one pass without interlacing)."""
    if not interlace:
        return [(0, 0, 1, 1, rows, cols)]
    out = []
    for x0, y0, dx, dy in ADAM7:
        prows, pcols = -(-(rows - y0) // dy) if rows > y0 else 0, -(-(cols - x0) // dx) if cols > x0 else 0
        if prows and pcols:  # an empty pass has no bytes at all, not even filter bytes
            out.append((x0, y0, dx, dy, prows, pcols))
    return out


def _to_8_bits(values: npt.NDArray[np.uint16], depth: int, colour: int) -> npt.NDArray[np.uint8]:
    """uint8 of sample ``values`` (uint16) at ``depth`` bits (see the module docstring); palette indices stay."""
    if depth == 8 or colour == 3:
        return values.astype(np.uint8)
    if depth < 8:
        return (values * (255 // ((1 << depth) - 1))).astype(np.uint8)
    return ((values.astype(np.uint32) * 255 + 32767) // 65535).astype(np.uint8)


def read_png(data: bytes, *, name: str = "sample", max_side: int | None = None) -> npt.NDArray[np.uint8]:
    """Decode PNG bytes to a uint8 array: (rows, cols) grey, (rows, cols, 3) RGB or palette, (rows, cols, 4) RGBA.

    Parameters
    ----------
    data : bytes
        The whole file: any colour type at any bit depth PNG allows, interlaced or not (see the module
        docstring for how samples of other than 8 bits become 8).  A ``tRNS`` transparency makes the
        picture RGBA (grey and RGB: alpha 0 on the colour it names; palette: its alphas), as does grey
        + alpha (the grey in red, green and blue).  Other ancillary chunks are skipped.
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
        raise ParameterError(f"{name} is not a PNG file (no PNG signature)")
    header, palette, trns, idat = None, None, None, []
    for tag, body in _chunks(data, name):
        if tag == b"IHDR":
            if len(body) != 13:
                raise ParameterError(f"{name} is not a valid PNG: IHDR has {len(body)} bytes, not 13")
            header = struct.unpack(">IIBBBBB", body)
        elif header is None:
            raise ParameterError(f"{name} is not a valid PNG: {short(tag)} comes before IHDR")
        elif tag == b"PLTE":
            if len(body) % 3 or not body or len(body) > 768:
                raise ParameterError(f"{name} is not a valid PNG: a palette of {len(body)} bytes")
            palette = np.frombuffer(body, np.uint8).reshape(-1, 3)
        elif tag == b"tRNS":
            trns = body
        elif tag == b"IDAT":
            idat.append(body)
    if header is None:
        raise ParameterError(f"{name} is not a valid PNG: no IHDR")
    cols, rows, depth, colour, compression, filtering, interlace = header
    if colour not in DEPTHS or depth not in DEPTHS[colour]:
        kind = KIND_NAMES.get(colour, f"colour type {colour}")
        raise ParameterError(
            f"{name} is not a valid PNG: {kind} at {depth} bits per sample "
            "(PNG allows grey at 1, 2, 4, 8, 16; palette at 1, 2, 4, 8; RGB, grey + alpha, RGBA at 8, 16)"
        )
    if compression or filtering or interlace > 1:
        raise ParameterError(
            f"{name} is not a valid PNG: compression {compression}, filter method {filtering}, interlace {interlace}"
        )
    if max_side is not None and not (1 <= rows <= max_side and 1 <= cols <= max_side):
        raise ParameterError(f"{name} must be 1 to {max_side} pixels a side, got {cols} x {rows}")
    if not 1 <= rows * cols <= MAX_PNG_PIXELS or rows == 0 or cols == 0:
        raise ParameterError(f"{name} must have 1 to {MAX_PNG_PIXELS:,} pixels (4096 x 4096), got {cols} x {rows}")
    if colour == 3 and palette is None:
        raise ParameterError(f"{name} is not a valid PNG: a palette picture without PLTE")
    channels = CHANNELS[colour]
    bits = depth * channels
    bpp = max(1, bits // 8)
    passes = _passes(rows, cols, interlace)
    sizes = [prows * (-(-pcols * bits // 8) + 1) for *_, prows, pcols in passes]
    expected = sum(sizes)
    try:
        raw = zlib.decompressobj().decompress(b"".join(idat), expected)
    except zlib.error as err:
        raise ParameterError(f"{name} is not a valid PNG: its image data does not decompress ({err})") from None
    if len(raw) != expected:
        raise ParameterError(f"{name} is not a valid PNG: {len(raw):,} bytes of image data, expected {expected:,}")
    values = np.zeros((rows, cols, channels), np.uint16)
    at = 0
    for (x0, y0, dx, dy, prows, pcols), size in zip(passes, sizes):
        stride = -(-pcols * bits // 8)
        lines = _unfilter(np.frombuffer(raw, np.uint8, size, at), prows, stride, bpp, name)
        values[y0::dy, x0::dx] = _samples(lines, prows, pcols, depth, channels)
        at += size
    return _pixels(values, depth, colour, palette, trns, name)


def _pixels(
    values: npt.NDArray[np.uint16],
    depth: int,
    colour: int,
    palette: npt.NDArray[np.uint8] | None,
    trns: bytes | None,
    name: str,
) -> npt.NDArray[np.uint8]:
    """The picture of sample ``values`` (rows, cols, channels) uint16: see :func:`read_png`."""
    if colour == 3:
        assert palette is not None  # read_png refuses a palette picture without PLTE
        index = values[..., 0]
        if int(index.max()) >= len(palette):
            top = int(index.max())
            raise ParameterError(f"{name} is not a valid PNG: index {top} past a palette of {len(palette)}")
        if trns is None:
            return palette[index]
        alpha = np.full(len(palette), 255, np.uint8)
        alpha[: min(len(trns), len(palette))] = np.frombuffer(trns[: len(palette)], np.uint8)
        return np.concatenate([palette, alpha[:, None]], axis=1)[index]
    key = None
    if trns is not None and colour in (0, 2):
        if len(trns) != 2 * CHANNELS[colour]:
            raise ParameterError(f"{name} is not a valid PNG: a tRNS of {len(trns)} bytes for {KIND_NAMES[colour]}")
        key = np.array(struct.unpack(f">{CHANNELS[colour]}H", trns), np.uint16)
    pixels = _to_8_bits(values, depth, colour)
    if colour == 0 and key is None:
        return pixels[..., 0]
    if colour in (0, 4):  # grey (+ alpha): the grey in red, green and blue
        grey = pixels[..., :1]
        opacity = pixels[..., 1:] if colour == 4 else None
        pixels = np.concatenate([grey, grey, grey] + ([opacity] if opacity is not None else []), axis=2)
    if key is not None:  # grey or RGB with tRNS: alpha 0 where the sample values are the key's
        clear = (values == key).all(axis=2)
        pixels = np.concatenate([pixels, np.where(clear, 0, 255).astype(np.uint8)[..., None]], axis=2)
    return pixels
