"""core.tree: species files, TreeSpec validation, recipes with [[trees]], the grow pipeline."""

import dataclasses
import os
import tomllib

import numpy as np
import pytest

from worldseed.core import recipe
from worldseed.core import trees as tree
from worldseed.core.errors import ParameterError, RecipeError
from worldseed.core.trees import spec as tree_spec

ABOP = [
    "abop_1_24a",
    "abop_1_24b",
    "abop_1_24c",
    "abop_1_24d",
    "abop_1_24e",
    "abop_1_24f",
    "abop_1_25_bush",
    "abop_1_27_stochastic",
]
GAME = ["broadleaf", "conifer", "birch", "palm", "bush", "dead_tree"]


def test_species_files_are_data_and_all_parse():
    names = tree.species_names()
    assert set(ABOP) <= set(names)
    for name in names:
        spec = tree.species_spec(name)
        info = tree.species_info(name)
        assert spec.species == name and info["label"] and info["group"] in ("game", "abop")
        assert tree.loads_spec(tree.dumps_spec(spec)) == spec  # written and read back unchanged


def test_species_files_are_parsed_once_and_again_when_they_change(tmp_path, monkeypatch):
    """A species file is checked on every use but parsed only when its time, size or inode change
    (a demo run parsed them 917 times); a FIFO or an oversized file is refused, never read."""
    monkeypatch.setattr(tree_spec, "SPECIES_DIR", str(tmp_path))
    with open(os.path.join(tree.SPECIES_DIR, "birch.toml"), encoding="utf-8") as fh:
        text = fh.read()
    path = tmp_path / "mine.toml"
    path.write_text(text, encoding="utf-8")
    parses = []
    loads = tomllib.loads
    monkeypatch.setattr(tomllib, "loads", lambda s: parses.append(len(s)) or loads(s))
    first = tree.species_spec("mine")
    for _ in range(5):
        assert tree.species_names() == ["mine"] and tree.species_info("mine")["group"] == "game"
        assert tree.species_spec("mine") == first
    assert len(parses) == 1
    path.write_text(text.replace("[tree]", "[tree]\nangle = 31.5", 1), encoding="utf-8")
    assert tree.species_spec("mine").angle == 31.5 and len(parses) == 2
    (tmp_path / "huge.toml").write_bytes(b"#" * (tree_spec.MAX_SPECIES_BYTES + 1))
    with pytest.raises(ParameterError, match=r"huge.toml' is 1,048,577 bytes; at most 1,048,576"):
        tree.species_spec("huge")
    os.mkfifo(tmp_path / "pipe.toml")
    with pytest.raises(ParameterError, match=r"species 'pipe' not found"):
        tree.species_spec("pipe")  # not a regular file: refused, not read (a FIFO would hang)
    assert len(parses) == 2


def test_game_species_ship_and_come_first():
    names = tree.species_names()
    assert set(GAME) <= set(names)
    groups = [tree.species_info(n)["group"] for n in names]
    assert groups == sorted(groups, key=lambda g: g != "game")


def test_abop_species_match_the_book():
    """Rules and angles of fig. 1.24 a-f (REFERENCES.md 1.1), 1.25 and 1.27."""
    book = {
        "abop_1_24a": ("F", {"F": "F[+F]F[-F]F"}, 5, 25.7),
        "abop_1_24b": ("F", {"F": "F[+F]F[-F][F]"}, 5, 20.0),
        "abop_1_24c": ("F", {"F": "FF-[-F+F+F]+[+F-F-F]"}, 4, 22.5),
        "abop_1_24d": ("X", {"X": "F[+X]F[-X]+X", "F": "FF"}, 7, 20.0),
        "abop_1_24e": ("X", {"X": "F[+X][-X]FX", "F": "FF"}, 7, 25.7),
        "abop_1_24f": ("X", {"X": "F-[[X]+X]+F[+FX]-X", "F": "FF"}, 5, 22.5),
    }
    from worldseed.core.trees import lsystem

    for name, (axiom, rules, n, angle) in book.items():
        spec = tree.species_spec(name)
        system = lsystem.parse(spec.axiom, spec.rules)
        assert spec.axiom == axiom and spec.iterations == n and spec.angle == angle
        assert {p.predecessor: p.successor for p in system.productions} == rules
    bush = lsystem.parse(tree.species_spec("abop_1_25_bush").axiom, tree.species_spec("abop_1_25_bush").rules)
    assert {p.predecessor: p.successor for p in bush.productions}["A"] == "[&FL!A]/////'[&FL!A]///////'[&FL!A]"
    stochastic = lsystem.parse("F", tree.species_spec("abop_1_27_stochastic").rules)
    assert sorted(p.weight for p in stochastic.productions) == [0.33, 0.33, 0.34]


@pytest.mark.parametrize(
    "data, match",
    [
        ({"angel": 20}, r"unknown key.*did you mean 'angel' -> 'angle'"),
        ({"iterations": 99}, r"tree\.iterations must be an integer in \[0, 30\], got 99"),
        ({"sides": 2}, r"tree\.sides"),
        ({"leaf_shape": "round"}, r"tree\.leaf_shape"),
        ({"bark_colour": [1, 2, 0]}, r"tree\.bark_colour\[1\]"),
        ({"constants": {"1x": 2}}, r"constant name"),
        ({"tropism": [0, 0, 0], "tropism_strength": 0.3}, r"tropism must not be \[0, 0, 0\]"),
        ({"species": "oak_tree"}, r"species 'oak_tree' not found"),
        ({"axiom": "   "}, r"axiom must not be empty"),
    ],
)
def test_bad_tree_fields_name_key_and_value(data, match):
    with pytest.raises(ParameterError, match=match):
        tree.from_dict(data)


def test_recipe_trees_section_round_trips_and_overrides_the_species():
    text = """
[terrain]
enabled = false
[[trees]]
species = "abop_1_24d"
name = "Weed"
iterations = 4
variants = 2
[[trees]]
species = "abop_1_25_bush"
"""
    r = recipe.loads(text)
    assert not r.terrain.enabled and len(r.trees) == 2
    weed, bush = r.trees
    base = tree.species_spec("abop_1_24d")
    assert weed.iterations == 4 and weed.name == "Weed" and weed.variants == 2
    assert dataclasses.replace(weed, iterations=base.iterations, name=base.name, variants=base.variants) == base
    assert bush == tree.species_spec("abop_1_25_bush")
    assert recipe.loads(recipe.dumps(r)) == r


def test_recipe_tree_errors_name_the_entry():
    with pytest.raises(RecipeError, match=r"trees\[1\]\.angle"):
        recipe.loads('[[trees]]\nspecies = "abop_1_24a"\n[[trees]]\nangle = 999\n')
    with pytest.raises(RecipeError, match=r"\[\[trees\]\] tables"):
        recipe.loads("trees = 3\n")


def test_grow_is_deterministic_and_seeded():
    spec = dataclasses.replace(tree.species_spec("abop_1_27_stochastic"), iterations=4)
    a, b = tree.grow_tree(spec, seed=3), tree.grow_tree(spec, seed=3)
    c = tree.grow_tree(spec, seed=4)
    for la, lb in zip(a.lods, b.lods):
        assert la.vertices.tobytes() == lb.vertices.tobytes() and la.indices.tobytes() == lb.indices.tobytes()
    assert a.lods[0].vertices.shape != c.lods[0].vertices.shape or not np.array_equal(
        a.lods[0].vertices, c.lods[0].vertices
    )


def test_grow_gives_lods_and_billboard():
    spec = dataclasses.replace(tree.species_spec("abop_1_25_bush"), iterations=5, billboard=True)
    grown = tree.grow_tree(spec)
    assert len(grown.lods) == 3 and grown.billboard is not None
    tris = [m.n_triangles for m in grown.lods]
    assert tris[0] > tris[1] > tris[2]
    assert set(np.unique(grown.billboard.materials)) == {2}
    lo, hi = grown.lods[0].vertices.min(0), grown.lods[0].vertices.max(0)
    blo, bhi = grown.billboard.vertices.min(0), grown.billboard.vertices.max(0)
    assert np.isclose(blo[2], lo[2], atol=1e-4) and np.isclose(bhi[2], hi[2], atol=1e-4)


def test_rules_that_draw_nothing_are_a_clear_error():
    spec = tree.from_dict({"axiom": "A", "rules": "A -> B", "iterations": 2})
    with pytest.raises(ParameterError, match="draw nothing"):
        tree.grow_tree(spec)


def test_runaway_growth_is_refused_before_allocating():
    """The message says what a recipe or the sidebar can change (iterations), not max_modules, which neither offers."""
    spec = tree.from_dict({"axiom": "F", "rules": "F -> FFFFFFFFFF", "iterations": 20})
    with pytest.raises(ParameterError, match=r"use fewer iterations \(iterations = 20 now\)") as err:
        tree.grow_tree(spec)
    assert "max_modules" not in str(err.value) and str(err.value).startswith("tree 'Tree': ")
    assert err.value.spec == spec


@pytest.mark.parametrize("name", GAME)
def test_game_species_are_game_sized(name):
    """Each game species: 30k-60k triangles at LOD0 with leaves on their own slot (except the dead tree)."""
    grown = tree.grow_tree(tree.species_spec(name))
    lod0 = grown.lods[0]
    assert 10_000 <= lod0.n_triangles <= 60_000, lod0.n_triangles
    slots = set(np.unique(lod0.materials))
    assert slots == ({0} if name == "dead_tree" else {0, 1})
    assert 2.0 <= grown.height <= 40.0
