"""Materials in Blender: the terrain's vertex colours follow the mesh, older materials are brought up to date."""

import bpy
import numpy as np

from worldseed.core import palette as core_palette
from worldseed.core import recipe as core_recipe
from worldseed.operators.bridge import materials
from worldseed.operators.bridge import terrain as bridge_terrain


def _colours(me):
    attr = me.color_attributes[materials.TERRAIN_COLOURS]
    rgba = np.empty(len(me.vertices) * 4, np.float32)
    attr.data.foreach_get("color_srgb", rgba)
    return rgba.reshape(-1, 4)


def _water_share(me, palette="temperate"):
    water = np.asarray(core_palette.PALETTES[palette].water, np.float32)
    return float((np.abs(_colours(me)[:, :3] - water).max(axis=1) < 2 / 255).mean())


def test_terrain_colours_are_the_palette_and_follow_a_rebuild(empty_scene, small_recipe):
    recipe = core_recipe.replace(small_recipe, terrain_sea_level=0.0)
    root = bridge_terrain.build_terrain(recipe, collection=empty_scene.collection)
    me = root.data
    assert me.color_attributes.active_color_name == materials.TERRAIN_COLOURS
    assert me.color_attributes[materials.TERRAIN_COLOURS].data_type == "BYTE_COLOR"
    spec = recipe.terrain
    want = materials.terrain_colours_of(me, height=spec.height, sea_level=spec.sea_level, palette=spec.palette)
    assert np.abs(_colours(me) - want).max() <= 1 / 255 + 1e-6  # 8-bit sRGB
    assert _water_share(me) == 0.0
    # rebuilt in place with a sea: the same object gets new colours, with water
    wet = core_recipe.replace(recipe, terrain_sea_level=0.5)
    again = bridge_terrain.build_terrain(wet, collection=empty_scene.collection, replace=root)
    assert again == root
    assert _water_share(root.data) > 0.2
    mat = root.data.materials[0]
    (node,) = [n for n in mat.node_tree.nodes if n.type == "VERTEX_COLOR"]
    assert node.layer_name == materials.TERRAIN_COLOURS
    assert node.outputs["Color"].links[0].to_socket.name == "Base Color"


def test_an_older_worldseed_material_is_brought_up_to_date(empty_scene):
    """A file from before the exporters saw the colours: same material (its users keep it), new nodes."""
    old_terrain = bpy.data.materials.new(materials.material_name("temperate"))
    old_bark = bpy.data.materials.new("Oak_Bark")
    for mat in (old_terrain, old_bark):
        if mat.node_tree is None:
            mat.use_nodes = True
    me = bpy.data.meshes.new("user")
    me.materials.append(old_terrain)
    terrain = materials.terrain_material("temperate")
    bark = materials.bark_material("Oak_Bark", (0.2, 0.1, 0.05))
    assert terrain == old_terrain and bark == old_bark and me.materials[0] == terrain
    assert terrain[materials.VERSION_KEY] == bark[materials.VERSION_KEY] == materials.MATERIAL_VERSION
    assert any(n.type == "VERTEX_COLOR" for n in terrain.node_tree.nodes)
    # bark keeps its pattern in Blender (Base Color is linked) behind the constant the exporters read
    bsdf = next(n for n in bark.node_tree.nodes if n.type == "BSDF_PRINCIPLED")
    mix = bsdf.inputs["Base Color"].links[0].from_node
    assert (mix.type, mix.blend_type) == ("MIX", "MULTIPLY")
    assert np.allclose(mix.inputs[6].default_value, (0.2, 0.1, 0.05, 1.0))
    assert mix.inputs[7].is_linked
    # asked again: the same material, not rebuilt
    nodes = len(bark.node_tree.nodes)
    assert materials.bark_material("Oak_Bark", (0.9, 0.9, 0.9)) == bark and len(bark.node_tree.nodes) == nodes
