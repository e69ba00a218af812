"""A small PNG encoder for the reader's tests, written plainly from the PNG specification with ``zlib``
and ``struct`` only (no numpy in the byte work), so it shares nothing with ``core.wfc._png``.

``encode_png(samples, colour_type=..., depth=...)`` writes any colour type at any bit depth, with a
palette, a ``tRNS`` chunk, Adam7 interlacing and a cycle of row filters; ``expected_pixels`` says what
an 8-bit reader must make of it (the rules of ``core.wfc._png``'s docstring, worked out here on plain
ints).
"""

import struct
import zlib

import numpy as np

#: Samples per pixel of each colour type.
CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}
#: The colour types and bit depths PNG allows.
ALLOWED = [(0, 1), (0, 2), (0, 4), (0, 8), (0, 16), (2, 8), (2, 16), (3, 1), (3, 2), (3, 4), (3, 8)]
ALLOWED += [(4, 8), (4, 16), (6, 8), (6, 16)]
#: Adam7: (first column, first row, column step, row step) of each pass.
PASSES = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]


def _chunk(tag, data):
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)


def _pack_row(values, depth):
    """One scanline's bytes (no filter byte) of a row of sample values."""
    if depth == 16:
        return b"".join(struct.pack(">H", v) for v in values)
    if depth == 8:
        return bytes(values)
    per_byte = 8 // depth
    out = bytearray()
    for start in range(0, len(values), per_byte):
        byte = 0
        for j in range(per_byte):
            v = values[start + j] if start + j < len(values) else 0  # padding bits are zero
            byte |= v << (8 - depth * (j + 1))
        out.append(byte)
    return bytes(out)


def _paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def _filter_rows(rows, bpp, filters):
    """The filtered scanlines (filter byte first) of ``rows`` (list of bytes), filter ``filters[r % n]``."""
    out, prior = [], bytes(len(rows[0]) if rows else 0)
    for r, row in enumerate(rows):
        kind = filters[r % len(filters)]
        line = bytearray([kind])
        for i, x in enumerate(row):
            a = row[i - bpp] if i >= bpp else 0
            b = prior[i]
            c = prior[i - bpp] if i >= bpp else 0
            pred = (0, a, b, (a + b) // 2, _paeth(a, b, c))[kind] if kind <= 4 else 0  # 5..: a bad filter
            line.append((x - pred) % 256)
        out.append(bytes(line))
        prior = row
    return out


def encode_png(samples, *, colour_type, depth=8, palette=None, trns=None, interlace=False, filters=(0,)):
    """PNG bytes of ``samples``: (h, w) or (h, w, channels) ints at ``depth`` bits (palette indices for
    colour type 3); ``palette`` bytes (RGB triples), ``trns`` the tRNS chunk's bytes."""
    samples = np.asarray(samples)
    h, w = samples.shape[:2]
    grid = samples.reshape(h, w, -1).tolist()
    bits = depth * CHANNELS[colour_type]
    bpp = max(1, bits // 8)

    def scanlines(x0, y0, dx, dy):
        rows = []
        for y in range(y0, h, dy):
            values = [v for x in range(x0, w, dx) for v in grid[y][x]]
            if values:
                rows.append(_pack_row(values, depth))
        return _filter_rows(rows, bpp, filters)

    if interlace:
        lines = [line for p in PASSES for line in scanlines(*p)]
    else:
        lines = scanlines(0, 0, 1, 1)
    data = zlib.compress(b"".join(lines), 9)
    header = struct.pack(">IIBBBBB", w, h, depth, colour_type, 0, 0, int(interlace))
    body = _chunk(b"IHDR", header)
    if palette is not None:
        body += _chunk(b"PLTE", bytes(palette))
    if trns is not None:
        body += _chunk(b"tRNS", bytes(trns))
    half = len(data) // 2  # two IDAT chunks: the reader joins them
    body += _chunk(b"IDAT", data[:half]) + _chunk(b"IDAT", data[half:])
    return b"\x89PNG\r\n\x1a\n" + body + _chunk(b"IEND", b"")


def _to8(v, depth):
    if depth == 16:
        return (v * 255 + 32767) // 65535
    return v * 255 // ((1 << depth) - 1)


def expected_pixels(samples, *, colour_type, depth, palette=None, trns=None):
    """What an 8-bit reader gives for ``samples`` (see the module docstring), worked out on plain ints."""
    samples = np.asarray(samples)
    h, w = samples.shape[:2]
    grid = samples.reshape(h, w, -1).tolist()
    out = []
    for row in grid:
        line = []
        for px in row:
            if colour_type == 3:
                rgb = list(palette[3 * px[0] : 3 * px[0] + 3])
                if trns is not None:
                    rgb.append(trns[px[0]] if px[0] < len(trns) else 255)
                line.append(rgb)
                continue
            values = [_to8(v, depth) for v in px]
            keyed = trns is not None and colour_type in (0, 2)
            if colour_type == 4 or (colour_type == 0 and keyed):  # grey in red, green and blue
                values = [values[0]] * 3 + values[1:]
            if keyed:
                key = list(struct.unpack(f">{CHANNELS[colour_type]}H", bytes(trns)))
                values.append(0 if list(px) == key else 255)
            line.append(values if len(values) > 1 else values[0])
        out.append(line)
    return np.array(out, np.uint8)


def random_samples(rng, shape, colour_type, depth, palette_size=None):
    """Random sample values for ``shape`` (h, w) of ``colour_type`` at ``depth`` (palette: indices below
    ``palette_size``)."""
    h, w = shape
    top = palette_size if colour_type == 3 else 1 << depth
    values = rng.integers(0, top, (h, w, CHANNELS[colour_type]))
    return values[..., 0] if CHANNELS[colour_type] == 1 else values
