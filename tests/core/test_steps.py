"""Step generators: progress reporting and driving."""

from worldseed.core import recipe, steps, terrain


def test_heights_steps_count_up_to_their_total():
    spec = recipe.replace(recipe.Recipe(), terrain_resolution=65).terrain
    seen = []
    heights = steps.drive(
        terrain.heights_steps(
            spec,
            seed=1,
            more_steps=3,
        ),
        lambda *a: seen.append(a),
    )
    bands = terrain.band_count(spec)
    assert [d for d, _, _ in seen] == list(range(1, bands + 2))
    assert {t for _, t, _ in seen} == {bands + 1 + 3}
    assert [label for _, _, label in seen] == ["noise"] * bands + ["shaping"]
    assert heights.values.tobytes() == terrain.terrain_heights(spec, seed=1).values.tobytes()
