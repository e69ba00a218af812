"""A Workbench render of a built world, for previews (headless and in the UI alike).

The terrain gets a temporary point colour attribute from the same palette as
the material and the shaded relief (Workbench cannot evaluate node
materials), a camera and a sun are added for the shot, and everything added
is removed again afterwards, so the scene, the .blend and the exports are as
they were.
"""

import contextlib
import os

import bpy
import numpy as np
from mathutils import Vector

from ...core import palette as core_palette
from .terrain import stored_recipe

COLOUR_ATTRIBUTE = "worldseed_preview_colour"


class RenderError(RuntimeError):
    """The preview could not be rendered (e.g. no OpenGL on this machine)."""


def _mesh_colours(obj, sea_level, height, palette):
    me = obj.data
    co = np.empty(len(me.vertices) * 3, np.float32)
    me.attributes["position"].data.foreach_get("vector", co)
    z = co.reshape(-1, 3)[:, 2]
    normals = np.empty(len(me.vertices) * 3, np.float32)
    me.vertex_normals.foreach_get("vector", normals)
    nz = np.clip(normals.reshape(-1, 3)[:, 2], -1.0, 1.0)
    slope = np.degrees(np.arccos(nz))
    h = (z / np.float32(height if height > 0 else 1.0))[None, :]
    rgb = core_palette.srgb_to_linear(
        core_palette.terrain_colours(
            h, height_m=height, slope_degrees=slope[None, :], sea_level=sea_level, palette=palette
        )[0]
    )
    rgba = np.concatenate([rgb, np.ones((len(rgb), 1), np.float32)], axis=1)
    attr = me.color_attributes.new(COLOUR_ATTRIBUTE, "FLOAT_COLOR", "POINT")
    attr.data.foreach_set("color", rgba.ravel())
    return attr


_SETTINGS = (
    "camera",
    "render.engine",
    "render.filepath",
    "render.resolution_x",
    "render.resolution_y",
    "render.resolution_percentage",
    "display.shading.color_type",
    "display.shading.light",
    "render.image_settings.file_format",
    "render.film_transparent",
)


def _get(scene, path):
    obj, _, attr = path.rpartition(".")
    for part in filter(None, obj.split(".")):
        scene = getattr(scene, part)
    return scene, attr


@contextlib.contextmanager
def _studio_shot(scene, *, size, color_type, lens, clip_end):
    """A Workbench set-up with a new camera (yielded); every setting and the camera go again afterwards."""
    saved = [(holder, attr, getattr(holder, attr)) for holder, attr in (_get(scene, p) for p in _SETTINGS)]
    cam_data = bpy.data.cameras.new("Worldseed Preview")
    cam = bpy.data.objects.new("Worldseed Preview", cam_data)
    try:
        cam_data.lens = lens
        cam_data.clip_end = clip_end
        scene.collection.objects.link(cam)
        scene.camera = cam
        scene.render.engine = "BLENDER_WORKBENCH"
        scene.display.shading.light = "STUDIO"
        scene.display.shading.color_type = color_type
        scene.render.film_transparent = False
        scene.render.resolution_x, scene.render.resolution_y = size
        scene.render.resolution_percentage = 100
        scene.render.image_settings.file_format = "PNG"
        yield cam
    finally:
        for holder, attr, value in saved:
            setattr(holder, attr, value)
        bpy.data.objects.remove(cam, do_unlink=True)
        bpy.data.cameras.remove(cam_data)


def _render_png(scene, path):
    """Render the scene's camera into ``path`` (via a temporary file, renamed when complete)."""
    folder, base = os.path.split(os.path.abspath(path))
    tmp = os.path.join(folder, f".{base}.tmp.png")
    scene.render.filepath = tmp
    try:
        bpy.ops.render.render(write_still=True, scene=scene.name)
    except RuntimeError as err:
        raise RenderError(f"the preview render failed: {str(err).strip().splitlines()[-1]}") from None
    if not os.path.isfile(tmp):
        raise RenderError("the preview render wrote no image (no OpenGL on this machine?)")
    os.replace(tmp, path)
    return path


def render_preview(scene, root, path, *, size=(960, 540)):
    """Render ``root`` (a Worldseed terrain) from a three-quarter view into the PNG ``path``."""
    meshes = (
        [root]
        if root.type == "MESH"
        else sorted(
            (c for c in root.children if c.type == "MESH" and not c.get("worldseed_kind")), key=lambda o: o.name
        )
    )
    shown = meshes[0]  # LOD0; the other LODs are hidden for the shot, scattered props stay
    hidden = [(o, o.hide_render) for o in meshes[1:]]
    attr_name = None
    try:
        height = float(root.get("worldseed_height", 1.0))
        palette = stored_recipe(root).terrain.palette
        attr = _mesh_colours(shown, float(root.get("worldseed_sea_level", 0.0)), height, palette)
        attr_name = attr.name
        shown.data.color_attributes.active_color = attr
        for obj, _ in hidden:
            obj.hide_render = True
        lo = Vector(shown.bound_box[0])
        hi = Vector(shown.bound_box[6])
        extent = max(hi.x - lo.x, hi.y - lo.y, 1e-3)
        centre = shown.matrix_world @ ((lo + hi) / 2)
        with _studio_shot(scene, size=size, color_type="VERTEX", lens=32, clip_end=extent * 20) as cam:
            cam.location = centre + Vector((0.62, -0.82, 0.55)) * extent
            cam.rotation_euler = (centre - cam.location).to_track_quat("-Z", "Y").to_euler()
            return _render_png(scene, path)
    finally:
        for obj, flag in hidden:
            obj.hide_render = flag
        if attr_name is not None and attr_name in shown.data.color_attributes:
            shown.data.color_attributes.remove(shown.data.color_attributes[attr_name])


def render_trees(scene, roots, path, *, size=(960, 540)):
    """Render the LOD0 of each tree root (material colours, studio light) from the front into ``path``."""
    lod0 = [c for r in roots for c in r.children if c.type == "MESH" and c.name.endswith("_LOD0")]
    if not lod0:
        raise RenderError("no tree LOD0 meshes to render")
    others = [c for r in roots for c in r.children if c not in lod0]
    hidden = [(o, o.hide_render) for o in others + lod0]
    try:
        for o in others:
            o.hide_render = True
        for o in lod0:
            o.hide_render = False
        bpy.context.view_layer.update()
        corners = [o.matrix_world @ Vector(c) for o in lod0 for c in o.bound_box]
        lo = Vector([min(c[i] for c in corners) for i in range(3)])
        hi = Vector([max(c[i] for c in corners) for i in range(3)])
        centre = (lo + hi) / 2
        aspect = size[0] / size[1]
        extent = max(hi.z - lo.z, (hi.x - lo.x) / aspect, 1e-3)
        with _studio_shot(scene, size=size, color_type="MATERIAL", lens=50, clip_end=extent * 50) as cam:
            distance = 1.15 * extent * aspect * cam.data.lens / cam.data.sensor_width + (hi.y - lo.y) / 2
            cam.location = centre + Vector((0.0, -1.0, 0.12)).normalized() * distance
            cam.rotation_euler = (centre - cam.location).to_track_quat("-Z", "Y").to_euler()
            return _render_png(scene, path)
    finally:
        for obj, flag in hidden:
            obj.hide_render = flag
