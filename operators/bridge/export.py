"""Export Worldseed objects for Unity: FBX (and optionally glTF binary).

FBX settings that make meshes and empties arrive in Unity with rotation 0,
scale 1, Y up, in metres: axis -Z forward / Y up, ``bake_space_transform``
(Apply Transform) and ``apply_scale_options="FBX_SCALE_UNITS"`` (so the file
says 1 unit = 1 m). Cameras and lights would keep a rotation, so only meshes
and empties are exported.

Every file is written to a temporary name in the target folder and renamed
over the target only once the exporter has finished, so a failed export never
destroys an earlier file.
"""

import contextlib
import datetime
import hashlib
import os
import tempfile
import types

import bpy

from .mesh import remove_objects
from .query import is_scatter
from .scatter import make_real

FBX_UNITY = dict(
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
    path_mode="AUTO",
)

GLB_UNITY = dict(
    export_format="GLB",
    export_yup=True,
    export_apply=True,
    export_animations=False,
    export_cameras=False,
    export_extras=False,
)

FORMATS = {"fbx": ".fbx", "glb": ".glb"}


#: The creation time written into FBX headers, so the same scene gives the same bytes
#: (``SOURCE_DATE_EPOCH`` overrides it, as in reproducible builds).
FBX_TIMESTAMP = datetime.datetime(2026, 1, 1)


class ExportError(RuntimeError):
    """An export could not be written; any earlier file is untouched."""


def _check_folder(path):
    folder = os.path.dirname(os.path.abspath(path)) or "."
    if not os.path.isdir(folder):
        raise ExportError(f"export folder {folder!r} does not exist")
    if not os.access(folder, os.W_OK):
        raise ExportError(f"export folder {folder!r} is not writable")


@contextlib.contextmanager
def _exporting(objects):
    """Select exactly ``objects`` (unhidden) for the exporter and restore the selection after."""
    view_layer = bpy.context.view_layer
    previous_selection = [o for o in view_layer.objects if o is not None and o.select_get()]
    previous_active = view_layer.objects.active
    hidden = [o for o in objects if o.hide_get()]
    for o in hidden:
        o.hide_set(False)
    for o in previous_selection:
        o.select_set(False)
    for o in objects:
        o.select_set(True)
    if objects:
        view_layer.objects.active = objects[0]
    try:
        yield
    finally:
        for o in objects:
            if o.name in view_layer.objects:
                o.select_set(False)
        for o in hidden:
            o.hide_set(True)
        for o in previous_selection:
            o.select_set(True)
        view_layer.objects.active = previous_active


def _file_mode(path):
    """The mode a written file should get: the existing file's, else 0666 less the umask."""
    try:
        return os.stat(path).st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _write_atomic(path, write):
    """Call ``write(tmp_path)`` then move the temporary file over ``path``."""
    if os.path.isdir(path):
        raise ExportError(f"filepath {path!r} is a folder; give the name of the file to write")
    _check_folder(path)
    folder, base = os.path.split(os.path.abspath(path))
    stem, ext = os.path.splitext(base)
    fd, tmp = tempfile.mkstemp(prefix=f".{stem}.", suffix=f".tmp{ext}", dir=folder)
    os.close(fd)
    try:
        write(tmp)
        if not os.path.exists(tmp) or os.path.getsize(tmp) == 0:
            raise ExportError(f"the exporter wrote nothing for {path!r}")
        os.chmod(tmp, _file_mode(path))  # mkstemp makes files private (0600)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(tmp)
        raise
    return path


def _stable_hash(key):
    """A hash of an FBX id key that is the same in every process (str's hash() is salted)."""
    return int.from_bytes(hashlib.blake2b(repr(key).encode(), digest_size=8).digest(), "little") >> 1


@contextlib.contextmanager
def _reproducible_fbx():
    """Make Blender's FBX exporter write the same bytes for the same scene in any process.

    Two things in its output vary between runs: the creation time it stamps
    (``datetime.datetime.now()`` in the header) and the object ids it derives
    from names with Python's salted ``hash()``. For the duration of the export
    the first gets a fixed time (``SOURCE_DATE_EPOCH`` if set) and the second a
    stable hash, by shadowing those names in the exporter's modules; both are
    restored afterwards.
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
    try:
        yield
    finally:
        export_fbx_bin.datetime = original_datetime
        del fbx_utils.hash
        fbx_utils._keys_to_uuids.clear()
        fbx_utils._uuids_to_keys.clear()
        fbx_utils._keys_to_uuids.update(saved_ids[0])
        fbx_utils._uuids_to_keys.update(saved_ids[1])


@contextlib.contextmanager
def _quiet_shared_mesh_warnings():
    """Drop the FBX exporter's "Cannot register a valid material index" line, printed once per object that
    shares a mesh with another (scattered props): harmless, since the index is the same, and thousands of
    lines would bury real messages. Everything else it prints passes through."""
    import io
    import sys

    buffer = io.StringIO()
    try:
        with contextlib.redirect_stdout(buffer):
            yield
    finally:
        for line in buffer.getvalue().splitlines():
            if not line.startswith("WARNING: Cannot register a valid material index"):
                print(line, file=sys.stdout)


def _export_one(path, objects, fmt):
    def write(tmp):
        with _exporting(objects):
            try:
                if fmt == "fbx":
                    with _reproducible_fbx(), _quiet_shared_mesh_warnings():
                        result = bpy.ops.export_scene.fbx(filepath=tmp, use_selection=True, **FBX_UNITY)
                else:
                    result = bpy.ops.export_scene.gltf(filepath=tmp, use_selection=True, **GLB_UNITY)
            except RuntimeError as err:  # the exporter raised; Blender wraps it with its traceback
                reason = str(err).strip().splitlines()[-1] if str(err).strip() else "unknown error"
                raise ExportError(f"the {fmt.upper()} exporter failed writing {path!r}: {reason}") from None
        if "FINISHED" not in result:
            raise ExportError(f"the {fmt.upper()} exporter did not finish for {path!r}")

    return _write_atomic(path, write)


def exportable(objects):
    """Objects plus their descendants, meshes and empties only, each once, parents first."""
    children = {}
    for o in bpy.data.objects:  # one pass: Object.children scans every object on each call
        if o.parent is not None:
            children.setdefault(o.parent.name, []).append(o)
    seen, out = set(), []
    for root in objects:
        stack = [root]
        while stack:
            o = stack.pop()
            if o.name in seen:
                continue
            seen.add(o.name)
            if o.type in {"MESH", "EMPTY"}:
                out.append(o)
            stack.extend(reversed(sorted(children.get(o.name, []), key=lambda c: c.name)))
    return out


def _safe_file_name(name):
    keep = "".join(c if c.isalnum() or c in "-_." else "_" for c in name).strip(".")
    return keep or "object"


def export_unity(objects, filepath, *, formats=("fbx",), per_object=False):
    """Export ``objects`` (with their children) to ``filepath``; returns the written paths.

    ``filepath`` names the FBX (other formats get their own extension beside
    it). With ``per_object`` every top-level object gets its own file, named
    after the object, in the folder of ``filepath``.
    """
    formats = tuple(formats)
    bad = [f for f in formats if f not in FORMATS]
    if bad or not formats:
        raise ExportError(f"formats must be some of {sorted(FORMATS)}, got {list(formats)}")
    roots = [o for o in objects if o.parent is None or o.parent not in objects]
    if not exportable(roots):
        raise ExportError("nothing to export: no mesh or empty objects were given")
    if os.path.isdir(filepath):
        raise ExportError(f"filepath {filepath!r} is a folder; give the name of the file to write")
    stem, _ = os.path.splitext(os.path.abspath(filepath))
    written = []
    with expanded(roots) as (roots, extras):  # scatters become real objects sharing the props' meshes
        if per_object:
            folder = os.path.dirname(stem)
            jobs = [
                (os.path.join(folder, _safe_file_name(r.name)), exportable([r, *extras.get(r.name, [])])) for r in roots
            ]
        else:
            jobs = [(stem, exportable(roots + [o for r in roots for o in extras.get(r.name, [])]))]
        for job_stem, objs in jobs:
            if not objs:
                continue
            for fmt in formats:
                written.append(_export_one(job_stem + FORMATS[fmt], objs, fmt))
    return written


@contextlib.contextmanager
def expanded(objects):
    """For the duration, real instance objects for every scatter object among ``objects`` or below them.

    Yields ``(objects, extras)``: ``objects`` without the scatter objects
    (which leave their terrain's hierarchy meanwhile) and ``extras``, for
    each given object, the top-level instance objects that belong with it.
    Instances are top-level objects placed in world space: the FBX
    exporter's baked axis conversion is exact for top-level objects (a
    child's offset would keep Blender's Z-up axes).
    """
    found = [(root, o) for root in objects for o in [root, *root.children_recursive] if is_scatter(o)]
    if not found:
        yield list(objects), {}
        return
    temp = bpy.data.collections.new("Worldseed Export")
    bpy.context.scene.collection.children.link(temp)
    made, moved, extras = [], [], {}
    try:
        for root, obj in found:
            parent, matrix = obj.parent, obj.matrix_world.copy()
            obj.parent = None  # out of the terrain's hierarchy while its instances stand in for it
            obj.matrix_world = matrix
            moved.append((obj, parent, matrix))
            instances = make_real(obj, collection=temp)
            made.extend(o for top in instances for o in [top, *top.children])
            extras.setdefault(root.name, []).extend(instances)
        yield [o for o in objects if not is_scatter(o)], extras
    finally:
        remove_objects(made)
        bpy.data.collections.remove(temp)
        for obj, parent, matrix in moved:
            obj.parent = parent
            obj.matrix_world = matrix
