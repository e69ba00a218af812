"""Materials whose colours reach Unity and glTF viewers, not only Blender's renderers.

Blender's FBX and glTF exporters carry a material's Base Color when it is a
constant (FBX: its diffuse colour; glTF: ``baseColorFactor``, also through a
Multiply by a constant) and a colour attribute the Base Color reads (glTF:
``COLOR_0``; FBX always writes colour attributes), but not what procedural
nodes compute (noise, colour ramps, height and slope).  So:

* the terrain is coloured per vertex: :func:`set_shading_properties` writes
  the height-and-slope palette colours of ``core.palette`` into the colour
  attribute :data:`TERRAIN_COLOURS` of each terrain mesh (8-bit sRGB, per
  vertex), and the terrain material's Base Color reads it.  Its unlinked
  Base Color value, the palette's forest colour, is the FBX diffuse colour
  (Unity's built-in shaders ignore vertex colours);
* bark and rock multiply their constant colour by a grey noise pattern
  (Mix, Multiply): Blender shows the pattern, the exporters the colour.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, cast

import bpy
import numpy as np
import numpy.typing as npt

from ...core import palette as core_palette
from ...core import preview as core_preview
from ...core.errors import ParameterError
from .mesh import bulk, mesh_of

if TYPE_CHECKING:
    from ...core.splat import SplatSpec
    from ...core.terrain import TerrainSpec
    from ...core.trees import TreeSpec


HEIGHT_KEY = "worldseed_height"
SEA_KEY = "worldseed_sea_level"
SCALE_KEY = "worldseed_palette_scale"
MATERIAL_PREFIX = "Worldseed Terrain"
#: The colour attribute of terrain meshes that the terrain material reads.
TERRAIN_COLOURS = "worldseed_colour"
#: On a material: the version of the node set-up; an older set-up is rebuilt on first use.
VERSION_KEY = "worldseed_material_version"
MATERIAL_VERSION = 2


def material_name(palette: str) -> str:
    return MATERIAL_PREFIX if palette == "temperate" else f"{MATERIAL_PREFIX} ({palette.title()})"


def is_terrain_material(material: bpy.types.Material | None) -> bool:
    return material is not None and material.name.startswith(MATERIAL_PREFIX)


def set_shading_properties(obj: bpy.types.Object, spec: TerrainSpec) -> None:
    """The terrain's shading data: height, sea level and palette scale as object properties (the
    preview render reads them) and, on a mesh, the vertex colours the terrain material shows
    (:func:`write_terrain_colours`) when ``spec`` (a :class:`core.terrain.TerrainSpec`) asks for it."""
    obj[HEIGHT_KEY] = spec.height
    obj[SEA_KEY] = spec.sea_level
    obj[SCALE_KEY] = core_palette.palette_scale(spec.height)
    if obj.type == "MESH" and spec.material:
        write_terrain_colours(mesh_of(obj), height=spec.height, sea_level=spec.sea_level, palette=spec.palette)


def terrain_colours_of(me: bpy.types.Mesh, *, height: float, sea_level: float, palette: str) -> npt.NDArray[np.float32]:
    """sRGB RGBA float32 (n_vertices, 4): the palette colour of each vertex of the terrain mesh ``me``,
    by its height (object-space z over ``height`` metres) and the slope of its normal."""
    n = len(me.vertices)
    co = np.empty(n * 3, np.float32)
    bulk(me.attributes["position"]).foreach_get("vector", co)
    normals = np.empty(n * 3, np.float32)
    me.vertex_normals.foreach_get("vector", normals)
    slope = np.degrees(np.arccos(np.clip(normals[2::3], -1.0, 1.0)))
    rgba = np.ones((n, 4), np.float32)
    rgba[:, :3] = core_palette.terrain_colours(
        co[2::3] / np.float32(height if height > 0 else 1.0),
        height_m=height,
        slope_degrees=slope,
        sea_level=sea_level,
        palette=palette,
    )
    return rgba


def write_terrain_colours(
    me: bpy.types.Mesh, *, height: float, sea_level: float, palette: str, name: str = TERRAIN_COLOURS
) -> bpy.types.Attribute:
    """Write the palette colours (:func:`terrain_colours_of`) into the 8-bit point colour attribute
    ``name`` of ``me`` (made, or remade if of another kind); returns it.  :data:`TERRAIN_COLOURS`
    becomes the render colour (what the FBX and glTF exporters pick)."""
    attr = me.color_attributes.get(name)
    if attr is not None and (attr.domain != "POINT" or attr.data_type != "BYTE_COLOR"):
        me.color_attributes.remove(attr)
        attr = None
    if attr is None:
        attr = me.color_attributes.new(name, "BYTE_COLOR", "POINT")
    # sRGB straight into the bytes: twice as fast as linear "color", which Blender converts
    bulk(attr).foreach_set(
        "color_srgb", terrain_colours_of(me, height=height, sea_level=sea_level, palette=palette).ravel()
    )
    if name == TERRAIN_COLOURS:
        me.color_attributes.render_color_index = me.color_attributes.find(name)
        me.color_attributes.active_color = me.color_attributes[name]
    return attr


def linear_rgba(rgb: npt.ArrayLike) -> tuple[float, ...]:
    """A palette colour (sRGB) as the linear RGBA Blender's material colours hold."""
    return (*(float(c) for c in core_palette.srgb_to_linear(rgb)), 1.0)


def _node_material(name: str, build: Callable[[bpy.types.Material, bpy.types.Node], None]) -> bpy.types.Material:
    """The material ``name``, made by ``build(material)``; a material of that name from an older
    version of Worldseed gets its nodes rebuilt (its users keep it)."""
    mat = bpy.data.materials.get(name)
    if mat is not None and mat.get(VERSION_KEY) == MATERIAL_VERSION:
        return mat
    if mat is None:
        mat = bpy.data.materials.new(name)
    if mat.node_tree is None:  # Blender before 5.0 makes materials without nodes
        mat.use_nodes = True
    tree = cast("bpy.types.ShaderNodeTree", mat.node_tree)  # made just above when missing
    nodes = tree.nodes
    for node in list(nodes):
        nodes.remove(node)
    output = nodes.new("ShaderNodeOutputMaterial")
    bsdf = nodes.new("ShaderNodeBsdfPrincipled")
    output.location, bsdf.location = (300, 300), (0, 300)
    tree.links.new(bsdf.outputs["BSDF"], output.inputs["Surface"])
    build(mat, bsdf)
    mat[VERSION_KEY] = MATERIAL_VERSION
    return mat


def terrain_material(palette: str = "temperate") -> bpy.types.Material:
    """The terrain material for ``palette`` (created once per file): Base Color = the mesh's
    :data:`TERRAIN_COLOURS` attribute; the unlinked value (FBX diffuse) the palette's forest colour."""
    pal = core_palette.PALETTES[palette]
    average = linear_rgba(pal.stops[min(2, len(pal.stops) - 1)][1])

    def build(mat, bsdf):
        mat.diffuse_color = average
        mat.roughness = 0.9
        bsdf.inputs["Base Color"].default_value = average
        bsdf.inputs["Roughness"].default_value = 0.92
        colours = mat.node_tree.nodes.new("ShaderNodeVertexColor")
        colours.layer_name = TERRAIN_COLOURS
        colours.location = (-300, 300)
        mat.node_tree.links.new(colours.outputs["Color"], bsdf.inputs["Base Color"])

    return _node_material(material_name(palette), build)


# --------------------------------------------------------------------------- trees and props


def _rgba(rgb: Iterable[float]) -> tuple[float, ...]:
    return (*(float(c) for c in rgb), 1.0)


def _plain(mat, bsdf, rgb, *, roughness, two_sided=False):
    """Principled settings of a material of colour ``rgb`` (also its viewport colour)."""
    mat.diffuse_color = _rgba(rgb)
    mat.roughness = roughness
    mat.use_backface_culling = not two_sided
    bsdf.inputs["Base Color"].default_value = _rgba(rgb)
    bsdf.inputs["Roughness"].default_value = roughness


def bark_material(name: str, rgb: Sequence[float]) -> bpy.types.Material:
    """Bark (and rock): ``rgb`` times a grey pattern of stretched noise along the branches (UV v runs
    along them), 0.45 to 1.35 times the colour.  The exporters see the Multiply's constant, ``rgb``."""

    def build(mat, bsdf):
        _plain(mat, bsdf, rgb, roughness=0.9)
        nodes, links = mat.node_tree.nodes, mat.node_tree.links
        uv = nodes.new("ShaderNodeTexCoord")
        stretch = nodes.new("ShaderNodeMapping")
        stretch.inputs["Scale"].default_value = (8.0, 1.5, 1.0)
        links.new(uv.outputs["UV"], stretch.inputs["Vector"])
        noise = nodes.new("ShaderNodeTexNoise")
        noise.inputs["Scale"].default_value = 4.0
        noise.inputs["Detail"].default_value = 6.0
        links.new(stretch.outputs["Vector"], noise.inputs["Vector"])
        ramp = nodes.new("ShaderNodeValToRGB")
        elements = ramp.color_ramp.elements
        elements[0].position, elements[0].color = 0.35, (0.45, 0.45, 0.45, 1.0)
        elements[1].position, elements[1].color = 0.65, (1.35, 1.35, 1.35, 1.0)
        links.new(noise.outputs["Fac"], ramp.inputs["Fac"])
        multiply = nodes.new("ShaderNodeMix")
        multiply.data_type = "RGBA"
        multiply.blend_type = "MULTIPLY"
        multiply.clamp_result = True
        multiply.inputs["Factor"].default_value = 1.0
        multiply.inputs[6].default_value = _rgba(rgb)  # A: the constant colour the exporters carry
        links.new(ramp.outputs["Color"], multiply.inputs[7])  # B: the pattern
        links.new(multiply.outputs[2], bsdf.inputs["Base Color"])
        for i, node in enumerate((uv, stretch, noise, ramp, multiply)):
            node.location = (-1200 + 220 * i, 300)

    return _node_material(name, build)


def leaf_material(name: str, rgb: Sequence[float]) -> bpy.types.Material:
    """Leaves: two-sided and a little translucent."""

    def build(mat, bsdf):
        _plain(mat, bsdf, rgb, roughness=0.6, two_sided=True)
        for key in ("Transmission Weight", "Transmission"):  # 4.x+ / 3.x name
            if key in bsdf.inputs:
                bsdf.inputs[key].default_value = 0.15
                break

    return _node_material(name, build)


def plain_material(name: str, rgb: Sequence[float], *, roughness: float = 0.8) -> bpy.types.Material:
    """A plain material of colour ``rgb`` (sRGB), made once (the networks' water, roads and decks)."""
    return _node_material(name, lambda mat, bsdf: _plain(mat, bsdf, rgb, roughness=roughness))


def billboard_material(name: str, rgb: Sequence[float]) -> bpy.types.Material:
    """The far-LOD billboard: the leaf colour, two-sided."""
    return _node_material(name, lambda mat, bsdf: _plain(mat, bsdf, rgb, roughness=0.8, two_sided=True))


def tree_materials(spec: TreeSpec) -> tuple[bpy.types.Material, bpy.types.Material, bpy.types.Material]:
    """Bark, leaf and billboard materials of a species, shared by all its trees (one per file)."""
    base = spec.name.split(".")[0]
    return (
        bark_material(f"{base}_Bark", spec.bark_colour),
        leaf_material(f"{base}_Leaves", spec.leaf_colour),
        billboard_material(f"{base}_Billboard", spec.leaf_colour),
    )


# --------------------------------------------------------------------------- splat layers

#: The terrain's splat material: ``Worldseed Terrain Splat <terrain>`` (a terrain material: a rebuild
#: replaces it, an artist's own material stays).
SPLAT_MATERIAL = f"{MATERIAL_PREFIX} Splat"
#: On a splat image: which terrain and which image (0, 1, ...) it holds.
SPLAT_IMAGE_KEY = "worldseed_splat"


def splat_image(name: str, pixels: npt.ArrayLike) -> bpy.types.Image:
    """An RGBA8 image ``name`` holding ``pixels`` ((h, w, 4) uint8, row 0 at the bottom as Blender's
    images and the terrain's UV v run), Non-Color (no sRGB curve: the weights are data), alpha kept
    as a channel of its own, packed into the .blend.  An image of that name is replaced."""
    pixels = np.ascontiguousarray(pixels, dtype=np.uint8)
    h, w, channels = pixels.shape
    if channels != 4:
        raise ValueError(f"splat pixels must be (h, w, 4), got {pixels.shape}")
    old = bpy.data.images.get(name)
    if old is not None:
        old.name = name + ".old"
    image = bpy.data.images.new(name, w, h, alpha=True, float_buffer=False)
    image.colorspace_settings.name = "Non-Color"  # type: ignore[union-attr]  # an image always has them
    image.alpha_mode = "CHANNEL_PACKED"
    # fake-bpy-module types Image.pixels as a float: it is a float array
    image.pixels.foreach_set((pixels.astype(np.float32) * np.float32(1.0 / 255.0)).ravel())  # type: ignore[attr-defined]
    image.pack()
    if old is not None:
        old.user_clear()
        bpy.data.images.remove(old)
    return image


#: Suffix of a splat image made ahead of its material (a modal build makes one per step, so Esc
#: lands between them); :func:`splat_material` gives it its own name, a cancelled build removes it.
STAGED_SUFFIX = ".staged"


def staged_splat_image(name: str, pixels: npt.ArrayLike) -> bpy.types.Image:
    """A splat image (:func:`splat_image`) made under a name of its own (``name`` + :data:`STAGED_SUFFIX`),
    leaving any image ``name`` (an earlier build's, still in use) alone until
    :func:`splat_material` takes the new one (``images=``)."""
    return splat_image(name + STAGED_SUFFIX, pixels)


def _adopt(image: bpy.types.Image, name: str) -> bpy.types.Image:
    """``image`` (a staged splat image) named ``name``, the earlier image of that name removed."""
    if image.name == name:
        return image
    old = bpy.data.images.get(name)
    if old is not None:
        old.name = name + ".old"
    image.name = name
    if old is not None:
        old.user_clear()
        bpy.data.images.remove(old)
    return image


def splat_pixels(image: bpy.types.Image) -> npt.NDArray[np.uint8]:
    """An image's pixels as (h, w, 4) uint8 (what :func:`splat_image` was given)."""
    w, h = image.size
    px = np.empty(w * h * 4, np.float32)
    image.pixels.foreach_get(px)  # type: ignore[attr-defined]  # a float array, typed as a float
    return np.rint(px * 255.0).astype(np.uint8).reshape(h, w, 4)


def _layer_colour_node(nodes, links, layer, uv, *, size, index):
    """The colour of one splat layer: its texture tiled every ``tile_size`` metres, or its flat colour."""
    texture = getattr(layer, "texture", "") or ""
    colour = (*(float(c) for c in layer.color), 1.0)
    if texture:
        try:
            image = bpy.data.images.load(bpy.path.abspath(texture), check_existing=True)
        except RuntimeError:
            raise ParameterError(f"splat[{index}].texture {texture!r} cannot be read as an image") from None
        try:
            mean = image_mean_colour(image)
        except RuntimeError:  # an image Blender opens but cannot decode: its flat colour stands for it
            mean = colour[:3]
        tile = nodes.new("ShaderNodeMapping")
        repeat = float(size) / max(float(getattr(layer, "tile_size", size) or size), 1e-6)
        tile.inputs["Scale"].default_value = (repeat, repeat, 1.0)
        links.new(uv, tile.inputs["Vector"])
        node = nodes.new("ShaderNodeTexImage")
        node.image = image
        links.new(tile.outputs["Vector"], node.inputs["Vector"])
        node.label = getattr(layer, "name", f"layer {index}")
        return node.outputs["Color"], (tile, node), mean
    node = nodes.new("ShaderNodeRGB")
    node.outputs["Color"].default_value = colour
    node.label = getattr(layer, "name", f"layer {index}")
    return node.outputs["Color"], (node,), colour[:3]


def splat_material(
    name: str,
    packed: Sequence[npt.NDArray[np.uint8]],
    layers: Sequence[SplatSpec],
    *,
    size: float,
    images: Sequence[bpy.types.Image] | None = None,
) -> bpy.types.Material:
    """The terrain material that blends ``layers`` by the weights in ``packed``.

    ``packed``: core's packed splats (``core.splat.pack_splats``), a list of
    (h, w, 4) uint8 images, layer ``i`` in channel ``i % 4`` of image ``i //
    4`` (R, G, B, A); ``layers``: the :class:`core.splat.SplatSpec` of each
    layer (``name``, ``color`` linear RGB, ``texture`` a file or "",
    ``tile_size`` metres); ``size``: the terrain's side in metres; ``images``:
    the images of ``packed`` made already (:func:`staged_splat_image`, one
    per step of a modal build), renamed here.

    Each image becomes ``<name>_splat<k>`` (:func:`splat_image`), sampled at
    the terrain's UVs (which span the unit square) as Unity samples a
    Terrain's control textures: texel (i, j) covers
    ``[i / w, (i + 1) / w] x [j / h, (j + 1) / h]`` of the terrain; the Base
    Color is the sum over layers of weight x colour (the layer's texture, or
    its flat colour), as Unity's terrain shader blends its alphamaps.  The unlinked diffuse colour (what FBX carries) is
    the layers' colours weighted by their mean weights.
    """
    if len(layers) > 4 * len(packed):
        raise ValueError(f"{len(layers)} layers need {-(-len(layers) // 4)} splat images, got {len(packed)}")
    mat_name = f"{SPLAT_MATERIAL} {name}"
    mat = bpy.data.materials.get(mat_name) or bpy.data.materials.new(mat_name)
    if mat.node_tree is None:
        mat.use_nodes = True
    tree = cast("bpy.types.ShaderNodeTree", mat.node_tree)  # made just above when missing
    # a node's sockets are known by name at run time only: the stubs type nodes by their base class
    nodes: Any = tree.nodes
    links = tree.links
    for node in list(nodes):
        nodes.remove(node)
    output = nodes.new("ShaderNodeOutputMaterial")
    bsdf = nodes.new("ShaderNodeBsdfPrincipled")
    output.location, bsdf.location = (600, 300), (300, 300)
    links.new(bsdf.outputs["BSDF"], output.inputs["Surface"])
    bsdf.inputs["Roughness"].default_value = 0.92
    coords = nodes.new("ShaderNodeTexCoord")
    coords.location = (-1400, 300)
    uv = coords.outputs["UV"]
    weights = []
    for k, pixels in enumerate(packed):
        image_node = nodes.new("ShaderNodeTexImage")
        image_node.image = (
            splat_image(f"{name}_splat{k}", pixels) if images is None else _adopt(images[k], f"{name}_splat{k}")
        )
        image_node.image[SPLAT_IMAGE_KEY] = k
        image_node.interpolation = "Linear"
        image_node.extension = "EXTEND"
        links.new(uv, image_node.inputs["Vector"])
        split = nodes.new("ShaderNodeSeparateColor")
        links.new(image_node.outputs["Color"], split.inputs["Color"])
        weights += [split.outputs[0], split.outputs[1], split.outputs[2], image_node.outputs["Alpha"]]
        for j, node in enumerate((image_node, split)):
            node.location = (-1200 + 300 * j, 600 - 300 * k)
    total, means = None, []
    for i, layer in enumerate(layers):
        colour, made, mean = _layer_colour_node(nodes, links, layer, uv, size=size, index=i)
        means.append(mean)
        term = nodes.new("ShaderNodeVectorMath")
        term.operation = "SCALE"
        links.new(colour, term.inputs[0])
        links.new(weights[i], term.inputs["Scale"])
        for j, node in enumerate(made):
            node.location = (-700 + 200 * j, -300 - 220 * i)
        term.location = (-250, -300 - 220 * i)
        if total is None:
            total = term.outputs["Vector"]
            continue
        add = nodes.new("ShaderNodeVectorMath")
        add.operation = "ADD"
        add.location = (0, -300 - 220 * i)
        links.new(total, add.inputs[0])
        links.new(term.outputs["Vector"], add.inputs[1])
        total = add.outputs["Vector"]
    if total is not None:
        links.new(total, bsdf.inputs["Base Color"])
    shares = [float(p[..., c].mean()) / 255.0 for p in packed for c in range(4)][: len(layers)]
    average = np.zeros(3)
    for mean, weight in zip(means, shares):
        average += weight * np.asarray(mean, dtype=float)
    mat.diffuse_color = (*average.tolist(), 1.0)
    bsdf.inputs["Base Color"].default_value = (*average.tolist(), 1.0)
    mat.roughness = 0.9
    mat[VERSION_KEY] = MATERIAL_VERSION
    mat[LAYER_COLOURS_KEY] = [float(c) for mean in means for c in mean]
    return mat


# --------------------------------------------------------------------------- the ground's colours

#: On a splat material: each layer's linear RGB colour (its flat colour, or its texture's mean), flat.
LAYER_COLOURS_KEY = "worldseed_layer_colours"


def image_mean_colour(image: bpy.types.Image) -> tuple[float, ...]:
    """The mean linear RGB colour of an image (what its texture looks like from afar, mip-mapped):
    a tuple of three floats.  An sRGB image's values are decoded to linear light first."""
    w, h = image.size
    if w * h == 0:
        raise RuntimeError(f"image {image.name!r} has no pixels")
    channels = image.channels
    px = np.empty(w * h * channels, np.float32)
    image.pixels.foreach_get(px)  # type: ignore[attr-defined]  # a float array, typed as a float
    rgb = px.reshape(-1, channels)[:, :3] if channels >= 3 else np.repeat(px.reshape(-1, channels)[:, :1], 3, axis=1)
    if image.colorspace_settings.name == "sRGB" and not image.is_float:  # type: ignore[union-attr]  # an image always has them
        rgb = core_palette.srgb_to_linear(rgb)
    return tuple(float(c) for c in rgb.astype(np.float64).mean(axis=0))


def splat_images_of(material: bpy.types.Material | None) -> list[bpy.types.Image]:
    """The splat images of a splat material (:func:`splat_material`), in order (image 0 first)."""
    if material is None or material.node_tree is None:
        return []
    found = {}
    for node in material.node_tree.nodes:
        image = getattr(node, "image", None) if node.bl_idname == "ShaderNodeTexImage" else None
        if image is not None and SPLAT_IMAGE_KEY in image:
            found[int(image[SPLAT_IMAGE_KEY])] = image
    return [found[k] for k in sorted(found)]


def _grid_side(me):
    """The side of a square vertex grid mesh (a terrain LOD), or None."""
    n = len(me.vertices)
    side = int(round(n**0.5))
    return side if side >= 2 and side * side == n else None


def ground_colours(
    obj: bpy.types.Object, *, palette_of: Callable[[], tuple[float, float, str]] | None = None
) -> npt.NDArray[np.uint8] | None:
    """The colour of the ground of the terrain mesh object ``obj`` as Unity's terrain (and the
    exported mesh's texture) shows it: sRGB bytes ``(h, w, 3)`` uint8, row 0 at UV v = 0 (-Y),
    texel ``(i, j)`` covering ``[j / w, (j + 1) / w] x [i / h, (i + 1) / h]`` of the UV square;
    None for a mesh that is not a square grid (edited) without texture layers.

    * a splat material: its layers' colours (:data:`LAYER_COLOURS_KEY`) blended by the weights in
      its splat images (``core.preview.splat_colours``), at the alphamap's resolution;
    * otherwise the palette colours of the mesh's vertices (:data:`TERRAIN_COLOURS`, else worked out
      with ``palette_of()`` -> ``(height, sea_level, palette)``), each texel its cell's mean.
    """
    material = obj.active_material
    images = splat_images_of(material)
    colours = material.get(LAYER_COLOURS_KEY) if material is not None else None
    if images and colours is not None:
        layers = len(colours) // 3
        packed = [splat_pixels(image) for image in images]
        weights = np.concatenate([p.transpose(2, 0, 1) for p in packed])[:layers]
        linear = core_preview.splat_colours(weights, np.asarray(colours, np.float32).reshape(layers, 3))
        return core_preview.srgb_bytes(linear)
    me = mesh_of(obj)
    side = _grid_side(me)
    if side is None:
        return None
    attr = me.color_attributes.get(TERRAIN_COLOURS)
    if attr is not None and attr.domain == "POINT" and attr.data_type == "BYTE_COLOR":
        srgb = np.empty(len(me.vertices) * 4, np.float32)
        attr.data.foreach_get("color_srgb", srgb)
        rgb = srgb.reshape(-1, 4)[:, :3]
    elif palette_of is not None:
        height, sea_level, palette = palette_of()
        rgb = terrain_colours_of(me, height=height, sea_level=sea_level, palette=palette)[:, :3]
    else:
        return None
    cells = core_preview.cell_colours(rgb.reshape(side, side, 3))
    return np.rint(np.clip(cells, 0.0, 1.0) * np.float32(255.0)).astype(np.uint8)
