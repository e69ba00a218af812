"""Ranges of the texture layers' fields: the one place they are written (spec and engine import them)."""

__all__ = [
    "HEIGHT",
    "SLOPE",
    "FADE_M",
    "FADE_DEG",
    "RULE_WEIGHT",
    "DEPOSIT_DEPTH",
    "FLOW_AREA",
    "UNIT",
    "NOISE_SCALE",
    "TILE_SIZE",
    "MAX_LAYERS",
    "SPLAT_STREAM",
]

#: Heights a layer's range may name, metres.
HEIGHT = (-10_000_000.0, 10_000_000.0)
#: Slopes, degrees.
SLOPE = (0.0, 90.0)
#: Blend widths in metres (height, biome borders) and degrees (slope).
FADE_M = (0.0, 1_000_000.0)
FADE_DEG = (0.0, 90.0)
#: How strongly a layer follows deposits or flow: 1 only there, -1 never there, 0 not at all.
RULE_WEIGHT = (-1.0, 1.0)
#: Deposited depth at which a deposit rule is full, metres.
DEPOSIT_DEPTH = (1.0e-6, 100_000.0)
#: Upstream areas of the flow rule, square metres.
FLOW_AREA = (0.0, 1.0e12)
#: Shares and opacities.
UNIT = (0.0, 1.0)
#: Feature size of a layer's patch noise, metres.
NOISE_SCALE = (0.01, 1_000_000.0)
#: Size of one texture repeat, metres.
TILE_SIZE = (0.001, 100_000.0)
#: Most layers (8 RGBA splat images).
MAX_LAYERS = 32
#: Each layer's patch noise has its own stream: ``SeedSequence([seed, SPLAT_STREAM, layer])``.
SPLAT_STREAM = 0x53504C54  # "SPLT"
