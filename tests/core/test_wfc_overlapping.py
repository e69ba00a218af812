"""The overlapping model of WFC: patterns and overlaps against brute force, outputs made of
the sample's patterns, ground, the PNG reader."""

import pathlib

import numpy as np
import pytest

from worldseed.core.errors import ParameterError
from worldseed.core.preview import png_bytes
from worldseed.core.wfc._contract import Contradiction
from worldseed.core.wfc._overlapping import overlapping
from worldseed.core.wfc._patterns import extract_patterns, overlap_compatible, read_sample
from worldseed.core.wfc._png import read_png

from ._png_cases import encode_png

SAMPLES = pathlib.Path(__file__).resolve().parents[2] / "presets" / "wfc" / "samples"


def message(call):
    with pytest.raises(ParameterError) as err:
        call()
    text = str(err.value)
    assert len(text) <= 400 and "\n" not in text, text[:500]
    return text


# --- a literal transcription of the reference (mxgmn, OverlappingModel.cs), flat lists p[x + y * N] ---


def ref_pattern(f, n):
    return tuple(f(x, y) for y in range(n) for x in range(n))


def ref_rotate(p, n):
    return ref_pattern(lambda x, y: p[n - 1 - y + x * n], n)


def ref_reflect(p, n):
    return ref_pattern(lambda x, y: p[n - 1 - x + y * n], n)


def ref_patterns(sample, n, symmetry, periodic_input):
    sy, sx = sample.shape
    found, weights = {}, []
    xmax, ymax = (sx, sy) if periodic_input else (sx - n + 1, sy - n + 1)
    for y in range(ymax):
        for x in range(xmax):
            ps = [ref_pattern(lambda dx, dy, x=x, y=y: int(sample[(y + dy) % sy, (x + dx) % sx]), n)]
            ps.append(ref_reflect(ps[0], n))
            for k in range(2, 8, 2):
                ps.append(ref_rotate(ps[k - 2], n))
                ps.append(ref_reflect(ps[k], n))
            for p in ps[:symmetry]:
                if p in found:
                    weights[found[p]] += 1
                else:
                    found[p] = len(weights)
                    weights.append(1)
    return list(found), weights


def ref_agrees(p1, p2, dx, dy, n):
    xmin, xmax = (0, dx + n) if dx < 0 else (dx, n)
    ymin, ymax = (0, dy + n) if dy < 0 else (dy, n)
    return all(p1[x + n * y] == p2[x - dx + n * (y - dy)] for y in range(ymin, ymax) for x in range(xmin, xmax))


def small_samples():
    rng = np.random.default_rng(11)
    yield np.array([[0, 0, 1], [0, 0, 1], [1, 1, 1]])
    yield np.array([[0, 1, 2, 0], [2, 2, 1, 0], [0, 0, 0, 1]])
    yield rng.integers(0, 2, (5, 6))
    yield rng.integers(0, 3, (4, 4))
    # rows numbered as integers of base max + 1 (n = 2 and 3) or, past int64 (200^9), by np.unique
    yield rng.integers(0, 200, (4, 5))
    yield np.array([[0, 7, 1000, 7], [1000, 0, 0, 7], [7, 7, 1000, 0]])


@pytest.mark.parametrize("symmetry", range(1, 9))
@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("periodic_input", [True, False])
def test_patterns_and_counts_equal_the_reference_brute_force(symmetry, n, periodic_input):
    for sample in small_samples():
        patterns, weights = extract_patterns(sample, n=n, symmetry=symmetry, periodic_input=periodic_input)
        want, want_weights = ref_patterns(sample, n, symmetry, periodic_input)
        assert [tuple(p.ravel().tolist()) for p in patterns] == want  # same patterns, same order
        assert weights.tolist() == want_weights
        windows = (sample.shape[0] - (0 if periodic_input else n - 1)) * (
            sample.shape[1] - (0 if periodic_input else n - 1)
        )
        assert weights.sum() == windows * symmetry


@pytest.mark.parametrize("n", [2, 3])
def test_compatible_is_symmetric_and_equals_the_brute_force_overlap(n):
    for sample in small_samples():
        patterns, _ = extract_patterns(sample, n=n, symmetry=8)
        c = overlap_compatible(patterns)
        assert c.shape == (4, len(patterns), len(patterns)) and c.dtype == bool
        assert (c == c[[2, 3, 0, 1]].transpose(0, 2, 1)).all()
        flat = [tuple(p.ravel().tolist()) for p in patterns]
        for d, (dx, dy) in enumerate([(1, 0), (0, 1), (-1, 0), (0, -1)]):
            want = [[ref_agrees(p, q, dx, dy, n) for q in flat] for p in flat]
            assert c[d].tolist() == want
        assert c.any() and not c.all()


def windows_of(grid, n, periodic):
    if periodic:
        grid = np.pad(grid, ((0, n - 1), (0, n - 1)), mode="wrap")
    w = np.lib.stride_tricks.sliding_window_view(grid, (n, n))
    return {tuple(v.ravel().tolist()) for v in w.reshape(-1, n, n)}


@pytest.mark.parametrize(
    ("name", "n", "symmetry", "periodic", "periodic_input"),
    [
        ("dots", 3, 8, True, True),
        ("rooms", 3, 2, True, True),
        ("rooms", 2, 8, False, True),
        ("hills", 3, 2, False, False),
        ("hills", 2, 1, True, False),
    ],
)
def test_every_output_window_is_a_pattern_of_the_sample(name, n, symmetry, periodic, periodic_input):
    sample = read_sample(SAMPLES / f"{name}.txt")
    r = overlapping(sample, 20, 14, n=n, symmetry=symmetry, periodic=periodic, periodic_input=periodic_input, seed=3)
    assert r.output.shape == (14, 20) and r.output.dtype == sample.dtype
    patterns, _ = extract_patterns(sample, n=n, symmetry=symmetry, periodic_input=periodic_input)
    allowed = {tuple(p.ravel().tolist()) for p in patterns}
    got = windows_of(r.output, n, periodic)
    assert got <= allowed
    assert len(got) > 1 and r.attempts >= 1 and r.patterns == len(patterns)
    assert r.palette.tolist() == sorted(set(sample.ravel().tolist()))


def test_an_image_sample_gives_an_image_made_of_its_patterns():
    colours = np.array([[20, 120, 40], [200, 180, 60], [40, 60, 200]], np.uint8)
    sample = colours[read_sample(SAMPLES / "hills.txt") % 3]
    r = overlapping(sample, 16, 12, n=2, symmetry=2, seed=1)
    assert r.output.shape == (12, 16, 3) and r.output.dtype == np.uint8
    assert r.palette.shape == (3, 3)
    codes = r.output.astype(int) @ [65536, 256, 1]
    sample_codes = sample.astype(int) @ [65536, 256, 1]
    got = windows_of(codes, 2, True)
    patterns, _ = extract_patterns(sample_codes, n=2, symmetry=2)
    assert got <= {tuple(p.ravel().tolist()) for p in patterns}


@pytest.mark.parametrize("periodic", [True, False])
def test_ground_holds_the_last_row_and_only_it(periodic):
    sample = read_sample(SAMPLES / "hills.txt")  # 3 only in the sample's bottom row
    for seed in range(3):
        out = overlapping(sample, 24, 16, symmetry=2, ground=True, periodic=periodic, seed=seed).output
        assert (out[-1] == 3).all()
        assert (out[:-1] != 3).all()
    free = overlapping(sample, 24, 16, symmetry=2, seed=0).output
    assert not (free[-1] == 3).all()  # without ground the bottom row is free


def test_the_same_seed_gives_the_same_output():
    sample = read_sample(SAMPLES / "rooms.txt")
    a = overlapping(sample, 24, 24, symmetry=2, seed=5)
    b = overlapping(sample, 24, 24, symmetry=2, seed=5)
    c = overlapping(sample, 24, 24, symmetry=2, seed=6)
    assert np.array_equal(a.output, b.output) and (a.attempts, a.backtracks) == (b.attempts, b.backtracks)
    assert not np.array_equal(a.output, c.output)


def test_an_impossible_sample_is_a_contradiction_naming_the_cell():
    # a 3-periodic sample cannot tile a periodic output of width 4 with n = 2, symmetry 1
    sample = np.array([[0, 1, 2]] * 3)
    with pytest.raises(Contradiction) as err:
        overlapping(sample, 4, 4, n=2, symmetry=1, attempts=2)
    assert len(err.value.cell) == 2 and err.value.attempts >= 1


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        (dict(n=4), "n must be an integer in [2, 3]"),
        (dict(symmetry=0), "symmetry must be an integer in [1, 8]"),
        (dict(width=2), "width must be an integer in [3, 4096]"),
        (dict(periodic="yes"), "periodic must be true or false"),
        (dict(sample=np.zeros((3, 3), float)), "sample must be an (h, w) integer array"),
        (dict(sample=np.zeros((300, 3), int)), "sample must be 1 to 256 values a side"),
        (dict(sample=np.zeros((2, 2), int), periodic_input=False), "at least n x n"),
        (dict(sample=np.arange(256 * 200).reshape(256, 200) % 7919), "patterns"),
    ],
)
def test_bad_settings_are_one_line(kwargs, words):
    settings = dict(sample=np.eye(4, dtype=int), width=8, height=8) | kwargs
    assert words in message(lambda: overlapping(**settings))


def test_read_sample_reads_digit_grids_and_refuses_others(tmp_path):
    assert read_sample(SAMPLES / "dots.txt").shape == (8, 8)
    bad = tmp_path / "bad.txt"
    bad.write_text("012\n01\n")
    assert "one length" in message(lambda: read_sample(bad))
    bad.write_text("012\n0a2\n")
    assert "only digits" in message(lambda: read_sample(bad))
    assert "cannot be read" in message(lambda: read_sample(tmp_path / "missing.png"))
    pic = tmp_path / "s.png"
    img = np.array([[0, 255], [255, 0]], np.uint8)
    pic.write_bytes(png_bytes(img))
    assert np.array_equal(read_sample(pic), img)


# --- the PNG reader ---


@pytest.mark.parametrize("shape", [(5, 7), (5, 7, 3), (4, 3, 4), (1, 1, 3)])
def test_png_round_trips_png_bytes(shape):
    img = np.random.default_rng(2).integers(0, 256, shape, dtype=np.uint8)
    got = read_png(png_bytes(img))
    assert got.dtype == np.uint8 and np.array_equal(got, img)


@pytest.mark.parametrize("shape", [(6, 9), (6, 9, 3), (5, 4, 4)])
def test_png_undoes_every_row_filter(shape):
    img = np.random.default_rng(3).integers(0, 256, shape, dtype=np.uint8)
    colour = {2: 0, 3: 2}[img.ndim] if img.ndim == 2 or shape[2] == 3 else 6
    assert np.array_equal(read_png(encode_png(img, colour_type=colour, filters=(0, 1, 2, 3, 4, 4, 3, 2, 1))), img)


def test_png_palette_pictures_become_rgb():
    palette = bytes([10, 20, 30, 200, 100, 0, 5, 5, 250])
    idx = np.array([[0, 1, 2], [2, 1, 0]], np.uint8)
    got = read_png(encode_png(idx, colour_type=3, palette=palette, filters=(0, 1)))
    assert np.array_equal(got, np.frombuffer(palette, np.uint8).reshape(3, 3)[idx])


def test_bad_pngs_are_one_line():
    good = png_bytes(np.zeros((3, 4, 3), np.uint8))
    img = np.zeros((2, 2), np.uint8)
    cases = {
        "not a PNG file": b"GIF89a....",
        "bytes of a PNG": "a string",
        "truncated": good[:40],
        "bad CRC": good[:30] + bytes([good[30] ^ 1]) + good[31:],
        "without PLTE": encode_png(img, colour_type=3),
        "unknown row filter": encode_png(img, colour_type=0, filters=(7,)),
        "past a palette": encode_png(np.full((2, 2), 5, np.uint8), colour_type=3, palette=bytes(6)),
    }
    for words, data in cases.items():
        assert words in message(lambda data=data: read_png(data))
