"""Export Worldseed objects for Unity: FBX (and optionally glTF binary).

FBX settings that make meshes and empties arrive in Unity with rotation 0,
scale 1, Y up, in metres: axis -Z forward / Y up, ``bake_space_transform``
(Apply Transform) and ``apply_scale_options="FBX_SCALE_UNITS"`` (so the file
says 1 unit = 1 m). Cameras and lights would keep a rotation, so only meshes
and empties are exported.

Every file is written to a temporary name in the target folder and renamed
over the target only once the exporter has finished, so a failed export never
destroys an earlier file.

Scatters go one of two ways (``scatter_mode``): every instance as an object
in the FBX (``"objects"``: ``<Prop>_<index:05d>``, a tree with its ``_LOD0``..
children), or each prop once in ``<name>_props.fbx`` (the prop library: a
tree as ``<Prop>`` with ``<Prop>_LOD0``..) plus the placement file
``<name>_placements.json`` that places them, the way Unity projects place
tens of thousands of props (the library is FBX, whichever formats the
rest is written in). ``"auto"`` picks the library above
:data:`PROP_LIBRARY_ABOVE` instances.

Cost is linear in the instances: the instance objects are made without
linking them to the scene and given to the FBX writer directly (see
:func:`..scatter.instance_steps`), and the whole export is a generator of
progress steps (:func:`export_steps`) that the Export operator runs modally
with Esc to cancel.
"""

import contextlib
import datetime
import hashlib
import os
import tempfile
import types

import bpy
from mathutils import Matrix

from . import placements as bridge_placements
from .mesh import remove_objects
from .query import is_scatter
from .scatter import instance_matrices, instance_steps, realize_steps, scatter_props

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

#: ``scatter_mode`` values: every instance an object in the FBX, each prop once plus the placement
#: file, or the prop library above :data:`PROP_LIBRARY_ABOVE` instances.
SCATTER_MODES = ("objects", "library", "auto")

#: With ``scatter_mode="auto"``, more scattered instances than this are exported as a prop library.
PROP_LIBRARY_ABOVE = 5_000


#: The creation time written into FBX headers, so the same scene gives the same bytes
#: (``SOURCE_DATE_EPOCH`` overrides it, as in reproducible builds).
FBX_TIMESTAMP = datetime.datetime(2026, 1, 1)


class ExportError(RuntimeError):
    """An export could not be written; any earlier file is untouched."""


def _check_folder(path):
    """Make the folder of ``path`` if it is missing (as the headless run does); refuse one that cannot be."""
    folder = os.path.dirname(os.path.abspath(path)) or "."
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as err:
        raise ExportError(f"export folder {folder!r} cannot be created: {err.strerror or err}") from None
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


def _reason(err):
    """The cause of an exporter failure in one line: ``File too large``, not the traceback around it."""
    if isinstance(err, OSError) and err.strerror:
        return err.strerror
    lines = [line.strip() for line in str(err).strip().splitlines() if line.strip()]
    for line in reversed(lines):  # Blender wraps an operator's exception with its traceback: find the cause
        head, sep, tail = line.partition(": ")
        if sep and head.split(".")[-1].endswith(("Error", "Exception")):
            return tail.split("] ", 1)[1] if tail.startswith("[Errno") and "] " in tail else tail
    return lines[-1] if lines else f"{type(err).__name__} with no message"


class _Reports:
    """Stands in for the operator the FBX writer reports to."""

    def __init__(self):
        self.errors = []

    def report(self, kind, message):
        if {"ERROR", "ERROR_INVALID_INPUT"} & set(kind):
            self.errors.append(message)


def _fbx_keywords():
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


def _write_fbx(tmp, objects, *, standins=None):
    """Blender's FBX writer on exactly ``objects`` (linked to the scene or not), as its operator would
    write them selected: sorted by name, with the operator's settings. ``standins`` (a
    :class:`_Standins`) gives the bare instance objects of :func:`..scatter.instance_steps` their
    transforms and parents in the file."""
    from io_scene_fbx import export_fbx_bin
    from io_scene_fbx.fbx_utils import ensure_object_not_in_edit_mode

    context = bpy.context
    for o in objects:
        if o.mode == "EDIT" and not ensure_object_not_in_edit_mode(context, o):
            raise ExportError(f"object {o.name!r} could not leave Edit Mode")
    reports = _Reports()
    with _reproducible_fbx(), _exact_child_transforms(standins or _Standins()), _quiet_shared_mesh_warnings():
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


class _Standins:
    """Transforms and parents, in the FBX, of bare instance objects (see :func:`..scatter.instance_steps`):
    ``world`` maps a top's name to its world matrix, ``local`` a LOD child's name to its top and
    the prop child whose transform it copies."""

    def __init__(self):
        self.world, self.local = {}, {}

    def add(self, scatter, tops, children):
        mats = instance_matrices(scatter)
        for top, m in zip(tops, mats):
            self.world[top.name] = Matrix(m.tolist())
        for c, top, child in children:
            self.local[c.name] = (top, child)


@contextlib.contextmanager
def _exact_child_transforms(standins):
    """Two changes to Blender's FBX writer for the duration: the local transform of a child whose
    parent is at the top of the file is written from the child's own Blender transform, so an
    identity child (a tree's ``_LOD0``..) is exactly identity; and ``standins`` give bare objects
    their transforms and parents.

    The writer (with ``bake_space_transform``) works a child's local matrix out of world
    matrices, ``(P G⁻¹)⁻¹ · P · C · G⁻¹`` with single-precision ``mathutils`` matrices: under a
    rotated, scaled parent hundreds of metres from the origin, ``P⁻¹ · P`` leaves offsets of
    1e-4 m and scales of 1.0000002. The same product is ``G · C · G⁻¹`` with ``C`` the child's
    ``matrix_parent_inverse @ matrix_basis``, which is exact (``G`` is an axis swap).
    """
    from io_scene_fbx import fbx_utils

    wrapper = getattr(fbx_utils, "ObjectWrapper", None)
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

    def fbx_object_matrix(self, scene_data, rest=False, local_space=False, global_space=False):
        parent = self.parent
        if (
            not local_space
            and not global_space
            and self._tag == "OB"
            and parent is not None
            and parent._tag == "OB"
            and self.has_valid_parent(scene_data.objects)
            and not parent.has_valid_parent(scene_data.objects)
            and not self.parented_to_armature
            and self.use_bake_space_transform(scene_data)
            and parent.use_bake_space_transform(scene_data)
        ):
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


def _release(objects, placeholder):
    """Before their temporary Main is freed, let ``objects`` (made in it) drop the real meshes they
    use: freeing a Main does not give back the users it took of data outside it."""
    for o in objects:
        if o.type == "MESH":
            o.data = placeholder
    objects.clear()


def _link_for_selection(objects, collection):
    """Link the objects no collection holds (instances) to ``collection``, for exporters that need a selection."""
    for o in objects:
        if not o.users_collection:
            collection.objects.link(o)


def _export_one(path, objects, fmt, *, link_to=None, standins=None):
    """Write ``objects`` to ``path`` in ``fmt``; any failure is one :class:`ExportError` line naming the
    file and the cause (the earlier file is kept). ``standins`` (FBX): see :func:`_write_fbx`."""

    def write(tmp):
        try:
            if fmt == "fbx":
                _write_fbx(tmp, objects, standins=standins)
                return
            if link_to is not None:
                _link_for_selection(objects, link_to)
            with _exporting(objects):
                result = bpy.ops.export_scene.gltf(filepath=tmp, use_selection=True, **GLB_UNITY)
            if "FINISHED" not in result:
                raise ExportError("the exporter did not finish")
        except ExportError as err:
            raise ExportError(f"cannot write {path!r}: {err}") from None
        except (Exception, SystemExit) as err:  # the writer's own error: OSError, or RuntimeError from an operator
            raise ExportError(f"cannot write {path!r}: {_reason(err)} ({fmt.upper()} writer)") from None

    return _write_atomic(path, write)


def exportable(objects, exclude=()):
    """Objects plus their descendants, meshes and empties only, each once, parents first;
    ``exclude`` (objects) are left out with everything below them."""
    children = {}
    for o in bpy.data.objects:  # one pass: Object.children scans every object on each call
        if o.parent is not None:
            children.setdefault(o.parent.name, []).append(o)
    seen, out = {o.name for o in exclude}, []
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


def scatters_among(objects):
    """The scatter objects among ``objects`` or below them, each once."""
    out, seen = [], set()
    for root in objects:
        for o in [root, *root.children_recursive]:
            if is_scatter(o) and o.name not in seen:
                seen.add(o.name)
                out.append(o)
    return out


def resolve_scatter_mode(scatter_mode, instances):
    """``"objects"`` or ``"library"`` for ``scatter_mode`` (one of :data:`SCATTER_MODES`) and a count of
    scattered instances.

    >>> resolve_scatter_mode("auto", 5_000), resolve_scatter_mode("auto", 5_001)
    ('objects', 'library')
    """
    if scatter_mode not in SCATTER_MODES:
        raise ExportError(f"scatter_mode must be one of {list(SCATTER_MODES)}, got {scatter_mode!r}")
    if scatter_mode == "auto":
        return "library" if instances > PROP_LIBRARY_ABOVE else "objects"
    return scatter_mode


class ExportPaths(list):
    """The paths :func:`export_unity` wrote (a list), with what it did to the scatters: ``scatter_mode``
    (``"objects"`` or ``"library"``), ``instances`` (scattered instances) and ``summary`` (one line)."""

    scatter_mode = "objects"
    instances = 0
    summary = ""


def _summary(mode, asked, instances, props, written):
    names = ", ".join(os.path.basename(p) for p in written)
    why = (
        f"scatter_mode {asked!r}: {'above' if mode == 'library' else 'up to'} {PROP_LIBRARY_ABOVE:,} instances"
        if asked == "auto"
        else f"scatter_mode {asked!r}"
    )
    if mode == "library":
        return (
            f"{instances:,} scattered instances as a prop library ({props} props, each once) "
            f"plus the placement file, in {names} ({why})"
        )
    return f"{instances:,} scattered instances as objects in {names} ({why})"


def export_unity(objects, filepath, *, formats=("fbx",), per_object=False, scatter_mode="auto", quiet=False):
    """Export ``objects`` (with their children) to ``filepath``; returns the written paths
    (an :class:`ExportPaths` list, which also says what became of the scatters).

    ``filepath`` names the FBX (other formats get their own extension beside
    it; a missing folder is made). With ``per_object`` every top-level object
    gets its own file, named after the object, in the folder of ``filepath``.
    Scatters among the objects are exported as ``scatter_mode`` says (one of
    :data:`SCATTER_MODES`, see the module's docstring); when there are any,
    a line saying how is printed (unless ``quiet``).
    """
    steps = export_steps(objects, filepath, formats=formats, per_object=per_object, scatter_mode=scatter_mode)
    while True:
        try:
            next(steps)
        except StopIteration as stop:
            written = stop.value
            break
    if written.instances and not quiet:
        print(f"worldseed: {written.summary}")
    return written


def export_steps(objects, filepath, *, formats=("fbx",), per_object=False, scatter_mode="auto"):
    """:func:`export_unity` step by step: yields ``(done, total, stage)`` and returns the
    :class:`ExportPaths`. Closing the generator early (Esc) removes every temporary object and file
    and leaves the scene and any earlier files as they were."""
    formats = tuple(formats)
    bad = [f for f in formats if f not in FORMATS]
    if bad or not formats:
        raise ExportError(f"formats must be some of {sorted(FORMATS)}, got {list(formats)}")
    objects = list(objects)
    roots = [o for o in objects if o.parent is None or o.parent not in objects]
    if not exportable(roots):
        raise ExportError("nothing to export: no mesh or empty objects were given")
    if os.path.isdir(filepath):
        raise ExportError(f"filepath {filepath!r} is a folder; give the name of the file to write")
    scatters = scatters_among(roots)
    instances = sum(len(s.data.vertices) for s in scatters)
    mode = resolve_scatter_mode(scatter_mode, instances)
    stem, _ = os.path.splitext(os.path.abspath(filepath))
    folder = os.path.dirname(stem)
    written = ExportPaths()
    written.scatter_mode, written.instances = mode, instances
    make = instances if (scatters and mode == "objects") else 0
    files = len(formats) * (len(roots) if per_object else 1) + (2 if scatters and mode == "library" else 0)
    total = make + files * max(1, make // 4) if make else files
    progress = {"done": 0}

    def step(stage, weight=1):
        progress["done"] += weight
        return min(progress["done"], total), total, stage

    def write_jobs(jobs, link_to=None, standins=None, only=None):
        for job_stem, objs in jobs:
            if not objs:
                continue
            for fmt in only or formats:
                path = job_stem + FORMATS[fmt]
                yield step(f"writing {os.path.basename(path)}", 0)
                written.append(_export_one(path, objs, fmt, link_to=link_to, standins=standins))
                yield step(f"wrote {os.path.basename(path)}", max(1, make // 4) if make else 1)

    if mode == "objects" and scatters:
        with contextlib.ExitStack() as stack:
            made, standins, extras = [], _Standins(), {}
            if "glb" in formats:  # the glTF writer reads Blender's transforms and takes a selection
                data, temp = bpy.data, bpy.data.collections.new("Worldseed Export")
                bpy.context.scene.collection.children.link(temp)
                stack.callback(bpy.data.collections.remove, temp)
                stack.callback(remove_objects, made)
            else:  # only the FBX writer sees them: a Main of their own, freed at once
                data, temp = stack.enter_context(bpy.data.temp_data()), None
                stack.callback(_release, made, data.meshes.new("Worldseed placeholder"))
            for root in roots:
                for scatter in scatters_among([root]):
                    start, first, children = progress["done"], len(made), []
                    steps = instance_steps(scatter, made, children, data=data)
                    while True:
                        try:
                            done, _n, stage = next(steps)
                        except StopIteration as stop:
                            tops = stop.value
                            break
                        progress["done"] = start + done
                        yield min(progress["done"], total), total, f"{stage} of {scatter.name}"
                    standins.add(scatter, tops, children)
                    extras.setdefault(root.name, []).extend(made[first:])
                    if temp is not None:
                        for _ in realize_steps(scatter, tops, children):
                            pass
            if per_object:
                jobs = [
                    (os.path.join(folder, _safe_file_name(r.name)), exportable([r], scatters) + extras.get(r.name, []))
                    for r in roots
                ]
            else:
                jobs = [(stem, exportable(roots, scatters) + [o for r in roots for o in extras.get(r.name, [])])]
            yield from write_jobs(jobs, link_to=temp, standins=standins)
        written.summary = _summary(mode, scatter_mode, instances, 0, written)
        return written

    if per_object:
        jobs = [(os.path.join(folder, _safe_file_name(r.name)), exportable([r], scatters)) for r in roots]
    else:
        jobs = [(stem, exportable(roots, scatters))]
    yield from write_jobs(jobs)
    if scatters:  # the prop library: each prop once, at the origin, and the placement file
        props = list({p.name: p for s in scatters for p in scatter_props(s)}.values())
        with _props_at_origin(props):  # FBX only: the props sit in hidden collections, out of a selection
            yield from write_jobs([(stem + "_props", exportable(props))], only=("fbx",))
        path = stem + "_placements.json"
        yield step(f"writing {os.path.basename(path)}", 0)
        written.append(bridge_placements.write_placement_file(scatters, path))
        yield step(f"wrote {os.path.basename(path)}")
        written.summary = _summary(mode, scatter_mode, instances, len(props), written)
    return written


@contextlib.contextmanager
def _props_at_origin(props):
    """For the duration, every prop at the top level with an identity transform, as the scatter
    instances it (its own transform is ignored there); restored afterwards."""
    identity = Matrix.Identity(4)
    moved = []
    try:
        for p in props:
            if p.parent is None and p.matrix_basis == identity and p.matrix_world == identity:
                continue
            moved.append((p, p.parent, p.matrix_parent_inverse.copy(), p.matrix_basis.copy(), p.matrix_world.copy()))
            p.parent = None
            p.matrix_world = identity
        yield
    finally:
        for p, parent, inverse, basis, world in moved:
            p.parent = parent
            p.matrix_parent_inverse = inverse
            p.matrix_world = world  # the world matrix, for whoever reads it before the next evaluation,
            p.matrix_basis = basis  # then the exact local transform again
