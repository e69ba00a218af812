"""Add Tree, Grow Forest and tree export on real Blender: LOD objects, materials, undo, errors, FBX."""

import os

import bpy
import numpy as np
import pytest

from worldseed.core import trees as core_tree
from worldseed.operators.bridge import export
from worldseed.operators.bridge import trees as bridge_trees
from worldseed.operators.bridge import trees as tree_build

from .test_export import read_fbx


def _positions(obj):
    co = np.empty(len(obj.data.vertices) * 3, np.float32)
    obj.data.attributes["position"].data.foreach_get("vector", co)
    return co.reshape(-1, 3)


def _triangles(obj):
    return len(obj.data.polygons)


def _lods(root):
    return sorted(root.children, key=lambda o: o.name)


def test_add_tree_makes_a_parent_with_named_lods(empty_scene):
    assert bpy.ops.worldseed.tree_add(species="abop_1_24a", iterations=4, name="Fern") == {"FINISHED"}
    root = bpy.context.active_object
    assert root.name == "Fern" and root.type == "EMPTY" and bridge_trees.is_tree(root)
    lods = _lods(root)
    assert [o.name for o in lods] == ["Fern_LOD0", "Fern_LOD1", "Fern_LOD2"]
    assert all(o.type == "MESH" and o.parent == root for o in lods)
    tris = [_triangles(o) for o in lods]
    assert tris[0] > tris[1] > tris[2] > 0
    assert not lods[0].hide_get() and lods[1].hide_get() and lods[2].hide_get()  # LOD0 shown
    me = lods[0].data
    assert "UVMap" in me.attributes and me.has_custom_normals
    if bpy.app.version >= (4, 5, 0):  # free normals: a plain attribute, written in bulk
        assert "custom_normal" in me.attributes
    assert [m.name for m in me.materials] == ["Fern_Bark"]  # no leaves in fig. 1.24a: no empty slots
    # the grown mesh arrives unchanged: same vertices as core's LOD0
    spec = tree_build.stored_spec(root)
    grown = core_tree.grow_tree(spec)
    np.testing.assert_array_equal(_positions(lods[0]), grown.lods[0].vertices)
    assert _triangles(lods[0]) == grown.lods[0].n_triangles


def test_leaves_land_on_the_leaf_slot(empty_scene):
    bpy.ops.worldseed.tree_add(species="abop_1_25_bush", iterations=4)
    lod0 = _lods(bpy.context.active_object)[0]
    slots = np.empty(len(lod0.data.polygons), np.int32)
    lod0.data.attributes["material_index"].data.foreach_get("value", slots)
    assert set(np.unique(slots)) == {0, 1}  # bark and the fig. 1.25 polygon leaves


def test_explicit_properties_win_over_the_species(empty_scene):
    bpy.ops.worldseed.tree_add(species="abop_1_24d", angle=33.0, iterations=3)
    spec = tree_build.stored_spec(bpy.context.active_object)
    species = core_tree.species_spec("abop_1_24d")
    assert spec.angle == 33.0 and spec.iterations == 3
    assert spec.rules.replace("; ", "\n").split() == species.rules.split()
    assert spec.step == species.step and spec.name == species.name and spec.species == "abop_1_24d"


def test_same_seed_same_tree_other_seed_other_tree(empty_scene):
    for seed in (5, 5, 6):
        bpy.ops.worldseed.tree_add(species="abop_1_27_stochastic", iterations=4, seed=seed)
    a, b, c = (
        _positions(_lods(r)[0])
        for r in sorted((o for o in bpy.data.objects if bridge_trees.is_tree(o)), key=lambda o: o.name)
    )
    np.testing.assert_array_equal(a, b)
    assert a.shape != c.shape or not np.array_equal(a, c)


def test_bad_rules_are_reported_and_leave_the_scene_alone(empty_scene):
    before = (len(bpy.data.objects), len(bpy.data.meshes), len(bpy.data.materials))
    with pytest.raises(RuntimeError, match=r"line 1: unbalanced '\['"):
        bpy.ops.worldseed.tree_add(species="abop_1_24a", rules="F -> F[+F")
    assert (len(bpy.data.objects), len(bpy.data.meshes), len(bpy.data.materials)) == before
    with pytest.raises(RuntimeError, match="iterations"):
        bpy.ops.worldseed.tree_add(species="abop_1_24a", iterations=25)  # runaway growth refused
    assert len(bpy.data.objects) == before[0]


def test_undo_removes_the_tree(empty_scene):
    bpy.ops.ed.undo_push(message="init")
    bpy.ops.ed.undo_push(message="before")
    assert "UNDO" in bpy.types.WORLDSEED_OT_tree_add.bl_options
    bpy.ops.worldseed.tree_add(species="abop_1_24b", iterations=3, name="Shrub")
    bpy.ops.ed.undo_push(message="Add Tree")
    assert {o.name for o in bpy.data.objects} == {"Shrub", "Shrub_LOD0", "Shrub_LOD1", "Shrub_LOD2"}
    bpy.ops.ed.undo()
    assert len(bpy.data.objects) == 0 and len(bpy.data.meshes) == 0
    bpy.ops.ed.redo()
    assert "Shrub_LOD2" in bpy.data.objects


def test_second_tree_gets_free_names(empty_scene):
    bpy.ops.worldseed.tree_add(species="abop_1_24a", iterations=3, name="T")
    bpy.ops.worldseed.tree_add(species="abop_1_24a", iterations=3, name="T")
    names = {o.name for o in bpy.data.objects}
    assert {"T", "T_LOD0", "T_001", "T_001_LOD0", "T_001_LOD2"} <= names


def test_sidebar_settings_and_rules_text(empty_scene):
    settings = bpy.context.scene.worldseed.trees
    settings.species = "abop_1_24c"
    species = core_tree.species_spec("abop_1_24c")
    assert settings.angle == pytest.approx(species.angle) and settings.axiom == species.axiom
    settings.iterations = 2
    bpy.ops.worldseed.tree_edit_rules()
    text = settings.rules_text
    assert text is not None and "FF-[-F+F+F]+[+F-F-F]" in text.as_string()
    text.from_string("F -> F[+F]F\n")
    bpy.ops.worldseed.tree_add(from_settings=True)
    spec = tree_build.stored_spec(bpy.context.active_object)
    assert spec.rules.strip() == "F -> F[+F]F" and spec.iterations == 2 and spec.species == "abop_1_24c"
    bpy.ops.worldseed.tree_rules_detach()
    assert settings.rules_text is None and settings.rules.strip() == "F -> F[+F]F"


def test_grow_forest_makes_variants_in_a_collection(empty_scene):
    settings = bpy.context.scene.worldseed.trees
    settings.species = "abop_1_27_stochastic"
    settings.iterations = 3
    settings.variants = 3
    settings.seed = 10
    assert bpy.ops.worldseed.forest_add(from_settings=True) == {"FINISHED"}
    forest = bpy.data.collections["Forest"]
    roots = sorted((o for o in forest.objects if bridge_trees.is_tree(o)), key=lambda o: o.name)
    assert [r.name for r in roots] == ["Plant_Stochastic_V01", "Plant_Stochastic_V02", "Plant_Stochastic_V03"]
    assert [tree_build.stored_spec(r).seed for r in roots] == [10, 11, 12]
    assert len({r.location.x for r in roots}) == 3  # side by side, not on top of each other
    shapes = {_positions(_lods(r)[0]).tobytes() for r in roots}
    assert len(shapes) == 3


def test_forest_of_several_species(empty_scene):
    assert bpy.ops.worldseed.forest_add(species="abop_1_24a, abop_1_24b", variants=2) == {"FINISHED"}
    roots = [o for o in bpy.data.collections["Forest"].objects if bridge_trees.is_tree(o)]
    assert sorted(r.name for r in roots) == ["Plant_A_V01", "Plant_A_V02", "Plant_B_V01", "Plant_B_V02"]
    with pytest.raises(RuntimeError, match="not found"):
        bpy.ops.worldseed.forest_add(species="oakk")
    assert len(bpy.data.collections) == 1  # the failed forest left nothing behind


def test_fbx_keeps_the_lod_group_names_and_counts(empty_scene, tmp_path):
    bpy.ops.worldseed.tree_add(species="abop_1_25_bush", iterations=4, name="Bush", billboard=True)
    root = bpy.context.active_object
    counts = {o.name: len(o.data.vertices) for o in root.children}
    path = str(tmp_path / "bush.fbx")
    export.export_unity([root], path)
    settings, models, _ = read_fbx(path)
    assert settings["UpAxis"] == [1] and settings["UnitScaleFactor"] == [100.0]
    assert set(models) == {"Bush", "Bush_LOD0", "Bush_LOD1", "Bush_LOD2", "Bush_LOD3"}
    for name, (_kind, props) in models.items():
        assert np.allclose(props.get("Lcl Rotation", [0, 0, 0]), 0), name
        assert np.allclose(props.get("Lcl Scaling", [1, 1, 1]), 1), name
    bpy.ops.wm.read_homefile(use_empty=True)
    bpy.ops.import_scene.fbx(filepath=path, axis_forward="-Z", axis_up="Y", bake_space_transform=True)
    imported = {o.name: o for o in bpy.data.objects}
    assert {n: len(o.data.vertices) for n, o in imported.items() if o.type == "MESH"} == counts
    assert all(o.parent == imported["Bush"] for n, o in imported.items() if n != "Bush")
    assert [m.name for m in imported["Bush_LOD0"].data.materials] == ["Bush_Bark", "Bush_Leaves"]
    assert [m.name for m in imported["Bush_LOD3"].data.materials] == ["Bush_Billboard"]


TREES_ONLY = """
[world]
name = "Grove"
[terrain]
enabled = false
[[trees]]
species = "abop_1_25_bush"
name = "Shrub"
iterations = 4
variants = 2
seed = 7
[[trees]]
species = "abop_1_24d"
iterations = 4
variants = 1
billboard = true
[export]
fbx = true
per_object = true
render = true
"""


def test_batch_grows_recipe_trees_one_fbx_per_tree(tmp_path):
    from .test_batch import run

    recipe_path = tmp_path / "grove.toml"
    recipe_path.write_text(TREES_ONLY)
    out = tmp_path / "out"
    proc = run("--recipe", str(recipe_path), "--out", str(out))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    files = set(os.listdir(out))
    assert {"Shrub_V01.fbx", "Shrub_V02.fbx", "Plant_D.fbx", "world.blend"} <= files
    assert "relief.png" not in files and "world_heightmap.raw" not in files  # no terrain, no terrain files
    _settings, models, _ = read_fbx(str(out / "Shrub_V02.fbx"))
    assert set(models) == {"Shrub_V02", "Shrub_V02_LOD0", "Shrub_V02_LOD1", "Shrub_V02_LOD2"}
    _settings, models, _ = read_fbx(str(out / "Plant_D.fbx"))
    assert "Plant_D_LOD3" in models  # the billboard is the last LOD
    # the batch grows the same bytes as core with the same spec and seed
    bpy.ops.wm.open_mainfile(filepath=str(out / "world.blend"))
    shrub = bpy.data.objects["Shrub_V02_LOD0"]
    spec = core_tree.from_dict(
        {"species": "abop_1_25_bush", "name": "Shrub", "iterations": 4, "variants": 2, "seed": 7}
    )
    np.testing.assert_array_equal(_positions(shrub), core_tree.grow_tree(spec, seed=8).lods[0].vertices)
    assert tree_build.stored_spec(bpy.data.objects["Shrub_V02"]).seed == 8


def test_redo_panel_species_change_loads_that_species(empty_scene):
    """The redo panel re-runs execute with the last properties; a changed species replaces the rules and
    settings (keeping the seed), while edits to other fields under the same species are kept."""
    a = core_tree.species_spec("abop_1_24a")
    # what the redo panel sends after a first run of 1.24a (every field set) with the species switched to 1.24e
    fields = {n: getattr(a, n) for n in ("angle", "step", "iterations", "axiom", "name")}
    bpy.ops.worldseed.tree_add(species="abop_1_24e", loaded_species="abop_1_24a", seed=9, **fields)
    spec = tree_build.stored_spec(bpy.context.active_object)
    e = core_tree.species_spec("abop_1_24e")
    assert (spec.axiom, spec.angle, spec.iterations, spec.name, spec.seed) == (
        e.axiom,
        e.angle,
        e.iterations,
        e.name,
        9,
    )
    # same species, an edited angle: the edit stays
    bpy.ops.worldseed.tree_add(species="abop_1_24e", loaded_species="abop_1_24e", angle=40.0, iterations=3)
    assert tree_build.stored_spec(bpy.context.active_object).angle == 40.0


def test_a_scripted_call_with_its_own_rules_starts_from_treespec_defaults(empty_scene):
    """tree_add(axiom=..., rules=...) without species: the other fields are TreeSpec's defaults, not the
    first species' (whose angle, step and widths would otherwise come along unasked)."""
    first = core_tree.species_spec(core_tree.species_names()[0])
    defaults = core_tree.TreeSpec()
    differing = [
        n for n in ("angle", "step", "width", "iterations", "leaf_size") if getattr(first, n) != getattr(defaults, n)
    ]
    assert differing  # else this test would prove nothing
    assert bpy.ops.worldseed.tree_add(axiom="F", rules="F -> F[+F]F[-F]F", angle=30.0) == {"FINISHED"}
    spec = tree_build.stored_spec(bpy.context.active_object)
    assert (spec.axiom, spec.angle, spec.species) == ("F", 30.0, "")
    for name in differing:
        if name != "angle":
            assert getattr(spec, name) == getattr(defaults, name), name
    # with a species, that species gives what the call leaves out (as before)
    bpy.ops.worldseed.tree_add(species=first.species or core_tree.species_names()[0], rules="F -> F[+F]F")
    spec = tree_build.stored_spec(bpy.context.active_object)
    assert (spec.step, spec.width) == (first.step, first.width)
