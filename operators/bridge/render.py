"""A Workbench render of a built world, for previews (headless and in the UI alike).

The terrain shows its palette colours (the vertex colours of
:mod:`.materials`, or a temporary copy of them for a terrain without),
Workbench being unable to evaluate node materials; a camera is added for the
shot, and everything added or changed is put back afterwards, so the scene,
the .blend and the exports are as they were.

Previews are cheap: FXAA anti-aliasing instead of 8 samples, and trees at
their last (lightest) LOD for the shot, scattered or grown.  The PNG is
rendered into a private temporary folder and copied into place through a
new file of a random name (``core.unity.write_bytes_atomic``), so no link
planted in the output folder is ever written through.
"""

import contextlib
import os
import tempfile
from collections.abc import Sequence
from typing import cast

import bpy
from mathutils import Vector

from ...core import unity as core_unity
from .materials import TERRAIN_COLOURS, write_terrain_colours
from .mesh import mesh_of
from .query import PROP_KEY
from .scatter import is_scatter
from .terrain import stored_recipe
from .trees import is_tree

COLOUR_ATTRIBUTE = "worldseed_preview_colour"
#: Workbench anti-aliasing for previews: FXAA, one pass (Blender's default, 8 samples, is 4x slower).
PREVIEW_AA = "FXAA"


class RenderError(RuntimeError):
    """The preview could not be rendered (e.g. no OpenGL on this machine)."""


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
    "display.render_aa",
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
        scene.display.render_aa = PREVIEW_AA
        yield cam
    finally:
        for holder, attr, value in saved:
            setattr(holder, attr, value)
        bpy.data.objects.remove(cam, do_unlink=True)
        bpy.data.cameras.remove(cam_data)


def _render_png(scene: bpy.types.Scene, path: str) -> str:
    """Render the scene's camera into the PNG ``path``.

    Blender writes the image by name, following links: it writes into a
    private temporary folder, and the bytes reach ``path`` through a new file
    of a random name renamed over it (a link at ``path`` is replaced, not
    followed).
    """
    with tempfile.TemporaryDirectory(prefix="worldseed-render-") as private:
        tmp = os.path.join(private, "preview.png")
        scene.render.filepath = tmp
        try:
            bpy.ops.render.render(write_still=True, scene=scene.name)
        except RuntimeError as err:
            raise RenderError(f"the preview render failed: {str(err).strip().splitlines()[-1]}") from None
        if not os.path.isfile(tmp):
            raise RenderError("the preview render wrote no image (no OpenGL on this machine?)")
        with open(tmp, "rb") as f:
            data = f.read()
    core_unity.write_bytes_atomic(path, data)
    return path


def _lods(root: bpy.types.Object) -> list[bpy.types.Object]:
    """The ``<Name>_LOD<k>`` mesh children of a tree root, by k."""
    stem = f"{root.name}_LOD"
    lods = [c for c in root.children if c.type == "MESH" and c.name.startswith(stem) and c.name[len(stem) :].isdigit()]
    return sorted(lods, key=lambda c: int(c.name[len(stem) :]))


def _last_lod(obj: bpy.types.Object) -> bpy.types.Object:
    """The last LOD of the tree whose ``<Name>_LOD0`` is ``obj`` (``obj`` itself when it is not one)."""
    if obj.parent is None or obj.name != f"{obj.parent.name}_LOD0":
        return obj
    return _lods(obj.parent)[-1]


@contextlib.contextmanager
def _light_trees(scene, root):
    """For the duration, trees show their last (lightest) LOD only: the scatters below ``root`` instance
    it instead of LOD0, and grown trees in ``scene`` (whose other LODs are hidden in the viewport only,
    which renders ignore) hide the others from the render."""
    swapped, hidden = [], []
    try:
        for scatter in (o for o in root.children_recursive if is_scatter(o)):
            for mod in scatter.modifiers:
                if mod.type != "NODES" or mod.node_group is None:
                    continue
                for node in mod.node_group.nodes:
                    if node.bl_idname != "GeometryNodeObjectInfo":
                        continue
                    socket = node.inputs["Object"]
                    prop = socket.default_value
                    light = _last_lod(prop) if prop is not None else None
                    if light is not None and light is not prop:
                        swapped.append((socket, prop))
                        socket.default_value = light
        for tree in (o for o in scene.objects if is_tree(o) and not o.get(PROP_KEY)):  # props: hidden already
            for lod in _lods(tree)[:-1]:
                hidden.append((lod, lod.hide_render))
                lod.hide_render = True
        yield
    finally:
        for socket, prop in swapped:
            socket.default_value = prop
        for lod, flag in hidden:
            lod.hide_render = flag


def _terrain_colours(shown, root):
    """The colour attribute to show on the terrain mesh ``shown``: its own palette colours, else a
    temporary copy (returned second, to remove afterwards)."""
    own = shown.data.color_attributes.get(TERRAIN_COLOURS)
    if own is not None:
        return own, None
    palette = stored_recipe(root).terrain.palette
    temp = write_terrain_colours(
        shown.data,
        height=float(root.get("worldseed_height", 1.0)),
        sea_level=float(root.get("worldseed_sea_level", 0.0)),
        palette=palette,
        name=COLOUR_ATTRIBUTE,
    )
    return temp, temp.name


def render_preview(
    scene: bpy.types.Scene, root: bpy.types.Object, path: str, *, size: tuple[int, int] = (960, 540)
) -> str:
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
    colours = mesh_of(shown).color_attributes
    active = colours.active_color_name
    temp_name = None
    try:
        attr, temp_name = _terrain_colours(shown, root)
        colours.active_color = attr
        for obj, _ in hidden:
            obj.hide_render = True
        lo = Vector(shown.bound_box[0])
        hi = Vector(shown.bound_box[6])
        extent = max(hi.x - lo.x, hi.y - lo.y, 1e-3)
        centre = shown.matrix_world @ ((lo + hi) / 2)
        with (
            _light_trees(scene, root),
            _studio_shot(scene, size=size, color_type="VERTEX", lens=32, clip_end=extent * 20) as cam,
        ):
            cam.location = centre + Vector((0.62, -0.82, 0.55)) * extent
            cam.rotation_euler = (centre - cam.location).to_track_quat("-Z", "Y").to_euler()
            return _render_png(scene, path)
    finally:
        for obj, flag in hidden:
            obj.hide_render = flag
        if temp_name is not None and temp_name in colours:
            colours.remove(colours[temp_name])
        if active and active in colours:
            colours.active_color = colours[active]


def render_trees(
    scene: bpy.types.Scene, roots: Sequence[bpy.types.Object], path: str, *, size: tuple[int, int] = (960, 540)
) -> str:
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
        cast(bpy.types.ViewLayer, bpy.context.view_layer).update()
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
