"""The ecosystem's files: the plants CSV in Unity's frame, the JSON history, the chart, placements;
the same seed gives the same bytes in another process."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from worldseed.core import ecosystem as eco
from worldseed.core import placement

from ._ecosystem_cases import files_case, files_digest
from .test_preview import decode_png

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module")
def plants():
    return files_case()


def test_the_csv_has_one_row_per_living_plant_in_unitys_frame(plants):
    s, hab, r = plants
    lines = eco.plants_csv_bytes(r, hab).decode().splitlines()
    assert lines[0] == "species,x,y,z,age,radius,height"
    rows = [line.split(",") for line in lines[1:]]
    assert len(rows) == len(r) > 50
    names = [row[0] for row in rows]
    values = np.array([[float(v) for v in row[1:]] for row in rows])
    assert names == [s.species[k].name for k in r.kind]
    # Unity (-x, ground, -y) of the plant's Blender position, to the millimetre
    np.testing.assert_allclose(values[:, 0], -r.x, atol=5e-4)
    np.testing.assert_allclose(values[:, 2], -r.y, atol=5e-4)
    np.testing.assert_allclose(values[:, 1], eco.ground_heights(hab, r.x, r.y), atol=5e-4)
    x0, y0 = hab.origin
    nearest = hab.water[np.rint((r.y - y0) / 2.0).astype(int), np.rint((r.x - x0) / 2.0).astype(int)]
    assert hab.water.mean() > 0.1 and not nearest.any()  # nothing grows on a sea vertex
    assert (values[:, 3] == r.age).all() and values[:, 3].max() == 40
    np.testing.assert_allclose(values[:, 4:], np.column_stack([r.radius, r.height]), atol=5e-4)


def test_the_json_holds_every_year_of_the_history(plants):
    s, hab, r = plants
    doc = json.loads(eco.ecosystem_json_bytes(r))
    assert (doc["format"], doc["version"]) == ("worldseed.ecosystem", 1)
    assert doc["species"] == ["Birch", "Beech"] and doc["area_m2"] == pytest.approx(130.0 * 130.0)
    assert [y["year"] for y in doc["history"]] == list(range(41))
    for key in ("alive", "born", "died", "mean_radius", "mean_height"):
        assert all(len(y[key]) == 2 for y in doc["history"])
    alive = np.array([y["alive"] for y in doc["history"]])
    born = np.array([y["born"] for y in doc["history"]])
    died = np.array([y["died"] for y in doc["history"]])
    assert (alive[1:] - alive[:-1] == born[1:] - died[1:]).all()
    assert alive[-1].tolist() == np.bincount(r.kind, minlength=2).tolist()


def test_the_chart_draws_a_line_per_species(plants):
    s, hab, r = plants
    img = decode_png(eco.population_png_bytes(r))
    assert img.shape == (240, 640, 3)
    for k in range(2):
        c = [(31, 119, 180), (255, 127, 14)][k]
        assert (img == c).all(axis=2).sum() > 200  # a line of pixels in the species' colour


def test_the_plants_are_placements_scaled_by_their_height_and_canopy(plants):
    s, hab, r = plants
    entry = eco.plant_placements(
        r, hab, trees=["birch", "broadleaf"], scatter="Forest", terrain="T", size=130.0, height=40.0
    )
    inst = entry["instances"]
    assert len(inst) == len(r) and entry["props"] == ["birch", "broadleaf"]
    assert entry["layers"] == ["Birch", "Beech"]
    heights = np.array([sp.max_height for sp in s.species])[r.kind]
    radii = np.array([sp.max_radius for sp in s.species])[r.kind]
    np.testing.assert_allclose([i["scale"] for i in inst], r.height / heights, atol=1e-5)
    np.testing.assert_allclose([i["width_scale"] for i in inst], r.radius / radii, atol=1e-4)
    trees = entry["terrain_trees"]["instances"]
    assert len(trees) == len(r)
    np.testing.assert_allclose([t["height_scale"] for t in trees], r.height / heights, atol=1e-5)
    # the turns are about the vertical only: Unity quaternions (0, y, 0, w)
    q = np.array([i["rotation"] for i in inst])
    assert np.allclose(q[:, [0, 2]], 0.0) and np.allclose(np.hypot(q[:, 1], q[:, 3]), 1.0)
    expected = placement.placement_records(
        np.column_stack([r.x, r.y, eco.ground_heights(hab, r.x, r.y)]),
        np.tile([1.0, 0.0, 0.0, 0.0], (len(r), 1)),
        np.ones(len(r)),
        r.kind,
        ["birch", "broadleaf"],
    )
    assert [i["position"] for i in inst] == [e["position"] for e in expected]


def test_the_same_seed_gives_the_same_bytes_in_another_process():
    script = os.path.join(ROOT, "tests", "core", "_ecosystem_cases.py")
    out = subprocess.run([sys.executable, script], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == files_digest()
