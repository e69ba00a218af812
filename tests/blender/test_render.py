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
