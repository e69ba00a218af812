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


def test_two_renders_of_one_scene_are_the_same_bytes(empty_scene, tmp_path):
    """Blender wrote the date and the render time into every PNG (text chunks), so two renders of one
    scene differed in their bytes, never in a pixel; the shot leaves that metadata out, and puts the
    scene's own stamp settings back."""
    bpy.ops.worldseed.terrain_add(resolution=33, lods=1)
    root = bpy.context.active_object
    empty_scene.render.use_stamp_date = empty_scene.render.use_stamp_render_time = True
    first = _render_or_skip(empty_scene, root, tmp_path / "a.png")
    second = _render_or_skip(empty_scene, root, tmp_path / "b.png")
    data = open(first, "rb").read()
    assert data == open(second, "rb").read()
    assert b"tEXtDate" not in data and b"RenderTime" not in data
    assert empty_scene.render.use_stamp_date and empty_scene.render.use_stamp_render_time


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


def _pixels(path):
    from worldseed.core import wfc as core_wfc

    return core_wfc.read_png(path.read_bytes(), name="render")[..., :3].astype(int)


RED_ISLE = (
    '[world]\nname = "Red"\nseed = 2\n[terrain]\nresolution = 33\nsize = 256.0\nheight = 40.0\nfalloff = "radial"\n'
    'sea_level = 0.2\n[[splat]]\nname = "Clay"\ncolor = [0.8, 0.05, 0.05]\n'
)


def _data_blocks():
    return {
        kind: sorted(b.name for b in getattr(bpy.data, kind) if b.name != "Render Result")  # every render's
        for kind in ("objects", "meshes", "materials", "images", "worlds", "cameras")
    }


def test_the_preview_shows_the_texture_layers_and_water_and_puts_everything_back(empty_scene, tmp_path):
    """Issue 21: the preview ignored the texture layers (a Snow layer covering 11 % showed nowhere).
    A terrain whose one layer is red renders red (the palette has no red) with blue water at its sea
    level, and the scene's data blocks and the terrain's materials are as they were afterwards."""
    from worldseed.core import recipe as core_recipe
    from worldseed.operators.bridge import world

    made = world.build_world(core_recipe.loads(RED_ISLE, source="test recipe"), scene=empty_scene)
    before = _data_blocks()
    slots = [m.name for m in made.terrain.data.materials]
    path = tmp_path / "p.png"
    _render_or_skip(empty_scene, made.terrain, path)
    assert _data_blocks() == before
    assert [m.name for m in made.terrain.data.materials] == slots
    px = _pixels(path)
    red = (px[..., 0] > 2 * px[..., 1] + 20) & (px[..., 0] > 2 * px[..., 2] + 20)
    blue = px[..., 2] > px[..., 0] + 30
    assert red.mean() > 0.05, red.mean()
    assert blue.mean() > 0.05, blue.mean()


def test_the_relief_shows_the_texture_layers(empty_scene, tmp_path):
    from worldseed.core import recipe as core_recipe
    from worldseed.operators.bridge import world

    recipe = core_recipe.loads(RED_ISLE + "[export]\nfbx = false\nrender = false\n", source="test recipe")
    made = world.build_world(recipe, scene=empty_scene)
    written = world.write_exports(made.roots, str(tmp_path), "red", recipe.export, scene=empty_scene)
    px = _pixels(tmp_path / "relief.png")
    assert str(tmp_path / "relief.png") in written
    assert ((px[..., 0] > 2 * px[..., 1] + 20) & (px[..., 0] > 2 * px[..., 2] + 20)).mean() > 0.05
    assert (px[..., 2] > px[..., 0] + 30).mean() > 0.05  # the sea


def test_a_world_of_levels_renders_its_levels(empty_scene, tmp_path):
    """Issue 21: a recipe with only levels failed with "no tree LOD0 meshes"; its levels render, floors
    and walls in colours apart (the ceiling see-through, put back afterwards)."""
    from worldseed.core import recipe as core_recipe
    from worldseed.operators.bridge import levels, world

    text = (
        '[world]\nname = "L"\nseed = 1\n[terrain]\nenabled = false\n'
        '[[level]]\nname = "Crypt"\ngenerator = "bsp"\nwidth = 40\nheight = 30\n'
        '[[level]]\nname = "Roof"\ngenerator = "cave"\nwidth = 30\nheight = 30\nceiling = true\n'
        "origin = [90.0, 0.0, 0.0]\n"
    )
    made = world.build_world(core_recipe.loads(text, source="test recipe"), scene=empty_scene)
    ceiling = bpy.data.materials[levels.MATERIAL_NAMES[2]]
    colour = tuple(ceiling.diffuse_color)
    path = tmp_path / "levels.png"
    try:
        render.render_world(empty_scene, made.roots, str(path))
    except render.RenderError as err:  # machines without OpenGL; never "no tree LOD0 meshes"
        if "OpenGL" not in str(err) and "render failed" not in str(err):
            raise
        pytest.skip(str(err))
    assert tuple(ceiling.diffuse_color) == colour
    px = _pixels(path)
    floor = (px[..., 0] > px[..., 2] + 25) & (px[..., 0] > 90)  # sandstone
    wall = (px[..., 2] > px[..., 0] + 5) & (px[..., 2] < 110)  # slate
    assert floor.mean() > 0.03 and wall.mean() > 0.03, (floor.mean(), wall.mean())
