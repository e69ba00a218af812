"""Export Worldseed objects for Unity: FBX (and optionally glTF binary).

Only meshes and empties are exported (cameras and lights would keep a
rotation); the FBX writer's settings for Unity are in :mod:`.fbx`.

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
import io
import logging
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, cast

import bpy
from mathutils import Matrix

from ...core.steps import Progress, Steps
from . import placements as bridge_placements
from .fbx import ExportError, Standins, write_fbx
from .mesh import remove_objects
from .scatter import Child, instance_steps, is_scatter, realize_steps, scatter_props
from .terrain_export import unity_terrains

GLB_UNITY: dict[str, Any] = dict(
    export_format="GLB",
    export_yup=True,
    export_apply=True,
    export_animations=False,
    export_cameras=False,
    export_extras=False,
    export_all_vertex_colors=False,  # only what a material reads: the terrain's colours travel as its texture
)

FORMATS = {"fbx": ".fbx", "glb": ".glb"}

#: ``scatter_mode`` values: every instance an object in the FBX, each prop once plus the placement
#: file, or the prop library above :data:`PROP_LIBRARY_ABOVE` instances.
SCATTER_MODES = ("objects", "library", "auto")

#: With ``scatter_mode="auto"``, more scattered instances than this are exported as a prop library.
PROP_LIBRARY_ABOVE = 5_000


def _check_folder(path: str) -> None:
    """Make the folder of ``path`` if it is missing (as the headless run does); refuse one that cannot be."""
    folder = os.path.dirname(os.path.abspath(path)) or "."
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as err:
        raise ExportError(f"export folder {folder!r} cannot be created: {err.strerror or err}") from None
    if not os.access(folder, os.W_OK):
        raise ExportError(f"export folder {folder!r} is not writable")


@contextlib.contextmanager
def _exporting(objects: Sequence[bpy.types.Object]) -> Iterator[None]:
    """Select exactly ``objects`` (unhidden) for the exporter and restore the selection after."""
    view_layer = cast(bpy.types.ViewLayer, bpy.context.view_layer)  # a window's or the headless scene's
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
        present = {o.name for o in view_layer.objects}  # "name in view_layer.objects" scans them all
        for o in objects:
            if o.name in present:
                o.select_set(False)
        for o in hidden:
            o.hide_set(True)
        for o in previous_selection:
            o.select_set(True)
        view_layer.objects.active = previous_active


class _GltfNoise(logging.Filter):
    """Lets through the glTF writer's warnings and errors, not its INFO lines (about 100 per export:
    "Extracting primitive", "Primitives created") nor the warning every terrain would give now that
    its colours travel as a texture ("The active Vertex Color will not be exported")."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= logging.WARNING and "Vertex Color will not be exported" not in record.getMessage()


#: What the glTF writer prints itself (not through its logger) that is not passed on.
QUIET_GLTF_LINES = ("INFO Draco mesh compression is available",)


@contextlib.contextmanager
def quiet_gltf() -> Iterator[None]:
    """For the duration, :class:`_GltfNoise` filters the glTF writer's logger (``glTFImporter``, its name
    for import and export alike; its ``export_loglevel`` setting cannot be used: Blender 5.0's writer then
    stops on a missing key), and of what it prints, blank lines and :data:`QUIET_GLTF_LINES` are dropped."""
    logger = logging.getLogger("glTFImporter")
    noise = _GltfNoise()
    logger.addFilter(noise)
    buffer = io.StringIO()
    try:
        with contextlib.redirect_stdout(buffer):
            yield
    finally:
        logger.removeFilter(noise)
        for line in buffer.getvalue().splitlines():
            if line.strip() and not line.startswith(QUIET_GLTF_LINES):
                print(line)


def _file_mode(path: str) -> int:
    """The mode a written file should get: the existing file's, else 0666 less the umask."""
    try:
        return os.stat(path).st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _write_atomic(path: str, write: Callable[[str], None]) -> str:
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


def _reason(err: BaseException) -> str:
    """The cause of an exporter failure in one line: ``File too large``, not the traceback around it."""
    if isinstance(err, OSError) and err.strerror:
        return err.strerror
    lines = [line.strip() for line in str(err).strip().splitlines() if line.strip()]
    for line in reversed(lines):  # Blender wraps an operator's exception with its traceback: find the cause
        head, sep, tail = line.partition(": ")
        if sep and head.split(".")[-1].endswith(("Error", "Exception")):
            return tail.split("] ", 1)[1] if tail.startswith("[Errno") and "] " in tail else tail
    return lines[-1] if lines else f"{type(err).__name__} with no message"


def _release(objects: list[bpy.types.Object], placeholder: bpy.types.Mesh) -> None:
    """Before their temporary Main is freed, let ``objects`` (made in it) drop the real meshes they
    use: freeing a Main does not give back the users it took of data outside it."""
    for o in objects:
        if o.type == "MESH":
            o.data = placeholder
    objects.clear()


def _link_for_selection(objects: Iterable[bpy.types.Object], collection: bpy.types.Collection) -> None:
    """Link the objects no collection holds (instances) to ``collection``, for exporters that need a selection."""
    for o in objects:
        if not o.users_collection:
            collection.objects.link(o)


def _export_one(
    path: str,
    objects: Sequence[bpy.types.Object],
    fmt: str,
    *,
    link_to: bpy.types.Collection | None = None,
    standins: Standins | None = None,
) -> str:
    """Write ``objects`` to ``path`` in ``fmt``; any failure is one :class:`ExportError` line naming the
    file and the cause (the earlier file is kept). ``standins`` (FBX): see :func:`.fbx.write_fbx`."""

    def write(tmp: str) -> None:
        try:
            if fmt == "fbx":
                write_fbx(tmp, objects, standins=standins)
                return
            if link_to is not None:
                _link_for_selection(objects, link_to)
            with unity_terrains(objects), _exporting(objects), quiet_gltf():
                result = bpy.ops.export_scene.gltf(filepath=tmp, use_selection=True, **GLB_UNITY)
            if result is None or "FINISHED" not in result:
                raise ExportError("the exporter did not finish")
        except ExportError as err:
            raise ExportError(f"cannot write {path!r}: {err}") from None
        except (Exception, SystemExit) as err:  # the writer's own error: OSError, or RuntimeError from an operator
            raise ExportError(f"cannot write {path!r}: {_reason(err)} ({fmt.upper()} writer)") from None

    return _write_atomic(path, write)


def children_by_parent() -> dict[str, list[bpy.types.Object]]:
    """``{parent name: [child objects]}`` of every object in the file, in one pass: ``Object.children``
    and ``children_recursive`` scan every object of the file on each call, so asking them once per
    object takes time quadratic in the objects (24,000 real props: hours)."""
    children: dict[str, list[bpy.types.Object]] = {}
    for o in bpy.data.objects:
        if o.parent is not None:
            children.setdefault(o.parent.name, []).append(o)
    return children


def descendants(
    objects: Iterable[bpy.types.Object], children: dict[str, list[bpy.types.Object]] | None = None
) -> list[bpy.types.Object]:
    """``objects`` and everything below them (``children``: :func:`children_by_parent`), depth first, each once."""
    children = children_by_parent() if children is None else children
    seen: set[str]
    out: list[bpy.types.Object]
    seen, out = set(), []
    stack = list(reversed(list(objects)))
    while stack:
        o = stack.pop()
        if o.name in seen:
            continue
        seen.add(o.name)
        out.append(o)
        stack.extend(reversed(children.get(o.name, ())))
    return out


def top_level(objects: Sequence[bpy.types.Object]) -> list[bpy.types.Object]:
    """The objects of ``objects`` whose parent is not among them (a set of names: linear)."""
    names = {o.name for o in objects}
    return [o for o in objects if o.parent is None or o.parent.name not in names]


def exportable(
    objects: Iterable[bpy.types.Object],
    exclude: Iterable[bpy.types.Object] = (),
    *,
    children: dict[str, list[bpy.types.Object]] | None = None,
) -> list[bpy.types.Object]:
    """Objects plus their descendants, meshes and empties only, each once, parents first;
    ``exclude`` (objects) are left out with everything below them."""
    children = children_by_parent() if children is None else children
    out: list[bpy.types.Object]
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


def _safe_file_name(name: str) -> str:
    keep = "".join(c if c.isalnum() or c in "-_." else "_" for c in name).strip(".")
    return keep or "object"


def scatters_among(
    objects: Iterable[bpy.types.Object], *, children: dict[str, list[bpy.types.Object]] | None = None
) -> list[bpy.types.Object]:
    """The scatter objects among ``objects`` or below them, each once (one pass over the file's objects)."""
    return [o for o in descendants(objects, children) if is_scatter(o)]


def resolve_scatter_mode(scatter_mode: str, instances: int) -> str:
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


class ExportPaths(list[str]):
    """The paths :func:`export_unity` wrote (a list), with what it did to the scatters: ``scatter_mode``
    (``"objects"`` or ``"library"``), ``instances`` (scattered instances) and ``summary`` (one line)."""

    scatter_mode = "objects"
    instances = 0
    summary = ""


def _summary(mode: str, asked: str, instances: int, props: int, written: Sequence[str]) -> str:
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


def export_unity(
    objects: Iterable[bpy.types.Object],
    filepath: str,
    *,
    formats: Iterable[str] = ("fbx",),
    per_object: bool = False,
    scatter_mode: str = "auto",
    quiet: bool = False,
    progress: Callable[[int, int, str], object] | None = None,
) -> ExportPaths:
    """Export ``objects`` (with their children) to ``filepath``; returns the written paths
    (an :class:`ExportPaths` list, which also says what became of the scatters).

    ``filepath`` names the FBX (other formats get their own extension beside
    it; a missing folder is made). With ``per_object`` every top-level object
    gets its own file, named after the object, in the folder of ``filepath``.
    Scatters among the objects are exported as ``scatter_mode`` says (one of
    :data:`SCATTER_MODES`, see the module's docstring); when there are any,
    a line saying how is printed (unless ``quiet``).  ``progress(done, total, stage)`` hears of every
    step (:func:`export_steps`: the instances made, each file begun and written).
    """
    steps = export_steps(objects, filepath, formats=formats, per_object=per_object, scatter_mode=scatter_mode)
    while True:
        try:
            step = next(steps)
        except StopIteration as stop:
            written = stop.value
            break
        if progress is not None:
            progress(*step)
    if written.instances and not quiet:
        print(f"worldseed: {written.summary}")
    return written


def export_steps(
    objects: Iterable[bpy.types.Object],
    filepath: str,
    *,
    formats: Iterable[str] = ("fbx",),
    per_object: bool = False,
    scatter_mode: str = "auto",
) -> Steps[ExportPaths]:
    """:func:`export_unity` step by step: yields ``(done, total, stage)`` and returns the
    :class:`ExportPaths`. Closing the generator early (Esc) removes every temporary object and file
    and leaves the scene and any earlier files as they were."""
    formats = tuple(formats)
    bad = [f for f in formats if f not in FORMATS]
    if bad or not formats:
        raise ExportError(f"formats must be some of {sorted(FORMATS)}, got {list(formats)}")
    objects = list(objects)
    roots = top_level(objects)
    family = children_by_parent()
    if not exportable(roots, children=family):
        raise ExportError("nothing to export: no mesh or empty objects were given")
    if os.path.isdir(filepath):
        raise ExportError(f"filepath {filepath!r} is a folder; give the name of the file to write")
    scatters = scatters_among(roots, children=family)
    instances = sum(len(cast(bpy.types.Mesh, s.data).vertices) for s in scatters)
    mode = resolve_scatter_mode(scatter_mode, instances)
    stem, _ = os.path.splitext(os.path.abspath(filepath))
    folder = os.path.dirname(stem)
    written = ExportPaths()
    written.scatter_mode, written.instances = mode, instances
    make = instances if (scatters and mode == "objects") else 0
    files = len(formats) * (len(roots) if per_object else 1) + (2 if scatters and mode == "library" else 0)
    total = make + files * max(1, make // 4) if make else files
    progress = {"done": 0}

    def step(stage: str, weight: int = 1) -> Progress:
        progress["done"] += weight
        return min(progress["done"], total), total, stage

    def write_jobs(
        jobs: Iterable[tuple[str, list[bpy.types.Object]]],
        link_to: bpy.types.Collection | None = None,
        standins: Standins | None = None,
        only: Iterable[str] | None = None,
    ) -> Steps[None]:
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
            made: list[bpy.types.Object]
            extras: dict[str, list[bpy.types.Object]]
            temp: bpy.types.Collection | None
            made, standins, extras = [], Standins(), {}
            if "glb" in formats:  # the glTF writer reads Blender's transforms and takes a selection
                data, temp = bpy.data, bpy.data.collections.new("Worldseed Export")
                cast(bpy.types.Scene, bpy.context.scene).collection.children.link(temp)
                stack.callback(bpy.data.collections.remove, temp)
                stack.callback(remove_objects, made)
            else:  # only the FBX writer sees them: a Main of their own, freed at once
                # (temp_data() is a context manager giving a BlendData; the stubs type it as the BlendData)
                main = cast("contextlib.AbstractContextManager[bpy.types.BlendData]", bpy.data.temp_data())
                data, temp = stack.enter_context(main), None
                stack.callback(_release, made, data.meshes.new("Worldseed placeholder"))
            for root in roots:
                for scatter in scatters_among([root], children=family):
                    children: list[Child]
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
                    (
                        os.path.join(folder, _safe_file_name(r.name)),
                        exportable([r], scatters, children=family) + extras.get(r.name, []),
                    )
                    for r in roots
                ]
            else:
                jobs = [
                    (
                        stem,
                        exportable(roots, scatters, children=family)
                        + [o for r in roots for o in extras.get(r.name, [])],
                    )
                ]
            yield from write_jobs(jobs, link_to=temp, standins=standins)
        written.summary = _summary(mode, scatter_mode, instances, 0, written)
        return written

    if per_object:
        jobs = [
            (os.path.join(folder, _safe_file_name(r.name)), exportable([r], scatters, children=family)) for r in roots
        ]
    else:
        jobs = [(stem, exportable(roots, scatters, children=family))]
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
def _props_at_origin(props: Iterable[bpy.types.Object]) -> Iterator[None]:
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
