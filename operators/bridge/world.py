"""The one world pipeline: a recipe's sections built in order, and the files a world is exported as.

The headless run (``addon/batch.py``) builds a whole recipe with
:func:`build_world`; the sidebar builds one family at a time with its
operators.  Both export with :func:`write_exports`: FBX and glTF for Unity,
the placement file of the scattered props, the shaded-relief map, the
16-bit RAW heightmap for Unity's Terrain with its import settings, and the
preview render -- so every file the headless run writes, the sidebar can
write too, with the same layout and limits.

Writing is all or nothing (``outputs.py``): :func:`output_folder` locks the folder (one
writer at a time), removes the temporaries runs that were killed left
behind, and gives a hidden staging folder inside it; every file is written
there and :meth:`Staging.commit` moves them all into place only once each is
complete.  A failure (a full disk, a file-size limit, a kill) leaves every
earlier file as it was.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

import bpy

from ...core import ecosystem as core_ecosystem
from ...core import preview as core_preview
from ...core import recipe as core_recipe
from ...core import terrain as core_terrain
from ...core import unity as core_unity
from ...core.errors import ParameterError
from . import ecosystem as bridge_ecosystem
from . import export, placements, render, sections, terrain_export
from . import levels as bridge_levels
from . import scatter as bridge_scatter
from . import settlements as bridge_settlements
from . import terrain as bridge_terrain
from . import terrain_layers as bridge_layers
from .export import ExportError
from .levels import (
    check_level_transforms,
    earlier_level_files,
    is_level,
    level_file_names,
    level_kits_as_objects,
    level_stems,
)
from .outputs import LOCK_FILE, LOCK_WAIT, Staging, is_stale_temporary, output_folder, writing
from .terrain import is_terrain

if TYPE_CHECKING:
    from ...core.export import ExportSpec
    from ...core.recipe import Recipe, Section
    from ...core.terrain import TerrainHeights, TerrainLayers, TerrainSpec

__all__ = [
    "World",
    "build_world",
    "write_exports",
    "export_paths",
    "output_folder",
    "Staging",
    "is_stale_temporary",
    "writing",
    "level_stems",
    "level_file_names",
    "earlier_level_files",
    "level_kits_as_objects",
    "check_level_transforms",
    "LOCK_FILE",
    "LOCK_WAIT",
    "PREVIEW_SIDE",
    "RELIEF_FILE",
    "RENDER_FILE",
    "SECTION_STEPS",
]

#: Pixels per side of the relief map for maps smaller than this.
PREVIEW_SIDE = 513
RELIEF_FILE = "relief.png"
RENDER_FILE = "preview.png"


@dataclass
class World:
    """What :func:`build_world` made: the top-level objects to export, in build order, and what later
    sections need of earlier ones (the terrain root and its heights, for the scatter).

    ``ground``: ``(centre_x, centre_y, half_y)`` in Blender metres of the ground the sections stand
    on when it is not the single terrain centred at the origin (a tiled world's tiles): the trees
    stand in front of its -Y edge.  ``clearing``: per terrain name, ground a section keeps free of
    the props of later ones (the ecosystem's trampled trails: a bool map of its vertices)."""

    roots: list[bpy.types.Object] = field(default_factory=list)
    terrain: bpy.types.Object | None = None
    heights: dict[str, TerrainHeights] = field(default_factory=dict)
    scatters: list[bpy.types.Object] = field(default_factory=list)
    layers: dict[str, TerrainLayers] = field(default_factory=dict)
    ground: tuple[float, float, float] | None = None
    clearing: dict[str, Any] = field(default_factory=dict)


#: Steps each built section counts for in a world build's progress (one line, rising from 0 to 100 %).
SECTION_STEPS = 1000


def _present(recipe: Recipe, section: Section) -> bool:
    """Whether ``recipe`` asks section ``section`` for something to build (a section left out of
    recipes at its defaults, ``omit_default``, builds nothing then)."""
    value = getattr(recipe, section.key)
    if section.omit_default and value == section.spec():
        return False
    return bool(value) if section.many else getattr(value, "enabled", True)


def build_world(
    recipe: Recipe,
    *,
    scene: bpy.types.Scene,
    progress: Callable[[int, int, str], object] | None = None,
    keys: Collection[str] | None = None,
    world: World | None = None,
) -> World:
    """Build every section of ``recipe`` into ``scene`` in the order of ``core.recipe.SECTIONS``.

    Each buildable section is built by its adapter (:mod:`.sections`, the family's
    ``build_section``), which adds what it made to the :class:`World`.  A
    :class:`~core.errors.ParameterError` while building says which section (and entry:
    ``trees[1]``) it is about.  ``progress(done, total, stage)`` rises once across the sections
    (each of those the recipe fills has an equal share), labelled by each section's stages.
    ``keys``: build only these sections (a tiled world's sections built once); ``world``: the
    :class:`World` to build into (default: a new one).
    """
    world = World() if world is None else world
    built = [s for s in core_recipe.SECTIONS if s.build and _present(recipe, s) and (keys is None or s.key in keys)]
    total = SECTION_STEPS * len(built)
    for k, section in enumerate(built):
        share = None
        if progress is not None:
            share = lambda d, t, stage, k=k: progress(  # noqa: E731
                k * SECTION_STEPS + min(SECTION_STEPS, int(SECTION_STEPS * d / max(t, 1))), total, stage
            )
        try:
            sections.adapter(section.key).build(recipe, world, scene=scene, progress=share)
        except ParameterError as err:
            raise ParameterError(f"{_where(recipe, section, err)}: {err}") from None
    if progress is not None and total:
        progress(total, total, "done")
    return world


def _where(recipe: Recipe, section: Section, err: Exception) -> str:
    """The recipe entry an error of ``section``'s build is about: ``trees[1]`` (from the error's ``.spec``)."""
    if section.many:
        spec = getattr(err, "spec", None)
        for i, entry in enumerate(getattr(recipe, section.key)):
            if spec is not None and entry == spec:
                return f"{section.key}[{i}]"
    return section.key


# --------------------------------------------------------------------------- files


def _terrains(objects: Iterable[bpy.types.Object]) -> list[bpy.types.Object]:
    return [o for o in objects if is_terrain(o)]


def _scatters(objects: Iterable[bpy.types.Object]) -> list[bpy.types.Object]:
    return export.scatters_among(objects)


def export_paths(
    spec: ExportSpec,
    folder: str,
    name: str,
    *,
    terrains: int = 1,
    scatters: bool = True,
    trees: bool = False,
    relief_file: str = RELIEF_FILE,
    render_file: str = RENDER_FILE,
    levels: Iterable[str | Sequence[Any]] = (),
    package: Iterable[str] = (),
    ecosystem: Iterable[str] = (),
    networks: Iterable[str] = (),
    settlements: bool = False,
) -> list[str]:
    """Every file :func:`write_exports` may write for ``spec`` (an :class:`core.export.ExportSpec`)
    into ``folder`` with base name ``name`` (FBX/GLB per object are named after the objects); ``levels``
    are the file stems of the levels (their names), or ``(stem, tileset)`` pairs, or ``(stem, tileset,
    wfc)`` triples (``wfc``: the level is a WFC level, see :func:`level_file_names`); ``package``: the
    Unity terrain package's files of the (single) terrain (:func:`.terrain_layers.package_names`),
    written with the RAW heightmap; ``ecosystem``: the roles of the ecosystem's files
    (``core.ecosystem.file_names``: ``plants``, ``ecosystem`` ...) it writes; ``networks``: the rivers'
    and roads' files of the (single) terrain (``core.terrain.network_file_names``), written with any
    export of it; ``settlements``: the terrain has settlements (``<name>_settlements.json``)."""
    levels = [(lv, "blob", None) if isinstance(lv, str) else (*lv, None)[:3] for lv in levels]
    paths = [
        p
        for stem, tileset, wfc in cast("list[tuple[str, str, bool | None]]", levels)
        for p in level_file_names(stem, tileset, wfc)
    ]
    if not spec.per_object:
        paths += [f"{name}.{fmt}" for fmt in ("fbx", "glb") if getattr(spec, fmt)]
    if spec.preview and terrains:
        paths.append(relief_file)
    if spec.render and (terrains or trees or levels):
        paths.append(render_file)
    if spec.placements and terrains and scatters:
        paths.append(f"{name}_placements.json")
    if spec.heightmap_raw and terrains:
        stems = [name] if terrains == 1 else [f"{name}_{i}" for i in range(terrains)]
        paths += [p for s in stems for p in (f"{s}_heightmap.raw", f"{s}_heightmap.json")]
        paths += list(package) if terrains == 1 else []
    names = core_ecosystem.file_names(name)
    paths += [names[role] for role in ecosystem]
    if terrains == 1:
        paths += list(networks)
    if settlements and terrains:
        paths += (
            [f"{name}_settlements.json"] if terrains == 1 else [f"{name}_{i}_settlements.json" for i in range(terrains)]
        )
    return [os.path.join(folder, p) for p in paths]


def _relief(heights, spec, path, colours=None):
    """The shaded relief map of ``heights``: in the texture layers' colours (``colours``, sRGB bytes
    row 0 south: :func:`.terrain_export.layer_colours`) when the terrain has them, else the palette's."""
    values, cell = heights.values, heights.cell_size
    n = values.shape[0]
    if n < PREVIEW_SIDE:  # small maps are resampled so the picture is worth looking at
        values, cell = core_unity.resample_square(values, side=PREVIEW_SIDE), cell * (n - 1) / (PREVIEW_SIDE - 1)
    image = core_preview.shaded_relief(
        values,
        cell_size=cell,
        height=heights.height,
        sea_level=spec.sea_level,
        palette=spec.palette,
        colours=colours,
    )
    core_unity.write_bytes_atomic(path, core_preview.png_bytes(image))
    return path


def write_unity_heightmap(
    heights: TerrainHeights,
    spec: TerrainSpec,
    folder: str,
    name: str,
    *,
    blender_centre: Sequence[float] = (0.0, 0.0, 0.0),
) -> list[str]:
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


def _heights_of(root: bpy.types.Object, known: Mapping[str, TerrainHeights] | None) -> TerrainHeights:
    if known and root.name in known:
        return known[root.name]
    recipe = bridge_terrain.stored_recipe(root)
    layers = bridge_layers.layers_for(recipe)
    if layers is not None:
        return layers.heights
    return core_terrain.terrain_heights(recipe.terrain, seed=recipe.world.seed)


def write_exports(
    objects: Iterable[bpy.types.Object],
    folder: str,
    name: str,
    spec: ExportSpec,
    *,
    scene: bpy.types.Scene | None = None,
    heights: Mapping[str, TerrainHeights] | None = None,
    relief_file: str = RELIEF_FILE,
    render_file: str = RENDER_FILE,
    stage: Staging | None = None,
    layers: Mapping[str, TerrainLayers] | None = None,
    progress: Callable[[int, int, str], object] | None = None,
) -> list[str]:
    """Write ``objects`` (with their children) as the files ``spec`` asks for; returns the paths written.

    ``spec`` is an :class:`core.export.ExportSpec`: FBX / glTF binary (one
    file ``<name>.fbx``, or one per top-level object), the placement file of
    the scatters among the objects (``<name>_placements.json``), for the
    terrains among them the relief map and the Unity RAW heightmap
    (``<name>_heightmap.raw`` + ``.json``) with, for a terrain with layers
    (erosion, biomes, texture layers), the Unity terrain package beside it
    (``<name>_splat<k>.png``, ``_biomes.png``, ``_flow.png``, a copy of each
    texture layer's image ``_texture<k>.png`` / ``.jpg`` and ``_terrain.json``
    naming it: :func:`.terrain_layers.package_files`), the rivers' and roads' files of a terrain
    with networks (``<name>_rivers.json``, ``<name>_roads.json``: ``core.terrain.network_files``,
    whatever else is asked), and a preview render.  ``heights`` and ``layers`` map terrain names to heights and
    layers already computed.  A render
    that cannot run (no OpenGL) is a warning; the other files are written.

    All or nothing: the files go to a staging folder in ``folder`` (under
    its lock, see :func:`output_folder`) and replace earlier files only when
    every one is complete.  With ``stage`` (a :class:`Staging` the caller
    holds, to add files of its own) they are written there and the staged
    paths returned, for the caller's ``stage.commit``.  ``progress(done, total, stage)`` rises once across
    the parts (the FBX/glTF files, the relief map, each terrain's heightmap and package, the render; each
    an equal share of :data:`SECTION_STEPS`), labelled by each file as it is begun (the exports' steps
    too: :func:`.export.export_steps`) and by the render's end; a headless run shows it after the
    build, on the same rising line (``addon.batch``).
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
                layers=layers,
                progress=progress,
            )
            return own.commit(staged)
    folder = stage.path
    objects = list(objects)
    terrains = _terrains(objects)

    written: list[str] = []
    formats = tuple(f for f in ("fbx", "glb") if getattr(spec, f))
    parts = (
        ["formats"] * bool(formats)
        + ["relief"] * bool(spec.preview and terrains)
        + [f"heightmap {i}" for i in range(len(terrains)) if spec.heightmap_raw]
        + ["render"] * bool(spec.render and objects)
    )

    def share(part):
        """The progress of ``part`` (its own ``done`` of ``total``) on the rising line of all parts."""
        k, steps = parts.index(part), SECTION_STEPS * len(parts)

        def tell(done, total, what):
            if progress is not None:
                progress(k * SECTION_STEPS + min(SECTION_STEPS, SECTION_STEPS * done // max(total, 1)), steps, what)

        return tell

    levels = [o for o in objects if is_level(o)]
    check_level_transforms(levels)
    if formats:
        with level_kits_as_objects(levels):
            written += export.export_unity(
                objects,
                os.path.join(folder, f"{name}.fbx"),
                formats=formats,
                per_object=spec.per_object,
                progress=share("formats"),
            )
    for root, stem in zip(levels, level_stems(levels)):
        for file_name, data in bridge_levels.level_files(root, stem).items():
            path = os.path.join(folder, file_name)
            if path in written:
                raise ExportError(f"level {root.name!r} would overwrite {file_name}; rename the level")
            with writing(path):
                core_unity.write_bytes_atomic(path, data)
            written.append(path)
    for root in bridge_ecosystem.ecosystems_among(objects):  # its files (names fixed: one ecosystem a folder)
        for file_name, data in bridge_ecosystem.ecosystem_files(root, name).items():
            path = os.path.join(folder, file_name)
            if path in written:
                raise ExportError(
                    f"ecosystem {root.name!r} would overwrite {file_name}: export one ecosystem at a time"
                )
            with writing(path):
                core_unity.write_bytes_atomic(path, data)
            written.append(path)
    scatters = _scatters(objects)
    path = os.path.join(folder, f"{name}_placements.json")
    if spec.placements and scatters and path not in written:  # a prop-library export wrote it already
        with writing(path):
            written.append(placements.write_placement_file(scatters, path))
    for i, root in enumerate(terrains):  # <name>_settlements.json of each settled terrain
        if bridge_settlements.settlements_of(root) is None:
            continue
        found = (layers or {}).get(root.name) or bridge_layers.layers_for(bridge_terrain.stored_recipe(root))
        stem = name if len(terrains) == 1 else f"{name}_{i}"
        t = root.matrix_world.translation  # the file follows the terrain's place
        offset = (float(t.x), float(t.y), float(t.z))
        files = bridge_settlements.settlements_files(found, name=stem, blender_offset=offset) if found else {}
        for file_name, data in files.items():
            path = os.path.join(folder, file_name)
            with writing(path):
                core_unity.write_bytes_atomic(path, data)
            written.append(path)
    # the terrain JSON lists the placement file (tree instances) when one goes beside it
    placements_name = os.path.basename(path) if path in written or os.path.isfile(path) else None
    for i, root in enumerate(terrains):
        recipe = bridge_terrain.stored_recipe(root)
        terrain_spec = recipe.terrain
        known = _heights_of(root, heights) if spec.preview and i == 0 or spec.heightmap_raw else None
        if spec.preview and i == 0:
            share("relief")(0, 1, f"writing {relief_file}")
            path = os.path.join(folder, relief_file)
            with writing(path):
                written.append(_relief(known, terrain_spec, path, colours=terrain_export.layer_colours(root)))
        if spec.heightmap_raw:
            assert known is not None  # worked out above whenever spec.heightmap_raw
            stem = name if len(terrains) == 1 else f"{name}_{i}"
            share(f"heightmap {i}")(0, 1, f"writing {stem}_heightmap.raw and the terrain package")
            written += write_unity_heightmap(
                known,
                terrain_spec,
                folder,
                stem,
                blender_centre=tuple(root.matrix_world.translation),  # type: ignore[arg-type]  # a Vector iterates (stubs: no __iter__)
            )
            terrain_layers = (layers or {}).get(root.name) or bridge_layers.layers_for(recipe)
            details = bridge_scatter.terrain_detail_layers(root, heights=known, layers=terrain_layers)
            if terrain_layers is None and details:  # a plain terrain with grass: the package for its details
                terrain_layers = core_terrain.TerrainLayers(heights=known)
            if terrain_layers is not None:  # the Unity terrain package beside the RAW
                files = bridge_layers.package_files(
                    terrain_layers,
                    recipe,
                    stem,
                    details=details,
                    placements=placements_name,
                    blender_centre=tuple(root.matrix_world.translation),  # type: ignore[arg-type]  # a Vector iterates (stubs: no __iter__)
                )
                for file_name, data in files.items():
                    path = os.path.join(folder, file_name)
                    with writing(path):
                        core_unity.write_bytes_atomic(path, data)
                    written.append(path)
        if bridge_layers.has_networks(recipe):  # the rivers' and roads' files, whatever else is written
            stem = name if len(terrains) == 1 else f"{name}_{i}"
            network_layers = (layers or {}).get(root.name) or bridge_layers.layers_for(recipe)
            t = root.matrix_world.translation
            centre = (float(t.x), float(t.y), float(t.z))  # as the placements and the heightmap: x, y and z
            for file_name, data in core_terrain.network_files(network_layers, stem, centre=centre).items():
                path = os.path.join(folder, file_name)
                with writing(path):
                    core_unity.write_bytes_atomic(path, data)
                written.append(path)
    if spec.render and objects:
        share("render")(0, 1, f"rendering {render_file}")
        scene = scene or cast(bpy.types.Scene, bpy.context.scene)
        path = os.path.join(folder, render_file)
        try:
            written.append(render.render_world(scene, terrains[:1] or objects, path))
            share("render")(1, 1, f"rendered {render_file}")
        except render.RenderError as err:  # a machine without OpenGL still gets every other file
            print(f"worldseed: warning: {err}", file=sys.stderr)
    return written
