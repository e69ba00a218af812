"""The height-and-slope terrain material, one per palette, shared by every terrain.

Height comes from object-space Z divided by the object's ``worldseed_height``
property, mapped onto the palette from the object's ``worldseed_sea_level``
upwards and scaled by ``worldseed_palette_scale`` (see ``core.palette``), so
one material serves terrains of any height. Slopes steeper than
``core.palette.ROCK_SLOPE`` turn to rock and heights at or below the sea
level to water. It shows in Material Preview and Rendered shading and
exports to Unity as a plain material slot.
"""

import bpy
import numpy as np

from ...core import palette as core_palette

HEIGHT_KEY = "worldseed_height"
SEA_KEY = "worldseed_sea_level"
SCALE_KEY = "worldseed_palette_scale"
MATERIAL_PREFIX = "Worldseed Terrain"


def material_name(palette):
    return MATERIAL_PREFIX if palette == "temperate" else f"{MATERIAL_PREFIX} ({palette.title()})"


def is_terrain_material(material):
    return material is not None and material.name.startswith(MATERIAL_PREFIX)


def set_shading_properties(obj, spec):
    """The object properties the material reads."""
    obj[HEIGHT_KEY] = spec.height
    obj[SEA_KEY] = spec.sea_level
    obj[SCALE_KEY] = core_palette.palette_scale(spec.height)


def linear_rgba(rgb):
    """A palette colour (sRGB) as the linear RGBA Blender's material colours hold."""
    return (*(float(c) for c in core_palette.srgb_to_linear(rgb)), 1.0)


def _object_attribute(nodes, name):
    node = nodes.new("ShaderNodeAttribute")
    node.attribute_type = "OBJECT"
    node.attribute_name = name
    return node


def _math(nodes, operation, clamp=False):
    node = nodes.new("ShaderNodeMath")
    node.operation = operation
    node.use_clamp = clamp
    return node


def _mix_colour(nodes, links, factor, a, b_rgb):
    node = nodes.new("ShaderNodeMix")
    node.data_type = "RGBA"
    links.new(factor, node.inputs["Factor"])
    links.new(a, node.inputs[6])
    node.inputs[7].default_value = linear_rgba(b_rgb)
    return node


def terrain_material(palette="temperate"):
    """The terrain material for ``palette`` (created once per file)."""
    name = material_name(palette)
    mat = bpy.data.materials.get(name)
    if mat is not None:
        return mat
    pal = core_palette.PALETTES[palette]
    mat = bpy.data.materials.new(name)
    if mat.node_tree is None:  # Blender before 5.0 makes materials without nodes
        mat.use_nodes = True
    mat.diffuse_color = linear_rgba(pal.stops[min(2, len(pal.stops) - 1)][1])
    mat.roughness = 0.9
    tree = mat.node_tree
    nodes, links = tree.nodes, tree.links
    bsdf = nodes.get("Principled BSDF")
    bsdf.inputs["Roughness"].default_value = 0.92
    # relative height = object-space z / height
    coords = nodes.new("ShaderNodeTexCoord")
    split = nodes.new("ShaderNodeSeparateXYZ")
    links.new(coords.outputs["Object"], split.inputs["Vector"])
    rel = _math(nodes, "DIVIDE", clamp=True)
    links.new(split.outputs["Z"], rel.inputs[0])
    links.new(_object_attribute(nodes, HEIGHT_KEY).outputs["Fac"], rel.inputs[1])
    # land fraction = (rel - sea) / (1 - sea) * palette scale
    sea = _object_attribute(nodes, SEA_KEY)
    land = nodes.new("ShaderNodeMapRange")
    links.new(rel.outputs[0], land.inputs["Value"])
    links.new(sea.outputs["Fac"], land.inputs["From Min"])
    scaled = _math(nodes, "MULTIPLY", clamp=True)
    links.new(land.outputs["Result"], scaled.inputs[0])
    links.new(_object_attribute(nodes, SCALE_KEY).outputs["Fac"], scaled.inputs[1])
    ramp = nodes.new("ShaderNodeValToRGB")
    elements = ramp.color_ramp.elements
    elements[0].position, elements[0].color = pal.stops[0][0], linear_rgba(pal.stops[0][1])
    elements[1].position, elements[1].color = pal.stops[-1][0], linear_rgba(pal.stops[-1][1])
    for pos, rgb in pal.stops[1:-1]:
        elements.new(pos).color = linear_rgba(rgb)
    links.new(scaled.outputs[0], ramp.inputs["Fac"])
    # rock where the world normal's z (cos of the slope) is below cos(ROCK_SLOPE[0])
    geometry = nodes.new("ShaderNodeNewGeometry")
    normal_z = nodes.new("ShaderNodeSeparateXYZ")
    links.new(geometry.outputs["Normal"], normal_z.inputs["Vector"])
    rock_t = nodes.new("ShaderNodeMapRange")
    lo, hi = (float(np.cos(np.radians(a))) for a in core_palette.ROCK_SLOPE[::-1])
    rock_t.inputs["From Min"].default_value = lo
    rock_t.inputs["From Max"].default_value = hi
    rock_t.inputs["To Min"].default_value = 1.0
    rock_t.inputs["To Max"].default_value = 0.0
    links.new(normal_z.outputs["Z"], rock_t.inputs["Value"])
    rock = _mix_colour(nodes, links, rock_t.outputs["Result"], ramp.outputs["Color"], pal.rock)
    # water at or below the sea level
    sea_eps = _math(nodes, "ADD")
    links.new(sea.outputs["Fac"], sea_eps.inputs[0])
    sea_eps.inputs[1].default_value = 1e-4
    below = _math(nodes, "LESS_THAN")
    links.new(rel.outputs[0], below.inputs[0])
    links.new(sea_eps.outputs[0], below.inputs[1])
    water = _mix_colour(nodes, links, below.outputs[0], rock.outputs[2], pal.water)
    links.new(water.outputs[2], bsdf.inputs["Base Color"])
    for i, node in enumerate(n for n in nodes if n not in (bsdf, nodes.get("Material Output"))):
        node.location = (-1400 + 180 * (i % 8), 400 - 260 * (i // 8))
    return mat


# --------------------------------------------------------------------------- trees and props


def _rgba(rgb):
    return (*(float(c) for c in rgb), 1.0)


def _new_material(name, rgb, *, roughness, two_sided=False):
    """A Principled material of colour ``rgb`` (also its viewport colour); returns (material, BSDF node)."""
    mat = bpy.data.materials.new(name)
    if mat.node_tree is None:  # Blender before 5.0 makes materials without nodes
        mat.use_nodes = True
    bsdf = mat.node_tree.nodes.get("Principled BSDF")
    mat.diffuse_color = _rgba(rgb)
    mat.roughness = roughness
    mat.use_backface_culling = not two_sided
    bsdf.inputs["Base Color"].default_value = _rgba(rgb)
    bsdf.inputs["Roughness"].default_value = roughness
    return mat, bsdf


def bark_material(name, rgb):
    """Bark: the colour broken up by stretched noise along the branches (UV v runs along them)."""
    mat = bpy.data.materials.get(name)
    if mat is not None:
        return mat
    mat, bsdf = _new_material(name, rgb, roughness=0.9)
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
    dark = tuple(0.45 * c for c in rgb)
    light = tuple(min(1.0, 1.35 * c) for c in rgb)
    ramp.color_ramp.elements[0].position, ramp.color_ramp.elements[0].color = 0.35, _rgba(dark)
    ramp.color_ramp.elements[1].position, ramp.color_ramp.elements[1].color = 0.65, _rgba(light)
    links.new(noise.outputs["Fac"], ramp.inputs["Fac"])
    links.new(ramp.outputs["Color"], bsdf.inputs["Base Color"])
    for i, node in enumerate((uv, stretch, noise, ramp)):
        node.location = (-1000 + 220 * i, 300)
    return mat


def leaf_material(name, rgb):
    """Leaves: two-sided and a little translucent."""
    mat = bpy.data.materials.get(name)
    if mat is not None:
        return mat
    mat, bsdf = _new_material(name, rgb, roughness=0.6, two_sided=True)
    for key in ("Transmission Weight", "Transmission"):  # 4.x+ / 3.x name
        if key in bsdf.inputs:
            bsdf.inputs[key].default_value = 0.15
            break
    return mat


def billboard_material(name, rgb):
    """The far-LOD billboard: the leaf colour, two-sided."""
    mat = bpy.data.materials.get(name)
    return mat if mat is not None else _new_material(name, rgb, roughness=0.8, two_sided=True)[0]


def tree_materials(spec):
    """Bark, leaf and billboard materials of a species, shared by all its trees (one per file)."""
    base = spec.name.split(".")[0]
    return (
        bark_material(f"{base}_Bark", spec.bark_colour),
        leaf_material(f"{base}_Leaves", spec.leaf_colour),
        billboard_material(f"{base}_Billboard", spec.leaf_colour),
    )
