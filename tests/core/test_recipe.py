"""Recipes: parsing, validation messages, round trips."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from worldseed.core import recipe, terrain
from worldseed.core.errors import ParameterError, RecipeError


def test_defaults_when_empty():
    r = recipe.loads("")
    assert r == recipe.Recipe()
    assert r.terrain.cell_size == pytest.approx(512.0 / 256)


def test_partial_sections_take_defaults():
    r = recipe.loads("[terrain]\nresolution = 65\n")
    assert r.terrain.resolution == 65 and r.terrain.octaves == terrain.TerrainSpec().octaves


@pytest.mark.parametrize(
    "text, match",
    [
        ("[terrain]\noctaves = 40\n", r"terrain\.octaves must be an integer in \[1, 16\], got 40"),
        ("[terrain]\noctaves = 2.5\n", r"terrain\.octaves"),
        ("[terrain]\noctaves = true\n", r"terrain\.octaves"),
        ("[terrain]\nheight = nan\n", r"terrain\.height must be a finite number"),
        ("[terrain]\nheight = -1.0\n", r"terrain\.height .* got -1"),
        ("[terrain]\nresolution = 5000\n", r"terrain\.resolution .*\[2, 4097\], got 5000"),
        ('[terrain]\nbasis = "value"\n', r"terrain\.basis must be one of 'perlin', 'simplex', got 'value'"),
        ("[terrain]\ncurve = [[0.0, 0.0]]\n", r"terrain\.curve must have 2 to 32 points"),
        ("[terrain]\ncurve = [[0.0, 0.0], [0.0, 1.0]]\n", r"terrain\.curve x values must all differ"),
        ("[terrain]\ncurve = [[0.0, 0.0], [1.5, 1.0]]\n", r"terrain\.curve\[1\]\.x"),
        ("[terrain]\noffset = [1.0]\n", r"terrain\.offset must be a pair"),
        ("[terrain]\nlods = 4\nresolution = 5\n", r"terrain\.lods 4 needs terrain\.resolution >= 9"),
        (
            "[terrain]\nresolutoin = 3\n",
            r"unknown key\(s\) \['resolutoin'\] in \[terrain\] \(did you mean "
            r"'resolutoin' -> 'resolution'\?\)",
        ),
        ("octaves = 3\n", r"\['octaves'\] stand outside any section"),
        ("[forest]\n", r"unknown section"),
        ('[world]\nname = "a/b"\n', r"world\.name"),
        ("[world]\nseed = 4294967296\n", r"world\.seed"),
        ('[export]\nfbx = "yes"\n', r"export\.fbx must be true or false"),
        ("terrain = 3\n", r"\[terrain\] must be a table"),
        ("[terrain\n", r"not valid TOML"),
    ],
)
def test_bad_values_name_key_value_and_range(text, match):
    with pytest.raises(RecipeError, match=match):
        recipe.loads(text, source="w.toml")
    with pytest.raises(ParameterError, match="w.toml"):
        recipe.loads(text, source="w.toml")


def test_load_missing_and_binary_files(tmp_path):
    with pytest.raises(RecipeError, match="cannot be read"):
        recipe.load(tmp_path / "missing.toml")
    bad = tmp_path / "bin.toml"
    bad.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(RecipeError, match="not UTF-8"):
        recipe.load(bad)


names = st.text(alphabet="abcXYZ019_- ", min_size=1, max_size=20).filter(lambda s: s.strip() == s and s)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    resolution=st.integers(9, 4097),
    octaves=st.integers(1, 16),
    persistence=st.floats(0.0, 1.0),
    warp=st.floats(0.0, 1.0),
    name=names,
    basis=st.sampled_from(["perlin", "simplex"]),
    kind=st.sampled_from(["fbm", "ridged", "billow"]),
    offset=st.tuples(st.floats(-1e6, 1e6), st.floats(-1e6, 1e6)),
    mid=st.floats(0.01, 0.99),
    lods=st.integers(1, 4),
    glb=st.booleans(),
)
def test_dumps_loads_round_trip(
    seed, resolution, octaves, persistence, warp, name, basis, kind, offset, mid, lods, glb
):
    r = recipe.from_dict(
        {
            "world": {"seed": seed, "name": name},
            "terrain": {
                "resolution": resolution,
                "octaves": octaves,
                "persistence": persistence,
                "warp": warp,
                "basis": basis,
                "kind": kind,
                "offset": list(offset),
                "lods": lods,
                "curve": [[0.0, 0.0], [mid, mid / 2], [1.0, 1.0]],
            },
            "export": {"glb": glb},
        }
    )
    assert recipe.loads(recipe.dumps(r)) == r


def test_replace_validates():
    r = recipe.replace(recipe.Recipe(), terrain_resolution=65, world_seed=9)
    assert (r.terrain.resolution, r.world.seed) == (65, 9)
    with pytest.raises(RecipeError, match="terrain.octaves"):
        recipe.replace(r, terrain_octaves=0)


def test_field_limits_match_the_core_modules():
    from worldseed.core import heightmap, noise, terrain

    assert terrain.LIMITS["octaves"].bounds == noise.OCTAVES
    assert terrain.LIMITS["basis"].bounds == noise.BASES
    assert terrain.LIMITS["terraces"].bounds == heightmap.TERRACES


@pytest.mark.parametrize("section", recipe.SECTIONS, ids=lambda s: s.key)
def test_every_section_field_has_one_limit_with_a_label(section):
    """One limits table per family covers every field of its spec, each with a label and a description."""
    import dataclasses

    assert list(section.limits) == [f.name for f in dataclasses.fields(section.spec)]
    for name, limit in section.limits.items():
        assert limit.label and limit.description, f"{section.key}.{name} has no label or description"


@pytest.mark.parametrize("section", recipe.SECTIONS, ids=lambda s: s.key)
def test_every_section_round_trips_and_names_its_header_in_errors(section):
    spec = section.spec()
    table = section.dump(spec)
    assert section.parse(table, prefix=f"{section.key}.") == spec
    with pytest.raises(RecipeError, match=r"(unknown key|not a setting|not settings).*did you mean"):
        bad = {"x" + next(iter(table)): 1}
        recipe.from_dict({section.key: [bad] if section.many else bad})


def test_recipe_has_one_attribute_per_section_in_build_order():
    import dataclasses

    assert [f.name for f in dataclasses.fields(recipe.Recipe)] == list(recipe.SECTION_KEYS)
    assert recipe.SECTION_KEYS[:2] == ("world", "terrain") and recipe.SECTION_KEYS[-1] == "export"


def test_builtin_presets_are_valid_recipes():
    import pathlib

    folder = pathlib.Path(recipe.__file__).resolve().parents[1] / "presets" / "terrain"
    paths = sorted(folder.glob("*.toml"))
    assert {p.stem for p in paths} >= {"rolling_hills", "alpine_mountains", "island", "canyon_terraces", "dunes"}
    loaded = [recipe.load(p) for p in paths]
    assert len({r.terrain for r in loaded}) == len(loaded)  # all different
