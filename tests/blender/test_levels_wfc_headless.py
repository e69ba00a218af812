"""Headless WFC levels: what the terminal shows while a level solves."""


def test_a_headless_wfc_level_reports_its_solver_progress(tmp_path):
    from worldseed.addon import batch
    from worldseed.core import recipe as core_recipe

    text = '[[level]]\nname = "Slow"\ngenerator = "wfc_tiled"\nwfc_tileset = "roads"\nwidth = 48\nheight = 48\n'
    seen = []
    batch.build_world(core_recipe.loads(text), str(tmp_path / "out"), progress=lambda d, t, s: seen.append((d, t, s)))
    within = [d / t for d, t, s in seen if s.startswith("level Slow: attempt")]
    before = max(d / t for d, t, s in seen if s == "level Slow")  # the step the level starts at
    assert len(set(within)) >= 20 and before < min(within) and max(within) < 1  # within the level's share
    assert within == sorted(within)  # one progress for the whole run: it never goes back
