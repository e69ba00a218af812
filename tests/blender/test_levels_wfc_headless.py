"""Headless WFC levels: what the terminal shows while a level solves."""


def test_a_headless_wfc_level_reports_its_solver_progress(tmp_path):
    from worldseed.addon import batch
    from worldseed.core import recipe as core_recipe

    text = '[[level]]\nname = "Slow"\ngenerator = "wfc_tiled"\nwfc_tileset = "roads"\nwidth = 48\nheight = 48\n'
    seen = []
    batch.build_world(core_recipe.loads(text), str(tmp_path / "out"), progress=lambda d, t, s: seen.append((d, t, s)))
    within = [d for d, t, s in seen if s.startswith("level Slow: attempt")]
    assert len(within) >= 20 and 0 < min(within) and max(within) < 1  # fractions of the one level's step
    assert within == sorted(within)
