"""Tiled worlds for Unity: each tile's FBX, the prop library and the world JSON.

For Unity each tile is ``<name>_<x>_<z>.fbx`` (:func:`export_tile_fbx`: the terrain and its LODs,
rotation 0, scale 1, Y up, metres; the props are placed from the placement file), beside it the prop
library ``<name>_props.fbx`` (each prop once) and ``<name>_world.json`` listing each tile's FBX
and the world's own files (the prop library, the overview picture, recipe.toml) with their sizes and SHA-256
(:func:`export_world_steps`).  The sidebar exports the tiles in the
scene; the headless run (:func:`export_world_fbx`) assembles each tile from its files
(``.world_tiles.tile_steps``), writes it and removes it again, with the same bytes.

The sections a tiled world builds once (``core.recipe.Section.tiled == "once"``: ``[[trees]]``,
``[[level]]``) are built by their own ``build_section`` as in a single world, placed in the
world's coordinates, and written by :func:`export_once` as ``<name>_<key>.fbx`` with, for levels,
each level's own files (Tiled map, tilesets, JSON record, picture).  The headless run stages them
before its tiles and moves them in with the tiles' FBX, the prop library and the world JSON, which
lists them under ``"once"``, in the same switch (``once_files`` of :func:`export_world_fbx`); the
sidebar's Export World writes the scene's where they stand (``once`` of :func:`export_world_steps`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

import bpy

from ...core import recipe as core_recipe
from ...core import scatter as core_scatter
from ...core.errors import ParameterError
from ...core.steps import drive
from ...core.unity import write_bytes_atomic
from ...core.world import (
    file_record,
    once_names,
    once_sections,
    read_world_json,
    recipe_digest,
    tile_base,
    with_once,
    with_records,
    world_grid,
    world_json_path,
    write_world_json,
)
from . import scatter as bridge_scatter
from . import sections
from .export import exportable
from .fbx import ExportError, write_fbx
from .outputs import output_folder, writing
from .query import KIND_KEY, worldseed_roots
from .scatter import SCATTER_KIND
from .world import World, build_world, write_exports
from .world_tiles import DIGEST_KEY, data_names, remove_new_data, remove_tiles, tile_objects, tile_steps

if TYPE_CHECKING:
    from ...core.export import ExportSpec
    from ...core.recipe import Recipe
    from ...core.steps import Steps
    from .outputs import Staging

#: The world JSON of a world folder with more files recorded: a function of ``{(x, z): FBX path}`` and
#: the world's own files (:func:`world_json_with_fbx`).
WorldJson = Callable[[Mapping[tuple[int, ...], str], Iterable[str]], dict[str, Any]]

__all__ = [
    "check_exportable",
    "export_tile_fbx",
    "export_world_steps",
    "world_json_with_fbx",
    "export_world_fbx",
    "export_props_fbx",
    "world_props",
    "export_once",
    "once_file_name",
    "scene_once",
    "once_kinds",
]


def _terrain_objects(root: bpy.types.Object) -> list[bpy.types.Object]:
    """What a tile's FBX holds: the terrain (root and LODs), not its scatter (placed in Unity from
    the placement file)."""
    return [o for o in tile_objects(root) if o.type in {"MESH", "EMPTY"} and o.get(KIND_KEY) != SCATTER_KIND]


def export_tile_fbx(
    objects_or_tile: bpy.types.Object | Sequence[bpy.types.Object] | tuple[int, int],
    path: str,
    *,
    recipe: Recipe | None = None,
    folder: str | None = None,
    name: str = "world",
    collection: bpy.types.Collection | None = None,
    stage: Staging | None = None,
) -> str:
    """Write a tile's FBX for Unity (rotation 0, scale 1, Y up, metres: ``fbx.FBX_UNITY``) to ``path``
    (``<name>_<x>_<z>.fbx``); returns the path written.

    ``objects_or_tile``: the tile's root object (or a list of its objects) as assembled here, or an
    ``(x, z)`` pair: the tile is then assembled from its files in ``folder`` (``recipe``'s world,
    file base ``name``, into ``collection``, the scene's by default), written and removed again --
    what the headless run does for ``[export] fbx``.  The file goes through a staging folder under
    the output folder's lock (``outputs.output_folder``) and replaces an earlier one only when
    complete; with ``stage`` (a ``Staging`` the caller holds) it is written there and the staged
    path returned, for the caller's commit.
    """
    if stage is None:
        target = os.path.abspath(path)
        with output_folder(os.path.dirname(target)) as own:
            staged = export_tile_fbx(
                objects_or_tile,
                os.path.join(own.path, os.path.basename(target)),
                recipe=recipe,
                folder=folder,
                name=name,
                collection=collection,
                stage=own,
            )
            return own.commit([staged])[0]
    if isinstance(objects_or_tile, tuple | list) and len(objects_or_tile) == 2 and isinstance(objects_or_tile[0], int):
        if recipe is None or folder is None:
            raise ParameterError("export_tile_fbx: a tile given as (x, z) needs recipe= and folder=")
        x, z = objects_or_tile
        coll = collection or cast(bpy.types.Scene, bpy.context.scene).collection
        before = data_names()
        root = drive(tile_steps(recipe, folder, name, x, z, collection=coll, props=False))
        try:
            return export_tile_fbx(root, path, stage=stage)
        finally:  # the tile, its props and material: the scene as it was
            remove_tiles([root])
            remove_new_data(before)
    if isinstance(objects_or_tile, bpy.types.Object):
        objects = _terrain_objects(objects_or_tile)
    else:
        objects = [o for o in objects_or_tile if o.type in {"MESH", "EMPTY"} and o.get(KIND_KEY) != SCATTER_KIND]
    if not objects:
        raise ExportError(f"nothing to export for {os.path.basename(path)!r}: no tile objects")
    with writing(path):
        try:
            write_fbx(path, objects)
        except ExportError as err:
            raise ExportError(f"cannot write {os.path.basename(path)!r}: {err}") from None
    return path


def check_exportable(roots: Mapping[tuple[int, ...], bpy.types.Object], folder: str, name: str) -> None:
    """Refuse to export tiles (``{(x, z): root}``) that the world folder's world JSON does not list
    complete from the same recipe (built from other settings since, or from another folder): their
    FBX would not match the files beside it."""
    document = read_world_json(world_json_path(folder, name))
    if document is None:
        raise ParameterError(
            f"{name}_world.json is missing from {folder!r} (or is no world JSON): build the tiles first"
        )
    complete = {(t["x"], t["z"]) for t in document["tiles"] if t.get("complete")}
    digest = document["recipe_sha256"]
    stale = [k for k, root in roots.items() if k not in complete or root.get(DIGEST_KEY) != digest]
    stale.sort(key=lambda t: (t[1], t[0]))
    if stale:
        names = ", ".join(roots[k].name for k in stale[:6]) + (" ..." if len(stale) > 6 else "")
        raise ParameterError(
            f"tiles {names} in the scene do not match the tile files in {folder!r} (built from other "
            "settings, or another World Folder): Build Tiles again, or export from the folder they came from"
        )


def world_json_with_fbx(folder: str, name: str) -> WorldJson:
    """A function of ``{(x, z): FBX path}`` (and the paths of the world's own files, the prop library and
    recipe.toml) that returns the world JSON of ``folder`` (``<name>_world.json``, as the world run wrote
    it) with each tile's FBX added to its files and the world's files to its top-level ``files`` (name,
    size, SHA-256: ``core.world.with_records``), for :func:`export_world_steps`.  A folder without a
    world JSON is an error: build the tiles first."""
    document = read_world_json(world_json_path(folder, name))
    if document is None:
        raise ParameterError(
            f"{name}_world.json is missing from {folder!r} (or is no world JSON): build the tiles first"
        )

    def with_fbx(fbx: Mapping[tuple[int, ...], str], files: Iterable[str] = ()) -> dict[str, Any]:
        return with_records(document, tiles=fbx, files=files)

    return with_fbx


def world_props(roots: Mapping[tuple[int, ...], bpy.types.Object]) -> list[bpy.types.Object]:
    """The prop objects the scatters of the tiles ``roots`` (``{(x, z): root}``) instance, each once, in
    name order."""
    props: dict[str, bpy.types.Object] = {}
    for root in roots.values():
        for obj in tile_objects(root):
            if obj.get(KIND_KEY) == SCATTER_KIND:
                props.update((p.name, p) for p in bridge_scatter.scatter_props(obj))
    return [props[n] for n in sorted(props)]


def export_world_steps(
    roots: Mapping[tuple[int, ...], bpy.types.Object | None],
    folder: str,
    name: str,
    *,
    world_json: WorldJson | None = None,
    recipe: Recipe | None = None,
    collection: bpy.types.Collection | None = None,
    props: Iterable[bpy.types.Object] = (),
    extra: Iterable[tuple[str, bytes]] = (),
    once: Mapping[str, Iterable[bpy.types.Object]] | None = None,
    once_files: Mapping[str, Sequence[str]] | None = None,
    remove: Iterable[str] = (),
    removed: list[str] | None = None,
    stage: Staging | None = None,
) -> Steps[list[str]]:
    """Write the FBX of every tile in ``roots`` (``{(x, z): root}``; a root of None: the tile is
    assembled from its files with ``recipe``, written and removed, one tile at a time) into ``folder``
    as ``<name>_<x>_<z>.fbx``; with ``props`` (objects: the props the tiles' placement files name) the
    prop library ``<name>_props.fbx``, each prop once (a tree with its LODs), as Export for Unity writes
    one; ``extra`` more files of the world, ``(file name, bytes)`` (the headless run's recipe.toml and
    ``<name>_overview.png``); the sections a tiled world builds once: ``once`` (``{section key: root
    objects}``, the sidebar's: :func:`scene_once`) each written as ``<name>_<key>.fbx`` where it stands,
    a level with its own files, or ``once_files`` (``{section key: paths}``, the headless run's: files
    :func:`export_once` staged in ``stage``, moved in by this switch, or files in ``folder`` kept); and
    with ``world_json`` (a function of ``{(x, z): FBX path}`` and the world's own files returning the
    document, :func:`world_json_with_fbx`) ``<name>_world.json`` listing them all, those of the sections
    built once under ``"once"`` (with :func:`~core.world.recipe_digest` of ``recipe``, or the document's
    digest without one).  The files the document listed under ``"once"`` that this set does not hold are
    removed.  All through one staging folder under the folder's lock (``stage``, a ``Staging`` the
    caller holds, or one of its own), one switch with the removal of the files ``remove`` (an earlier
    run's: ``outputs.Staging.commit``): all or nothing.  The removed paths are appended to the list
    ``removed`` when given.  Yields ``(done, total, label)``; returns the paths."""
    tiles = sorted(roots, key=lambda t: (t[1], t[0]))
    once = {key: list(objects) for key, objects in (once or {}).items() if objects}
    total = len(tiles) + 2 + len(once)
    held = contextlib.nullcontext(stage) if stage is not None else output_folder(folder)
    with held as stage:
        staged: list[str] = []
        fbx: dict[tuple[int, ...], str] = {}
        world_files: list[str] = []
        for i, (x, z) in enumerate(tiles):
            file_name = tile_base(name, x, z) + ".fbx"
            yield i, total, f"writing {file_name}"
            root = roots[(x, z)]
            tile = root if root is not None else (x, z)
            staged.append(
                export_tile_fbx(
                    tile,
                    os.path.join(stage.path, file_name),
                    recipe=recipe,
                    folder=folder,
                    name=name,
                    collection=collection,
                    stage=stage,
                )
            )
            fbx[(x, z)] = staged[-1]
        if props:
            yield len(tiles), total, f"writing {name}_props.fbx"
            path = os.path.join(stage.path, f"{name}_props.fbx")
            with writing(path):
                write_fbx(path, exportable(list(props)))
            staged.append(path)
            world_files.append(path)
        for file_name, data in extra:
            path = os.path.join(stage.path, file_name)
            with writing(path):
                write_bytes_atomic(path, data)
            staged.append(path)
            world_files.append(path)
        records = {}
        for j, (key, objects) in enumerate(once.items()):
            base = once_file_name(name, key)[: -len(".fbx")]
            yield len(tiles) + 1 + j, total, f"writing {base}.fbx"
            made = write_exports(objects, folder, base, _once_spec(core_recipe.Recipe().export), stage=stage)
            staged += made
            records[key] = [file_record(p) for p in made]
        for key, paths in (once_files or {}).items():
            staged += [p for p in paths if os.path.dirname(p) == stage.path]  # the others are kept in place
            records[key] = [file_record(p) for p in paths]
        remove = list(remove)
        if world_json is not None:
            yield total - 1, total, f"writing {name}_world.json"
            path = os.path.join(stage.path, f"{name}_world.json")
            document = world_json(fbx, world_files)
            if records or once_files is not None:  # made with the world the document describes
                digest = recipe_digest(recipe) if recipe is not None else document["recipe_sha256"]
                new = with_once(document, records, recipe_sha256=digest)
                gone = set(once_names(document)) - set(once_names(new))  # an earlier set's: removed
                remove += [os.path.join(folder, n) for n in sorted(gone)]
                document = new
            with writing(path):
                write_world_json(path, document)
            staged.append(path)
        paths = stage.commit(staged, remove=remove)
        if removed is not None:
            removed.extend(stage.removed)
    yield total, total, "done"
    return paths


def once_kinds() -> dict[str, str]:
    """``{section key: object kind}`` (``query.KIND_KEY``) of the roots of each section a tiled world builds
    once: its adapter's tag (:mod:`.sections`); what the sidebar's Export World writes of the scene
    (:func:`scene_once`)."""
    return {s.key: sections.adapter(s.key).kind for s in core_recipe.SECTIONS if s.tiled == "once"}


def scene_once(scene: bpy.types.Scene) -> dict[str, list[bpy.types.Object]]:
    """``{section key: roots}`` of the sections a tiled world builds once that ``scene`` holds: its
    Worldseed roots of those kinds (:func:`once_kinds`; built-in props aside), in name order."""
    roots = worldseed_roots(scene)
    out = {}
    for section in core_recipe.SECTIONS:
        if section.tiled == "once":
            kind = sections.adapter(section.key).kind  # a section built once has an adapter with a kind
            found = sorted((o for o in roots if o.get(KIND_KEY) == kind), key=lambda o: o.name)
            if found:
                out[section.key] = found
    return out


def _recipe_props(recipe: Recipe) -> list[bpy.types.Object]:
    """The built-in props ``recipe``'s scatter layers and ecosystem species make (the ones its placement
    files name), each once, in name order (made in this file's Blender data: remove them again)."""
    specs = list(getattr(recipe, "scatter", ()))
    ecosystem = getattr(recipe, "ecosystem", None)
    specs += [core_scatter.LayerSpec(name=s.name, prop=s.tree, variants=1) for s in getattr(ecosystem, "species", ())]
    props = bridge_scatter.layer_props(specs, [("BUILTIN", None)] * len(specs)) if specs else []
    return sorted({p.name: p for layer in props for p in layer}.values(), key=lambda p: p.name)


def export_props_fbx(recipe: Recipe, path: str) -> str:
    """Write the prop library of ``recipe``'s world, ``<name>_props.fbx`` at ``path`` (each prop its
    scatter layers make once, a tree with its LODs, as Export World and Export for Unity write it),
    through a staging folder under the folder's lock; returns the path.  The scene is left as it was."""
    before = data_names()
    try:
        props = _recipe_props(recipe)
        if not props:
            raise ExportError(f"nothing to export for {os.path.basename(path)!r}: the recipe scatters no props")
        target = os.path.abspath(path)
        with output_folder(os.path.dirname(target)) as stage:
            staged = os.path.join(stage.path, os.path.basename(target))
            with writing(staged):
                write_fbx(staged, exportable(props))
            return stage.commit([staged])[0]
    finally:
        remove_new_data(before)


def export_world_fbx(
    recipe: Recipe,
    folder: str,
    name: str = "world",
    *,
    tiles: Iterable[Sequence[int]] | None = None,
    collection: bpy.types.Collection | None = None,
    progress: Callable[[int, int, str], object] | None = None,
    props: bool = True,
    extra: Iterable[tuple[str, bytes]] = (),
    once_files: Mapping[str, Sequence[str]] | None = None,
    remove: Iterable[str] = (),
    removed: list[str] | None = None,
    stage: Staging | None = None,
) -> list[str]:
    """``[export] fbx`` of a world built into ``folder`` (the headless run's): the FBX of every complete
    tile (or of ``tiles``, ``(x, z)`` pairs), each assembled from its files, written and removed again
    (one tile in memory at a time), with ``props`` the prop library ``<name>_props.fbx`` when the recipe
    scatters props, ``extra`` (``(file name, bytes)``: recipe.toml, the overview picture), the files of
    the sections built once ``once_files`` (``{key: paths}``: :func:`export_once`'s, staged in
    ``stage``, or kept), and the world JSON listing each tile's FBX, the world's own files and, under
    ``"once"``, those of the sections built once with their sizes and SHA-256 -- the files Export World
    writes from the sidebar -- in one switch with the removal of ``remove`` (:func:`export_world_steps`,
    through ``stage`` when given; the removed paths appended to ``removed``).  ``progress(done, total,
    label)`` per step.  Returns the paths written; the scene is left as it was."""
    document = read_world_json(world_json_path(folder, name))
    complete = [(t["x"], t["z"]) for t in (document or {}).get("tiles", ()) if t.get("complete")]
    chosen = complete if tiles is None else [tuple(int(v) for v in t) for t in tiles]
    missing = sorted(set(chosen) - set(complete))
    if missing:
        raise ParameterError(f"tiles {missing} are not complete in {folder!r}: build them first")
    json_of = world_json_with_fbx(folder, name)
    before = data_names()
    try:
        steps = export_world_steps(
            dict.fromkeys(chosen),
            folder,
            name,
            world_json=json_of,
            recipe=recipe,
            collection=collection,
            props=_recipe_props(recipe) if props else (),
            extra=extra,
            once_files=once_files,
            remove=remove,
            removed=removed,
            stage=stage,
        )
        return drive(steps, progress)
    finally:
        remove_new_data(before)


def once_file_name(name: str, key: str) -> str:
    """``<name>_<key>.fbx``: the FBX of section ``key`` that a tiled world named ``name`` builds once."""
    return f"{name}_{key}.fbx"


def _once_spec(export: ExportSpec) -> ExportSpec:
    """The ``[export]`` of a section built once: ``export``'s ``fbx``, no .glb, RAW, relief, render or placements."""
    return dataclasses.replace(
        export, glb=False, per_object=False, heightmap_raw=False, preview=False, render=False, placements=False
    )


def _ground(recipe: Recipe) -> tuple[float, float, float]:
    """``World.ground`` of ``recipe``'s tiled world: its tiles' centre (Blender X, Y) and half its depth."""
    grid = world_grid(recipe)
    return (-grid.nx * grid.size / 2, -grid.nz * grid.size / 2, grid.nz * grid.size / 2)


def export_once(
    recipe: Recipe,
    folder: str,
    name: str,
    *,
    keys: Collection[str] | None = None,
    scene: bpy.types.Scene | None = None,
    progress: Callable[[int, int, str], object] | None = None,
    stage: Staging | None = None,
) -> dict[str, list[str]]:
    """Build the sections of ``recipe``'s tiled world that it builds once (``core.world.once_sections``;
    ``keys``: only these) and write them into ``folder``; returns ``{key: [paths]}``.

    Each is built into ``scene`` (default: the current one) by its ``build_section`` as in a single
    world (``.world.build_world``), in the world's Blender coordinates, where the tiles are: the
    trees in rows in front of the world's -Y edge, each level at its ``origin``.  Then it is written
    as a single world writes it (``.world.write_exports`` with ``recipe``'s ``[export] fbx``, no
    .glb, relief or render): ``<name>_<key>.fbx`` (:func:`once_file_name`) and, for each level, its
    own files, named after the level.  All through one staging folder under the folder's lock:
    all or nothing.  With ``stage`` (a ``Staging`` the caller holds) the files are written there and
    the staged paths returned, for the caller's switch (the headless run's: with the tiles' FBX and
    the world JSON, :func:`export_world_fbx`).  What was built is removed again: the scene is left as
    it was.
    """
    if stage is None:
        with output_folder(folder) as own:
            staged = export_once(recipe, folder, name, keys=keys, scene=scene, progress=progress, stage=own)
            every = [p for paths in staged.values() for p in paths]
            names = dict(zip(every, own.commit(every)))
        return {key: [names[p] for p in paths] for key, paths in staged.items()}
    scene = scene or cast(bpy.types.Scene, bpy.context.scene)
    spec = _once_spec(recipe.export)
    staged = {}
    for section in once_sections(recipe):
        if keys is not None and section.key not in keys:
            continue
        before = data_names()
        try:
            made = build_world(
                recipe, scene=scene, progress=progress, keys=(section.key,), world=World(ground=_ground(recipe))
            )
            base = once_file_name(name, section.key)[: -len(".fbx")]
            staged[section.key] = write_exports(made.roots, folder, base, spec, scene=scene, stage=stage)
        finally:
            remove_new_data(before)
    return staged
