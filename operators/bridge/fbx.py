"""Blender's FBX writer, driven for Unity: the settings, byte-reproducible files, exact child transforms.

Settings that make meshes and empties arrive in Unity with rotation 0, scale 1,
Y up, in metres: axis -Z forward / Y up, ``bake_space_transform`` (Apply
Transform) and ``apply_scale_options="FBX_SCALE_UNITS"`` (so the file says 1
unit = 1 m). :func:`write_fbx` calls the writer's ``save_single`` on exactly the
objects given (linked to the scene or not), with fixed header times and stable
ids, and with the transforms :class:`Standins` gives bare instance objects.
:class:`ExportError` lives here, the lowest module that raises it
(``export.ExportError`` is the same class).
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import os
import types
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import bpy
from mathutils import Matrix

from .scatter import Child, instance_matrices
from .terrain_export import unity_terrains

FBX_UNITY: dict[str, Any] = dict(
    axis_forward="-Z",
    axis_up="Y",
    apply_unit_scale=True,
    apply_scale_options="FBX_SCALE_UNITS",
    bake_space_transform=True,
    object_types={"MESH", "EMPTY"},
    use_mesh_modifiers=True,
    mesh_smooth_type="FACE",
    use_tspace=False,
    add_leaf_bones=False,
    use_custom_props=False,
    bake_anim=False,
    path_mode="COPY",  # with embed_textures: the terrain's ground texture travels inside the file
    embed_textures=True,
)

#: The creation time written into FBX headers, so the same scene gives the same bytes
#: (``SOURCE_DATE_EPOCH`` overrides it, as in reproducible builds).
FBX_TIMESTAMP = datetime.datetime(2026, 1, 1)


class ExportError(RuntimeError):
    """An export could not be written; any earlier file is untouched."""


def _stable_hash(key: object) -> int:
    """A hash of an FBX id key that is the same in every process (str's hash() is salted)."""
    return int.from_bytes(hashlib.blake2b(repr(key).encode(), digest_size=8).digest(), "little") >> 1


def _image_file_name(image: bpy.types.Image, _scene_data: object) -> tuple[str, str]:
    """The ``(absolute, relative)`` paths the FBX writer records for an image: its file name alone,
    for both (an embedded image needs no folder; a temporary one must not be named)."""
    name = bpy.path.basename(image.filepath_raw or "") or f"{bpy.path.clean_name(image.name)}.png"
    return name, name


@contextlib.contextmanager
def _reproducible_fbx() -> Iterator[None]:
    """Make Blender's FBX exporter write the same bytes for the same scene in any process.

    Three things in its output vary between runs: the creation time it stamps
    (``datetime.datetime.now()`` in the header), the object ids it derives
    from names with Python's salted ``hash()``, and the paths of embedded
    images (made from the temporary file's name and folder). For the duration
    of the export the first gets a fixed time (``SOURCE_DATE_EPOCH`` if set),
    the second a stable hash and the third the image's own file name (the
    image travels inside the file), by shadowing those names in the exporter's
    modules; all are restored afterwards.
    """
    from io_scene_fbx import export_fbx_bin, fbx_utils

    if not (
        hasattr(export_fbx_bin, "datetime")
        and hasattr(fbx_utils, "_keys_to_uuids")
        and hasattr(fbx_utils, "_uuids_to_keys")
    ):
        yield  # another exporter version: export as it is, just not byte-reproducible
        return
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "")
    stamp = (
        datetime.datetime.fromtimestamp(int(epoch), datetime.UTC).replace(tzinfo=None)
        if epoch.isdigit()
        else FBX_TIMESTAMP
    )
    fixed = type("FixedDateTime", (), {"now": staticmethod(lambda tz=None: stamp)})
    original_datetime = export_fbx_bin.datetime
    export_fbx_bin.datetime = types.SimpleNamespace(datetime=fixed)
    fbx_utils.hash = _stable_hash  # module globals shadow the builtin for fbx_utils' functions
    saved_ids = (dict(fbx_utils._keys_to_uuids), dict(fbx_utils._uuids_to_keys))
    fbx_utils._keys_to_uuids.clear()
    fbx_utils._uuids_to_keys.clear()
    original_paths = getattr(export_fbx_bin, "_gen_vid_path", None)
    if original_paths is not None:
        export_fbx_bin._gen_vid_path = _image_file_name
    try:
        yield
    finally:
        if original_paths is not None:
            export_fbx_bin._gen_vid_path = original_paths
        export_fbx_bin.datetime = original_datetime
        del fbx_utils.hash
        fbx_utils._keys_to_uuids.clear()
        fbx_utils._uuids_to_keys.clear()
        fbx_utils._keys_to_uuids.update(saved_ids[0])
        fbx_utils._uuids_to_keys.update(saved_ids[1])


#: Lines of Blender's FBX writer that are not passed on: its start and end (the progress lines say
#: it), and "Cannot register a valid material index", printed once per object that shares a mesh with
#: another (scattered props): harmless, the index being the same, and thousands would bury real messages.
QUIET_FBX_LINES = ("WARNING: Cannot register a valid material index", "FBX export starting", "export finished in")


@contextlib.contextmanager
def _quiet_writer_lines() -> Iterator[None]:
    """Drop the FBX writer's lines of :data:`QUIET_FBX_LINES`; everything else it prints passes through."""
    import io
    import sys

    buffer = io.StringIO()
    try:
        with contextlib.redirect_stdout(buffer):
            yield
    finally:
        for line in buffer.getvalue().splitlines():
            if line.strip() and not line.startswith(QUIET_FBX_LINES):
                print(line, file=sys.stdout)


class _Reports:
    """Stands in for the operator the FBX writer reports to."""

    def __init__(self) -> None:
        self.errors: list[str] = []

    def report(self, kind: Iterable[str], message: str) -> None:
        if {"ERROR", "ERROR_INVALID_INPUT"} & set(kind):
            self.errors.append(message)


def _fbx_keywords():  # the operator's RNA, which the stubs do not describe
    """The FBX operator's own defaults with :data:`FBX_UNITY` over them, as its ``execute`` passes them on."""
    from bpy_extras.io_utils import axis_conversion

    props = bpy.ops.export_scene.fbx.get_rna_type().properties
    keywords = {
        p.identifier: (set(p.default_flag) if p.is_enum_flag else p.default)
        for p in props
        if p.identifier != "rna_type" and not getattr(p, "is_array", False)
    }
    keywords.update(FBX_UNITY)
    keywords["global_matrix"] = axis_conversion(to_forward=keywords["axis_forward"], to_up=keywords["axis_up"]).to_4x4()
    for key in ("filepath", "check_existing", "filter_glob", "ui_tab", "use_selection", "batch_mode"):
        keywords.pop(key, None)
    return keywords


def write_fbx(tmp: str, objects: Iterable[bpy.types.Object], *, standins: Standins | None = None) -> None:
    """Blender's FBX writer on exactly ``objects`` (linked to the scene or not), as its operator would
    write them selected: sorted by name, with the operator's settings, terrains as triangles with
    their ground texture (:func:`.terrain_export.unity_terrains`). ``standins`` (a
    :class:`Standins`) gives the bare instance objects of :func:`..scatter.instance_steps` their
    transforms and parents in the file."""
    from io_scene_fbx import export_fbx_bin
    from io_scene_fbx.fbx_utils import ensure_object_not_in_edit_mode

    context = bpy.context
    for o in objects:
        if o.mode == "EDIT" and not ensure_object_not_in_edit_mode(context, o):
            raise ExportError(f"object {o.name!r} could not leave Edit Mode")
    reports = _Reports()
    with (
        unity_terrains(objects),
        _reproducible_fbx(),
        _exact_child_transforms(standins or Standins()),
        _quiet_writer_lines(),
    ):
        result = export_fbx_bin.save_single(
            reports,
            context.scene,
            context.evaluated_depsgraph_get(),
            tmp,
            context_objects=sorted(objects, key=lambda o: o.name),
            **_fbx_keywords(),
        )
    if reports.errors or "FINISHED" not in result:
        raise ExportError("; ".join(reports.errors) or "the FBX writer did not finish")


class Standins:
    """Transforms and parents, in the FBX, of bare instance objects (see :func:`..scatter.instance_steps`):
    ``world`` maps a top's name to its world matrix, ``local`` a LOD child's name to its top and
    the prop child whose transform it copies."""

    def __init__(self) -> None:
        self.world: dict[str, Matrix]
        self.local: dict[str, tuple[bpy.types.Object, bpy.types.Object]]
        self.world, self.local = {}, {}

    def add(self, scatter: bpy.types.Object, tops: Sequence[bpy.types.Object], children: Iterable[Child]) -> None:
        mats = instance_matrices(scatter)
        for top, m in zip(tops, mats):
            self.world[top.name] = Matrix(m.tolist())
        for c, top, child in children:
            self.local[c.name] = (top, child)


@contextlib.contextmanager
def _exact_child_transforms(standins: Standins) -> Iterator[None]:
    """Two changes to Blender's FBX writer for the duration: the local transform of a child (of any
    depth) is written from the child's own Blender transform, so an identity child (a tree's
    ``_LOD0``..) is exactly identity and a grandchild lands where Blender has it; and ``standins``
    give bare objects their transforms and parents.

    The writer (with ``bake_space_transform``) works a child's local matrix out of world
    matrices, ``(P G⁻¹)⁻¹ · P · C · G⁻¹`` with single-precision ``mathutils`` matrices: under a
    rotated, scaled parent hundreds of metres from the origin, ``P⁻¹ · P`` leaves offsets of
    1e-4 m and scales of 1.0000002. The same product is ``G · C · G⁻¹`` with ``C`` the child's
    ``matrix_parent_inverse @ matrix_basis``, which is exact (``G`` is an axis swap).  Below the
    first level the writer is wrong outright (it leaves out the parent's ``G``: a grandchild under
    a moved parent, a settlement's site under its terrain, landed at Blender's axes, turned 90
    degrees about X); ``G · C · G⁻¹`` holds at every depth, each parent's file frame being
    ``G · P · G⁻¹`` in turn.
    """
    from io_scene_fbx import fbx_utils

    wrapper: Any = getattr(fbx_utils, "ObjectWrapper", None)  # the writer's own class (no stubs)
    saved = {
        name: getattr(wrapper, name, None) for name in ("fbx_object_matrix", "parent", "matrix_local", "matrix_global")
    }
    if saved["fbx_object_matrix"] is None or not all(
        isinstance(saved[n], property) for n in ("parent", "matrix_local", "matrix_global")
    ):
        if standins.world:
            raise ExportError("this Blender's FBX writer cannot be given the instances' transforms")
        yield
        return
    original = saved["fbx_object_matrix"]
    world, local = standins.world, standins.local

    def own_local(self):  # the child's transform relative to its parent, exact
        entry = local.get(self.bdata.name)
        b = entry[1] if entry is not None else self.bdata
        return b.matrix_parent_inverse @ b.matrix_basis

    def get_parent(self):
        if self._tag == "OB":
            entry = local.get(self.bdata.name)
            if entry is not None:
                return wrapper(entry[0])
        return saved["parent"].fget(self)

    def get_matrix_local(self):
        if self._tag == "OB":
            if self.bdata.name in world:
                return world[self.bdata.name].copy()
            if self.bdata.name in local:
                return own_local(self)
        return saved["matrix_local"].fget(self)

    def get_matrix_global(self):
        if self._tag == "OB":
            if self.bdata.name in world:
                return world[self.bdata.name].copy()
            entry = local.get(self.bdata.name)
            if entry is not None:
                return world[entry[0].name] @ own_local(self)
        return saved["matrix_global"].fget(self)

    def baked_child(self, scene_data):  # a baked object under baked parents all the way to the top
        parent = self.parent
        return (
            self._tag == "OB"
            and parent is not None
            and parent._tag == "OB"
            and self.has_valid_parent(scene_data.objects)
            and not self.parented_to_armature
            and self.use_bake_space_transform(scene_data)
            and parent.use_bake_space_transform(scene_data)
            and (not parent.has_valid_parent(scene_data.objects) or baked_child(parent, scene_data))
        )

    def fbx_object_matrix(self, scene_data, rest=False, local_space=False, global_space=False):
        # at any depth: the writer's own product for a grandchild (``par_mat⁻¹ · P · C · G⁻¹`` with
        # the parent's FBX local as ``par_mat``) leaves out the axis swap ``G`` on the left, so an
        # empty two levels down (a settlement's site under ``<Terrain>_Settlements``) came out
        # rotated 90 degrees about X at its Z-up Blender position
        if not local_space and not global_space and baked_child(self, scene_data):
            settings = scene_data.settings
            return settings.global_matrix @ own_local(self) @ settings.global_matrix_inv
        return original(self, scene_data, rest=rest, local_space=local_space, global_space=global_space)

    wrapper.fbx_object_matrix = fbx_object_matrix
    wrapper.parent = property(get_parent)
    wrapper.matrix_local = property(get_matrix_local)
    wrapper.matrix_global = property(get_matrix_global)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(wrapper, name, value)
