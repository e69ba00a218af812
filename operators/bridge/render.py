"""A Workbench render of a built world, for previews (headless and in the UI alike).

The picture shows what Unity will show.  Workbench cannot evaluate node
materials, so the terrain draws its ground texture (the texture layers blended
by their weights, or the palette colours: :func:`.terrain_export.ground_materials`,
the very texture the exported files carry) with Workbench's texture colours,
and everything else its material's viewport colour (trees, rocks, level floors,
walls and ceilings: :mod:`.materials`, :mod:`.levels`).  A terrain with a
sea gets a water plane at the sea level, the sky a colour, the light soft
shadows, and the camera an oblique view fitted to the terrain's own shape, so
the ground fills the frame and the props in front read.  A world of levels only
is shown from above at an angle; trees alone from the front.

A camera, the water plane and any stand-in material are added for the shot, and
everything added or changed is put back afterwards, so the scene, the .blend and
the exports are as they were.

Previews are cheap: FXAA anti-aliasing instead of 8 samples, and trees at their
last (lightest) LOD for the shot, scattered or grown.  The PNG is rendered into
a private temporary folder and copied into place through a new file of a random
name (``core.unity.write_bytes_atomic``), so no link planted in the output folder
is ever written through.  Blender's own lines on a machine without a display
(``EGL Error``, ``Saved: ...``) are kept from the terminal (:func:`quiet_stdio`).
"""

import contextlib
import math
import os
import sys
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from typing import cast

import bpy
import numpy as np
from mathutils import Vector

from ...core import exact
from ...core import palette as core_palette
from ...core import unity as core_unity
from .levels import is_level
from .mesh import mesh_of
from .query import PROP_KEY
from .scatter import is_scatter
from .terrain import stored_recipe
from .terrain_export import ground_materials, terrain_lods
from .trees import is_tree

#: Workbench anti-aliasing for previews: FXAA, one pass (Blender's default, 8 samples, is 4x slower).
PREVIEW_AA = "FXAA"
#: The preview's size in pixels.
PREVIEW_SIZE = (1280, 720)
#: The sky behind the world (linear RGB): a pale blue.
SKY = (0.42, 0.55, 0.72)
#: Degrees above the horizon the terrain is seen from, and the compass bearing the camera looks along.
ELEVATION, BEARING = 24.0, 35.0


class RenderError(RuntimeError):
    """The preview could not be rendered (e.g. no OpenGL on this machine)."""


#: Blender's metadata written into the PNG (text chunks): the date, render time, memory and host
#: would make two renders of one scene differ in their bytes, though not in a pixel.  Off for the shot.
_STAMPS = (
    "render.use_stamp",
    "render.use_stamp_date",
    "render.use_stamp_time",
    "render.use_stamp_render_time",
    "render.use_stamp_frame",
    "render.use_stamp_frame_range",
    "render.use_stamp_memory",
    "render.use_stamp_hostname",
    "render.use_stamp_camera",
    "render.use_stamp_lens",
    "render.use_stamp_scene",
    "render.use_stamp_marker",
    "render.use_stamp_filename",
    "render.use_stamp_sequencer_strip",
    "render.use_stamp_note",
)

_SETTINGS = (
    "camera",
    "world",
    "render.engine",
    "render.filepath",
    "render.resolution_x",
    "render.resolution_y",
    "render.resolution_percentage",
    "display.shading.color_type",
    "display.shading.light",
    "display.shading.show_shadows",
    "display.shading.shadow_intensity",
    "display.shading.show_cavity",
    "display.shading.cavity_type",
    "display.shading.show_specular_highlight",
    "display.light_direction",
    "render.image_settings.file_format",
    "render.film_transparent",
    "display.render_aa",
    *_STAMPS,
)


def _get(scene, path):
    obj, _, attr = path.rpartition(".")
    for part in filter(None, obj.split(".")):
        scene = getattr(scene, part)
    return scene, attr


def _value(v):
    """A setting's value to put back later: arrays (the light direction) copied, data-blocks as they are."""
    if isinstance(v, (bpy.types.ID, str)) or v is None or not hasattr(v, "__len__"):
        return v
    return tuple(v)


@contextlib.contextmanager
def _studio_shot(scene, *, size, color_type, lens, clip_end, shadows=False):
    """A Workbench set-up with a new camera (yielded) and a sky-coloured world; every setting, the
    camera and the world go again afterwards."""
    saved = [(holder, attr, getattr(holder, attr)) for holder, attr in (_get(scene, p) for p in _SETTINGS)]
    saved = [(h, a, _value(v)) for h, a, v in saved]
    cam_data = bpy.data.cameras.new("Worldseed Preview")
    cam = bpy.data.objects.new("Worldseed Preview", cam_data)
    sky = bpy.data.worlds.new("Worldseed Preview Sky")
    try:
        cam_data.lens = lens
        cam_data.clip_start = max(clip_end * 1e-5, 0.01)
        cam_data.clip_end = clip_end
        scene.collection.objects.link(cam)
        scene.camera = cam
        sky.color = SKY
        scene.world = sky
        scene.render.engine = "BLENDER_WORKBENCH"
        shading = scene.display.shading
        shading.light = "STUDIO"
        shading.color_type = color_type
        shading.show_shadows = shadows
        shading.shadow_intensity = 0.35
        shading.show_cavity = False
        shading.show_specular_highlight = True
        scene.display.light_direction = (0.45, -0.35, 0.82)
        scene.render.film_transparent = False
        scene.render.resolution_x, scene.render.resolution_y = size
        scene.render.resolution_percentage = 100
        scene.render.image_settings.file_format = "PNG"
        scene.display.render_aa = PREVIEW_AA
        for path in _STAMPS:
            setattr(*_get(scene, path), False)
        yield cam
    finally:
        for holder, attr, value in saved:
            setattr(holder, attr, value)
        bpy.data.objects.remove(cam, do_unlink=True)
        bpy.data.cameras.remove(cam_data)
        bpy.data.worlds.remove(sky)


@contextlib.contextmanager
def quiet_stdio() -> Iterator[list[str]]:
    """Keep what Blender's C code prints on stdout and stderr (``EGL Error (0x3009)`` three times per
    render on a machine without a display, ``Saved: '/tmp/...'``) from the terminal for the duration:
    file descriptors 1 and 2 point at a temporary file; what the render printed is dropped unless
    it fails (then its last lines go to the error).  Python's own streams are flushed first."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    try:
        saved = [os.dup(1), os.dup(2)]
    except OSError:  # no file descriptors to redirect (an embedded interpreter): print as it comes
        yield []
        return
    lines: list[str] = []
    with tempfile.TemporaryFile() as sink:
        try:
            os.dup2(sink.fileno(), 1)
            os.dup2(sink.fileno(), 2)
            yield lines
        finally:
            for stream in (sys.stdout, sys.stderr):
                with contextlib.suppress(Exception):
                    stream.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            for fd in saved:
                os.close(fd)
            sink.seek(0)
            lines += sink.read().decode("utf-8", "replace").splitlines()


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
        failure = None
        with quiet_stdio() as printed:
            try:
                bpy.ops.render.render(write_still=True, scene=scene.name)
            except RuntimeError as err:
                failure = str(err).strip().splitlines()[-1]
        if failure is not None:
            raise RenderError(f"the preview render failed: {failure}") from None
        if not os.path.isfile(tmp):
            said = "; ".join(line.strip() for line in printed[-2:] if line.strip())
            raise RenderError(
                "the preview render wrote no image (no OpenGL on this machine?)" + (f": {said}" if said else "")
            )
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


def _world_points(obj, most=4096):
    """Up to about ``most`` vertices of a mesh object in world space: (N, 3) float64."""
    me = obj.data
    n = len(me.vertices)
    if n == 0:
        return np.zeros((0, 3))
    co = np.empty(n * 3, np.float32)
    me.attributes["position"].data.foreach_get("vector", co)
    co = co.reshape(-1, 3)[:: max(1, n // most)].astype(np.float64)
    m = np.array(obj.matrix_world)
    return np.stack([_dot(co, m[i, :3]) + m[i, 3] for i in range(3)], axis=1)


def _dot(w, v):
    """``w @ v`` of (N, 3) points and a 3-vector, added left to right (``@`` is BLAS, whose kernel
    and so the last bits depend on the CPU; the camera's place reaches the picture)."""
    return w[:, 0] * v[0] + w[:, 1] * v[1] + w[:, 2] * v[2]


def _box_points(objects):
    """The corners of the world-space bounding boxes of ``objects`` (evaluated: instances included)."""
    out = [np.array([tuple(o.matrix_world @ Vector(c)) for c in o.bound_box]) for o in objects]
    return np.concatenate(out) if out else np.zeros((0, 3))


def _aim(cam, points, *, elevation, bearing, aspect, margin=1.04):
    """Point ``cam`` along the compass ``bearing`` (degrees clockwise from +Y, north), ``elevation``
    degrees down, and move it back until every one of ``points`` ((N, 3) world) is in the frame."""
    (sin_el, sin_az), (cos_el, cos_az) = exact.sincos([math.radians(elevation), math.radians(bearing)])
    forward = np.array([sin_az * cos_el, cos_az * cos_el, -sin_el])  # core.exact: the same bits on any CPU
    right = np.cross(forward, [0.0, 0.0, 1.0])
    right /= math.sqrt(float(_dot(right[None], right)[0]))
    up = np.cross(right, forward)
    lo, hi = points.min(axis=0), points.max(axis=0)
    centre = (lo + hi) / 2
    w = points - centre
    x, y, depth = _dot(w, right), _dot(w, up), _dot(w, forward)
    sensor = cam.data.sensor_width
    tan_x = sensor / (2 * cam.data.lens) * (1.0 if aspect >= 1 else aspect)
    tan_y = tan_x / aspect
    # re-centre sideways and up-down on the points' extent in the picture plane, then back off
    centre = centre + right * (x.max() + x.min()) / 2 + up * (y.max() + y.min()) / 2
    w = points - centre
    x, y, depth = _dot(w, right), _dot(w, up), _dot(w, forward)
    for _ in range(3):  # perspective: nearer points spread more; settle the distance and centre
        d = max(float(np.max(np.abs(x) / tan_x - depth)), float(np.max(np.abs(y) / tan_y - depth)), 1e-3) * margin
        px, py = x / (depth + d), y / (depth + d)
        shift_x = (px.max() + px.min()) / 2
        shift_y = (py.max() + py.min()) / 2
        if abs(shift_x) < 1e-4 and abs(shift_y) < 1e-4:
            break
        centre = centre + right * shift_x * d + up * shift_y * d
        w = points - centre
        x, y, depth = _dot(w, right), _dot(w, up), _dot(w, forward)
    location = centre - forward * d
    cam.location = Vector(location.tolist())
    cam.rotation_euler = Vector(forward.tolist()).to_track_quat("-Z", "Y").to_euler()
    return d + float(np.max(np.abs(depth)))


def _water_mesh(obj, level, *, most=256):
    """A flat mesh at height ``level`` (object space of ``obj``, a terrain grid mesh) over the blocks
    of its grid, at most ``most`` a side, that reach down to the level: the sea and the lakes, and
    nothing below the terrain's cut edges.  None when no block does (or ``obj`` is no grid)."""
    me = obj.data
    n = len(me.vertices)
    side = int(round(n**0.5))
    if side < 2 or side * side != n:
        return None
    co = np.empty(n * 3, np.float32)
    me.attributes["position"].data.foreach_get("vector", co)
    co = co.reshape(side, side, 3)
    f = max(1, -(-(side - 1) // most))
    edges = np.r_[np.arange(0, side - 1, f), side - 1]
    low = np.minimum.reduceat(np.minimum.reduceat(co[..., 2], edges[:-1], axis=0), edges[:-1], axis=1)
    wet = np.argwhere(low <= level)
    if not len(wet):
        return None
    xs, ys = co[0, edges, 0], co[edges, 0, 1]
    k = len(edges)
    verts = np.zeros((k * k, 3), np.float32)
    verts[:, 0] = np.tile(xs, k)
    verts[:, 1] = np.repeat(ys, k)
    verts[:, 2] = level
    v = wet[:, 0] * k + wet[:, 1]
    faces = np.stack([v, v + 1, v + k + 1, v + k], axis=1)
    used, inverse = np.unique(faces, return_inverse=True)
    water = bpy.data.meshes.new("Worldseed Preview Water")
    water.from_pydata(verts[used].tolist(), [], inverse.reshape(-1, 4).tolist())
    return water


#: The colour of the terrain's sides in the preview (linear RGB): dark earth.
EARTH = (0.07, 0.055, 0.04)


def _framed(root, points):
    """The points of a terrain the preview frames: its land and a margin of sea round it when the sea
    covers much of it (an island), else all of it with its sides."""
    height = float(root.get("worldseed_height", 0.0))
    sea = float(root.get("worldseed_sea_level", 0.0)) * height + root.matrix_world.translation.z
    land = points[points[:, 2] > sea + max(0.05, 1e-3 * height)]
    if 0 < len(land) < 0.6 * len(points):  # the land, and a ring of sea as wide as a tenth of it
        lo, hi = land.min(axis=0), land.max(axis=0)
        centre = (lo + hi) / 2
        ring = land.copy()
        ring[:, :2] = centre[:2] + (land[:, :2] - centre[:2]) * 1.1
        ring[:, 2] = sea
        return np.concatenate([land, ring])
    return np.concatenate([points, points * [1.0, 1.0, 0.0] + [0.0, 0.0, _base(points)]])


def _base(points):
    """The height of the bottom of the terrain's block: a little below its lowest point."""
    z = points[:, 2]
    return float(z.min()) - 0.04 * max(float(z.max() - z.min()), 1.0)


def _skirt_mesh(obj):
    """Walls from the border of the terrain grid mesh ``obj`` down to a little below its lowest
    point (object space): the cut sides of the block the terrain is, so it does not float.  None
    for a mesh that is not a square grid."""
    me = obj.data
    n = len(me.vertices)
    side = int(round(n**0.5))
    if side < 2 or side * side != n:
        return None
    co = np.empty(n * 3, np.float32)
    me.attributes["position"].data.foreach_get("vector", co)
    co = co.reshape(side, side, 3)
    ring = np.concatenate([co[0, :-1], co[:-1, -1], co[-1, :0:-1], co[:0:-1, 0]])  # anticlockwise
    base = _base(co.reshape(-1, 3))
    low = ring.copy()
    low[:, 2] = base
    k = len(ring)
    i = np.arange(k)
    faces = np.stack([i, (i + 1) % k, k + (i + 1) % k, k + i], axis=1)
    skirt = bpy.data.meshes.new("Worldseed Preview Sides")
    skirt.from_pydata(np.concatenate([ring, low]).tolist(), [], faces.tolist())
    return skirt


@contextlib.contextmanager
def _sides(scene, shown):
    """The terrain's sides (:func:`_skirt_mesh`) in :data:`EARTH`, for the duration."""
    me = _skirt_mesh(shown)
    if me is None:
        yield None
        return
    obj = bpy.data.objects.new("Worldseed Preview Sides", me)
    obj.matrix_world = shown.matrix_world
    mat = bpy.data.materials.new("Worldseed Preview Sides")
    mat.diffuse_color = (*EARTH, 1.0)
    mat.roughness = 1.0
    me.materials.append(mat)
    try:
        scene.collection.objects.link(obj)
        yield obj
    finally:
        bpy.data.objects.remove(obj, do_unlink=True)
        bpy.data.meshes.remove(me)
        bpy.data.materials.remove(mat)


@contextlib.contextmanager
def _water(scene, root, shown):
    """Water at the terrain's sea level where the terrain reaches down to it, for the duration (if it
    has a sea): a flat mesh a little above the flat sea floor, in the palette's water colour."""
    height = float(root.get("worldseed_height", 0.0))
    sea = float(root.get("worldseed_sea_level", 0.0)) * height
    me = _water_mesh(shown, sea + max(0.02, 1e-3 * height)) if sea > 0.0 else None
    if me is None:
        yield None
        return
    obj = bpy.data.objects.new("Worldseed Preview Water", me)
    obj.matrix_world = shown.matrix_world
    mat = bpy.data.materials.new("Worldseed Preview Water")
    try:
        palette = stored_recipe(root).terrain.palette
    except Exception:  # a terrain without a stored recipe: the temperate sea
        palette = "temperate"
    mat.diffuse_color = (*core_palette.srgb_to_linear(core_palette.PALETTES[palette].water).tolist(), 1.0)
    mat.roughness = 0.15
    me.materials.append(mat)
    try:
        scene.collection.objects.link(obj)
        yield obj
    finally:
        bpy.data.objects.remove(obj, do_unlink=True)
        bpy.data.meshes.remove(me)
        bpy.data.materials.remove(mat)


def render_preview(
    scene: bpy.types.Scene, root: bpy.types.Object, path: str, *, size: tuple[int, int] = (960, 540)
) -> str:
    """Render ``root`` (a Worldseed terrain) from an oblique view into the PNG ``path``."""
    lods = terrain_lods([root, *root.children]).get(root, [])
    if not lods:
        raise RenderError(f"terrain {root.name!r} has no mesh to render")
    shown = lods[0]  # LOD0; the other LODs are hidden for the shot, scattered props stay
    hidden = [(o, o.hide_render) for o in lods[1:]]
    try:
        for obj, _ in hidden:
            obj.hide_render = True
        points = _framed(root, _world_points(lods[-1]))  # the lightest LOD has the same outline
        with (
            ground_materials(root, [shown]),
            _water(scene, root, shown),
            _sides(scene, shown),
            _light_trees(scene, root),
            _studio_shot(scene, size=size, color_type="TEXTURE", lens=30, clip_end=1.0) as cam,
        ):
            far = _aim(cam, points, elevation=ELEVATION, bearing=BEARING, aspect=size[0] / size[1])
            cam.data.clip_end = far * 1.5
            cam.data.clip_start = max(far * 1e-4, 0.01)
            return _render_png(scene, path)
    finally:
        for obj, flag in hidden:
            obj.hide_render = flag


#: The level ceilings' material (``levels.MATERIAL_NAMES[2]``), drawn see-through in the preview.
CEILING = "Worldseed Level Ceiling"


@contextlib.contextmanager
def _see_through(materials, alpha=0.3):
    """For the duration, ``materials`` are drawn see-through (their viewport colour's alpha)."""
    saved = []
    try:
        for m in set(materials):
            saved.append((m, tuple(m.diffuse_color), getattr(m, "surface_render_method", None)))
            m.diffuse_color = (*m.diffuse_color[:3], alpha)
            if saved[-1][2] is not None:
                m.surface_render_method = "BLENDED"
        yield
    finally:
        for m, colour, method in saved:
            m.diffuse_color = colour
            if method is not None:
                m.surface_render_method = method


def render_levels(
    scene: bpy.types.Scene, roots: Sequence[bpy.types.Object], path: str, *, size: tuple[int, int] = PREVIEW_SIZE
) -> str:
    """Render the levels among ``roots`` (and what else is there: trees, props) from above at an angle,
    in their materials' colours (floors, walls and ceilings apart), into the PNG ``path``."""
    levels = [r for r in roots if is_level(r)]
    if not levels:
        raise RenderError("no level to render")
    shown = [o for r in levels for o in [r, *r.children_recursive] if o.type == "MESH" and not o.hide_render]
    if not shown:
        raise RenderError("the levels have no mesh to render")
    cast(bpy.types.ViewLayer, bpy.context.view_layer).update()
    points = _box_points(shown)
    with (
        _see_through(m for o in shown for m in mesh_of(o).materials if m is not None and m.name == CEILING),
        _studio_shot(scene, size=size, color_type="MATERIAL", lens=35, clip_end=1.0) as cam,
    ):
        far = _aim(cam, points, elevation=50.0, bearing=BEARING, aspect=size[0] / size[1])
        cam.data.clip_end = far * 1.5
        cam.data.clip_start = max(far * 1e-4, 0.01)
        return _render_png(scene, path)


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


def render_world(scene: bpy.types.Scene, objects: Iterable[bpy.types.Object], path: str) -> str:
    """The preview of ``objects`` (what a run built): the first terrain's (:func:`render_preview`), else
    the levels' (:func:`render_levels`), else the trees' (:func:`render_trees`)."""
    objects = list(objects)
    terrains = [o for o in objects if terrain_lods([o, *o.children])]
    if terrains:
        return render_preview(scene, terrains[0], path)
    if any(is_level(o) for o in objects):
        return render_levels(scene, objects, path)
    return render_trees(scene, objects, path)
