"""Scatters on their way to Unity at scale: linear export, the prop library, exact LOD transforms,
Esc leaving the scene as it was, one-line writer errors. Read back with ufbx, a third-party reader."""

import json
import os
import subprocess
import sys
import time

import bpy
import numpy as np
import pytest

from worldseed.core import scatter as core_scatter
from worldseed.operators import export as export_operator
from worldseed.operators import scatter as scatter_operator
from worldseed.operators.bridge import export, fbx, query
from worldseed.operators.bridge import scatter as bridge_scatter
from worldseed.operators.bridge import scatter as scatter_build
from worldseed.operators.common import ModalBuild

from ._modal_cases import drive_modal


def scatter_scene(n, kinds=("broadleaf", "rock"), seed=0):
    """A terrain with a scatter of exactly ``n`` instances of built-in ``kinds`` (placed at random)."""
    bpy.ops.worldseed.terrain_add(resolution=33, size=1000.0, height=60.0, name="Land")
    root = bpy.context.active_object
    specs = [core_scatter.suggested_layer(k) for k in kinds]
    props_per_layer = scatter_build.layer_props(specs, [("BUILTIN", None)] * len(specs))
    props = [p for layer in props_per_layer for p in layer]
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(n, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    pos = np.c_[rng.uniform(-480.0, 480.0, (n, 2)), rng.uniform(0.0, 50.0, n)]
    layer = rng.integers(0, len(specs), n)
    offsets = np.cumsum([0] + [len(p) for p in props_per_layer])[:-1]
    which = offsets[layer] + rng.integers(0, [len(props_per_layer[i]) for i in layer])
    obj = scatter_build.scatter_object("Land_Scatter", props, collection=bpy.context.scene.collection, parent=root)
    scatter_build.write_points(obj.data, pos, q, rng.uniform(0.7, 1.3, n), which)
    attr = obj.data.attributes.new("ws_layer", "INT", "POINT")
    attr.data.foreach_set("value", layer.astype(np.int32))
    obj[scatter_build.LAYERS_KEY] = [core_scatter.dumps_layer(s) for s in specs]
    return root, obj


# ufbx's Python objects can crash while they are freed with bpy in the process (a 6,000-node file did,
# in the 4.2 line's run): read the FBX in a Python of its own that prints plain values and leaves
# without tearing anything down, as the other FBX tests do
_READ_FBX = """
import json, os, sys, ufbx
scene = ufbx.load_file(sys.argv[1])
out = {}
for node in list(scene.nodes):
    if node.is_root:
        continue
    lt = node.local_transform
    t, r, s = lt.translation, lt.rotation, lt.scale
    out[node.name] = [node.node_depth, [t.x, t.y, t.z], [r.x, r.y, r.z, r.w], [s.x, s.y, s.z]]
print(json.dumps(out), flush=True)
os._exit(0)
"""


def fbx_nodes(path):
    """``{name: (depth, translation, rotation (x, y, z, w), scale)}`` of every node, as ufbx reads them."""
    done = subprocess.run([sys.executable, "-c", _READ_FBX, str(path)], capture_output=True, text=True, check=True)
    return {name: (d, tuple(t), tuple(r), tuple(s)) for name, (d, t, r, s) in json.loads(done.stdout).items()}


def snapshot():
    """What cancelling must leave as it was."""
    objects = {
        o.name: (
            o.parent.name if o.parent else None,
            tuple(c.name for c in o.users_collection),
            tuple(round(v, 6) for row in o.matrix_world for v in row),
            o.hide_get(),
            o.select_get(),
        )
        for o in bpy.context.view_layer.objects
    }
    return (
        objects,
        sorted(o.name for o in bpy.data.objects),
        sorted(c.name for c in bpy.data.collections),
        sorted((m.name, m.users) for m in bpy.data.meshes),  # users too: no mesh keeps a user of a temporary object
        bpy.context.view_layer.objects.active.name if bpy.context.view_layer.objects.active else None,
    )


def test_tree_lod_children_have_exact_identity_transforms(empty_scene, tmp_path):
    """Before: offsets of 1e-5..1e-4 m and scales of 0.99999988 under rotated, scaled tree roots."""
    root, _obj = scatter_scene(60)
    before = snapshot()
    path = tmp_path / "w.fbx"
    export.export_unity([root], str(path), scatter_mode="objects")
    assert snapshot() == before
    nodes = fbx_nodes(path)
    lods = {n: v for n, v in nodes.items() if "_LOD" in n and n.startswith("Broadleaf_P")}
    assert len(lods) >= 60  # about half the instances are trees, three LODs each
    for name, (depth, t, r, s) in lods.items():
        assert depth == 2, name  # under its instance root
        assert t == (0.0, 0.0, 0.0) and r == (0.0, 0.0, 0.0, 1.0) and s == (1.0, 1.0, 1.0), (name, t, r, s)
    # the roots do carry the rotations and scales
    roots = [v for n, v in nodes.items() if n.startswith("Broadleaf_P") and "_LOD" not in n and v[0] == 1]
    assert roots and any(abs(v[3][0] - 1.0) > 0.01 for v in roots)


def test_instances_match_blenders_writer_on_real_objects(empty_scene, tmp_path):
    """Our export (bare stand-in objects) against Blender's own FBX writer on Make-Real objects."""
    root, obj = scatter_scene(40)
    ours = tmp_path / "ours.fbx"
    export.export_unity([obj], str(ours), scatter_mode="objects")
    coll = bpy.data.collections.new("Real")
    bpy.context.scene.collection.children.link(coll)
    made = scatter_build.make_real(obj, collection=coll)
    bpy.data.collections["Real LODs"].hide_viewport = False  # selectable, for the operator
    for o in bpy.context.view_layer.objects:
        o.select_set(False)
    real = [o for top in made for o in [top, *top.children]]
    for o in real:
        o.select_set(True)
    anchor = tmp_path / "anchor.fbx"
    assert bpy.ops.export_scene.fbx(filepath=str(anchor), use_selection=True, **fbx.FBX_UNITY) == {"FINISHED"}
    a, b = fbx_nodes(ours), fbx_nodes(anchor)
    assert set(a) == set(b) and len(a) == len(real)
    for name in a:
        assert a[name][0] == b[name][0], name
        np.testing.assert_allclose(a[name][1], b[name][1], atol=2e-3)
        ra, rb = np.array(a[name][2]), np.array(b[name][2])
        assert min(np.abs(ra - rb).max(), np.abs(ra + rb).max()) < 1e-4, name
        np.testing.assert_allclose(a[name][3], b[name][3], atol=1e-5)


def test_export_time_per_instance_does_not_grow(empty_scene, tmp_path):
    """Before: 1k 1.4 s, 5k 8.2 s, 10k 32.9 s (quadratic). Linear is a ratio of 4 for 4x the instances."""
    times = {}
    for n in (1500, 6000):
        bpy.ops.wm.read_homefile(use_empty=True)
        root, _obj = scatter_scene(n, kinds=("rock",))
        t0 = time.perf_counter()
        paths = export.export_unity([root], str(tmp_path / f"w{n}.fbx"), scatter_mode="objects", quiet=True)
        times[n] = time.perf_counter() - t0
        assert paths.scatter_mode == "objects" and paths.instances == n
        assert len([m for m in fbx_nodes(paths[0]) if m.startswith("Rock_P")]) == n
        assert not [o for o in bpy.data.objects if o.get(query.KIND_KEY) == bridge_scatter.INSTANCE_KIND]  # cleaned up
    ratio = times[6000] / times[1500]
    assert ratio < 8.0, f"{times}: {ratio:.1f}x the time for 4x the instances (quadratic would be 16x)"


def test_export_for_unity_after_make_real_is_linear_at_10000_props(empty_scene, tmp_path):
    """Make Real of a large scatter, then Export for Unity of the scene's Worldseed objects (issue 21:
    24,055 real objects did not export in 30 minutes; each top-level object scanned every object of
    the file, three times). 10,000 real props export whole, in process CPU time that grows with the
    props (4x the props: about 4x, never the 16x of the quadratic steps)."""
    cpu = {}
    for n in (2500, 10_000):
        bpy.ops.wm.read_homefile(use_empty=True)
        _root, obj = scatter_scene(n, kinds=("rock",))
        bpy.context.view_layer.objects.active = obj
        assert bpy.ops.worldseed.scatter_make_real(many=True) == {"FINISHED"}  # confirmed: many objects
        path = tmp_path / f"real{n}.fbx"
        t0 = time.process_time()
        assert bpy.ops.worldseed.export_unity(filepath=str(path)) == {"FINISHED"}
        cpu[n] = time.process_time() - t0
        assert len([m for m in fbx_nodes(path) if m.startswith("Rock_P")]) == n
    ratio = cpu[10_000] / cpu[2500]
    assert ratio < 8.0, f"{cpu}: {ratio:.1f}x the CPU time for 4x the props (quadratic would be 16x)"


def test_prop_library_each_prop_once_with_placements(empty_scene, tmp_path, capsys):
    root, obj = scatter_scene(300)
    before = snapshot()
    paths = export.export_unity([root], str(tmp_path / "w.fbx"), scatter_mode="library")
    assert sorted(os.path.basename(p) for p in paths) == ["w.fbx", "w_placements.json", "w_props.fbx"]
    assert paths.scatter_mode == "library" and paths.instances == 300
    assert "300 scattered instances as a prop library" in capsys.readouterr().out
    world = fbx_nodes(tmp_path / "w.fbx")
    assert set(world) == {"Land"}  # the terrain, and no instances
    library = fbx_nodes(tmp_path / "w_props.fbx")
    props = scatter_build.scatter_props(obj)
    expect = {p.name for p in props} | {c.name for p in props for c in p.children}
    assert set(library) == expect
    assert {"Broadleaf_P01", "Broadleaf_P01_LOD0", "Broadleaf_P01_LOD2", "Rock_P01"} <= expect
    for name, (_depth, t, r, s) in library.items():  # every prop at the origin, as the placements expect
        assert t == (0.0, 0.0, 0.0) and r == (0.0, 0.0, 0.0, 1.0) and s == (1.0, 1.0, 1.0), name
    data = json.loads((tmp_path / "w_placements.json").read_text())["scatters"][0]
    assert len(data["instances"]) == 300 and set(data["props"]) == {p.name for p in props}
    assert snapshot() == before


def test_auto_picks_the_prop_library_above_the_threshold(empty_scene, tmp_path, monkeypatch):
    root, _obj = scatter_scene(120, kinds=("rock",))
    assert export.export_unity([root], str(tmp_path / "a.fbx")).scatter_mode == "objects"
    monkeypatch.setattr(export, "PROP_LIBRARY_ABOVE", 100)
    paths = export.export_unity([root], str(tmp_path / "b.fbx"))
    assert paths.scatter_mode == "library" and "above 100 instances" in paths.summary
    assert export.resolve_scatter_mode("objects", 10**6) == "objects"
    with pytest.raises(export.ExportError, match="scatter_mode must be one of"):
        export.resolve_scatter_mode("props", 1)


def test_operator_option_and_report(empty_scene, tmp_path):
    scatter_scene(50, kinds=("rock",))
    path = tmp_path / "out" / "w.fbx"  # a missing folder is made, as the headless run does
    assert bpy.ops.worldseed.export_unity(filepath=str(path), scatter_mode="LIBRARY") == {"FINISHED"}
    assert sorted(os.listdir(path.parent)) == ["w.fbx", "w_placements.json", "w_props.fbx"]


def test_a_script_exports_a_large_scatter_at_once(empty_scene, tmp_path):
    """Found from outside: above MODAL_INSTANCES the export went modal in the bpy module (a window, no
    event loop) and returned RUNNING_MODAL, writing nothing; a script's export runs to its end."""
    from worldseed.operators.export import MODAL_INSTANCES

    scatter_scene(MODAL_INSTANCES + 10, kinds=("rock",))
    path = tmp_path / "big.fbx"
    assert bpy.context.window is not None and bpy.app.background
    assert bpy.ops.worldseed.export_unity(filepath=str(path), scatter_mode="LIBRARY") == {"FINISHED"}
    assert sorted(os.listdir(tmp_path)) == ["big.fbx", "big_placements.json", "big_props.fbx"]


def test_placement_file_names_each_instance_object(empty_scene, tmp_path):
    root, obj = scatter_scene(30)
    fbx = tmp_path / "w.fbx"
    export.export_unity([root], str(fbx), scatter_mode="objects")
    from worldseed.operators.bridge import placements

    data = json.loads(open(placements.write_placement_file([obj], str(tmp_path / "p.json"))).read())
    records = data["scatters"][0]["instances"]
    names = set(fbx_nodes(fbx))
    assert [r["object"] for r in records] == [f"{r['prop']}_{i:05d}" for i, r in enumerate(records)]
    assert all(r["object"] in names for r in records)


RESULT = {}


class WORLDSEED_OT_test_export_cancel(ModalBuild, bpy.types.Operator):
    """Feeds the real export / Make Real steps to ModalBuild by hand (background Blender has no events)."""

    bl_idname = "worldseed.test_export_cancel"
    bl_label = "Test Export Cancel"
    what: bpy.props.StringProperty()
    path: bpy.props.StringProperty()
    cancel_after: bpy.props.IntProperty(default=-1)

    def finished(self, context, result):
        RESULT["result"] = result

    def execute(self, context):
        if self.what == "export":
            spec = export_operator.ExportSpec(placements=True, preview=False)
            steps = export_operator.export_steps(context, [bpy.data.objects["Land"]], self.path, spec)
        else:
            steps = scatter_operator.make_real_steps(context, bpy.data.objects["Land_Scatter"])
        return drive_modal(self, context, steps, "test", RESULT)


@pytest.fixture
def cancel_op():
    bpy.utils.register_class(WORLDSEED_OT_test_export_cancel)
    RESULT.clear()
    yield
    bpy.utils.unregister_class(WORLDSEED_OT_test_export_cancel)


@pytest.mark.parametrize("cancel_after", [2, 6])
def test_escape_during_export_leaves_the_scene_and_folder_as_they_were(empty_scene, tmp_path, cancel_op, cancel_after):
    scatter_scene(2600)  # 6 steps of 500 instances, then the files
    (tmp_path / "w.fbx").write_bytes(b"earlier export")
    before = snapshot()
    bpy.ops.worldseed.test_export_cancel(what="export", path=str(tmp_path / "w.fbx"), cancel_after=cancel_after)
    assert RESULT["state"] == {"CANCELLED"} and "result" not in RESULT
    assert snapshot() == before
    assert os.listdir(tmp_path) == ["w.fbx"] and (tmp_path / "w.fbx").read_bytes() == b"earlier export"
    # and run to the end, it writes the files
    bpy.ops.worldseed.test_export_cancel(what="export", path=str(tmp_path / "w.fbx"))
    assert RESULT["state"] == {"FINISHED"}
    assert sorted(os.listdir(tmp_path)) == ["w.fbx", "w_placements.json"]
    assert snapshot() == before


def test_escape_during_make_real_leaves_the_scene_as_it_was(empty_scene, cancel_op):
    scatter_scene(1200)
    before = snapshot()
    bpy.ops.worldseed.test_export_cancel(what="make_real", cancel_after=4)  # while placing the objects
    assert RESULT["state"] == {"CANCELLED"}
    assert snapshot() == before
    bpy.ops.worldseed.test_export_cancel(what="make_real")
    assert RESULT["state"] == {"FINISHED"}
    collection, tops = RESULT["result"]
    assert len(tops) == 1200 and "Land_Scatter" not in bpy.data.objects
    assert len([o for o in collection.objects if o.parent is None]) == 1200
    tree = next(o for o in tops if o.name.startswith("Broadleaf_P"))
    lods = sorted(tree.children, key=lambda o: o.name)
    assert [c.name[len(tree.name) :] for c in lods] == ["_LOD0", "_LOD1", "_LOD2"]
    # LOD0 shows, the others wait in a collection disabled in viewports (as the prop hides them)
    assert [c.users_collection[0].name for c in lods] == [collection.name] + [f"{collection.name} LODs"] * 2
    assert bpy.data.collections[f"{collection.name} LODs"].hide_viewport


def test_headless_prop_library_with_placements(empty_scene, tmp_path, monkeypatch):
    from worldseed.core.export import ExportSpec
    from worldseed.operators.bridge import world

    root, _obj = scatter_scene(120, kinds=("rock",))
    monkeypatch.setattr(export, "PROP_LIBRARY_ABOVE", 100)
    world.write_exports([root], str(tmp_path), "world", ExportSpec(preview=False, placements=True))
    assert sorted(os.listdir(tmp_path)) == ["world.fbx", "world_placements.json", "world_props.fbx"]
