"""core.biomes: biome tables, classification (against a cell-by-cell reference), the [biomes] spec and
the preview.  Moisture and temperature: test_biomes.py."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from worldseed.core import biomes
from worldseed.core.erosion import flow_accumulation
from worldseed.core.errors import ParameterError
from worldseed.core.terrain import TerrainSpec, terrain_heights

WHITTAKER = biomes.load_table("whittaker")


def _reference_classify(h, m, table, sea_level, height):
    """Test every biome's ranges in file order, cell by cell (the rule of classify's Notes)."""
    out = np.empty(h.shape, np.uint8)
    span = height - sea_level
    for idx in np.ndindex(h.shape):
        if sea_level > 0 and h[idx] <= h.dtype.type(sea_level) and table.water >= 0:
            out[idx] = table.water
            continue
        found = table.fallback
        for b in table.land:
            (e0, e1), (m0, m1) = np.float32(table.elevation[b]), np.float32(table.moisture[b])
            inside = (
                (e0 == 0 or h[idx] >= h.dtype.type(sea_level + float(e0) * span))
                and (e1 == 1 or h[idx] < h.dtype.type(sea_level + float(e1) * span))
                and (m0 == 0 or m[idx] >= m0)
                and (m1 == 1 or m[idx] < m1)
            )
            if inside:
                found = b
                break
        out[idx] = found
    return out


# --- tables -------------------------------------------------------------------------------------


def test_the_default_table_has_about_a_dozen_whittaker_biomes():
    names = set(WHITTAKER.names)
    assert {"ocean", "beach", "desert", "grassland", "shrubland", "forest", "rain forest"} <= names
    assert {"taiga", "tundra", "snow", "bare rock"} <= names
    assert 10 <= len(names) <= 16
    assert WHITTAKER.names[WHITTAKER.water] == "ocean"
    assert "whittaker" in biomes.table_names()


def test_table_errors_name_the_file_and_the_key(tmp_path):
    bad = tmp_path / "mine.toml"
    bad.write_text('[[biome]]\nname = "a"\nelevaton = [0.0, 1.0]\n')
    with pytest.raises(ParameterError, match=r"mine.toml: biome\[0\]: unknown key 'elevaton' \(did you mean"):
        biomes.load_table(bad)
    bad.write_text('[[biome]]\nname = "a"\nelevation = [0.0, 0.5]\n')
    with pytest.raises(ParameterError, match="no biome holds elevation 0.5"):
        biomes.load_table(bad)
    bad.write_text('[[biome]]\nname = "a"\nmoisture = [0.6, 0.2]\n')
    with pytest.raises(ParameterError, match=r"biome 'a'.moisture must have low < high"):
        biomes.load_table(bad)
    with pytest.raises(ParameterError, match="did you mean 'whittaker'"):
        biomes.load_table("whitaker")
    with pytest.raises(ParameterError, match="cannot be read"):
        biomes.load_table(tmp_path / "missing.toml")


def test_a_table_path_is_relative_to_the_base_folder(tmp_path):
    (tmp_path / "two.toml").write_text(
        'fallback = "low"\n[[biome]]\nname = "high"\nelevation = [0.5, 1.0]\n[[biome]]\nname = "low"\n'
    )
    table = biomes.load_table("two.toml", base=tmp_path)
    assert table.names == ("high", "low") and table.water == -1


# --- classification -----------------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31), sea=st.sampled_from([0.0, 12.0]), dtype=st.sampled_from([np.float32, np.float64]))
def test_classify_follows_the_table_cell_by_cell(seed, sea, dtype):
    rng = np.random.default_rng(seed)
    h = rng.uniform(-5.0, 85.0, (9, 11)).astype(dtype)
    m = rng.uniform(-0.1, 1.1, (9, 11)).astype(np.float32)
    # values exactly on the table's range ends, where the half-open rule decides
    ends = WHITTAKER.lookup[0]
    h.flat[:4] = [dtype(sea + float(e) * (80.0 - sea)) for e in rng.choice(ends[0], 4)]
    h.flat[4] = sea
    m.flat[5:9] = rng.choice(ends[1], 4)
    ids = biomes.classify(h, m, table=WHITTAKER, sea_level=sea, height=80.0)
    assert ids.dtype == np.uint8
    assert ids.tobytes() == _reference_classify(h, m, WHITTAKER, sea, 80.0).tobytes()


ENDS = [0.0, 0.1, 0.25, 0.3, 0.5, 0.62, 0.75, 0.9, 1.0]
TEMPS = [-100.0, -10.0, 0.0, 5.0, 12.0, 100.0]


@st.composite
def tables(draw):
    """A random table: land biomes with random boxes (some with temperature), maybe a water one."""
    n = draw(st.integers(1, 6))
    entries = []
    for i in range(n):
        entry = {"name": f"b{i}"}
        for key, values in (("elevation", ENDS), ("moisture", ENDS), ("temperature", TEMPS)):
            if key == "temperature" and not draw(st.booleans()):
                continue
            lo, hi = sorted(draw(st.lists(st.sampled_from(values), min_size=2, max_size=2, unique=True)))
            entry[key] = [lo, hi]
        entries.append(entry)
    if draw(st.booleans()):
        entries.insert(draw(st.integers(0, n)), {"name": "sea", "water": True})
    return {"fallback": "b0", "biome": entries}


def _reference_with_temperature(h, m, t, table, sea_level, height):
    out = np.empty(h.shape, np.uint8)
    span = height - sea_level
    for idx in np.ndindex(h.shape):
        if sea_level > 0 and h[idx] <= h.dtype.type(sea_level) and table.water >= 0:
            out[idx] = table.water
            continue
        found = table.fallback
        for b in table.land:
            (e0, e1), (m0, m1) = np.float32(table.elevation[b]), np.float32(table.moisture[b])
            t0, t1 = np.float32(table.temperature[b])
            inside = (
                (e0 == 0 or h[idx] >= h.dtype.type(sea_level + float(e0) * span))
                and (e1 == 1 or h[idx] < h.dtype.type(sea_level + float(e1) * span))
                and (m0 == 0 or m[idx] >= m0)
                and (m1 == 1 or m[idx] < m1)
                and (not table.uses_temperature or ((t0 == -100 or t[idx] >= t0) and (t1 == 100 or t[idx] < t1)))
            )
            if inside:
                found = b
                break
        out[idx] = found
    return out


@settings(max_examples=40, deadline=None)
@given(doc=tables(), seed=st.integers(0, 2**31), sea=st.sampled_from([0.0, 30.0]))
def test_classify_follows_random_tables(doc, seed, sea):
    table = biomes.table_from_dict(doc)
    rng = np.random.default_rng(seed)
    h = rng.uniform(-10.0, 2100.0, (7, 9)).astype(np.float32)
    m = rng.uniform(-0.2, 1.2, h.shape).astype(np.float32)
    t = rng.uniform(-30.0, 30.0, h.shape).astype(np.float32)
    t.flat[:3] = rng.choice(TEMPS[1:-1], 3)
    m.flat[3:6] = rng.choice(ENDS, 3)
    ids = biomes.classify(h, m, table=table, sea_level=sea, height=2000.0, temperature=t)
    assert ids.tobytes() == _reference_with_temperature(h, m, t, table, sea, 2000.0).tobytes()


def test_classify_with_a_temperature_table(tmp_path):
    (tmp_path / "t.toml").write_text(
        'fallback = "warm"\n[[biome]]\nname = "ice"\ntemperature = [-100.0, 0.0]\n[[biome]]\nname = "warm"\n'
    )
    table = biomes.load_table(tmp_path / "t.toml")
    h = np.array([[0.0, 1000.0, 2000.0, 3000.0]], np.float32)
    m = np.full(h.shape, 0.5, np.float32)
    ids = biomes.classify(h, m, table=table, sea_level=0.0, height=4000.0, lapse=6.5)  # 15, 8.5, 2, -4.5 C
    assert [table.names[i] for i in ids[0]] == ["warm", "warm", "warm", "ice"]
    ids = biomes.classify(h, m, table=table, sea_level=0.0, height=4000.0, temperature=np.full(h.shape, -1.0))
    assert (ids == table.index("ice")).all()


def test_classify_refuses_bad_input():
    h = np.zeros((4, 4), np.float32)
    with pytest.raises(ParameterError, match="height"):
        biomes.classify(h, h, table=WHITTAKER, sea_level=0.0)
    with pytest.raises(ParameterError, match="must be above sea_level"):
        biomes.classify(h, h, table=WHITTAKER, sea_level=10.0, height=5.0)
    with pytest.raises(ParameterError, match="moisture must have shape"):
        biomes.classify(h, h[:2], table=WHITTAKER, sea_level=0.0, height=5.0)
    with pytest.raises(ParameterError, match="table must be a BiomeTable"):
        biomes.classify(h, h, table="whittaker", sea_level=0.0, height=5.0)


def _coverage(spec, seed, flow):
    """Biome shares of the default terrain with the default [biomes] settings (flow lines wetting the
    ground as the terrain pipeline does when ``flow``)."""
    settings = biomes.BiomesSpec()
    h = terrain_heights(spec, seed=seed).metres.astype(np.float64)
    sea = spec.sea_level * spec.height
    kw = biomes.moisture_kwargs(settings)
    if not flow:
        kw["flow_weight"] = 0.0
    m = biomes.moisture(
        h,
        cell_size=spec.cell_size,
        seed=seed,
        sea_level=sea,
        flow=flow_accumulation(h, cell_size=spec.cell_size) if flow else None,
        **kw,
    )
    ids = biomes.classify(h, m, table=WHITTAKER, sea_level=sea, height=spec.height)
    return np.bincount(ids.ravel(), minlength=len(WHITTAKER.names)) / ids.size


@pytest.mark.parametrize("flow", [False, True], ids=["noise-and-sea", "with-flow"])
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_every_land_biome_covers_at_least_one_percent_of_a_typical_map(seed, flow):
    """The default terrain with a sea (a fifth of its height): every land biome >= 1 %; without a
    sea every land biome but the beach (a shore needs a sea)."""
    with_sea = _coverage(TerrainSpec(sea_level=0.2), seed, flow)
    low = {WHITTAKER.names[b]: round(100 * with_sea[b], 2) for b in WHITTAKER.land if with_sea[b] < 0.01}
    assert not low, low
    assert with_sea[WHITTAKER.water] > 0.01
    dry = _coverage(TerrainSpec(), seed, flow)
    low = {
        WHITTAKER.names[b]: round(100 * dry[b], 2)
        for b in WHITTAKER.land
        if dry[b] < 0.01 and WHITTAKER.names[b] != "beach"
    }
    assert not low, low


# --- the [biomes] section -----------------------------------------------------------------------


def test_biomes_spec_round_trips_and_refuses_bad_keys():
    spec = biomes.from_dict({"enabled": True, "table": "mine.toml", "moisture_scale": 300.0})
    assert spec.enabled and spec.table == "mine.toml" and spec.moisture_scale == 300.0
    assert biomes.from_dict(biomes.to_dict(spec)) == spec
    with pytest.raises(ParameterError, match="'sea_weigth' -> 'sea_weight'"):
        biomes.from_dict({"sea_weigth": 0.5})
    with pytest.raises(ParameterError, match=r"biomes.flow_weight must be a finite number in \[0, 1\], got 3"):
        biomes.from_dict({"flow_weight": 3})
    with pytest.raises(ParameterError, match="biomes.table"):
        biomes.from_dict({"table": ""})
    assert set(biomes.LIMITS) == {f for f in biomes.BiomesSpec.__dataclass_fields__}


def test_biomes_spec_reaches_and_flow_area_reach_the_moisture():
    spec = biomes.from_dict({"sea_reach": 120.0, "flow_reach": 9.5, "flow_area": 1500.0})
    assert (spec.sea_reach, spec.flow_reach, spec.flow_area) == (120.0, 9.5, 1500.0)
    assert biomes.from_dict(biomes.to_dict(spec)) == spec
    kw = biomes.moisture_kwargs(spec)
    assert kw["sea_reach"] == 120.0 and kw["flow_reach"] == 9.5 and kw["flow_area"] == 1500.0
    old = biomes.from_dict({"enabled": True, "sea_weight": 0.4, "flow_weight": 0.2})  # older recipes
    assert (old.sea_reach, old.flow_reach, old.flow_area) == (64.0, 16.0, 20000.0)
    with pytest.raises(ParameterError, match=r"biomes.sea_reach must be a finite number in \[0.01, 100000\], got 0"):
        biomes.from_dict({"sea_reach": 0})
    with pytest.raises(ParameterError, match=r"biomes.flow_reach must be a finite number in \[0.01, 100000\]"):
        biomes.from_dict({"flow_reach": 1.0e6})
    with pytest.raises(ParameterError, match=r"biomes.flow_area must be a finite number"):
        biomes.from_dict({"flow_area": -1.0})
    with pytest.raises(ParameterError, match="'sea_rech' -> 'sea_reach'"):
        biomes.from_dict({"sea_rech": 10.0})


# --- preview ------------------------------------------------------------------------------------


def test_biome_preview_colours_ids_by_the_table_with_north_at_the_top():
    ids = np.zeros((3, 4), np.uint8)
    ids[0, 0] = WHITTAKER.index("snow")  # south-west corner
    img = biomes.biome_preview(ids, WHITTAKER)
    assert img.shape == (3, 4, 3) and img.dtype == np.uint8
    snow = np.round(WHITTAKER.colors[WHITTAKER.index("snow")] * 255).astype(np.uint8)
    assert img[-1, 0].tolist() == snow.tolist()  # bottom-left of the picture
    assert img[0, 0].tolist() == biomes.biome_colours(WHITTAKER)[0].tolist()
    png = biomes.biome_png_bytes(ids, WHITTAKER)
    assert png.startswith(b"\x89PNG") and png[25] == 2  # RGB
    with pytest.raises(ParameterError, match="ids must lie in"):
        biomes.biome_preview(np.full((2, 2), 99), WHITTAKER)
    assert len(set(map(tuple, biomes.biome_colours(WHITTAKER).tolist()))) == len(WHITTAKER.names)
