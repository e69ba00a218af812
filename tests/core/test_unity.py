import os
import stat

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from worldseed.core import unity
from worldseed.core.errors import ParameterError

ALLOWED = "33, 65, 129, 257, 513, 1025, 2049, 4097"


def test_resolutions():
    assert unity.UNITY_HEIGHTMAP_RESOLUTIONS == (33, 65, 129, 257, 513, 1025, 2049, 4097)
    assert all(s == 2 ** (i + 5) + 1 for i, s in enumerate(unity.UNITY_HEIGHTMAP_RESOLUTIONS))


# --- RAW encoding -----------------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(
    hnp.arrays(np.float32, (33, 33), elements=st.floats(0, 1, width=32)),
    st.sampled_from(unity.BYTE_ORDERS),
    st.booleans(),
)
def test_raw16_round_trip(h, byte_order, flip):
    data = unity.heightmap_raw16(h, byte_order=byte_order, flip_vertically=flip)
    assert isinstance(data, bytes) and len(data) == 33 * 33 * 2
    back = unity.read_raw16(data, side=33, byte_order=byte_order, flip_vertically=flip)
    assert back.dtype == np.float32 and back.shape == (33, 33)
    np.testing.assert_allclose(back, h, atol=0.5 / 65535 + 1e-7)
    # decoding then encoding again gives the same bytes
    assert unity.heightmap_raw16(back, byte_order=byte_order, flip_vertically=flip) == data


def test_every_16_bit_value_survives_a_round_trip():
    values = np.arange(65536, dtype=np.uint16)
    padded = np.zeros(257 * 257, np.uint16)
    padded[:65536] = values
    data = padded.astype("<u2").tobytes()
    h = unity.read_raw16(data, side=257)
    assert unity.heightmap_raw16(h) == data


@pytest.mark.parametrize("side", unity.UNITY_HEIGHTMAP_RESOLUTIONS[:5])
def test_raw16_size(side):
    assert len(unity.heightmap_raw16(np.zeros((side, side), np.float32))) == side * side * 2


def test_raw16_byte_order_and_scaling():
    h = np.zeros((33, 33))
    h[0, 0], h[0, 1], h[0, 2], h[0, 3] = 1.0, 0.5, 1.5, -0.2
    little = unity.heightmap_raw16(h, byte_order="little")
    big = unity.heightmap_raw16(h, byte_order="big")
    assert little[:8] == bytes([0xFF, 0xFF, 0x00, 0x80, 0xFF, 0xFF, 0x00, 0x00])  # 0.5 -> 32768 (rounded)
    assert big[:8] == bytes([0xFF, 0xFF, 0x80, 0x00, 0xFF, 0xFF, 0x00, 0x00])
    np.testing.assert_array_equal(np.frombuffer(little, "<u2"), np.frombuffer(big, ">u2"))


def test_raw16_orientation_row0_first_and_flip():
    h = np.zeros((33, 33), np.float32)
    h[0, :] = 1.0  # south edge (row 0, Blender -Y, Unity -Z)
    h[:, 0] += 0.5  # west edge (column 0)
    values = np.frombuffer(unity.heightmap_raw16(np.clip(h, 0, 1)), "<u2").reshape(33, 33)
    assert (values[0] == 65535).all() and values[1, 0] == 32768 and values[1, 1] == 0
    flipped = np.frombuffer(unity.heightmap_raw16(np.clip(h, 0, 1), flip_vertically=True), "<u2")
    np.testing.assert_array_equal(flipped.reshape(33, 33), values[::-1])


def test_raw16_input_untouched():
    h = np.linspace(-1, 2, 33 * 33).reshape(33, 33)
    before = h.copy()
    unity.heightmap_raw16(h)
    np.testing.assert_array_equal(h, before)


@pytest.mark.parametrize("shape", [(32, 32), (100, 100), (34, 34)])
def test_raw16_rejects_non_unity_sizes_listing_allowed(shape):
    with pytest.raises(ParameterError, match="heights01") as info:
        unity.heightmap_raw16(np.zeros(shape))
    assert ALLOWED in str(info.value) and str(shape[0]) in str(info.value)


def test_raw16_bad_parameters():
    with pytest.raises(ParameterError, match="heights01 must be square"):
        unity.heightmap_raw16(np.zeros((33, 65)))
    with pytest.raises(ParameterError, match="byte_order"):
        unity.heightmap_raw16(np.zeros((33, 33)), byte_order="windows")
    with pytest.raises(ParameterError, match="flip_vertically"):
        unity.heightmap_raw16(np.zeros((33, 33)), flip_vertically="yes")
    with pytest.raises(ParameterError, match="finite"):
        unity.heightmap_raw16(np.full((33, 33), np.nan))


def test_read_raw16_bad_parameters():
    with pytest.raises(ParameterError, match=f"side must be one of Unity's heightmap resolutions {ALLOWED}"):
        unity.read_raw16(bytes(64 * 64 * 2), side=64)
    with pytest.raises(ParameterError, match="data must hold"):
        unity.read_raw16(bytes(10), side=33)
    with pytest.raises(ParameterError, match="data must be bytes-like"):
        unity.read_raw16("abc", side=33)
    with pytest.raises(ParameterError, match="byte_order"):
        unity.read_raw16(bytes(33 * 33 * 2), side=33, byte_order="mac")


def test_read_raw16_accepts_bytearray_and_memoryview():
    data = unity.heightmap_raw16(np.full((33, 33), 0.25))
    for buf in (bytearray(data), memoryview(data)):
        np.testing.assert_allclose(unity.read_raw16(buf, side=33), 0.25, atol=1e-5)


# --- resampling -------------------------------------------------------------------------------


def test_resample_identity_for_matching_size():
    h = np.random.default_rng(1).random((65, 65)).astype(np.float32)
    np.testing.assert_array_equal(unity.resample_square(h, side=65), h)


def test_resample_linear_ramp_exact_and_corners_kept():
    rows, cols = 50, 80
    y, x = np.mgrid[0:rows, 0:cols]
    h = (0.01 * x + 0.02 * y).astype(np.float64)
    out = unity.resample_square(h, side=129)
    assert out.dtype == np.float32 and out.shape == (129, 129)
    u = np.linspace(0, cols - 1, 129)
    v = np.linspace(0, rows - 1, 129)
    np.testing.assert_allclose(out, 0.01 * u[None, :] + 0.02 * v[:, None], atol=1e-5)
    assert out[0, 0] == np.float32(h[0, 0]) and out[-1, -1] == np.float32(h[-1, -1])
    assert out[0, -1] == np.float32(h[0, -1]) and out[-1, 0] == np.float32(h[-1, 0])


@settings(max_examples=30, deadline=None)
@given(hnp.arrays(np.float32, st.tuples(st.integers(2, 40), st.integers(2, 40)), elements=st.floats(0, 1, width=32)))
def test_resample_stays_in_range(h):
    out = unity.resample_square(h, side=33)
    assert out.min() >= h.min() - 1e-6 and out.max() <= h.max() + 1e-6


def test_resample_bad_parameters():
    with pytest.raises(ParameterError, match=f"side must be one of .*{ALLOWED}"):
        unity.resample_square(np.zeros((10, 10)), side=100)
    with pytest.raises(ParameterError, match="heights"):
        unity.resample_square(np.zeros((1, 10)), side=33)


# --- atomic write -----------------------------------------------------------------------------


def test_atomic_write_creates_and_replaces(tmp_path):
    target = tmp_path / "terrain.raw"
    assert unity.write_bytes_atomic(target, b"first") == 5
    assert target.read_bytes() == b"first"
    assert unity.write_bytes_atomic(str(target), [b"sec", bytearray(b"ond"), memoryview(b"!")]) == 7
    assert target.read_bytes() == b"second!"
    assert os.listdir(tmp_path) == ["terrain.raw"]  # no temp files left behind


def test_atomic_write_keeps_old_file_when_data_fails_mid_write(tmp_path):
    target = tmp_path / "terrain.raw"
    target.write_bytes(b"old content")

    def chunks():
        yield b"new partial content"
        raise RuntimeError("generator failed")

    with pytest.raises(RuntimeError, match="generator failed"):
        unity.write_bytes_atomic(target, chunks())
    assert target.read_bytes() == b"old content"
    assert os.listdir(tmp_path) == ["terrain.raw"]

    with pytest.raises(TypeError):
        unity.write_bytes_atomic(target, [b"ok", 42])  # a non-bytes chunk
    assert target.read_bytes() == b"old content"
    assert os.listdir(tmp_path) == ["terrain.raw"]


def test_atomic_write_keeps_old_file_when_rename_fails(tmp_path, monkeypatch):
    target = tmp_path / "terrain.raw"
    target.write_bytes(b"old content")

    def broken_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(unity.os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk full"):
        unity.write_bytes_atomic(target, b"new")
    assert target.read_bytes() == b"old content"
    assert os.listdir(tmp_path) == ["terrain.raw"]


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="needs POSIX permissions and a non-root user")
def test_atomic_write_unwritable_folder(tmp_path):
    folder = tmp_path / "locked"
    folder.mkdir()
    target = folder / "terrain.raw"
    target.write_bytes(b"old content")
    folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        with pytest.raises(PermissionError):
            unity.write_bytes_atomic(target, b"new")
    finally:
        folder.chmod(stat.S_IRWXU)
    assert target.read_bytes() == b"old content"
    assert os.listdir(folder) == ["terrain.raw"]


def test_atomic_write_temp_file_refused(tmp_path, monkeypatch):
    # what an unwritable folder looks like even when the tests run as root
    target = tmp_path / "terrain.raw"
    target.write_bytes(b"old content")

    def refuse(*args, **kwargs):
        raise PermissionError("read-only folder")

    monkeypatch.setattr(unity.os, "open", refuse)
    with pytest.raises(PermissionError):
        unity.write_bytes_atomic(target, b"new")
    monkeypatch.undo()
    assert target.read_bytes() == b"old content"
    assert os.listdir(tmp_path) == ["terrain.raw"]


def test_atomic_write_missing_folder(tmp_path):
    with pytest.raises(FileNotFoundError):
        unity.write_bytes_atomic(tmp_path / "nope" / "terrain.raw", b"x")
    assert not (tmp_path / "nope").exists()


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_atomic_write_keeps_permissions(tmp_path):
    target = tmp_path / "terrain.raw"
    target.write_bytes(b"old")
    target.chmod(0o640)
    unity.write_bytes_atomic(target, b"new")
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    fresh = tmp_path / "fresh.raw"
    unity.write_bytes_atomic(fresh, b"new")
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o666 & ~umask


def test_atomic_write_rejects_str(tmp_path):
    with pytest.raises(ParameterError, match="data"):
        unity.write_bytes_atomic(tmp_path / "a.raw", "text")
    assert os.listdir(tmp_path) == []


def test_export_pipeline(tmp_path):
    h = np.random.default_rng(7).random((100, 140)).astype(np.float32)
    square = unity.resample_square(h, side=129)
    target = tmp_path / "terrain.raw"
    unity.write_bytes_atomic(target, unity.heightmap_raw16(square, byte_order="big"))
    back = unity.read_raw16(target.read_bytes(), side=129, byte_order="big")
    np.testing.assert_allclose(back, square, atol=1 / 65535)
