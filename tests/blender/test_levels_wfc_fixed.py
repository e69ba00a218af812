"""Painted cells (``fixed``) of WFC levels, from the Levels panel to the level and back."""

import bpy
import numpy as np
import pytest

from worldseed.operators.bridge import levels as bridge_levels

from ._level_cases import level_settings, scene_state
from ._panel_cases import draw, props


def test_the_panel_and_the_redo_panel_offer_fixed_cells_for_wfc_only(empty_scene):
    for generator, expected in (("wfc_tiled", True), ("wfc_overlapping", True), ("cave", False)):
        level_settings(generator=generator)
        assert ("fixed" in props(draw(bpy.types.WORLDSEED_PT_level))) == expected, generator
    assert "fixed" in bpy.ops.worldseed.level_add.get_rna_type().properties


def test_painted_cells_from_the_panel_show_in_the_level_and_load_back(empty_scene):
    paint = "3,3=door; 10,5=bend 1; 0,0=rock"
    level_settings(generator="wfc_tiled", wfc_tileset="dungeon", width=20, height=14, name="Painted", fixed=paint)
    for seed in (0, 1):
        level_settings(seed=seed)
        assert bpy.ops.worldseed.level_add(from_settings=True) == {"FINISHED"}
        root = bpy.context.active_object
        spec = bridge_levels.stored_spec(root)
        assert spec.fixed == ((3, 3, "door"), (10, 5, "bend 1"), (0, 0, "rock"))
        wfc = bridge_levels.stored_level(root).wfc
        bases = np.array(wfc.base_names)
        assert bases[wfc.ids[3, 3]] == "door" and wfc.names[wfc.ids[5, 10]] == "bend 1"
        assert bases[wfc.ids[0, 0]] == "rock"
    level_settings(fixed="")
    assert bpy.ops.worldseed.level_load_settings() == {"FINISHED"}
    assert bridge_levels.fixed_from_text(bpy.context.scene.worldseed.level.fixed) == [
        [3, 3, "door"],
        [10, 5, "bend 1"],
        [0, 0, "rock"],
    ]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("3;3=door", "x,y=tile"),
        ("3,3=dor", "did you mean 'door'"),
        ("30,3=door", "off the level"),
        ("0,0=floor", "(0, 0)"),
    ],
)
def test_bad_or_impossible_paint_is_an_error_report_and_the_scene_stays(empty_scene, text, words):
    level_settings(generator="wfc_tiled", wfc_tileset="dungeon", width=12, height=10, name="Bad", fixed=text)
    before = scene_state()
    with pytest.raises(RuntimeError, match=words.replace("(", r"\(").replace(")", r"\)")):
        bpy.ops.worldseed.level_add(from_settings=True)
    assert scene_state() == before
