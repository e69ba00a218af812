"""The shipped ecosystems load, with a pioneer and a shade-tolerant climax, grazers and hunters
(their coexistence: ``test_ecosystem_preset_<name>.py``)."""

from worldseed.core import ecosystem as eco


def test_the_presets_load_with_their_species_and_animals():
    assert eco.preset_names() == ["boreal", "savanna", "temperate"]
    temperate = eco.load_preset("temperate")
    tolerance = {s.name: s.shade_tolerance for s in temperate.species}
    assert tolerance["Birch"] == 0.0 and tolerance["Beech"] == 1.0  # a pioneer and a shade-tolerant climax
    assert [a.name for a in temperate.animals] == ["Deer", "Wolf"]
    for name in eco.preset_names():
        spec = eco.load_preset(name)
        assert spec.species and len(spec.animals) == 2
        assert spec.animals[0].eats == "plants" and spec.animals[1].eats == (spec.animals[0].name,)
