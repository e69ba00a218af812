"""The terrain's splat material: the packed weights as Non-Color images in the .blend, blended per layer."""

import types

import bpy
import numpy as np
import pytest

from worldseed.operators.bridge import materials


def _layers(n):
    colours = [(0.8, 0.7, 0.4), (0.1, 0.5, 0.1), (0.4, 0.4, 0.4), (0.9, 0.9, 0.95), (0.2, 0.3, 0.6)]
    return [types.SimpleNamespace(name=f"L{i}", color=colours[i], texture="", tile_size=10.0) for i in range(n)]


def _packed(n_layers, h, w, seed=3):
    """Random weights packed as core packs them: R, G, B, A then the next image, summing to 255."""
    rng = np.random.default_rng(seed)
    cuts = np.sort(rng.integers(0, 256, (h, w, n_layers - 1)), axis=-1)
    bounds = np.concatenate([np.zeros((h, w, 1), int), cuts, np.full((h, w, 1), 255)], axis=-1)
    weights = np.diff(bounds, axis=-1).astype(np.uint8)
    images = -(-n_layers // 4)
    out = np.zeros((h, w, 4 * images), np.uint8)
    out[..., :n_layers] = weights
    return [out[..., 4 * k : 4 * k + 4].copy() for k in range(images)]


def test_splat_images_hold_the_packed_weights_exactly_and_travel_in_the_blend(empty_scene, tmp_path):
    packed = _packed(5, 17, 17)
    mat = materials.splat_material("Isle", packed, _layers(5), size=64.0)
    images = [n.image for n in mat.node_tree.nodes if n.type == "TEX_IMAGE"]
    assert [i.name for i in images] == ["Isle_splat0", "Isle_splat1"]
    for image, pixels in zip(images, packed):
        assert image.colorspace_settings.name == "Non-Color" and image.packed_file is not None
        np.testing.assert_array_equal(materials.splat_pixels(image), pixels)
    mat.use_fake_user = True
    path = str(tmp_path / "splat.blend")
    bpy.ops.wm.save_as_mainfile(filepath=path)
    bpy.ops.wm.read_homefile(use_empty=True)
    bpy.ops.wm.open_mainfile(filepath=path)
    for k, pixels in enumerate(packed):
        image = bpy.data.images[f"Isle_splat{k}"]
        assert image.packed_file is not None and image.colorspace_settings.name == "Non-Color"
        np.testing.assert_array_equal(materials.splat_pixels(image), pixels)


def test_base_colour_is_the_weighted_sum_of_the_layer_colours(empty_scene):
    layers = _layers(5)
    mat = materials.splat_material("Isle", _packed(5, 9, 9), layers, size=64.0)
    nodes = mat.node_tree.nodes
    bsdf = next(n for n in nodes if n.type == "BSDF_PRINCIPLED")
    assert bsdf.inputs["Base Color"].is_linked
    scales = [n for n in nodes if n.type == "VECT_MATH" and n.operation == "SCALE"]
    assert len(scales) == 5
    for i, node in enumerate(scales):  # layer i: its flat colour times channel i % 4 of image i // 4
        colour = node.inputs[0].links[0].from_node
        assert colour.type == "RGB" and tuple(colour.outputs[0].default_value)[:3] == tuple(np.float32(layers[i].color))
        weight = node.inputs["Scale"].links[0].from_socket
        source = weight.node
        if i % 4 == 3:
            assert source.type == "TEX_IMAGE" and weight.name == "Alpha"
        else:
            assert source.type == "SEPARATE_COLOR" and list(source.outputs).index(weight) == i % 4
            source = source.inputs["Color"].links[0].from_node
        assert source.image.name == f"Isle_splat{i // 4}"


def test_a_rebuild_replaces_the_images_without_leaving_old_ones(empty_scene):
    materials.splat_material("Isle", _packed(3, 9, 9, seed=1), _layers(3), size=64.0)
    packed = _packed(3, 9, 9, seed=2)
    mat = materials.splat_material("Isle", packed, _layers(3), size=64.0)
    assert sorted(i.name for i in bpy.data.images) == ["Isle_splat0"]
    assert len([m for m in bpy.data.materials if m.name.startswith(materials.SPLAT_MATERIAL)]) == 1
    np.testing.assert_array_equal(materials.splat_pixels(bpy.data.images["Isle_splat0"]), packed[0])
    assert materials.is_terrain_material(mat)


def test_a_layer_with_a_texture_shows_it_tiled_every_tile_size_metres(empty_scene, tmp_path):
    from worldseed.core import preview

    path = tmp_path / "rock.png"
    path.write_bytes(preview.png_bytes(np.full((4, 4, 3), 90, np.uint8)))
    layers = _layers(2)
    layers[1].texture, layers[1].tile_size = str(path), 8.0
    mat = materials.splat_material("Isle", _packed(2, 9, 9), layers, size=64.0)
    textures = [n for n in mat.node_tree.nodes if n.type == "TEX_IMAGE" and n.image.filepath.endswith("rock.png")]
    assert len(textures) == 1
    mapping = textures[0].inputs["Vector"].links[0].from_node
    assert mapping.type == "MAPPING" and tuple(mapping.inputs["Scale"].default_value)[:2] == (8.0, 8.0)
    scale = next(
        n
        for n in mat.node_tree.nodes
        if n.type == "VECT_MATH"
        and n.operation == "SCALE"
        and n.inputs[0].is_linked
        and n.inputs[0].links[0].from_node == textures[0]
    )
    weight = scale.inputs["Scale"].links[0].from_socket  # layer 1: channel G of splat 0
    assert weight.node.type == "SEPARATE_COLOR" and list(weight.node.outputs).index(weight) == 1


def test_a_texture_that_cannot_be_read_is_one_message(empty_scene, tmp_path):
    from worldseed.core.errors import ParameterError

    layers = _layers(2)
    layers[1].texture = str(tmp_path / "missing.png")
    with pytest.raises(ParameterError, match=r"splat\[1\]\.texture .*missing\.png"):
        materials.splat_material("Isle", _packed(2, 9, 9), layers, size=64.0)
