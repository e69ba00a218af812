"""The preview render leaves the scene exactly as it found it."""

import bpy
import pytest

from worldseed.operators.bridge import render


def test_render_preview_writes_a_png_and_restores_the_scene(empty_scene, tmp_path):
    bpy.ops.worldseed.terrain_add(resolution=33, lods=2, sea_level=0.2)
    root = bpy.context.active_object
    scene = bpy.context.scene
    before = (
        sorted(o.name for o in bpy.data.objects),
        len(bpy.data.cameras),
        scene.camera,
        scene.render.engine,
        scene.render.resolution_x,
        scene.display.shading.color_type,
    )
    attrs_before = sorted(a.name for a in bpy.data.objects["World_LOD0"].data.attributes)
    path = tmp_path / "p.png"
    try:
        render.render_preview(scene, root, str(path), size=(160, 90))
    except render.RenderError as err:  # machines without OpenGL
        pytest.skip(str(err))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    after = (
        sorted(o.name for o in bpy.data.objects),
        len(bpy.data.cameras),
        scene.camera,
        scene.render.engine,
        scene.render.resolution_x,
        scene.display.shading.color_type,
    )
    assert after == before
    assert sorted(a.name for a in bpy.data.objects["World_LOD0"].data.attributes) == attrs_before
    assert not bpy.data.objects["World_LOD1"].hide_render
    assert [p.name for p in tmp_path.iterdir()] == ["p.png"]


def _render_or_skip(scene, root, path):
    try:
        return render.render_preview(scene, root, str(path), size=(160, 90))
    except render.RenderError as err:  # machines without OpenGL
        pytest.skip(str(err))


def test_render_preview_never_writes_through_a_planted_link(empty_scene, tmp_path):
    """A link planted at the old fixed temporary name, or at the final name, is never written through."""
    bpy.ops.worldseed.terrain_add(resolution=33, lods=1)
    root = bpy.context.active_object
    out = tmp_path / "out"
    out.mkdir()
    outside = tmp_path / "precious.txt"
    outside.write_bytes(b"keep me")
    (out / ".preview.png.tmp.png").symlink_to(outside)
    _render_or_skip(empty_scene, root, out / "preview.png")
    assert outside.read_bytes() == b"keep me"
    assert (out / "preview.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # a link at the final name is replaced by the file, the file it pointed to untouched
    (out / "preview.png").unlink()
    (out / "preview.png").symlink_to(outside)
    _render_or_skip(empty_scene, root, out / "preview.png")
    assert outside.read_bytes() == b"keep me"
    assert not (out / "preview.png").is_symlink()
    assert (out / "preview.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in out.iterdir()) == [".preview.png.tmp.png", "preview.png"]


def test_render_preview_is_light_fxaa_and_last_tree_lods(empty_scene, tmp_path):
    """The preview renders with FXAA and the scattered trees at their last LOD; both are put back after."""
    from worldseed.core import recipe as core_recipe
    from worldseed.operators.bridge import world

    recipe = core_recipe.loads(
        '[world]\nname = "Hill"\nseed = 3\n[terrain]\nresolution = 33\nsize = 128.0\nheight = 20.0\nlods = 2\n'
        '[[scatter]]\nname = "Pines"\nprop = "conifer"\nvariants = 2\nradius = 30.0\n',
        source="test recipe",
    )
    made = world.build_world(recipe, scene=empty_scene)
    (scatter,) = made.scatters
    infos = [n for n in scatter.modifiers[0].node_group.nodes if n.bl_idname == "GeometryNodeObjectInfo"]
    before = [n.inputs["Object"].default_value.name for n in infos]
    assert before == ["Conifer_P01_LOD0", "Conifer_P02_LOD0"]
    seen = []

    def record(scene, *_):
        seen.append((scene.display.render_aa, [n.inputs["Object"].default_value.name for n in infos]))

    aa = empty_scene.display.render_aa
    bpy.app.handlers.render_pre.append(record)
    try:
        _render_or_skip(empty_scene, made.terrain, tmp_path / "p.png")
    finally:
        bpy.app.handlers.render_pre.remove(record)
    last = [f"Conifer_P0{k}_LOD{len(bpy.data.objects['Conifer_P01'].children) - 1}" for k in (1, 2)]
    assert seen == [("FXAA", last)]
    assert last[0] != "Conifer_P01_LOD0"
    assert [n.inputs["Object"].default_value.name for n in infos] == before
    assert empty_scene.display.render_aa == aa == "8"


def test_render_preview_shows_one_lod_of_each_grown_tree(empty_scene, tmp_path):
    """Trees grown beside the terrain ([[trees]]) hide their LODs in the viewport only (hide_set), which a
    render ignores: the preview shows one LOD of each (the last), not every LOD on top of each other."""
    from worldseed.core import recipe as core_recipe
    from worldseed.operators.bridge import world
    from worldseed.operators.bridge.trees import is_tree

    recipe = core_recipe.loads(
        '[world]\nname = "Hill"\nseed = 3\n[terrain]\nresolution = 33\nsize = 64.0\nheight = 10.0\n'
        '[[trees]]\nspecies = "abop_1_24a"\niterations = 3\nvariants = 2\n',
        source="test recipe",
    )
    made = world.build_world(recipe, scene=empty_scene)
    trees = [o for o in made.roots if is_tree(o)]
    assert len(trees) == 2 and all(len(t.children) > 1 for t in trees)
    flags = {c.name: c.hide_render for t in trees for c in t.children}
    seen = []

    def record(*_):
        seen.append(sorted(c.name for t in trees for c in t.children if not c.hide_render))

    bpy.app.handlers.render_pre.append(record)
    try:
        _render_or_skip(empty_scene, made.terrain, tmp_path / "p.png")
    finally:
        bpy.app.handlers.render_pre.remove(record)
    last = sorted(max(t.children, key=lambda c: c.name).name for t in trees)
    assert seen == [last]
    assert {c.name: c.hide_render for t in trees for c in t.children} == flags
