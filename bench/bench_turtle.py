"""Benchmark worldseed.core.trees.turtle.interpret against a straightforward numpy turtle, same run.

Run from the repository root::

    .venv/bin/python bench/bench_turtle.py

The anchor is the turtle one writes first: the frame as a 3 x 3 numpy matrix
(rows H, L, U), one matrix product per rotation (ABOP's R_U, R_L, R_H),
numpy vectors for the position, a Python list of node rows.  It follows the
same rules as ours (nodes, brackets, widths, polygons, tropism), and its
nodes are checked against ours before timing.  Words are ABOP figures 1.24(a)
n=6, 1.24(d) n=7 and the 3-D bush of figure 1.25 n=5..7 (REFERENCES.md 1.1,
1.4), expanded here by plain string rewriting.  Target (printed, not
asserted): a word of about 100,000 modules with about 30,000 drawing moves
(figure 1.24(c) n=5: 88,940 modules, 32,768 F) in well under 100 ms.  The
jitter and parametric rows time the same figure with ``jitter=5`` and with
every ``F`` and turn carrying its value; the anchor draws the plain word.  Timings are the best
of N interleaved rounds (ours, anchor, ours, anchor, ...: the machine is shared), with the 1-minute
load average beside each line; both sides must give the same node and polygon counts (and, without
jitter, the same nodes).
"""

from functools import partial

import _loader  # noqa: F401  (the repo root as package ``worldseed``, as in tests/conftest.py)
import numpy as np
from _loader import interleaved

from worldseed.core.trees import turtle  # noqa: E402
from worldseed.core.trees.skeleton import Word  # noqa: E402

REPEATS = 3

BUSH = {"A": "[&FL!A]/////'[&FL!A]///////'[&FL!A]", "F": "S/////F", "S": "FL", "L": "['''^^{-f+f+f-|-f+f+f}]"}
CASES = [  # label, axiom, rules, n, angle, options
    ("fig 1.24a n=6", "F", {"F": "F[+F]F[-F]F"}, 6, 25.7, {}),
    ("fig 1.24c n=5", "F", {"F": "FF-[-F+F+F]+[+F-F-F]"}, 5, 22.5, {}),
    ("fig 1.24c n=5 jitter", "F", {"F": "FF-[-F+F+F]+[+F-F-F]"}, 5, 22.5, {"jitter": 5.0}),
    ("fig 1.24c n=5 parametric", "F", {"F": "FF-[-F+F+F]+[+F-F-F]"}, 5, 22.5, {"parametric": True}),
    ("fig 1.24d n=7", "X", {"X": "F[+X]F[-X]+X", "F": "FF"}, 7, 20.0, {}),
    ("fig 1.24d n=7 tropism", "X", {"X": "F[+X]F[-X]+X", "F": "FF"}, 7, 20.0, {"tropism_strength": 0.2}),
    ("fig 1.25 bush n=5", "A", BUSH, 5, 22.5, {}),
    ("fig 1.25 bush n=6", "A", BUSH, 6, 22.5, {}),
    ("fig 1.25 bush n=7", "A", BUSH, 7, 22.5, {}),
]


def expand(axiom, rules, n):
    word = axiom
    for _ in range(n):
        word = "".join([rules.get(c, c) for c in word])
    return word


def reference(symbols, *, angle, step=1.0, width=0.1, width_decay=0.7, tropism=(0.0, 0.0, -1.0), tropism_strength=0.0):
    """Nodes (position, heading, up, radius, parent, order) and polygon count, the plain numpy way."""
    c, s = np.cos(np.radians(angle)), np.sin(np.radians(angle))
    yaw = {
        "+": np.array([[c, s, 0], [-s, c, 0], [0, 0, 1]]),
        "-": np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]]),
        "|": np.array([[-1.0, 0, 0], [0, -1, 0], [0, 0, 1]]),
    }
    pitch = {"&": np.array([[c, 0, -s], [0, 1, 0], [s, 0, c]]), "^": np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])}
    roll = {"\\": np.array([[1, 0, 0], [0, c, -s], [0, s, c]]), "/": np.array([[1, 0, 0], [0, c, s], [0, -s, c]])}
    turns = {**yaw, **pitch, **roll}
    t = np.asarray(tropism, float)
    frame = np.array([[0.0, 0, 1], [-1, 0, 0], [0, -1, 0]])  # rows H, L, U
    pos = np.zeros(3)
    cur, depth, stack, polys, n_polys, nodes = -1, 0, [], [], 0, []
    for ch in symbols:
        if ch in "FGf":
            pos = pos + step * frame[0]
            if polys:
                cur = -1
                if ch != "G":
                    polys[-1].append(pos)
            elif ch == "f":
                cur = -1
            else:
                if cur < 0:
                    nodes.append([*(pos - step * frame[0]), *frame[0], *frame[2], width / 2, -1, depth])
                    cur = len(nodes) - 1
                nodes.append([*pos, *frame[0], *frame[2], width / 2, cur, depth])
                cur = len(nodes) - 1
                axis = np.cross(frame[0], t)
                m = np.linalg.norm(axis)
                if tropism_strength and m > 1e-12:
                    k = axis / m
                    kx = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
                    a = tropism_strength * m
                    rot = np.eye(3) + np.sin(a) * kx + (1 - np.cos(a)) * (kx @ kx)
                    frame = frame @ rot.T
        elif ch in turns:
            frame = turns[ch] @ frame
        elif ch == "[":
            stack.append((pos, frame, width, cur))
            depth += 1
        elif ch == "]":
            pos, frame, width, cur = stack.pop()
            depth -= 1
        elif ch == "!":
            width *= width_decay
        elif ch == "{":
            polys.append([pos])
        elif ch == "}":
            n_polys += len(polys.pop()) >= 3
    return np.array(nodes), n_polys


def main():
    print(
        f"{'word':<24}{'modules':>9}{'draws':>8}{'nodes':>8}{'ours ms':>10}{'numpy ms':>10}{'ratio':>8}  "
        "load (best of interleaved rounds)"
    )
    for label, axiom, rules, n, angle, options in CASES:
        symbols = expand(axiom, rules, n)
        options = dict(options)
        word = Word(symbols)
        if options.pop("parametric", False):  # every F and turn carries its value: F(1) +(22.5)
            word = Word(symbols, tuple((1.0,) if c == "F" else (angle,) if c in "+-" else () for c in symbols))
        plain = {k: v for k, v in options.items() if k != "jitter"}
        race = interleaved(
            REPEATS,
            partial(turtle.interpret, word, angle=angle, **options),
            partial(reference, symbols, angle=angle, **plain),
        )
        sk, (ref_nodes, ref_polys) = race.results
        # equivalent: the same number of nodes and polygons; without jitter also the same node rows (1e-6)
        assert sk.n_nodes == len(ref_nodes) and len(sk.polygons) == ref_polys, label
        if "jitter" not in options:  # the anchor has no jitter; its time still counts
            mine = np.column_stack([sk.positions, sk.headings, sk.ups, sk.radii, sk.parents, sk.orders])
            assert mine.shape == ref_nodes.shape and np.allclose(mine, ref_nodes, atol=1e-6), label
        ours_s, ref_s = race.seconds
        draws = symbols.count("F") + symbols.count("G")
        print(
            f"{label:<24}{len(symbols):>9,}{draws:>8,}{sk.n_nodes:>8,}{ours_s * 1e3:>10.1f}"
            f"{ref_s * 1e3:>10.1f}{race.ratio():>7.1f}x  {race.load_text()}"
        )


if __name__ == "__main__":
    main()
