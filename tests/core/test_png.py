"""core.wfc's PNG reader on every colour type and bit depth PNG allows (issue 21: a 4-bit palette sample,
the reference WFC's 3Bricks.png, was refused), written by an encoder of the tests' own
(``_png_cases.py``, plain zlib and struct); Blender's own PNG writer is checked in
tests/blender/test_wfc_image_sample.py."""

import numpy as np
import pytest

from core.errors import ParameterError
from core.wfc import read_png, read_sample

from ._png_cases import ALLOWED, encode_png, expected_pixels, random_samples

FILTERS = (0, 1, 2, 3, 4, 4, 3, 2, 1)


def _case(colour_type, depth, *, shape=(7, 13), seed=0, trns=False):
    """``(samples, palette, tRNS bytes)`` of a random picture; 16-bit samples are 8-bit values times 257
    (as an 8-bit picture saved at 16 bits is), so that no two colours meet at 8 bits."""
    rng = np.random.default_rng(seed)
    palette = tr = None
    if colour_type == 3:
        size = min(1 << depth, 11)
        palette = bytes(rng.integers(0, 256, 3 * size).tolist())
        samples = random_samples(rng, shape, 3, depth, palette_size=size)
        if trns:
            tr = bytes(rng.integers(0, 200, max(1, size - 2)).tolist())  # shorter than the palette: the rest opaque
        return samples, palette, tr
    if depth == 16:
        samples = random_samples(rng, shape, colour_type, 8) * 257
    else:
        samples = random_samples(rng, shape, colour_type, depth)
    if trns and colour_type in (0, 2):
        key = np.asarray(samples).reshape(shape[0], shape[1], -1)[1, 2]  # a colour the picture has
        tr = b"".join(int(v).to_bytes(2, "big") for v in key)
    return samples, palette, tr


@pytest.mark.parametrize("interlace", [False, True], ids=["plain", "adam7"])
@pytest.mark.parametrize(("colour_type", "depth"), ALLOWED)
def test_every_colour_type_and_bit_depth_reads_as_its_8_bit_picture(colour_type, depth, interlace):
    for trns in (False, True) if colour_type in (0, 2, 3) else (False,):
        samples, palette, tr = _case(colour_type, depth, seed=depth + 10 * colour_type, trns=trns)
        data = encode_png(
            samples,
            colour_type=colour_type,
            depth=depth,
            palette=palette,
            trns=tr,
            interlace=interlace,
            filters=FILTERS,
        )
        got = read_png(data)
        want = expected_pixels(samples, colour_type=colour_type, depth=depth, palette=palette, trns=tr)
        assert got.dtype == np.uint8 and got.shape == want.shape and np.array_equal(got, want), (trns, got.shape)
        if tr is not None:
            assert (got[..., 3] < 255).any()  # the transparency shows


@pytest.mark.parametrize("shape", [(1, 1), (1, 9), (9, 1), (2, 3), (5, 5), (8, 8), (17, 3)])
@pytest.mark.parametrize(("colour_type", "depth"), [(0, 1), (3, 2), (2, 16), (6, 8)])
def test_adam7_with_empty_passes_and_partial_bytes(shape, colour_type, depth):
    samples, palette, _ = _case(colour_type, depth, shape=shape, seed=sum(shape))
    plain = read_png(encode_png(samples, colour_type=colour_type, depth=depth, palette=palette, filters=FILTERS))
    interlaced = read_png(
        encode_png(samples, colour_type=colour_type, depth=depth, palette=palette, interlace=True, filters=FILTERS)
    )
    assert np.array_equal(plain, interlaced)
    assert np.array_equal(plain, expected_pixels(samples, colour_type=colour_type, depth=depth, palette=palette))


def test_16_bit_samples_round_to_the_nearest_8_bit_value():
    values = np.array([[0, 300, 30000], [65535, 40000, 128 * 257]])
    got = read_png(encode_png(values, colour_type=0, depth=16))
    assert got.tolist() == [[0, 1, 117], [255, 156, 128]]


def test_16_bit_colours_closer_than_an_8_bit_step_read_as_one():
    got = read_png(encode_png(np.array([[0, 1, 128, 129]]), colour_type=0, depth=16), name="s.png")
    assert got.tolist() == [[0, 0, 0, 1]]


def test_a_4_bit_palette_sample_file_reads_as_its_colours(tmp_path):
    """As the reference WFC's 3Bricks.png: a 32 x 32 palette picture at 4 bits."""
    samples, palette, _ = _case(3, 4, shape=(32, 32), seed=3)
    path = tmp_path / "bricks.png"
    path.write_bytes(encode_png(samples, colour_type=3, depth=4, palette=palette))
    got = read_sample(path)
    assert got.shape == (32, 32, 3) and np.array_equal(
        got, expected_pixels(samples, colour_type=3, depth=4, palette=palette)
    )


@pytest.mark.parametrize(
    ("colour_type", "depth", "words"),
    [(0, 3, "grey at 3 bits"), (2, 4, "RGB at 4 bits"), (3, 16, "palette at 16 bits"), (5, 8, "colour type 5")],
)
def test_depths_png_does_not_allow_are_one_line(colour_type, depth, words):
    data = encode_png(np.zeros((2, 2), int), colour_type=0, depth=8)
    ihdr = data[8:33]
    patched = bytearray(ihdr)
    patched[16], patched[17] = depth, colour_type
    import struct
    import zlib

    body = bytes(patched[4:-4])
    patched[-4:] = struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    with pytest.raises(ParameterError) as err:
        read_png(data[:8] + bytes(patched) + data[33:], name="p.png")
    assert words in str(err.value) and "PNG allows" in str(err.value) and "\n" not in str(err.value)


def test_interlaced_data_cut_short_is_one_line():
    samples, _, _ = _case(0, 8, shape=(9, 9))
    data = encode_png(samples, colour_type=0, depth=8, interlace=True)
    short_data = encode_png(samples[:8], colour_type=0, depth=8, interlace=True)
    # the 9 x 9 header with the 9 x 8 picture's data: fewer bytes than the passes need
    idat = short_data[33:]
    with pytest.raises(ParameterError, match="bytes of image data, expected"):
        read_png(data[:33] + idat)
