"""Shaded relief and the PNG writer."""

import struct
import zlib

import numpy as np
import pytest

from worldseed.core import preview


def decode_png(data):
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks = 8, {}
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        tag = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length : pos + 12 + length])
        assert crc == zlib.crc32(tag + body) & 0xFFFFFFFF
        chunks[tag] = chunks.get(tag, b"") + body
        pos += 12 + length
    w, h, depth, colour, *_ = struct.unpack(">IIBBBBB", chunks[b"IHDR"])
    channels = {0: 1, 2: 3, 6: 4}[colour]
    raw = np.frombuffer(zlib.decompress(chunks[b"IDAT"]), np.uint8).reshape(h, 1 + w * channels)
    assert (raw[:, 0] == 0).all()  # filter type 0 on every row
    return raw[:, 1:].reshape(h, w, channels) if channels > 1 else raw[:, 1:]


def test_png_round_trip():
    img = np.random.default_rng(0).integers(0, 256, (7, 5, 3), dtype=np.uint8)
    np.testing.assert_array_equal(decode_png(preview.png_bytes(img)), img)
    grey = img[..., 0]
    np.testing.assert_array_equal(decode_png(preview.png_bytes(grey)), grey)


def test_png_rejects_wrong_dtype():
    with pytest.raises(ValueError, match="image"):
        preview.png_bytes(np.zeros((4, 4, 3), np.float32))


def test_relief_is_lit_from_the_north_west():
    y, x = np.mgrid[0:64, 0:64].astype(np.float32)
    faces_west = x / 64  # rises towards the east, so the slope looks west
    faces_east = (64 - x) / 64
    faces_north = (64 - y) / 64  # row 0 is the south edge: high in the south, looks north
    faces_south = y / 64
    lit = {
        name: preview.shaded_relief(h, cell_size=1.0, height=40.0).astype(int).sum()
        for name, h in [("w", faces_west), ("e", faces_east), ("n", faces_north), ("s", faces_south)]
    }
    assert lit["w"] > lit["e"] and lit["n"] > lit["s"]


def test_relief_colours_water_and_snow():
    h = np.linspace(0, 1, 64, dtype=np.float32)[None, :].repeat(8, 0)
    img = preview.shaded_relief(h, cell_size=100000.0, height=1000.0, sea_level=0.2)
    water, snow = img[4, 2].astype(int), img[4, -1].astype(int)
    assert water[2] > water[0]  # blue
    assert snow.min() > 200  # white


def test_large_maps_are_subsampled():
    img = preview.shaded_relief(np.zeros((3000, 2000), np.float32), cell_size=1.0, height=1.0, max_side=1000)
    assert img.shape == (1000, 667, 3)
