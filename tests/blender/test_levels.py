"""Levels in Blender: the Levels panel, its operators, the level object, its kit, undo and redo.
(Exports and world builds of levels: test_levels_export.py.)

Real Blender (the bpy module); small levels, except where size is the point.
"""

import importlib

import bpy
import numpy as np
import pytest

from worldseed.core import levels as core_levels
from worldseed.core import recipe as core_recipe
from worldseed.core.errors import ParameterError, RecipeError
from worldseed.operators.bridge import levels as bridge_levels
from worldseed.operators.bridge import query, sections

from ._level_cases import SMALL, kit_collection, scene_state
from ._panel_cases import draw


def _settings():
    return bpy.context.scene.worldseed.level


def _set(settings, **values):
    settings.auto_update = False
    for k, v in values.items():
        setattr(settings, k, v)


def _positions(me):
    out = np.empty(len(me.vertices) * 3, np.float32)
    me.attributes["position"].data.foreach_get("vector", out)
    return out.reshape(-1, 3)


def _material_indices(me):
    out = np.empty(len(me.polygons), np.int32)
    me.attributes["material_index"].data.foreach_get("value", out)
    return out


# --------------------------------------------------------------------------- recipe


def test_recipe_level_tables_parse_and_names_must_differ():
    text = '[[level]]\nname = "Crypt"\ngenerator = "cave"\n[[level]]\nname = "Maze"\ngenerator = "walk"\n'
    recipe = core_recipe.loads(text)
    assert [s.name for s in recipe.level] == ["Crypt", "Maze"]
    assert core_recipe.loads(core_recipe.dumps(recipe)) == recipe
    with pytest.raises(RecipeError, match=r"level\[1\]\.name 'crypt' is taken by level\[0\]"):
        core_recipe.loads('[[level]]\nname = "Crypt"\n[[level]]\nname = "crypt"\n')
    with pytest.raises(RecipeError, match="at most 32"):
        core_recipe.loads("".join(f'[[level]]\nname = "L{i}"\n' for i in range(33)))


# --------------------------------------------------------------------------- the level object


def test_add_level_from_the_sidebar_builds_at_the_cursor(empty_scene):
    _set(_settings(), **SMALL, cell_size=1.5, wall_height=2.5, name="Grotto")
    empty_scene.cursor.location = (10.0, -4.0, 1.0)
    assert bpy.ops.worldseed.level_add(from_settings=True) == {"FINISHED"}
    root = bpy.context.active_object
    assert root.name == "Grotto" and bridge_levels.is_level(root) and root.type == "MESH"
    assert tuple(root.location) == pytest.approx((10.0, -4.0, 1.0))
    me = root.data
    assert me.validate() is False  # nothing to fix
    assert [m.name for m in me.materials] == list(bridge_levels.MATERIAL_NAMES)
    level = core_levels.generate(core_levels.LevelSpec(**SMALL, cell_size=1.5, wall_height=2.5, name="Grotto"))
    mats = _material_indices(me)
    assert int((mats == 0).sum()) == int(level.walkable.sum())  # one floor quad per walkable cell
    assert int((mats == 1).sum()) > 0 and int((mats == 2).sum()) == 0  # walls, no ceiling
    pos = _positions(me)
    assert pos[:, 0].min() == pytest.approx(0.0) and pos[:, 0].max() == pytest.approx(24 * 1.5)
    assert pos[:, 2].max() == pytest.approx(2.5)
    assert me.uv_layers and len(me.polygons) == len(me.loops) // 4
    # the markers: child empties standing on their cells' centres
    markers = {c.name: c for c in root.children if c.get(query.KIND_KEY) == bridge_levels.LEVEL_MARKER_KIND}
    assert "Grotto_Spawn" in markers and len(markers) == len(level.markers)
    sx, sy = level.spawn.x, level.spawn.y
    assert tuple(markers["Grotto_Spawn"].location) == pytest.approx(((sx + 0.5) * 1.5, (20 - sy - 0.5) * 1.5, 0.0))
    assert level.walkable[sy, sx]
    # the 2-D map, an image the panel shows
    image = bridge_levels.level_map(root)
    assert image is not None and image.size[0] * 20 == image.size[1] * 24 and image.size[0] >= 24
    assert tuple(image.preview.image_size) == tuple(image.size)  # the icon is the map, pixel for pixel


def test_marker_names_for_unity():
    m = core_levels.Marker
    names = bridge_levels.marker_names([m("spawn", 0, 0), m("enemy", 1, 0), m("loot", 2, 0), m("enemy", 3, 0)])
    assert names == ["Spawn", "Enemy_001", "Loot_001", "Enemy_002"]
    assert bridge_levels.marker_names([m("spawn", 0, 0), m("exit", 1, 0)], "Crypt") == ["Crypt_Spawn", "Crypt_Exit"]


def _markers_of(root):
    return sorted(c.name for c in root.children if c.get(query.KIND_KEY) == bridge_levels.LEVEL_MARKER_KIND)


def test_markers_are_named_after_their_level_and_keep_their_names_on_update(empty_scene):
    # a new-user trial: with several levels the markers were Spawn.003, Enemy_001.004, new on every Update
    tiny = dict(generator="cave", width=24, height=20, seed=3, enemy_density=0.05, loot_chance=1.0)
    bpy.data.objects.new("Oak", None)  # an object (a tree, say) of the name the third level asks for
    for name in ("Crypt", "Crypt", "Oak"):
        bpy.ops.worldseed.level_add(**tiny, name=name)
    roots = {o.name: o for o in bpy.data.objects if bridge_levels.is_level(o)}
    assert sorted(roots) == ["Crypt", "Crypt_001", "Oak_001"]
    for name, root in roots.items():
        markers = _markers_of(root)
        assert f"{name}_Spawn" in markers and f"{name}_Exit" in markers
        assert f"{name}_Enemy_001" in markers and f"{name}_Loot_001" in markers
        assert all(m.startswith(name + "_") for m in markers)
    assert not [o.name for o in bpy.data.objects if "." in o.name]  # no Blender .001 anywhere
    before = {n: _markers_of(r) for n, r in roots.items()}
    bpy.context.view_layer.objects.active = roots["Crypt"]
    _set(_settings(), **tiny, name="Crypt")
    for _ in range(2):
        assert bpy.ops.worldseed.level_update() == {"FINISHED"}
        assert _markers_of(bpy.data.objects["Crypt"]) == before["Crypt"]
    assert not [o.name for o in bpy.data.objects if "." in o.name]


def test_map_image_pixels_are_the_picture_upside_down():
    rgb = np.zeros((3, 2, 3), np.uint8)
    rgb[0, 0] = (255, 0, 0)  # top-left red
    pixels, w, h = bridge_levels.map_pixels(rgb)
    px = pixels.reshape(h, w, 4)
    assert (w, h) == (2, 3)
    assert tuple(px[2, 0]) == (1.0, 0.0, 0.0, 1.0)  # Blender's rows run bottom-up
    assert tuple(px[0, 0]) == (0.0, 0.0, 0.0, 1.0)


def test_same_seed_same_level_new_seed_another(empty_scene):
    bpy.ops.worldseed.level_add(**SMALL)
    a = _positions(bpy.context.active_object.data)
    bpy.ops.worldseed.level_add(**SMALL)
    b = _positions(bpy.context.active_object.data)
    assert bpy.context.active_object.name == "Level_001"  # no Blender ".001": the name is the file stem
    assert a.tobytes() == b.tobytes()
    bpy.ops.worldseed.level_add(**{**SMALL, "seed": 4})
    c = _positions(bpy.context.active_object.data)
    assert a.shape != c.shape or a.tobytes() != c.tobytes()


def test_undo_and_redo_of_add_level(empty_scene):
    bpy.ops.ed.undo_push(message="init")
    bpy.ops.ed.undo_push(message="before")
    assert "UNDO" in bpy.types.WORLDSEED_OT_level_add.bl_options
    bpy.ops.worldseed.level_add(**SMALL)
    bpy.ops.ed.undo_push(message="Add Level")
    n = len(bpy.data.objects)
    assert n > 1 and bpy.data.objects.get("Level") is not None
    bpy.ops.ed.undo()
    assert len(bpy.data.objects) == 0 and len(bpy.data.meshes) == 0
    bpy.ops.ed.redo()
    assert len(bpy.data.objects) == n and bridge_levels.is_level(bpy.data.objects["Level"])


def test_redo_panel_reruns_with_edited_settings(empty_scene):
    bpy.ops.ed.undo_push(message="init")
    bpy.ops.ed.undo_push(message="before")
    bpy.ops.worldseed.level_add(**SMALL)
    bpy.ops.ed.undo_push(message="Add Level")
    first = _positions(bpy.context.active_object.data)
    bpy.ops.ed.undo()
    bpy.ops.worldseed.level_add(**{**SMALL, "fill": 0.5, "steps": 4})
    assert len([o for o in bpy.data.objects if bridge_levels.is_level(o)]) == 1
    assert first.tobytes() != _positions(bpy.context.active_object.data).tobytes()
    assert bridge_levels.stored_spec(bpy.context.active_object).fill == 0.5


def test_every_setting_is_an_operator_property():
    props = bpy.ops.worldseed.level_add.get_rna_type().properties
    for name, limit in core_levels.LIMITS.items():
        assert name in props, name
        if limit.kind == "int":
            assert (props[name].hard_min, props[name].hard_max) == limit.bounds


def test_bad_input_is_a_report_and_the_scene_is_untouched(empty_scene):
    bpy.ops.worldseed.level_add(**SMALL)
    before = scene_state()
    with pytest.raises(RuntimeError, match="room_min"):  # background Blender raises the ERROR report
        bpy.ops.worldseed.level_add(generator="bsp", width=40, height=40, room_min=12, room_max=6)
    assert scene_state() == before
    with pytest.raises(RuntimeError, match="kit"):
        bpy.ops.worldseed.level_add(**SMALL, geometry="KIT")
    with pytest.raises(RuntimeError, match="no collection named 'Nope'"):
        bpy.ops.worldseed.level_add(**SMALL, geometry="KIT", kit="Nope")
    assert scene_state() == before


def test_update_rebuilds_in_place_keeping_name_and_transform(empty_scene):
    bpy.ops.worldseed.level_add(**SMALL)
    root = bpy.context.active_object
    root.name = "MyLevel"
    root.location = (3.0, 4.0, 0.0)
    root["artist_note"] = "keep me"
    image = bridge_levels.level_map(root)
    _set(_settings(), **{**SMALL, "seed": 9, "width": 30})
    assert bpy.ops.worldseed.level_update() == {"FINISHED"}
    new = bpy.context.active_object
    assert new.name == "MyLevel" and tuple(new.location) == pytest.approx((3.0, 4.0, 0.0))
    assert new["artist_note"] == "keep me"
    assert bridge_levels.stored_spec(new).seed == 9 and bridge_levels.stored_spec(new).width == 30
    assert bridge_levels.level_map(new) == image and image.size[0] * 20 == image.size[1] * 30
    assert len([o for o in bpy.data.objects if bridge_levels.is_level(o)]) == 1
    assert _positions(new.data)[:, 0].max() == pytest.approx(30 * 2.0)


def test_load_settings_new_seed_and_auto_update(empty_scene):
    bpy.ops.worldseed.level_add(**{**SMALL, "seed": 21, "fill": 0.5})
    name = bpy.context.active_object.name
    assert bpy.ops.worldseed.level_load_settings() == {"FINISHED"}
    settings = _settings()
    assert (settings.generator, settings.seed, settings.fill) == ("cave", 21, pytest.approx(0.5))
    bpy.ops.worldseed.level_reseed()
    assert settings.seed != 21 and bridge_levels.stored_spec(bpy.context.active_object).seed == settings.seed
    settings.auto_update = True
    settings.steps = 3  # background: the rebuild runs at once
    assert bridge_levels.stored_spec(bpy.context.active_object).steps == 3
    assert bpy.context.active_object.name == name
    assert len([o for o in bpy.data.objects if bridge_levels.is_level(o)]) == 1


# --------------------------------------------------------------------------- panel


def _draw():
    return draw(bpy.types.WORLDSEED_PT_level)


def test_panel_shows_the_generators_own_settings_and_the_map(empty_scene):
    _set(_settings(), generator="maze")
    calls = _draw()
    shown = {name for kind, name in calls if kind == "prop"}
    assert {"algorithm", "loops", "rooms", "width", "cell_size", "seed"} <= shown and "fill" not in shown
    assert ("operator", "worldseed.level_add") in calls and ("operator", "worldseed.level_update") not in calls
    _set(_settings(), generator="cave")
    bpy.ops.worldseed.level_add(**SMALL)
    calls = _draw()
    shown = {name for kind, name in calls if kind == "prop"}
    assert {"fill", "steps", "connect", "min_region"} <= shown and "algorithm" not in shown
    assert ("operator", "worldseed.level_update") in calls and ("prop", "auto_update") in calls
    assert any(kind == "icon" for kind, _ in calls)  # the 2-D map
    assert ("prop", "kit") not in calls and ("operator", "worldseed.level_make_real") not in calls
    _set(_settings(), geometry="KIT", kit=kit_collection())
    bpy.ops.worldseed.level_add(from_settings=True)
    calls = _draw()
    assert ("prop", "kit") in calls and ("operator", "worldseed.level_make_real") in calls


# --------------------------------------------------------------------------- kit


def _evaluated_instances(obj):
    depsgraph = bpy.context.evaluated_depsgraph_get()
    return [i for i in depsgraph.object_instances if i.is_instance and i.parent and i.parent.original == obj]


def test_kit_level_instances_one_module_per_cell(empty_scene):
    kit = kit_collection()
    bpy.ops.worldseed.level_add(**SMALL, geometry="KIT", kit=kit.name)
    root = bpy.context.active_object
    assert root.type == "EMPTY" and bridge_levels.is_level(root)
    kit_obj = bridge_levels.level_kit_of(root)
    level = core_levels.generate(core_levels.LevelSpec(**SMALL))

    placed = core_levels.kit_placements(level, cell_size=2.0)
    assert len(kit_obj.data.vertices) == len(placed)
    assert len(_evaluated_instances(kit_obj)) == len(placed)
    # Make Real: one object per module sharing the module meshes, the kit object gone
    assert bpy.ops.worldseed.level_make_real() == {"FINISHED"}
    modules = [o for o in root.children if o.get(query.KIND_KEY) == "level_kit_module"]
    assert len(modules) == len(placed) and bridge_levels.level_kit_of(root) is None
    floor = bpy.data.objects["floor"].data
    assert sum(o.data == floor for o in modules) == placed.counts()["floor"]


def test_kit_missing_roles_are_named(empty_scene):
    kit = kit_collection(roles=("floor",))
    with pytest.raises(RuntimeError, match="no module named wall"):
        bpy.ops.worldseed.level_add(**SMALL, geometry="KIT", kit=kit.name)
    assert not [o for o in bpy.data.objects if bridge_levels.is_level(o)]


def test_make_real_after_a_module_was_deleted_is_a_report(empty_scene):
    kit = kit_collection()
    bpy.ops.worldseed.level_add(**SMALL, geometry="KIT", kit=kit.name)
    bpy.data.objects.remove(bpy.data.objects["pillar"])
    before = scene_state()
    with pytest.raises(RuntimeError, match="'pillar' no longer exist"):
        bpy.ops.worldseed.level_make_real()
    assert scene_state() == before


def test_ten_thousand_kit_modules_are_instanced(empty_scene):
    grid = np.ones((100, 100), np.uint8)  # every cell floor: 10,000 floor modules (outside the map has none)
    level = core_levels.Level(grid=grid, markers=(core_levels.Marker("spawn", 0, 0),))
    spec = core_levels.LevelSpec(width=100, height=100)
    scene = bpy.context.scene
    root = bridge_levels.build_level(
        spec, collection=scene.collection, geometry="KIT", kit=kit_collection(), level=level
    )
    kit_obj = bridge_levels.level_kit_of(root)
    assert len(kit_obj.data.vertices) == 10_000
    assert len(_evaluated_instances(kit_obj)) == 10_000
    assert len(bpy.data.meshes) == 7 + 1  # the modules' meshes, shared, and the kit's points


def test_a_level_of_more_than_twenty_thousand_markers_is_refused_before_any_object(empty_scene):
    side = 150
    grid = np.ones((side, side), np.uint8)
    spawn = (core_levels.Marker("spawn", 0, 0),)
    spec = core_levels.LevelSpec(width=side, height=side, enemy_density=1.0, name="Horde")
    scene = bpy.context.scene
    enemies = tuple(core_levels.Marker("enemy", i % side, i // side) for i in range(1, bridge_levels.MAX_MARKERS))
    level = core_levels.Level(grid=grid, markers=spawn + enemies)  # exactly 20,000: built
    root = bridge_levels.build_level(spec, collection=scene.collection, level=level)
    assert len(root.children) == 20_000 and root.children[0].name.startswith("Horde_")
    before = scene_state()
    over = core_levels.Level(grid=grid, markers=level.markers + (core_levels.Marker("loot", 0, 149),))
    with pytest.raises(ParameterError, match=r"20,001 markers.*more than 20,000: lower enemy_density \(1\) or loot"):
        bridge_levels.build_level(spec, collection=scene.collection, level=over)
    assert scene_state() == before


def test_levels_with_far_too_many_markers_are_refused_before_any_level_is_made(empty_scene, monkeypatch):
    # a new-user trial: 4096 x 4096 BSP and cave levels were refused for their markers only after
    # 1.5 to 3 minutes of making them; now their markers are estimated first (milliseconds)
    text = (
        '[terrain]\nenabled = false\n[[level]]\nname = "Small"\ngenerator = "walk"\nwidth = 20\nheight = 20\n'
        '[[level]]\nname = "Huge"\ngenerator = "cave"\nwidth = 2048\nheight = 2048\n'
    )
    recipe = core_recipe.loads(text)
    seen = []
    before = scene_state()
    with pytest.raises(ParameterError, match=r"level 'Huge' would get about \d\d,\d{3} markers.*lower enemy_density"):
        bridge_levels.build_section(recipe, None, scene=empty_scene, progress=lambda *step: seen.append(step))
    assert seen == [] and scene_state() == before  # not even the small level was made

    def made(*args, **kwargs):
        raise AssertionError("the level was made before its size was checked")

    build_module = importlib.import_module("worldseed.operators.bridge.levels._build")  # where the levels are made
    monkeypatch.setattr(build_module, "level_for", made)
    monkeypatch.setattr(build_module, "level_steps", made)
    for geometry in ("MESH", "KIT"):
        with pytest.raises(ParameterError, match="would get about"):
            bridge_levels.build_level(recipe.level[1], collection=empty_scene.collection, geometry=geometry)
        with pytest.raises(ParameterError, match="would get about"):
            next(bridge_levels.build_steps(recipe.level[1], collection=empty_scene.collection, geometry=geometry))
    mesh = core_levels.LevelSpec(generator="bsp", width=4096, height=1100, enemy_density=0.0, loot_chance=0.0)
    with pytest.raises(ParameterError, match=r"4096 x 1100 = 4,505,600 cells, more than the 4,194,304 \(2048 x 2048\)"):
        bridge_levels.build_level(mesh, collection=empty_scene.collection)
    assert scene_state() == before


def test_update_of_a_level_whose_kit_was_made_real_is_refused_and_keeps_the_modules(empty_scene):
    # a new-user trial: Update (and Auto Update) silently deleted the real modules, hand edits and all
    tiny = dict(generator="walk", width=8, height=6, seed=1)
    bpy.ops.worldseed.level_add(**tiny, geometry="KIT", kit=kit_collection().name)
    assert bpy.ops.worldseed.level_make_real() == {"FINISHED"}
    root = bpy.context.active_object
    modules = [o for o in root.children if o.get(query.KIND_KEY) == "level_kit_module"]
    modules[0].location.z += 1.0  # a hand edit
    _set(_settings(), **{**tiny, "seed": 2})
    before = scene_state()
    message = rf"Level has {len(modules):,} real kit modules; Update would delete them — delete them"
    with pytest.raises(RuntimeError, match=message):
        bpy.ops.worldseed.level_update()
    assert scene_state() == before and bridge_levels.stored_spec(root).seed == 1
    with pytest.raises(ParameterError, match="real kit modules"):  # what Auto Update runs
        sections.adapter("level").rebuild(root, bpy.context.scene)
    assert scene_state() == before
