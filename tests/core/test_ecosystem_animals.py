"""The animal engine: the ledger, grazing and hunting, mutation, slopes, trails, and its files."""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from worldseed.core import ecosystem as eco
from worldseed.core.errors import ParameterError
from worldseed.core.steps import drive
from worldseed.core.wfc import read_png

from ._ecosystem_cases import flat, terrain_habitat, trail_share
from .test_preview import decode_png

DEER = {"name": "Deer", "eats": "plants", "count": 120, "energy_gain": 4.0, "reproduce": 0.05, "vision": 20.0}
WOLF = {
    "name": "Wolf",
    "eats": ["Deer"],
    "count": 12,
    "energy_gain": 20.0,
    "reproduce": 0.03,
    "vision": 40.0,
    "speed": 6.0,
}


def animals(hab, *species, steps=200, seed=0, **settings):
    spec = eco.from_dict({"steps": steps, "seed": seed, "animals": list(species), **settings})
    return drive(eco.animals_steps(spec, hab))


@settings(max_examples=4)
@given(seed=st.integers(0, 2**31 - 1), drink=st.sampled_from([0, 15]), home=st.sampled_from([0.0, 60.0]))
def test_the_animal_ledger_is_exact_every_step(seed, drink, home):
    hab = flat(200.0, cell=4.0)
    run = animals(hab, {**DEER, "drink_every": drink, "home_range": home}, WOLF, seed=seed, burn_in=50)
    p, born, died = run.history["population"], run.history["born"], run.history["died"]
    assert (p[0] == born[0]).all() and (died[0] == 0).all()
    assert (p[1:] - p[:-1] == born[1:] - died[1:]).all()
    assert p[-1].tolist() == np.bincount(run.kind, minlength=2).tolist()
    assert died.sum() > 0 and born[1:].sum() > 0


def test_grazers_eat_the_grass_and_hunters_the_grazers():
    hab = flat(200.0, cell=4.0)
    alone = animals(hab, {**DEER, "reproduce": 0.0, "max_age": 10_000}, steps=150)
    assert alone.grass.mean() < 0.95  # grazed, regrowing
    # grass enough, nothing hunts: at most the few that started with next to no energy starved
    assert alone.history["died"][1:].sum() <= 5
    hunted = animals(hab, {**DEER, "reproduce": 0.0, "max_age": 10_000}, WOLF, steps=150)
    assert hunted.history["died"][1:, 0].sum() > 10  # the wolves caught deer
    starving = animals(hab, {**WOLF, "eats": "plants", "energy_gain": 0.0, "name": "W"}, steps=150)
    assert len(starving) == 0  # no food at all: every one starved within its energy


def test_the_young_inherit_speed_and_vision_with_mutation():
    hab = flat(200.0, cell=4.0)
    run = animals(hab, {**DEER, "mutation": 0.2, "max_age": 60}, steps=300)
    assert run.history["born"][1:].sum() > 200 and len(run) > 50
    assert run.speed.std() > 0.05 and run.vision.std() > 0.2  # traits drifted apart
    same = animals(hab, {**DEER, "mutation": 0.0, "max_age": 60}, steps=300)
    assert np.all(same.speed == DEER.get("speed", 4.0)) and np.all(same.vision == DEER["vision"])


def test_walkers_prefer_gentle_slopes():
    """On a plane rising 1 m a metre to the north the animals wander along the contours: from where
    they started they get farther east or west than north or south; on the flat, alike."""
    n = 65
    heights = np.tile(np.arange(n, dtype=np.float64)[:, None] * 4.0, (1, n)) + 50.0
    still = {**DEER, "reproduce": 0.0, "energy_gain": 100.0, "max_age": 10_000}
    for hab, slope in ((eco.habitat(heights, cell_size=4.0), True), (flat(256.0, cell=4.0), False)):
        run = animals(hab, still, steps=100)
        across = np.abs(run.x - run.den_x).mean()
        up = np.abs(run.y - run.den_y).mean()
        assert (up < 0.6 * across) if slope else (0.7 < up / across < 1.4), (up, across)


def test_trails_concentrate_the_steps():
    """Grazers walking to the lakes and back to their dens: with trail feedback the 5 % most worn
    cells carry at least three times the share of the steps they carry without it."""
    hab = terrain_habitat()
    deer = {**DEER, "count": 300, "reproduce": 0.04, "max_age": 300, "drink_every": 20, "home_range": 100.0}
    spec = eco.from_dict(
        {
            "steps": 1000,
            "seed": 0,
            "grass_regrowth": 0.03,
            "trail_decay": 0.001,
            "trail_attraction": 40.0,
            "animals": [deer],
        }
    )
    trails = drive(eco.animals_steps(spec, hab))
    none = drive(eco.animals_steps(spec, hab, trail_attraction=0.0))
    assert len(trails) > 100  # the walkers live on
    assert trail_share(trails) >= 3.0 * trail_share(none), (trail_share(trails), trail_share(none))


def test_the_animal_files():
    hab = terrain_habitat()
    spec = eco.from_dict({"steps": 300, "burn_in": 100, "animals": [DEER, {**WOLF, "home_range": 80.0}]})
    run = drive(eco.animals_steps(spec, hab))
    e = eco.Ecosystem(plants=None, animals=run, habitat=hab)
    files = eco.ecosystem_files("Hills", e)
    assert sorted(files) == ["Hills_ecosystem.json", "Hills_population.png", "Hills_spawns.json", "Hills_trails.png"]
    doc = json.loads(files["Hills_ecosystem.json"])
    assert doc["animals"]["names"] == ["Deer", "Wolf"] and len(doc["animals"]["history"]) == 301
    pop = np.array([s["population"] for s in doc["animals"]["history"]])
    born = np.array([s["born"] for s in doc["animals"]["history"]])
    died = np.array([s["died"] for s in doc["animals"]["history"]])
    assert (pop[1:] - pop[:-1] == born[1:] - died[1:]).all()
    # the trails: 16-bit grey, one texel per heightmap cell, as the splat maps (columns flipped)
    png = files["Hills_trails.png"]
    assert png[24:26] == b"\x10\x00"
    assert read_png(png).shape[:2] == (128, 128)
    expected = np.rint(eco.trail_map(run).astype(np.float64) * 65535.0).astype(np.uint16)[:, ::-1]
    raw = decode_png_16(png)
    assert (raw == expected).all() and raw.max() == 65535
    spawns = json.loads(files["Hills_spawns.json"])
    assert spawns["format"] == "worldseed.spawns" and [a["name"] for a in spawns["animals"]] == ["Deer", "Wolf"]
    for k, entry in enumerate(spawns["animals"]):
        pts = np.array(entry["points"])
        assert 0 < len(pts) <= (run.kind == k).sum()
        # Unity (-x, ground, -y): back in the habitat's frame they stand on land it used
        x, y = -pts[:, 0], -pts[:, 2]
        np.testing.assert_allclose(pts[:, 1], eco.ground_heights(hab, x, y), atol=2e-3)
        cx = np.clip(((x - hab.origin[0]) / hab.cell_size).astype(int), 0, 127)
        cy = np.clip(((y - hab.origin[1]) / hab.cell_size).astype(int), 0, 127)
        assert (run.visits[k][cy, cx] > 0).mean() > 0.9
    assert spawns["animals"][1]["home_range"] > 0.0
    chart = decode_png(files["Hills_population.png"])
    assert chart.shape == (240, 640, 3)  # one panel: the animals


def decode_png_16(data):
    """The samples of our 16-bit grey PNG (filter 0 rows)."""
    import struct
    import zlib

    w, h = struct.unpack(">II", data[16:24])
    pos, body = 8, b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        if data[pos + 4 : pos + 8] == b"IDAT":
            body += data[pos + 8 : pos + 8 + length]
        pos += 12 + length
    raw = np.frombuffer(zlib.decompress(body), np.uint8).reshape(h, 1 + 2 * w)
    return raw[:, 1:].copy().view(">u2").astype(np.uint16)


def test_bad_input_is_refused_naming_what():
    hab = flat(100.0, cell=4.0)
    spec = eco.from_dict({"steps": 5, "animals": [DEER]})
    with pytest.raises(ParameterError, match="vegetation"):
        drive(eco.animals_steps(spec, hab, vegetation=np.ones((3, 3))))
    sea = eco.habitat(np.zeros((26, 26)), cell_size=4.0, sea_level=1.0)
    with pytest.raises(ParameterError, match="land"):
        drive(eco.animals_steps(spec, sea))
    crowd = eco.from_dict({"steps": 100, "animals": [{**DEER, "count": 500_000}, {**WOLF, "count": 50_000}]})
    with pytest.raises(ParameterError, match=r"ecosystem\.animals\[1\]\.count .* pairs in sight"):
        drive(eco.animals_steps(crowd, hab))
    herd = [{**DEER, "name": f"Deer{i}", "count": 1_000_000} for i in range(2)] + [{**DEER, "count": 1}]
    many = eco.from_dict({"steps": 100, "animals": herd})
    with pytest.raises(ParameterError, match=r"ecosystem\.animals\[0\]\.count gives 2,000,001 animals"):
        drive(eco.animals_steps(many, hab))
