"""One-line errors of core.wfc's inputs (a new user's trial): deeply nested tileset TOML,
3-D grids too big to allocate, sample files (PNG size limit, ragged .txt rows, the file's name) and
what sample arrays are accepted (RGB and RGBA images)."""

import struct
import time
import zlib
from pathlib import Path

import numpy as np
import pytest

from core.errors import ParameterError
from core.preview import png_bytes
from core.wfc import MAX_CELLS, load_tileset, overlapping, read_png, read_sample, tiled, tiled3d
from core.wfc._patterns import MAX_SAMPLE_SIDE
from core.wfc._solver import MAX_CELL_PATTERNS


def message(fn):
    with pytest.raises(ParameterError) as err:
        fn()
    text = str(err.value)
    assert "\n" not in text
    return text


# ---------------------------------------------------------------- C: tilesets that nest too deeply


def test_a_deeply_nested_tileset_file_is_one_line_naming_the_file(tmp_path):
    path = tmp_path / "deep.toml"
    depth = 100_000
    path.write_text("x = " + "[" * depth + "]" * depth + "\n")
    with pytest.raises(ParameterError) as err:
        load_tileset(path)
    assert str(err.value) == "deep.toml: values nest too deeply (more than 32 levels)"
    assert err.value.__cause__ is None and err.value.__suppress_context__  # no RecursionError traceback
    assert message(lambda: load_tileset(str(path))) == "deep.toml: values nest too deeply (more than 32 levels)"
    # an inline-table nest, given as text
    text = "[[tile]]\nname = 'a'\nx = " + "{a = " * 5000 + "1" + "}" * 5000 + "\n"
    assert message(lambda: load_tileset(text)) == "tileset: values nest too deeply (more than 32 levels)"
    # tiled() and tiled3d() load through load_tileset
    assert message(lambda: tiled(str(path), 4, 4)) == "deep.toml: values nest too deeply (more than 32 levels)"
    assert message(lambda: tiled3d(str(path), 4, 4, 2)) == "deep.toml: values nest too deeply (more than 32 levels)"


def test_a_tileset_number_too_long_for_int_is_one_line(tmp_path):
    path = tmp_path / "long.toml"
    path.write_text("name = 'x'\nweight = " + "9" * 5000 + "\n")
    assert "long.toml: not valid TOML: a number is too long" in message(lambda: load_tileset(path))


def test_nesting_that_tomllib_takes_still_loads():
    ts = load_tileset(
        "[[tile]]\nname = 'a'\nsockets = { north = 'a', east = 'a', south = 'a', west = 'a' }\n"
        "[[tile]]\nname = 'b'\nsockets = { north = 'a', east = 'a', south = 'a', west = 'a' }\n"
    )
    assert ts.names == ("a", "b")


# ---------------------------------------------------------------- D: tiled3d checks its size first


def blocks():
    return load_tileset(Path(__file__).resolve().parents[2] / "presets" / "wfc" / "blocks3d.toml")


@pytest.mark.parametrize(
    ("size", "words"),
    [
        ((4096, 4096, 4096), "4096 x 4096 x 4096 = 68,719,476,736 cells, more than the 1,048,576"),
        ((200, 200, 200), "200 x 200 x 200 = 8,000,000 cells, more than the 1,048,576"),
        ((2, 2, 10**9), "2 x 2 x 1000000000 = 4,000,000,000 cells"),  # depth is bounded too
        ((1024, 1024, 2), "1024 x 1024 x 2 = 2,097,152 cells"),
    ],
)
def test_tiled3d_refuses_too_many_cells_at_once(size, words):
    ts = blocks()
    start = time.perf_counter()
    text = message(lambda: tiled3d(ts, *size))
    assert time.perf_counter() - start < 0.5  # nothing allocated: no MemoryError, no 4.7 s wait
    assert words in text and "width x height x depth" in text
    assert MAX_CELLS == 1_048_576


def test_tiled3d_refuses_too_many_cell_patterns_before_allocating():
    # under MAX_CELLS but cells x variants past the solver's (cells, P) masks
    sockets = "{ north = 'a', east = 'a', south = 'a', west = 'a', up = 'a', down = 'a' }"
    many = "\n".join(f"[[tile]]\nname = 't{i}'\nsockets = {sockets}" for i in range(80))
    ts = load_tileset(many)
    cells = 1024 * 1024
    assert cells <= MAX_CELLS and cells * 80 > MAX_CELL_PATTERNS
    start = time.perf_counter()
    text = message(lambda: tiled3d(ts, 256, 256, 16))
    assert time.perf_counter() - start < 0.5
    assert "256 x 256 x 16 = 1,048,576 cells with 80 tile variants" in text and "67,108,864" in text


def test_tiled3d_at_the_limit_is_still_checked_not_refused():
    ts = blocks()
    assert len(ts.names) * MAX_CELLS <= MAX_CELL_PATTERNS  # the preset fits at the largest grid
    result = tiled3d(ts, 6, 5, 3, seed=0)
    assert result.tiles.shape == (3, 5, 6)


def test_tiled_2d_refuses_too_many_cells_before_its_edge_mask():
    ts = load_tileset(
        "edge = 'a'\n[[tile]]\nname = 'a'\nsockets = { north = 'a', east = 'a', south = 'a', west = 'a' }\n"
    )
    start = time.perf_counter()
    text = message(lambda: tiled(ts, 100_000, 100_000, connected=True))
    assert time.perf_counter() - start < 0.5
    assert "width x height = 100000 x 100000 = 10,000,000,000 cells, more than the 1,048,576" in text


# ---------------------------------------------------------------- E: sample messages


def png_header_only(width, height):
    """A PNG whose header claims width x height RGB pixels (a decompression bomb's header) and whose
    image data is a few bytes: a reader that checks the size first never looks at them."""

    def chunk(tag, data):
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    idat = zlib.compress(b"\x00" * 1000)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def test_a_png_sample_larger_than_256_a_side_states_the_real_limit_and_the_file(tmp_path):
    bomb = tmp_path / "bomb.png"
    bomb.write_bytes(png_header_only(30000, 30000))
    text = message(lambda: read_sample(bomb))
    assert text == f"sample {str(bomb)!r} must be 1 to 256 pixels a side, got 30000 x 30000"
    big = tmp_path / "wide.png"
    big.write_bytes(png_bytes(np.zeros((4, 257, 3), np.uint8)))  # under 4096 x 4096 pixels, over 256 a side
    assert "wide.png' must be 1 to 256 pixels a side, got 257 x 4" in message(lambda: read_sample(big))
    edge = tmp_path / "edge.png"
    edge.write_bytes(png_bytes(np.zeros((256, 3, 3), np.uint8)))
    assert read_sample(edge).shape == (256, 3, 3)
    # an array sample: the same limit in the same words
    assert "must be 1 to 256 values a side, got 257 x 4" in message(lambda: overlapping(np.zeros((4, 257), int), 8, 8))
    assert MAX_SAMPLE_SIDE == 256


def test_read_png_without_max_side_keeps_its_own_stated_limit():
    text = message(lambda: read_png(png_header_only(30000, 30000), name="picture"))
    assert text == "picture must have 1 to 16,777,216 pixels (4096 x 4096), got 30000 x 30000"
    assert "1 to 256 pixels a side" in message(lambda: read_png(png_header_only(300, 2), max_side=256))


def test_sample_file_errors_name_the_file(tmp_path):
    bad = tmp_path / "notpng.png"
    bad.write_bytes(b"GIF89a....")
    assert f"sample {str(bad)!r} is not a PNG file" in message(lambda: read_sample(bad))
    tall = tmp_path / "tall.txt"
    tall.write_text("01\n" * 300)
    assert f"sample {str(tall)!r} must be 1 to 256 values a side, got 2 x 300" == message(lambda: read_sample(tall))
    empty = tmp_path / "empty.txt"
    empty.write_text("# only a comment\n\n")
    assert "empty.txt' must be rows of digits" in message(lambda: read_sample(empty))


def test_a_ragged_txt_sample_names_the_bad_line(tmp_path):
    path = tmp_path / "ragged.txt"
    path.write_text("# a comment\n\n0120\n0110\n011\n0000\n")  # the short row is line 5 of the file
    text = message(lambda: read_sample(path))
    assert "ragged.txt" in text and "line 5 has 3" in text and "line 3 has 4" in text
    path.write_text("012\n0x2\n")
    text = message(lambda: read_sample(path))
    assert "ragged.txt" in text and "only digits 0-9, got line 2: '0x2'" in text


def test_rgb_and_rgba_samples_are_accepted_as_the_message_says():
    rng = np.random.default_rng(4)
    colours = np.array([[0, 0, 0, 255], [250, 10, 10, 255], [250, 10, 10, 128]], np.uint8)
    idx = rng.integers(0, 3, (8, 8))
    rgba = overlapping(colours[idx], 10, 9, n=2, seed=1)
    assert rgba.output.shape == (9, 10, 4) and rgba.output.dtype == np.uint8
    assert rgba.palette.shape == (3, 4)  # alpha counts: the two reds are two values
    seen = {tuple(c) for c in rgba.output.reshape(-1, 4).tolist()}
    assert seen <= {tuple(c) for c in colours.tolist()}
    rgb = overlapping(colours[idx][..., :3], 10, 9, n=2, seed=1)
    assert rgb.output.shape == (9, 10, 3) and rgb.palette.shape == (2, 3)
    for bad in (np.zeros((4, 4, 2), np.uint8), np.zeros((4, 4, 3), np.float32), np.zeros((4, 4, 5), np.uint8)):
        text = message(lambda bad=bad: overlapping(bad, 8, 8))
        assert "sample must be an (h, w) integer array or an (h, w, 3) or (h, w, 4) uint8 image" in text
        assert str(bad.shape) in text
