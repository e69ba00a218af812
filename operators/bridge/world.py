"""The one world pipeline: a recipe's sections built in order, and the files a world is exported as.

The headless run (``addon/batch.py``) builds a whole recipe with
:func:`build_world`; the sidebar builds one family at a time with its
operators.  Both export with :func:`write_exports`: FBX and glTF for Unity,
the placement file of the scattered props, the shaded-relief map, the
16-bit RAW heightmap for Unity's Terrain with its import settings, and the
preview render -- so every file the headless run writes, the sidebar can
write too, with the same layout and limits.

Writing is all or nothing: :func:`output_folder` locks the folder (one
writer at a time), removes the temporaries runs that were killed left
behind, and gives a hidden staging folder inside it; every file is written
there and :meth:`Staging.commit` moves them all into place only once each is
complete.  A failure (a full disk, a file-size limit, a kill) leaves every
earlier file as it was.
"""

import contextlib
import errno
import importlib
import json
import os
import re
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field

import bpy

from ...core import levels as core_levels
from ...core import preview as core_preview
from ...core import recipe as core_recipe
from ...core import terrain as core_terrain
from ...core import unity as core_unity
from ...core.errors import ParameterError
from . import export, placements, render
from . import level as bridge_level
from . import terrain as bridge_terrain
from .export import ExportError
from .query import is_level, is_scatter, is_terrain

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None
    import msvcrt

__all__ = [
    "World",
    "build_world",
    "builder",
    "write_exports",
    "export_paths",
    "output_folder",
    "Staging",
    "is_stale_temporary",
    "writing",
    "level_stems",
    "level_file_names",
    "earlier_level_files",
    "LEVEL_RECORD_FORMAT",
    "level_kits_as_objects",
    "check_level_transforms",
    "LOCK_FILE",
    "LOCK_WAIT",
    "PREVIEW_SIDE",
    "RELIEF_FILE",
    "RENDER_FILE",
]

#: Pixels per side of the relief map for maps smaller than this.
PREVIEW_SIDE = 513
RELIEF_FILE = "relief.png"
RENDER_FILE = "preview.png"
#: The lock file of an output folder while a write holds it.
LOCK_FILE = ".worldseed.lock"
#: Seconds a writer waits for another writer of the same folder before it gives up.
LOCK_WAIT = 300.0
STAGING_PREFIX = ".worldseed-"
STAGING_SUFFIX = ".tmp"

#: Names of the temporaries Worldseed (and the exporters it calls) write next to a target: staging
#: folders, this module's and ``export.py``'s mkstemp names, the render's and the old blend saver's
#: fixed names with Blender's ``@`` save temporary and ``1`` backup of them, and
#: ``core.unity.write_bytes_atomic``'s.  Only hidden names match; a run removes them under the lock.
STALE_TEMPORARY = re.compile(
    r"^\.(?:"
    r"worldseed-[A-Za-z0-9_]+\.tmp"  # staging folder
    r"|.+\.[A-Za-z0-9_]{8}\.tmp\.(?:fbx|glb)"  # export.py's mkstemp
    r"|.+\.png\.tmp\.png"  # render.py
    r"|.+\.blend\.tmp\.blend[1@]?"  # the old blend saver, and what Blender made of it
    r"|.+\.[0-9a-f]{12}\.tmp"  # core.unity.write_bytes_atomic
    r")$"
)


@dataclass
class World:
    """What :func:`build_world` made: the top-level objects to export, in build order, and what later
    sections need of earlier ones (the terrain root and its heights, for the scatter)."""

    roots: list = field(default_factory=list)
    terrain: object = None
    heights: dict = field(default_factory=dict)
    scatters: list = field(default_factory=list)


def builder(key):
    """The function that builds section ``key``: ``build_section`` of the bridge file of that name."""
    return importlib.import_module(f"{__package__}.{key}").build_section


def build_world(recipe, *, scene, progress=None):
    """Build every section of ``recipe`` into ``scene`` in the order of ``core.recipe.SECTIONS``.

    Each buildable section ``key`` is built by ``operators/bridge/<key>.py``'s
    ``build_section(recipe, world, scene=..., progress=...)``, which adds what
    it made to the :class:`World`.  A :class:`~core.errors.ParameterError`
    while building says which section (and entry: ``trees[1]``) it is about.
    """
    world = World()
    for section in core_recipe.SECTIONS:
        if section.build:
            try:
                builder(section.key)(recipe, world, scene=scene, progress=progress)
            except ParameterError as err:
                raise ParameterError(f"{_where(recipe, section, err)}: {err}") from None
    return world


def _where(recipe, section, err):
    """The recipe entry an error of ``section``'s build is about: ``trees[1]`` (from the error's ``.spec``)."""
    if section.many:
        spec = getattr(err, "spec", None)
        for i, entry in enumerate(getattr(recipe, section.key)):
            if spec is not None and entry == spec:
                return f"{section.key}[{i}]"
    return section.key


# --------------------------------------------------------------------------- writing safely


def is_stale_temporary(name):
    """Whether ``name`` (a file name, no folder) is one of the temporaries a Worldseed write makes.

    >>> [is_stale_temporary(n) for n in (".world.blend.tmp.blend1", ".worldseed-ab_12.tmp", "world.fbx")]
    [True, True, False]
    """
    return bool(STALE_TEMPORARY.match(name))


def _try_lock(fd):
    """True when locked, False when another process holds the lock, None when the file system has no locks."""
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        else:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
    except OSError as err:
        busy = err.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES, getattr(errno, "EDEADLOCK", -1))
        return False if busy else None
    return True


def _lock(folder, wait):
    """Lock ``folder`` (its :data:`LOCK_FILE`), polling for up to ``wait`` seconds; returns the file's fd.

    The holder removes the lock file when it is done, so a lock taken on a
    file that has since been removed (or replaced) is let go and taken again
    on the file now at that name.
    """
    path = os.path.join(folder, LOCK_FILE)
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    deadline = time.monotonic() + wait
    while True:
        try:
            fd = os.open(path, flags, 0o666)
        except OSError as err:
            raise ExportError(f"cannot lock output folder {folder!r}: {err.strerror}") from None
        locked = _try_lock(fd)
        if locked is None:  # no locks on this file system (some network shares): the unique names still hold
            return fd
        if locked:
            try:
                same = os.path.samestat(os.fstat(fd), os.lstat(path))
            except FileNotFoundError:
                same = False
            if same:
                return fd
        os.close(fd)
        if time.monotonic() >= deadline:
            raise ExportError(
                f"output folder {folder!r} is in use by another Worldseed run (waited {wait:g} s); "
                "try again when it has finished, or write to another folder"
            )
        time.sleep(0.1)


def _unlock(folder, fd):
    with contextlib.suppress(OSError):
        os.remove(os.path.join(folder, LOCK_FILE))  # still ours: nobody else holds it while we do
    os.close(fd)


def _remove_stale(folder):
    """Remove what killed writes left in ``folder``: only our temporaries' names, never through a link."""
    removed = []
    with os.scandir(folder) as entries:
        for entry in entries:
            if not is_stale_temporary(entry.name) or entry.is_symlink():
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    shutil.rmtree(entry.path)  # rmtree removes links inside, never what they point to
                else:
                    os.remove(entry.path)
            except OSError:
                continue  # not ours to remove after all (permissions): leave it
            removed.append(entry.path)
    return removed


def _file_mode(path):
    try:
        return os.stat(path).st_mode & 0o7777
    except FileNotFoundError:
        return None


def _blend_complete(path):
    """Whether the .blend at ``path`` is whole: a zstd file ends in its seek table's footer, a plain
    one in its ENDB block (a save cut short by a full disk has neither)."""
    with open(path, "rb") as f:
        head = f.read(12)
        f.seek(0, os.SEEK_END)
        size = f.tell()
        f.seek(max(0, size - 64))
        tail = f.read()
    if head.startswith(b"\x28\xb5\x2f\xfd"):  # zstd (Blender's compressed .blend, the default)
        return tail.endswith(b"\xb1\xea\x92\x8f")
    return head.startswith(b"BLENDER") and b"ENDB" in tail


class Staging:
    """A hidden folder inside ``folder`` that one write puts its files in; :meth:`commit` moves them
    into ``folder`` when every one is complete.  Made by :func:`output_folder`."""

    def __init__(self, folder):
        self.folder = folder
        try:
            self.path = tempfile.mkdtemp(prefix=STAGING_PREFIX, suffix=STAGING_SUFFIX, dir=folder)
        except OSError as err:
            raise ExportError(f"cannot write in output folder {folder!r}: {err.strerror}") from None

    def target(self, staged):
        """The final path of the staged file ``staged``."""
        return os.path.join(self.folder, os.path.basename(staged))

    def commit(self, staged):
        """Check every file in ``staged`` (paths in :attr:`path`), then move them all into the folder.

        A file that is missing or empty, or a .blend without its end, stops
        the commit before anything is moved.  A file that replaces an
        earlier one keeps the earlier one's permissions.  Returns the final
        paths, in order.
        """
        for path in staged:
            target = self.target(path)
            if not os.path.isfile(path) or os.path.getsize(path) == 0:
                raise ExportError(f"{os.path.basename(target)} was not written completely; kept the earlier files")
            if path.endswith(".blend") and not _blend_complete(path):
                raise ExportError(
                    f"{os.path.basename(target)} was cut short (disk full or file-size limit?); kept the earlier files"
                )
            if os.path.isdir(target) and not os.path.islink(target):
                raise ExportError(f"cannot write {target!r}: a folder of that name is in the way")
        done = []
        for path in staged:
            target = self.target(path)
            try:
                mode = _file_mode(target)
                if mode is not None:
                    os.chmod(path, mode)
                os.replace(path, target)  # atomic: a reader sees the old file or the new one, never none
            except OSError as err:  # a rename in one folder hardly fails; say exactly what the folder holds
                new = ", ".join(os.path.basename(p) for p in done) or "none"
                raise ExportError(
                    f"moving {os.path.basename(target)} into {self.folder!r} failed: {err.strerror}; "
                    f"files from this run: {new}; the others are the earlier ones"
                ) from None
            done.append(target)
        return done

    def discard(self):
        shutil.rmtree(self.path, ignore_errors=True)

    def explain(self, err):
        """``err``'s message with staged paths shown as the files they stand for."""
        return str(err).replace(self.path + os.sep, self.folder + os.sep)


@contextlib.contextmanager
def writing(path):
    """Turn an ``OSError`` while writing ``path`` into an :class:`ExportError` that names it."""
    try:
        yield
    except OSError as err:
        raise ExportError(f"writing {path} failed: {err.strerror or err}; kept the earlier files") from None


@contextlib.contextmanager
def output_folder(folder, *, wait=LOCK_WAIT):
    """Write into ``folder`` safely: yields a :class:`Staging` to write the files into.

    Holds ``folder``'s lock file for the duration (another writer of the
    same folder waits up to ``wait`` seconds, then gets a one-line
    :class:`ExportError`), first removes what killed writes left behind,
    and at the end removes the staging folder and whatever was not
    committed.  Errors raised inside name the final files, not the staged.
    """
    if not os.path.isdir(folder):
        raise ExportError(f"output folder {folder!r} does not exist")
    if not os.access(folder, os.W_OK):
        raise ExportError(f"output folder {folder!r} is not writable")
    fd = _lock(folder, wait)
    try:
        _remove_stale(folder)
        stage = Staging(folder)
        try:
            yield stage
        except ExportError as err:
            raise ExportError(stage.explain(err)) from None
        except OSError as err:
            what = f"writing {err.filename} failed: {err.strerror}" if err.filename else str(err)
            raise ExportError(stage.explain(f"{what}; kept the earlier files")) from None
        finally:
            stage.discard()
    finally:
        _unlock(folder, fd)


# --------------------------------------------------------------------------- files


def _terrains(objects):
    return [o for o in objects if is_terrain(o)]


def _scatters(objects):
    return [o for root in objects for o in [root, *root.children_recursive] if is_scatter(o)]


def level_stems(levels):
    """The file stem of each level root: its object's name (what the user sees, and the FBX object's
    name), with any character a level name may not hold (``.`` of ``Level.001``) as ``_``; where two
    would still be one file (case aside), the later gets ``_2``, ``_3`` ...

    >>> class O:
    ...     def __init__(self, name): self.name = name
    >>> level_stems([O("Level"), O("Level.001"), O("Dungeon 2"), O("level")])
    ['Level', 'Level_001', 'Dungeon 2', 'level_2']
    """
    stems, seen = [], set()
    for root in levels:
        base = re.sub(r"[^A-Za-z0-9_\- ]", "_", root.name)[:48].strip() or "Level"
        stem, n = base, 1
        while stem.casefold() in seen:
            n += 1
            stem = f"{base[: 48 - 1 - len(str(n))]}_{n}"
        seen.add(stem.casefold())
        stems.append(stem)
    return stems


def level_file_names(stem, tileset="blob"):
    """The files a level with file stem ``stem`` writes: the Tiled map with its two tilesets (classes
    and the auto-tiles of ``tileset``, each a .tsx and its image), the JSON record and the PNG map.

    >>> level_file_names("Crypt")  # doctest: +NORMALIZE_WHITESPACE
    ['Crypt.tmx', 'Crypt_classes.tsx', 'Crypt_classes.png', 'Crypt.tsx', 'Crypt_blob.png',
     'Crypt_level.json', 'Crypt_level.png']
    """
    tiled = [
        f"{stem}.tmx",
        f"{stem}_classes.tsx",
        f"{stem}_classes.png",
        f"{stem}.tsx",
        f"{stem}_{tileset}.png",
    ]
    return [*tiled, f"{stem}_level.json", f"{stem}_level.png"]


#: The "format" field of a level's ``<stem>_level.json`` (``core.levels.level_record``'s).
LEVEL_RECORD_FORMAT = core_levels.RECORD_FORMAT
#: Largest ``_level.json`` :func:`earlier_level_files` reads (a 4096^2 level's record is far smaller).
LEVEL_RECORD_MAX_BYTES = 1 << 28


def earlier_level_files(folder):
    """Paths of every level file Worldseed may have written in ``folder``: for each regular
    ``<stem>_level.json`` (never through a link) whose "format" is the level record's, the files of
    :func:`level_file_names` of that stem with every tileset.  What a headless run removes of them
    when it does not write them itself (``addon/batch.remove_stale_outputs``)."""
    found = set()
    with os.scandir(folder) as entries:
        for entry in entries:
            if not entry.name.endswith("_level.json") or entry.is_symlink() or not entry.is_file(follow_symlinks=False):
                continue
            try:
                if entry.stat(follow_symlinks=False).st_size > LEVEL_RECORD_MAX_BYTES:
                    continue
                with open(entry.path, "rb") as f:
                    record = json.load(f)
            except (OSError, ValueError):
                continue  # not a level record of ours
            if not isinstance(record, dict) or record.get("format") != LEVEL_RECORD_FORMAT:
                continue
            stem = entry.name[: -len("_level.json")]
            for tileset in core_levels.TILESETS:
                found.update(os.path.join(folder, n) for n in level_file_names(stem, tileset))
    return found


def export_paths(
    spec,
    folder,
    name,
    *,
    terrains=1,
    scatters=True,
    trees=False,
    relief_file=RELIEF_FILE,
    render_file=RENDER_FILE,
    levels=(),
):
    """Every file :func:`write_exports` may write for ``spec`` (an :class:`core.recipe.ExportSpec`)
    into ``folder`` with base name ``name`` (FBX/GLB per object are named after the objects); ``levels``
    are the file stems of the levels (their names), or ``(stem, tileset)`` pairs."""
    levels = [(lv, "blob") if isinstance(lv, str) else lv for lv in levels]
    paths = [p for stem, tileset in levels for p in level_file_names(stem, tileset)]
    if not spec.per_object:
        paths += [f"{name}.{fmt}" for fmt in ("fbx", "glb") if getattr(spec, fmt)]
    if spec.preview and terrains:
        paths.append(relief_file)
    if spec.render and (terrains or trees):
        paths.append(render_file)
    if spec.placements and terrains and scatters:
        paths.append(f"{name}_placements.json")
    if spec.heightmap_raw and terrains:
        stems = [name] if terrains == 1 else [f"{name}_{i}" for i in range(terrains)]
        paths += [p for s in stems for p in (f"{s}_heightmap.raw", f"{s}_heightmap.json")]
    return [os.path.join(folder, p) for p in paths]


def _relief(heights, spec, path):
    values, cell = heights.values, heights.cell_size
    n = values.shape[0]
    if n < PREVIEW_SIDE:  # small maps are resampled so the picture is worth looking at
        values, cell = core_unity.resample_square(values, side=PREVIEW_SIDE), cell * (n - 1) / (PREVIEW_SIDE - 1)
    image = core_preview.shaded_relief(
        values, cell_size=cell, height=heights.height, sea_level=spec.sea_level, palette=spec.palette
    )
    core_unity.write_bytes_atomic(path, core_preview.png_bytes(image))
    return path


def write_unity_heightmap(heights, spec, folder, name, *, blender_centre=(0.0, 0.0, 0.0)):
    """A 16-bit RAW heightmap for Unity's Terrain plus a JSON of its import settings.

    The heights are turned to match the exported FBX in Unity (see
    ``core.unity``), so a Terrain placed at ``terrain_position`` lines up
    with the mesh.  ``spec`` is the terrain's :class:`core.terrain.TerrainSpec`.
    """
    n = heights.values.shape[0]
    side = min(
        (s for s in core_unity.UNITY_HEIGHTMAP_RESOLUTIONS if s >= n),
        default=max(core_unity.UNITY_HEIGHTMAP_RESOLUTIONS),
    )
    values = heights.values if side == n else core_unity.resample_square(heights.values, side=side)
    raw_path = os.path.join(folder, f"{name}_heightmap.raw")
    with writing(raw_path):
        core_unity.write_bytes_atomic(
            raw_path, core_unity.heightmap_raw16(core_unity.unity_heights(values), byte_order="little")
        )
    settings = {
        "file": os.path.basename(raw_path),
        "depth": "Bit16",
        "byte_order": "Windows",
        "width": side,
        "height": side,
        "flip_vertically": False,
        "terrain_size_m": {"width": spec.size, "height": spec.height, "length": spec.size},
        "terrain_position": core_unity.unity_terrain_position(spec.size, blender_centre=blender_centre).tolist(),
        "resampled_from": None if side == n else n,
        "note": "Terrain Settings > Import Raw with these values; put the Terrain at terrain_position "
        "(world space) and it lines up with the FBX mesh.",
    }
    json_path = os.path.join(folder, f"{name}_heightmap.json")
    with writing(json_path):
        core_unity.write_bytes_atomic(json_path, (json.dumps(settings, indent=2) + "\n").encode())
    return [raw_path, json_path]


def check_level_transforms(objects):
    """Refuse (an :class:`ExportError`) a level among ``objects`` that is rotated or scaled in Blender
    (itself or through its parent): its Tiled map and JSON are in the level's own cells, placed by the
    root's world position only, so they would disagree with the FBX.  Moving it is fine."""
    for root in objects:
        if not is_level(root):
            continue
        m = root.matrix_world
        turn = [[m[r][c] for c in range(3)] for r in range(3)]
        if any(abs(turn[r][c] - (r == c)) > 1e-5 for r in range(3) for c in range(3)):
            raise ExportError(
                f"level {root.name!r} is rotated or scaled (itself or its parent); its .tmx and .json are "
                "in the level's own cells: clear its rotation and scale (Alt+R / Alt+S) and export again"
            )


@contextlib.contextmanager
def level_kits_as_objects(objects):
    """For the duration, the kits of the levels among ``objects`` as real objects (children of their
    level, in a collection of their own), so the FBX and glTF writers write every module; removed
    after, leaving the scene as it was."""
    levels = [o for o in objects if is_level(o)]
    check_level_transforms(levels)  # before the FBX is written
    if not any(bridge_level.level_kit_of(root) is not None for root in levels):
        yield
        return
    collection = bpy.data.collections.new("Worldseed Export Kits")
    bpy.context.scene.collection.children.link(collection)
    try:
        with bridge_level.kits_as_objects(levels, collection):
            yield
    finally:
        bpy.data.collections.remove(collection)


def _heights_of(root, known):
    if known and root.name in known:
        return known[root.name]
    recipe = bridge_terrain.stored_recipe(root)
    return core_terrain.terrain_heights(recipe.terrain, seed=recipe.world.seed)


def write_exports(
    objects,
    folder,
    name,
    spec,
    *,
    scene=None,
    heights=None,
    relief_file=RELIEF_FILE,
    render_file=RENDER_FILE,
    stage=None,
):
    """Write ``objects`` (with their children) as the files ``spec`` asks for; returns the paths written.

    ``spec`` is an :class:`core.recipe.ExportSpec`: FBX / glTF binary (one
    file ``<name>.fbx``, or one per top-level object), the placement file of
    the scatters among the objects (``<name>_placements.json``), for the
    terrains among them the relief map and the Unity RAW heightmap
    (``<name>_heightmap.raw`` + ``.json``), and a preview render.
    ``heights`` maps terrain names to heights already computed.  A render
    that cannot run (no OpenGL) is a warning; the other files are written.

    All or nothing: the files go to a staging folder in ``folder`` (under
    its lock, see :func:`output_folder`) and replace earlier files only when
    every one is complete.  With ``stage`` (a :class:`Staging` the caller
    holds, to add files of its own) they are written there and the staged
    paths returned, for the caller's ``stage.commit``.
    """
    if stage is None:
        with output_folder(folder) as own:
            staged = write_exports(
                objects,
                folder,
                name,
                spec,
                scene=scene,
                heights=heights,
                relief_file=relief_file,
                render_file=render_file,
                stage=own,
            )
            return own.commit(staged)
    folder = stage.path
    objects = list(objects)
    terrains = _terrains(objects)
    written = []
    formats = tuple(f for f in ("fbx", "glb") if getattr(spec, f))
    levels = [o for o in objects if is_level(o)]
    check_level_transforms(levels)
    if formats:
        with level_kits_as_objects(levels):
            written += export.export_unity(
                objects, os.path.join(folder, f"{name}.fbx"), formats=formats, per_object=spec.per_object
            )
    for root, stem in zip(levels, level_stems(levels)):
        for file_name, data in bridge_level.level_files(root, stem).items():
            path = os.path.join(folder, file_name)
            if path in written:
                raise ExportError(f"level {root.name!r} would overwrite {file_name}; rename the level")
            with writing(path):
                core_unity.write_bytes_atomic(path, data)
            written.append(path)
    scatters = _scatters(objects)
    path = os.path.join(folder, f"{name}_placements.json")
    if spec.placements and scatters and path not in written:  # a prop-library export wrote it already
        with writing(path):
            written.append(placements.write_placement_file(scatters, path))
    for i, root in enumerate(terrains):
        terrain_spec = bridge_terrain.stored_recipe(root).terrain
        if spec.preview and i == 0:
            path = os.path.join(folder, relief_file)
            with writing(path):
                written.append(_relief(_heights_of(root, heights), terrain_spec, path))
        if spec.heightmap_raw:
            stem = name if len(terrains) == 1 else f"{name}_{i}"
            written += write_unity_heightmap(
                _heights_of(root, heights),
                terrain_spec,
                folder,
                stem,
                blender_centre=tuple(root.matrix_world.translation),
            )
    if spec.render and objects:
        scene = scene or bpy.context.scene
        path = os.path.join(folder, render_file)
        try:
            if terrains:
                written.append(render.render_preview(scene, terrains[0], path))
            else:
                written.append(render.render_trees(scene, objects, path))
        except render.RenderError as err:  # a machine without OpenGL still gets every other file
            print(f"worldseed: warning: {err}", file=sys.stderr)
    return written
