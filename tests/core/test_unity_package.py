"""The Unity terrain package (core.unity_package): file bytes, the terrain JSON, and the asymmetric mark
followed through the RAW heightmap, the splat PNG and the placements in Unity's axes (the FBX side is
tests/blender/test_unity_package_fbx.py)."""

import json
import struct
import zlib

import numpy as np
import pytest

from core import recipe, scatter, splat, terrain, unity, unity_package
from core.errors import ParameterError
from core.steps import drive

SIZE, N, TOP = 128.0, 65, 40.0


def read_png(data):
    """(rows, cols[, channels]) uint8 of an 8-bit PNG written with filter 0 (core.preview.png_bytes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        tag, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        if tag == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif tag == b"IDAT":
            idat += body
        pos += 12 + length
    cols, rows, depth, colour = header[:4]
    channels = {0: 1, 2: 3, 6: 4}[colour]
    assert depth == 8
    raw = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(rows, 1 + cols * channels)
    assert (raw[:, 0] == 0).all()
    image = raw[:, 1:].reshape(rows, cols, channels)
    return image[..., 0] if channels == 1 else image


def _texture_to_alphamap(png_rows):
    """Unity reads an image's last row as texel row 0 (v = 0): the alphamap's [z, x]."""
    return png_rows[::-1]


@pytest.fixture(scope="module")
def marked():
    """A flat terrain with a bump near the corner of Blender +X and -Y, a texture layer on the bump and
    props on it; the package's files."""
    spec = terrain.TerrainSpec(resolution=N, size=SIZE, height=TOP)
    values = np.zeros((N, N), np.float32)
    rows, cols = np.mgrid[0:N, 0:N]
    bump = (8, 54)  # row (Blender y: near -Y) and column (Blender x: near +X)
    values += 0.8 * np.exp(-((rows - bump[0]) ** 2 + (cols - bump[1]) ** 2) / 8.0).astype(np.float32)
    heights = terrain.TerrainHeights(values, spec.cell_size, spec.height)
    splats = (splat.SplatSpec(name="Ground"), splat.SplatSpec(name="Peak", height_range=(16.0, 1e6), height_fade=0))
    layers = drive(terrain.terrain_layers_steps(heights, terrain_spec=spec, splats=splats, seed=1, flow=True))
    files = unity_package.package_files("Mark", layers, size=SIZE, splats=splats, blender_centre=(0.0, 0.0, 0.0))
    rules = scatter.ScatterRules(height_range=(16.0, 1e6), slope_range=(0.0, 90.0), above_sea=False)
    (props,) = scatter.scatter_layers(
        layers.metres, size=SIZE, layers=[scatter.Layer("p", radius=1.0, rules=rules)], seed=3, maps=None
    )
    return layers, files, props


def _in_corner(z_share, x_share):
    """Unity's terrain-local corner of the mark: Blender +X is Unity -X, Blender -Y is Unity +Z."""
    return z_share > 0.75 and x_share < 0.25


def test_the_mark_lands_in_the_same_unity_corner_in_raw_splat_and_placements(marked):
    layers, files, props = marked
    content = json.loads(files["Mark_terrain.json"])
    settings = content["import_settings"]
    side = settings["heightmap_resolution"]
    assert side == N and content["heightmap"]["file"] == "Mark_heightmap.raw"
    # RAW: Unity's heights[z, x]
    u_heights = unity.read_raw16(files["Mark_heightmap.raw"], side=side)
    z, x = np.unravel_index(np.argmax(u_heights), u_heights.shape)
    assert _in_corner(z / (side - 1), x / (side - 1))
    # splat PNG: the Peak layer (layer 1, splat0's G) in the texture's v-up rows
    layer = content["layers"][1]
    assert (layer["name"], layer["file"], layer["channel"]) == ("Peak", "Mark_splat0.png", "G")
    alpha = _texture_to_alphamap(read_png(files[layer["file"]]))
    r = settings["alphamap_resolution"]
    assert alpha.shape == (r, r, 4) and r == N - 1
    peak = alpha[..., "RGBA".index(layer["channel"])]
    zs, xs = np.nonzero(peak > 128)
    assert len(zs) > 3 and _in_corner((zs.mean() + 0.5) / r, (xs.mean() + 0.5) / r)
    # the same texels as the RAW's peak (to a texel)
    assert (
        abs((zs.mean() + 0.5) / r - z / (side - 1)) < 2.0 / r and abs((xs.mean() + 0.5) / r - x / (side - 1)) < 2.0 / r
    )
    # placements: Unity world positions, relative to the Terrain's position
    positions, _, _ = scatter.unity_transforms(props)
    local = (positions - np.array(settings["terrain_position"])) / SIZE
    assert len(local) > 3 and all(_in_corner(lz, lx) for lx, lz in local[:, [0, 2]])
    # the props stand on the RAW's surface (Unity's heights[z, x] blended at their x, z)
    u, v = local[:, 0] * (side - 1), local[:, 2] * (side - 1)
    i, j = np.minimum(v.astype(int), side - 2), np.minimum(u.astype(int), side - 2)
    fu, fv = u - j, v - i
    below = u_heights[i, j] * (1 - fu) + u_heights[i, j + 1] * fu
    above = u_heights[i + 1, j] * (1 - fu) + u_heights[i + 1, j + 1] * fu
    np.testing.assert_allclose(positions[:, 1], (below * (1 - fv) + above * fv) * TOP, atol=0.6)


def test_flow_png_is_oriented_as_the_splats(marked):
    layers, files, _ = marked
    grey = _texture_to_alphamap(read_png(files["Mark_flow.png"]))
    # the bump's top gathers no water: the smallest flow of the picture is on it
    unity_flow = unity_package.unity_map(layers.flow)
    assert grey.shape == unity_flow.shape
    lo, hi = unity_package.flow_range(layers.flow.shape, layers.heights.cell_size)
    expect = np.clip(np.rint(255 * np.log10(np.maximum(unity_flow, lo) / lo) / np.log10(hi / lo)), 0, 255)
    assert (grey == expect).all()


def test_terrain_json_lists_layers_files_and_settings(marked):
    layers, files, _ = marked
    content = json.loads(files["Mark_terrain.json"])
    assert list(files)[-1] == "Mark_terrain.json"
    assert set(files) == {"Mark_heightmap.raw", "Mark_splat0.png", "Mark_flow.png", "Mark_terrain.json"}
    assert (content["format"], content["version"]) == unity_package.FORMAT
    assert content["splats"]["files"] == ["Mark_splat0.png"] and content["splats"]["color_space"] == "linear"
    assert [(la["index"], la["name"], la["channel"], la["tile_size"]) for la in content["layers"]] == [
        (0, "Ground", "R", [10.0, 10.0]),
        (1, "Peak", "G", [10.0, 10.0]),
    ]
    assert content["layers"][0]["color"] == [0.5, 0.5, 0.5] and content["layers"][0]["texture"] is None
    settings = content["import_settings"]
    assert settings["terrain_size"] == {"width": SIZE, "height": TOP, "length": SIZE}
    assert settings["terrain_position"] == [-64.0, 0.0, -64.0]
    assert settings["alphamap_resolution"] == 64 and settings["detail_resolution"] is None
    assert content["biomes"] is None and content["erosion"] is None and content["details"] == []
    assert content["trees"] is None
    specs = tuple(splat.SplatSpec(name=la["name"]) for la in content["layers"])
    with_trees = unity_package.package_files("Mark", layers, size=SIZE, splats=specs, placements="Mark_placements.json")
    assert json.loads(with_trees["Mark_terrain.json"])["trees"] == {"file": "Mark_placements.json"}
    assert content["flow"]["lo"] == pytest.approx(4.0) and content["flow"]["file"] == "Mark_flow.png"
    # the RAW is the plain export's bytes
    assert files["Mark_heightmap.raw"] == unity.heightmap_raw16(unity.unity_heights(layers.heights.values))


def test_package_with_biomes_erosion_and_many_layers():
    r = recipe.loads(
        "[world]\nseed = 2\n[terrain]\nresolution = 100\nsize = 200.0\nheight = 50.0\nsea_level = 0.1\n"
        "[terrain.erosion]\nenabled = true\ndroplets_per_km2 = 50000\n[biomes]\nenabled = true\n"
        + "".join(f"[[splat]]\nname = 'L{i}'\nheight_range = [{5 * i}.0, 1000.0]\n" for i in range(6))
    )
    h = terrain.terrain_heights(r.terrain, seed=2)
    layers = terrain.terrain_layers(h, terrain_spec=r.terrain, biomes_spec=r.biomes, splats=r.splat, seed=2)
    files = unity_package.package_files("W", layers, size=200.0, splats=r.splat, blender_centre=(10.0, 20.0, 0.0))
    content = json.loads(files["W_terrain.json"])
    # 100 vertices: the RAW is resampled to 129, the alphamap one texel a cell of that
    assert content["heightmap"]["resampled_from"] == 100 and content["import_settings"]["heightmap_resolution"] == 129
    assert content["import_settings"]["alphamap_resolution"] == 128
    assert content["import_settings"]["terrain_position"] == [-110.0, 0.0, -120.0]
    assert content["splats"]["files"] == ["W_splat0.png", "W_splat1.png"]
    assert [la["channel"] for la in content["layers"]] == list("RGBARG")
    pngs = [read_png(files[f]) for f in content["splats"]["files"]]
    assert all(p.shape == (128, 128, 4) for p in pngs)
    assert (sum(p.astype(int).sum(axis=2) for p in pngs) == 255).all()
    assert content["biomes"]["names"][0] == "ocean" and len(content["biomes"]["colors"]) == len(layers.biome_names)
    assert read_png(files["W_biomes.png"]).shape == (100, 100, 3)
    ledger = content["erosion"]["ledger"]
    assert ledger["relative_error"] <= 1e-6 and ledger["droplets"] == 2000
    assert set(content["erosion"]["clipped"]) == {"below", "above", "lowest_m", "highest_m"}


def test_helpers():
    assert unity_package.alphamap_side(33) == 32 and unity_package.alphamap_side(5) == 32
    assert unity_package.alphamap_side(2049) == 2048 and unity_package.alphamap_side(4097) == 4096
    w = np.random.default_rng(0).random((3, 9, 9)).astype(np.float32)
    w /= w.sum(axis=0)
    t = unity_package.texel_weights(w, side=8)
    np.testing.assert_allclose(t.sum(axis=0), 1.0, atol=1e-6)
    np.testing.assert_allclose(t[:, 2, 5], w[:, 2:4, 5:7].mean(axis=(1, 2)), atol=1e-6)
    # other resolutions: the bilinear blend at the texel centres (rows and columns apart)
    w = np.random.default_rng(1).random((2, 50, 30)).astype(np.float32)
    w /= w.sum(axis=0)
    ys, xs = (np.arange(16) + 0.5) * (49 / 16), (np.arange(16) + 0.5) * (29 / 16)
    y0, x0 = np.minimum(ys.astype(int), 48), np.minimum(xs.astype(int), 28)
    ty, tx = (ys - y0)[:, None], xs - x0
    top = w[:, y0][:, :, x0] * (1 - tx) + w[:, y0][:, :, x0 + 1] * tx
    bottom = w[:, y0 + 1][:, :, x0] * (1 - tx) + w[:, y0 + 1][:, :, x0 + 1] * tx
    np.testing.assert_allclose(unity_package.texel_weights(w, side=16), top * (1 - ty) + bottom * ty, atol=1e-6)
    counts = np.arange(16, dtype=np.uint16).reshape(4, 4)
    raw = np.frombuffer(unity_package.detail_raw16(counts), "<u2").reshape(4, 4)
    assert (raw == counts[::-1, ::-1]).all()
    with pytest.raises(ParameterError, match="counts must be a 2-D integer array"):
        unity_package.detail_raw16(np.zeros((4, 4)))
    with pytest.raises(ParameterError, match=r"packed\[0\] must be a \(rows, cols, 4\) uint8 image"):
        unity_package.splat_png_bytes([np.zeros((4, 4, 3), np.uint8)])


def test_detail_layers_in_the_package(marked):
    layers, _, _ = marked
    counts = np.zeros((64, 64), np.uint16)
    counts[60, 3] = 7  # near our row 63 (Blender +Y) and column 0 (Blender -X): Unity's +X, -Z corner
    files = unity_package.package_files(
        "D", layers, size=SIZE, splats=(splat.SplatSpec(name="Ground"),) * 2, details=[("Grass", counts)]
    )
    content = json.loads(files["D_terrain.json"])
    assert content["import_settings"]["detail_resolution"] == 64
    assert content["import_settings"]["detail_resolution_per_patch"] == unity_package.DETAIL_PER_PATCH
    (detail,) = content["details"]
    assert (detail["name"], detail["file"], detail["resolution"]) == ("Grass", "D_detail0.raw", 64)
    unity_counts = np.frombuffer(files["D_detail0.raw"], "<u2").reshape(64, 64)
    z, x = np.argwhere(unity_counts == 7)[0]
    assert z < 16 and x > 48
