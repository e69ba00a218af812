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


def test_srgb_bytes_are_the_srgb_curve_rounded():
    linear = np.arange(65536) / 65535.0
    exact = np.where(linear <= 0.0031308, linear * 12.92, 1.055 * linear ** (1 / 2.4) - 0.055) * 255.0
    got = preview.srgb_bytes(linear).astype(int)
    assert np.abs(got - exact).max() <= 0.5 + 1e-6  # the nearest byte (ties either way)
    assert (np.diff(got) >= 0).all() and got[0] == 0 and got[-1] == 255
    assert preview.srgb_bytes(np.array([-1.0, 2.0])).tolist() == [0, 255]


def test_splat_colours_blend_bytes_and_floats_alike():
    rng = np.random.default_rng(3)
    w = rng.random((3, 5, 4))
    w /= w.sum(axis=0)
    colours = [[0.1, 0.3, 0.1], [0.4, 0.4, 0.4], [0.9, 0.9, 0.95]]
    blend = preview.splat_colours(w, colours)
    np.testing.assert_allclose(blend, np.einsum("lrc,lk->rck", w, colours), atol=1e-6)
    as_bytes = preview.splat_colours(np.rint(w * 255).astype(np.uint8), colours)
    assert np.abs(as_bytes - blend).max() < 3 / 255
    with pytest.raises(preview.ParameterError, match="colours"):
        preview.splat_colours(w, colours[:2])


def test_relief_shows_the_layers_colours_and_keeps_the_sea():
    """A snow layer on the high half shows white in the relief (issue 21: it showed in neither
    picture), the low half keeps the palette's water below the sea level."""
    h = np.linspace(0, 1, 64, dtype=np.float32)[None, :].repeat(32, 0)
    weights = np.zeros((2, 31, 63), np.float32)
    weights[0, :, :31], weights[1, :, 31:] = 1.0, 1.0  # grass west, snow east
    colours = preview.srgb_bytes(preview.splat_colours(weights, [[0.1, 0.3, 0.1], [0.9, 0.9, 0.95]]))
    img = preview.shaded_relief(h, cell_size=1000.0, height=100.0, sea_level=0.1, colours=colours)
    plain = preview.shaded_relief(h, cell_size=1000.0, height=100.0, sea_level=0.1)
    snow, grass, sea = img[16, 50].astype(int), img[16, 25].astype(int), img[16, 2].astype(int)
    assert snow.min() > 200 and grass[1] > grass[0] + 20
    np.testing.assert_array_equal(sea, plain[16, 2])  # water as the palette has it
    assert not np.array_equal(img[16, 50], plain[16, 50])


def test_sample_image_spans_the_grid_corner_to_corner():
    img = np.arange(12, dtype=np.uint8).reshape(3, 4)
    out = preview.sample_image(img, (3, 4))
    assert out[0, 0] == img[0, 0] and out[-1, -1] == img[-1, -1] and out.dtype == np.uint8
    assert preview.sample_image(img.astype(np.float32), (5, 7)).shape == (5, 7)
    assert preview.sample_image(np.zeros((2, 2, 3), np.uint8), (4, 4)).shape == (4, 4, 3)
