"""What a tiled world does with each recipe section (``Section.tiled``), and the record of the
sections it builds once (``core.world.once_sections``, ``verify_once``, ``with_once``, ``once_names``).

Every section decides: built in every tile, built once for the whole world, or refused in one line
naming it; a section without a decision is refused too, so nothing is ever silently dropped.  The
Blender side builds the sections built once (tests/blender/test_world_once.py reads their files).
"""

import ast
import dataclasses
import glob
import hashlib
import os

import pytest

from worldseed.core import recipe as core_recipe
from worldseed.core import world as core_world
from worldseed.core.errors import ParameterError, RecipeError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

TILED = """
[world]
tiles = [2, 2]
[terrain]
resolution = 33
[[trees]]
species = "bush"
[[level]]
name = "Crypt"
generator = "cave"
width = 16
height = 16
"""


@pytest.mark.parametrize("section", core_recipe.SECTIONS, ids=lambda s: s.key)
def test_every_section_decides_what_a_tiled_world_does_with_it(section):
    assert section.tiled in core_recipe.TILED, f"{section.header} has no tiled-world decision (Section.tiled)"
    assert section.tiled_note and "\n" not in section.tiled_note  # one line: what it becomes, or why refused
    if section.tiled == "once":  # built by the Blender side as in a single world: its bridge's build_section
        assert section.build
        bridge = os.path.join(ROOT, "operators", "bridge")
        module = os.path.join(bridge, f"{section.key}.py")  # a bridge module, or a package (levels/)
        package = os.path.join(bridge, section.package or section.key)
        files = [module] if os.path.isfile(module) else glob.glob(os.path.join(package, "*.py"))
        assert any(_builds_a_section(open(f, encoding="utf-8").read()) for f in files)


def _builds_a_section(source):
    """Whether ``source`` defines ``build_section(recipe, world, *, scene, progress=None)`` at its top level
    (annotated or not)."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef) and node.name == "build_section":
            a = node.args
            scene, progress = (a.kw_defaults + [None, None])[:2]  # None: no default
            return (
                [p.arg for p in a.args] == ["recipe", "world"]
                and [p.arg for p in a.kwonlyargs] == ["scene", "progress"]
                and scene is None
                and isinstance(progress, ast.Constant)
                and progress.value is None
            )
    return False


def test_the_tiles_never_read_the_sections_built_once():
    recipe = core_recipe.loads(TILED)
    bare = core_world.without_once(recipe)
    assert bare.trees == () and bare.level == () and bare.terrain == recipe.terrain and bare.world == recipe.world
    plain = core_recipe.loads(TILED.split("[[trees]]")[0])
    assert core_world.without_once(plain) == plain
    # a changed level changes no tile's digest (the world JSON's recipe_sha256 is of the tiles' recipe)
    moved = core_recipe.loads(TILED.replace('name = "Crypt"', 'name = "Vault"'))
    assert core_world.recipe_digest(core_world.without_once(moved)) == core_world.recipe_digest(plain)


def test_trees_and_levels_are_built_once_and_the_rest_per_tile():
    decided = {s.key: s.tiled for s in core_recipe.SECTIONS}
    assert decided == {
        "world": "per_tile",
        "terrain": "per_tile",
        "rivers": "per_tile",
        "roads": "per_tile",
        "biomes": "per_tile",
        "settlements": "per_tile",
        "splat": "per_tile",
        "trees": "once",
        "ecosystem": "per_tile",
        "scatter": "per_tile",
        "level": "once",
        "export": "per_tile",
    }
    recipe = core_recipe.loads(TILED)
    assert [s.key for s in core_world.once_sections(recipe)] == ["trees", "level"]
    assert core_world.once_sections(core_recipe.loads("[world]\ntiles = [2, 1]\n[terrain]\nresolution = 33\n")) == ()


def test_a_section_a_tiled_world_refuses_or_never_decided_is_one_line_naming_it():
    recipe = core_recipe.loads(TILED)
    trees = next(s for s in core_recipe.SECTIONS if s.key == "trees")
    refusing = dataclasses.replace(trees, tiled="refuse", tiled_note="trees grow on one terrain only")
    with pytest.raises(ParameterError) as err:
        core_recipe.check_tiled(recipe, sections=[refusing])
    assert str(err.value) == (
        "[[trees]] is not built in a tiled world (world.tiles [2, 2]): trees grow on one terrain only"
    )
    with pytest.raises(ParameterError, match=r"^\[\[trees\]\] .*: the section has no tiled-world decision$"):
        core_recipe.check_tiled(recipe, sections=[dataclasses.replace(trees, tiled="")])
    # one terrain, or a tiled recipe without trees: nothing to refuse
    core_recipe.check_tiled(core_recipe.loads('[[trees]]\nspecies = "bush"\n'), sections=[refusing])
    core_recipe.check_tiled(dataclasses.replace(recipe, trees=()), sections=[refusing])


def test_a_tiled_recipe_with_trees_and_levels_loads_and_round_trips():
    recipe = core_recipe.loads(TILED)  # check_tiled runs in from_dict: nothing refused
    assert len(recipe.trees) == 1 and recipe.level[0].name == "Crypt"
    assert core_recipe.loads(core_recipe.dumps(recipe)) == recipe
    with pytest.raises(RecipeError, match=r"^recipe: terrain.resolution must be one of Unity's"):
        core_recipe.loads(TILED.replace("resolution = 33", "resolution = 34"))  # the world's own checks first


def _record(folder, name, data):
    path = folder / name
    path.write_bytes(data)
    return {"name": name, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def test_verify_once_keeps_a_section_only_when_every_file_is_whole_and_the_recipe_the_same(tmp_path):
    once = {
        "trees": [_record(tmp_path, "w_trees.fbx", b"trees")],
        "level": [_record(tmp_path, "w_level.fbx", b"level"), _record(tmp_path, "Crypt.tmx", b"<map/>")],
    }
    document = core_world.with_once({"recipe_sha256": "c" * 64, "tiles": []}, once, recipe_sha256="a" * 64)
    assert document["once"]["level"]["recipe_sha256"] == "a" * 64 and document["recipe_sha256"] == "c" * 64
    assert list(document["once"]) == ["trees", "level"]
    assert core_world.verify_once(str(tmp_path), document, recipe_sha256="a" * 64) == once
    assert core_world.verify_once(str(tmp_path), document, recipe_sha256="c" * 64) == {}  # another recipe
    assert core_world.verify_once(str(tmp_path), None, recipe_sha256="a" * 64) == {}
    (tmp_path / "Crypt.tmx").write_bytes(b"<map>")  # same size, other bytes: the level is built again
    assert core_world.verify_once(str(tmp_path), document, recipe_sha256="a" * 64) == {"trees": once["trees"]}
    os.remove(tmp_path / "w_trees.fbx")
    os.symlink(tmp_path / "w_level.fbx", tmp_path / "w_trees.fbx")  # never through a link
    assert core_world.verify_once(str(tmp_path), document, recipe_sha256="a" * 64) == {}
    assert core_world.once_names(document) == ("Crypt.tmx", "w_level.fbx", "w_trees.fbx")


def test_with_once_writes_sections_in_registry_order_and_drops_the_entry_when_empty():
    records = [{"name": "x.fbx", "bytes": 1, "sha256": "0" * 64}]
    doc = core_world.with_once({"tiles": [], "once": {"x": 1}}, {"level": records, "trees": records}, recipe_sha256="a")
    assert doc["once"] == {
        "trees": {"recipe_sha256": "a", "files": records},
        "level": {"recipe_sha256": "a", "files": records},
    }
    assert doc["once"]["level"]["files"][0] is not records[0]
    assert "once" not in core_world.with_once(doc, {}, recipe_sha256="a")
    assert "once" not in core_world.with_once(doc, {"trees": []}, recipe_sha256="a")


@pytest.mark.parametrize("name", ["../x.fbx", "/etc/passwd", ".hidden", "", "a/b.fbx", 3])
def test_once_names_are_bare_file_names_only(name):
    document = {"once": {"trees": {"recipe_sha256": "a", "files": [{"name": name, "bytes": 1, "sha256": "0" * 64}]}}}
    assert core_world.once_names(document) == ()
    assert core_world.verify_once("/tmp", document, recipe_sha256="a") == {}


def test_the_tiles_run_keeps_listing_the_files_built_once_until_the_switch_replaces_them(tmp_path):
    """run_world rewrites the world JSON after every tile: its "once" entry (files the Blender side
    switched in earlier, each section with its recipe's digest) is carried over, so the JSON names
    them as long as they are in the folder, also when the run is killed before its switch."""
    text = TILED.replace("[world]\ntiles = [2, 2]", "[world]\ntiles = [2, 1]")
    recipe = core_recipe.loads(text)
    records = {"trees": [_record(tmp_path, "world_trees.fbx", b"trees")]}
    path = core_world.world_json_path(str(tmp_path), "world")
    first = core_world.run_world(recipe, str(tmp_path))
    assert "once" not in first.document  # nothing earlier to carry
    listed = core_world.with_once(first.document, records, recipe_sha256="a" * 64)
    core_world.write_world_json(path, listed)
    changed = core_recipe.loads(text.replace("[terrain]\n", "[terrain]\nheight = 55.0\n"))  # every tile again
    run = core_world.run_world(changed, str(tmp_path))
    assert sorted(run.built) == [(0, 0), (1, 0)]
    assert core_world.read_world_json(path)["once"] == listed["once"] == run.document["once"]
    assert core_world.once_names(run.document) == ("world_trees.fbx",)
    assert list(run.document)[-1] == "once"  # where with_once puts it: the bytes do not depend on the path
    # a malformed or unknown entry is not carried
    core_world.write_world_json(path, {**run.document, "once": {"rivers": listed["once"]["trees"], "level": 3}})
    assert "once" not in core_world.run_world(changed, str(tmp_path)).document
