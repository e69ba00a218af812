import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from worldseed.core.errors import ParameterError
from worldseed.core.trees import turtle
from worldseed.core.trees.skeleton import Word

H0, L0, U0 = np.array([0.0, 0, 1]), np.array([-1.0, 0, 0]), np.array([0.0, -1, 0])


def draw(symbols, params=None, **options):
    return turtle.interpret(Word(symbols, params), **options)


def parametric(*modules):
    """``parametric("F", ("+", 90), "F")`` -> Word("F+F", ((), (90.0,), ()))."""
    symbols = "".join(m if isinstance(m, str) else m[0] for m in modules)
    params = tuple(() if isinstance(m, str) else tuple(float(v) for v in m[1:]) for m in modules)
    return Word(symbols, params)


def reference(symbols, *, angle, step=1.0, width=0.1, width_decay=0.7, tropism=(0.0, 0.0, -1.0), tropism_strength=0.0):
    """Nodes drawn by the textbook turtle: frame rows [H; L; U] times ABOP's R_U, R_L, R_H (numpy)."""
    c, s = np.cos(np.radians(angle)), np.sin(np.radians(angle))

    def r_u(c, s):
        return np.array([[c, s, 0], [-s, c, 0], [0, 0, 1]])

    def r_l(c, s):
        return np.array([[c, 0, -s], [0, 1, 0], [s, 0, c]])

    def r_h(c, s):
        return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])

    turns = {
        "+": r_u(c, s),
        "-": r_u(c, -s),
        "|": r_u(-1.0, 0.0),
        "&": r_l(c, s),
        "^": r_l(c, -s),
        "\\": r_h(c, s),
        "/": r_h(c, -s),
    }
    t = np.asarray(tropism, float) / np.linalg.norm(tropism)
    frame, pos = np.array([H0, L0, U0]), np.zeros(3)
    cur, stack, rows = -1, [], []
    for ch in symbols:
        if ch in "FG":
            if cur < 0:
                rows.append([*pos, *frame[0], *frame[2], width / 2, -1, len(stack)])
                cur = len(rows) - 1
            pos = pos + step * frame[0]
            rows.append([*pos, *frame[0], *frame[2], width / 2, cur, len(stack)])
            cur = len(rows) - 1
            axis = np.cross(frame[0], t)
            if tropism_strength and np.linalg.norm(axis) > 1e-12:
                k = axis / np.linalg.norm(axis)
                kx = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
                a = tropism_strength * np.linalg.norm(axis)
                frame = frame @ (np.eye(3) + np.sin(a) * kx + (1 - np.cos(a)) * kx @ kx).T
        elif ch == "f":
            pos, cur = pos + step * frame[0], -1
        elif ch in turns:
            frame = turns[ch] @ frame
        elif ch == "$":
            left = np.cross([0.0, 0, 1], frame[0])
            if np.linalg.norm(left) > 1e-9:
                left /= np.linalg.norm(left)
                frame = np.array([frame[0], left, np.cross(frame[0], left)])
        elif ch == "[":
            stack.append((pos, frame, width, cur))
        elif ch == "]":
            pos, frame, width, cur = stack.pop()
        elif ch == "!":
            width *= width_decay
    return np.array(rows).reshape(-1, 12)


def node_table(sk):
    return np.column_stack([sk.positions, sk.headings, sk.ups, sk.radii, sk.parents, sk.orders])


def balanced(tokens):
    """Drop every ']' that has no '[' open."""
    out, depth = [], 0
    for t in tokens:
        if t == "]":
            if depth == 0:
                continue
            depth -= 1
        elif t == "[":
            depth += 1
        out.append(t)
    return "".join(out)


words = st.lists(st.sampled_from(list("FFFFfG+-&^\\/|$[]!~A")), max_size=80).map(balanced)
unit_vectors = st.tuples(*[st.floats(-1, 1)] * 3).filter(lambda v: np.linalg.norm(v) > 0.1)


# --- the frame and the symbols ----------------------------------------------------------------


def test_square_closes_in_the_xz_plane_turning_left_toward_minus_x():
    sk = draw("F+F+F+F", angle=90.0)
    assert sk.n_segments == 4 and sk.n_nodes == 5
    assert sk.parents.tolist() == [-1, 0, 1, 2, 3]
    np.testing.assert_allclose(sk.positions[1], [0, 0, 1], atol=1e-12)
    np.testing.assert_allclose(sk.positions[2], [-1, 0, 1], atol=1e-12)  # '+' turned toward -X
    np.testing.assert_allclose(sk.positions[-1], [0, 0, 0], atol=1e-12)
    np.testing.assert_allclose(sk.positions[:, 1], 0.0, atol=1e-12)
    np.testing.assert_allclose(sk.ups, np.tile(U0, (5, 1)), atol=1e-12)  # yaw keeps U


@pytest.mark.parametrize(
    "symbols, end",
    [
        ("+F", [-1, 0, 0]),
        ("-F", [1, 0, 0]),  # turn toward L = -X / away from it
        ("&F", [0, 1, 0]),
        ("^F", [0, -1, 0]),  # pitch down: toward -U = +Y / up: toward U
        ("\\+F", [0, 1, 0]),
        ("/+F", [0, -1, 0]),  # roll left: L dips toward -U, so '+' goes to +Y
        ("|F", [0, 0, -1]),
        ("F|F", [0, 0, 0]),
    ],
)
def test_each_rotation_turns_the_way_its_frame_definition_says(symbols, end):
    sk = draw(symbols, angle=90.0)
    np.testing.assert_allclose(sk.positions[-1], end, atol=1e-12)
    h, u = sk.headings[-1], sk.ups[-1]
    np.testing.assert_allclose(h, np.subtract(end, sk.positions[-2]), atol=1e-12)
    assert abs(h @ u) < 1e-12


def test_small_angles_follow_the_frame():
    d = np.radians(30.0)
    sk = draw("F&F", angle=30.0)
    np.testing.assert_allclose(sk.positions[2], [0, np.sin(d), 1 + np.cos(d)], atol=1e-12)
    np.testing.assert_allclose(sk.ups[2], [0, -np.cos(d), np.sin(d)], atol=1e-12)  # U' = cU + sH


def test_brackets_restore_position_frame_and_current_node():
    sk = draw("F[+F]F", angle=90.0)
    assert sk.parents.tolist() == [-1, 0, 1, 1]
    assert sk.orders.tolist() == [0, 0, 1, 0]
    np.testing.assert_allclose(sk.positions[2], [-1, 0, 1], atol=1e-12)
    np.testing.assert_array_equal(sk.positions[3], [0, 0, 2])  # straight on, exactly
    np.testing.assert_array_equal(sk.headings[3], sk.headings[1])
    np.testing.assert_array_equal(sk.ups[3], sk.ups[1])


def test_nested_branches_hang_off_the_right_parents():
    sk = draw("F[+F[&F]F]F[-F]", angle=45.0)
    assert sk.parents.tolist() == [-1, 0, 1, 2, 2, 1, 5]
    assert sk.orders.tolist() == [0, 0, 1, 2, 1, 0, 1]


def test_move_without_drawing_starts_a_new_root():
    sk = draw("fF[fF]F")
    assert sk.parents.tolist() == [-1, 0, -1, 2, 1]
    np.testing.assert_allclose(sk.positions[0], [0, 0, 1])
    np.testing.assert_allclose(sk.positions[2:4], [[0, 0, 3], [0, 0, 4]])
    np.testing.assert_allclose(sk.positions[4], [0, 0, 3])
    assert sk.orders.tolist() == [0, 0, 1, 1, 0]


def test_ignored_symbols_change_nothing():
    plain = draw("F[+F]F[-F]F", angle=25.7)
    noisy = draw("AFX[+LF]SF[-éFX]AF", angle=25.7)
    np.testing.assert_array_equal(node_table(plain), node_table(noisy))


def test_runs_of_rotations_equal_one_rotation_by_the_sum():
    a = draw("F/////F&&F+-+F", angle=10.0)
    b = turtle.interpret(parametric("F", ("/", 50), "F", ("&", 20), "F", ("+", 10), "F"))
    np.testing.assert_allclose(node_table(a), node_table(b), atol=1e-12)
    np.testing.assert_allclose(
        node_table(draw("&F/////F", angle=10.0)),
        node_table(turtle.interpret(parametric(("&", 10), "F", ("/", 50), "F"))),
        atol=1e-12,
    )


def test_roll_to_horizontal():
    sk = draw("+&/F$~", angle=35.0)
    leaves = sk.leaves
    h, u = leaves.headings[0], leaves.ups[0]
    left = np.cross(u, h)  # L = U x H
    assert abs(left[2]) < 1e-12  # L is horizontal
    assert u[2] > 0  # U leans up
    np.testing.assert_allclose(h, sk.headings[-1], atol=1e-15)  # the heading is left alone
    np.testing.assert_allclose(np.linalg.norm([h, left, u], axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(np.cross(h, left), u, atol=1e-12)
    vertical = draw("$~").leaves  # H vertical: nothing happens
    np.testing.assert_array_equal(vertical.ups[0], U0)


def test_turn_around_reverses_the_heading_and_keeps_up():
    lv = draw("+&/~|~", angle=40.0).leaves
    np.testing.assert_allclose(lv.headings[1], -lv.headings[0], atol=1e-12)
    np.testing.assert_allclose(lv.ups[1], lv.ups[0], atol=1e-12)


# --- widths, steps, parameters ----------------------------------------------------------------


def test_width_decay_and_set_width():
    sk = draw("F!F!F", width=0.2, width_decay=0.5)
    np.testing.assert_allclose(sk.radii, [0.1, 0.1, 0.05, 0.025])
    sk = turtle.interpret(parametric("F", ("!", 0.5), "F", "!", "F"), width=0.2, width_decay=0.5)
    np.testing.assert_allclose(sk.radii, [0.1, 0.1, 0.25, 0.125])


def test_order_ratios_apply_inside_brackets_only():
    sk = draw("F[F[F]F]F", width=0.4, order_width_ratio=0.5, order_length_ratio=0.25)
    np.testing.assert_allclose(sk.radii, [0.2, 0.2, 0.1, 0.05, 0.1, 0.2])
    lengths = np.linalg.norm(sk.positions[1:] - sk.positions[sk.parents[1:]], axis=1)
    np.testing.assert_allclose(lengths, [1, 0.25, 0.0625, 0.25, 1])


def test_parametric_moves_and_turns():
    sk = turtle.interpret(parametric(("F", 2.0), ("+", 90), ("F", 0.5), ("-", 90), ("&", 90), ("F", 3, 7)))
    np.testing.assert_allclose(sk.positions, [[0, 0, 0], [0, 0, 2], [-0.5, 0, 2], [-0.5, 3, 2]], atol=1e-12)
    sk = turtle.interpret(parametric(("f", 2.0), "F", ("F", -1.0)))
    np.testing.assert_allclose(sk.positions, [[0, 0, 2], [0, 0, 3], [0, 0, 2]])  # F(-1) moves back


def test_step_decay():
    sk = draw('F"F"F', length_decay=0.5, step=2.0)
    np.testing.assert_allclose(sk.positions[:, 2], [0, 2, 3, 3.5])
    sk = turtle.interpret(parametric("F", ('"', 3.0), "F", "[", ('"', 0.5), "F", "]", "F"))
    np.testing.assert_allclose(sk.positions[:, 2], [0, 1, 4, 5.5, 7])


def test_zero_length_moves_make_no_node():
    sk = turtle.interpret(parametric(("F", 0.0), "F", ("F", 0), "F"))
    assert sk.n_nodes == 3
    lengths = np.linalg.norm(sk.positions[1:] - sk.positions[sk.parents[1:]], axis=1)
    np.testing.assert_allclose(lengths, 1.0)


def test_leaves():
    sk = turtle.interpret(parametric("F", "~", "[", "+", ("~", 2.5), "]"), angle=90.0, leaf_size=0.3)
    lv = sk.leaves
    assert len(lv) == 2
    np.testing.assert_allclose(lv.positions, [[0, 0, 1], [0, 0, 1]])
    np.testing.assert_allclose(lv.headings, [H0, L0], atol=1e-12)
    np.testing.assert_allclose(lv.ups, [U0, U0], atol=1e-12)
    np.testing.assert_allclose(lv.sizes, [0.3, 2.5])
    assert lv.orders.tolist() == [0, 1]


def test_colour_counts_and_sets_and_is_restored_by_brackets():
    tri = "{F+F+F}"
    sk = draw("'" + tri + "['" + tri + "]" + tri, angle=120.0)
    assert [p.colour for p in sk.polygons] == [1, 2, 1]
    assert [p.order for p in sk.polygons] == [0, 1, 0]
    sk = turtle.interpret(parametric(("'", 5.0), *tri), angle=120.0)
    assert sk.polygons[0].colour == 5


# --- polygons and cuts ------------------------------------------------------------------------


def test_bush_leaf_is_one_planar_hexagon():
    sk = draw("F['''^^{-f+f+f-|-f+f+f}]", angle=22.5)
    assert len(sk.polygons) == 1
    poly = sk.polygons[0]
    assert poly.vertices.shape == (6, 3) and poly.vertices.dtype == np.float64
    assert poly.colour == 3 and poly.order == 1
    np.testing.assert_array_equal(poly.vertices[0], sk.positions[1])  # starts where '{' was met
    centred = poly.vertices - poly.vertices.mean(axis=0)
    assert np.linalg.svd(centred, compute_uv=False)[-1] < 1e-12  # planar
    edges = np.linalg.norm(np.diff(poly.vertices, axis=0, append=poly.vertices[:1]), axis=1)
    assert edges.min() > 0.5  # no repeated vertex left
    assert sk.n_nodes == 2  # moves inside it drew nothing


def test_polygon_vertices_g_moves_dots_and_dropped_duplicates():
    sk = draw("{G+F+F+F}", angle=90.0)
    np.testing.assert_allclose(sk.polygons[0].vertices, [[0, 0, 0], [-1, 0, 1], [-1, 0, 0]], atol=1e-12)
    sk = draw("{..F.+F+F+F.}", angle=90.0)
    np.testing.assert_allclose(sk.polygons[0].vertices, [[0, 0, 0], [0, 0, 1], [-1, 0, 1], [-1, 0, 0]], atol=1e-12)
    assert draw("{F}").polygons == () and draw("{F|F}").polygons == ()
    assert draw("{F+F+F", angle=90.0).polygons == ()  # never closed


def test_nested_polygons_and_the_node_after_a_polygon():
    sk = draw("{F[{F+F+F}]+F+F}F", angle=120.0)
    assert len(sk.polygons) == 2
    assert [len(p.vertices) for p in sk.polygons] == [3, 3]
    assert sk.parents.tolist() == [-1, 0]  # a new root where the polygon ended
    np.testing.assert_allclose(sk.positions[0], sk.polygons[1].vertices[0], atol=1e-12)


def test_cut_skips_to_the_end_of_the_branch():
    sk = draw("F[+F%F[F]F]F", angle=90.0)
    assert sk.parents.tolist() == [-1, 0, 1, 1]
    np.testing.assert_allclose(sk.positions[3], [0, 0, 2])
    assert draw("F%FF").n_nodes == 2  # at the trunk: the rest of the word
    sk = draw("F[[F%F]F]F")
    assert sk.parents.tolist() == [-1, 0, 1, 1, 1]


# --- invariants over random words -------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(words, st.floats(-180, 180), st.floats(0, 30), st.floats(-1, 1), unit_vectors, st.integers(0, 3))
def test_random_words_keep_the_invariants(symbols, angle, jitter, strength, tropism, seed):
    sk = draw(
        symbols,
        angle=angle,
        jitter=jitter,
        tropism=tropism,
        tropism_strength=strength,
        seed=seed,
        width=0.3,
        width_decay=0.8,
    )
    n = sk.n_nodes
    assert np.all(sk.parents < np.arange(n))
    for h, u in ((sk.headings, sk.ups), (sk.leaves.headings, sk.leaves.ups)):
        np.testing.assert_allclose(np.linalg.norm(h, axis=1), 1.0, atol=1e-9)
        np.testing.assert_allclose(np.linalg.norm(u, axis=1), 1.0, atol=1e-9)
        np.testing.assert_allclose(np.einsum("ij,ij->i", h, u), 0.0, atol=1e-9)
    assert np.all(sk.radii > 0)
    child = np.flatnonzero(sk.parents >= 0)
    seg = sk.positions[child] - sk.positions[sk.parents[child]]
    lengths = np.linalg.norm(seg, axis=1)
    assert np.all(lengths > 0.5)  # every move is one step
    np.testing.assert_allclose(seg / lengths[:, None], sk.headings[child], atol=1e-9)
    assert sk.n_segments == symbols.count("F") + symbols.count("G")


@settings(max_examples=120, deadline=None)
@given(words, st.floats(-180, 180), st.floats(-1, 1), unit_vectors)
def test_random_words_match_the_matrix_turtle(symbols, angle, strength, tropism):
    sk = draw(symbols, angle=angle, tropism=tropism, tropism_strength=strength, width_decay=0.9)
    expected = reference(symbols, angle=angle, tropism=tropism, tropism_strength=strength, width_decay=0.9)
    np.testing.assert_allclose(node_table(sk), expected, atol=1e-9)


# --- tropism ----------------------------------------------------------------------------------


def test_gravity_bends_a_chain_down_monotonically_with_strength():
    chain = "&" + "F" * 20
    ends = [draw(chain, angle=30.0, tropism_strength=e).positions[-1, 2] for e in (0.0, 0.05, 0.1, 0.2, 0.4)]
    assert np.all(np.diff(ends) < 0)
    up = draw(chain, angle=30.0, tropism_strength=-0.1).positions[-1, 2]
    assert up > ends[0]  # negative strength: away from T


def test_tropism_turns_by_e_times_sin_of_the_angle_to_t():
    e = 0.3
    sk = draw("&FF", angle=60.0, tropism_strength=e)
    before = np.degrees(np.arccos(sk.headings[1] @ [0, 0, -1]))
    after = np.degrees(np.arccos(sk.headings[2] @ [0, 0, -1]))
    assert before == pytest.approx(120.0)
    assert after == pytest.approx(120.0 - np.degrees(e * np.sin(np.radians(120.0))))
    assert abs(sk.headings[2][0]) < 1e-12  # still in the plane of H and T


def test_tropism_along_the_heading_changes_nothing():
    straight = draw("F" * 10)
    along = draw("F" * 10, tropism=(0.0, 0.0, 5.0), tropism_strength=0.8)
    gravity = draw("F" * 10, tropism_strength=0.8)  # exactly against H: no torque either
    np.testing.assert_array_equal(node_table(straight), node_table(along))
    np.testing.assert_array_equal(node_table(straight), node_table(gravity))


# --- jitter and determinism -------------------------------------------------------------------


def _all_bytes(sk):
    parts = [sk.positions, sk.headings, sk.ups, sk.radii, sk.parents, sk.orders, sk.leaves.positions]
    return b"".join(a.tobytes() for a in parts) + b"".join(p.vertices.tobytes() for p in sk.polygons)


BUSH_WORD = "F[&F~!F[&F/F'{-f+f+f}]]///[&F!F~]F[^F]F"


def test_same_seed_same_bytes_and_other_seeds_differ():
    a = draw(BUSH_WORD, jitter=8.0, seed=3, tropism_strength=0.2)
    b = draw(BUSH_WORD, jitter=8.0, seed=3, tropism_strength=0.2)
    c = draw(BUSH_WORD, jitter=8.0, seed=4, tropism_strength=0.2)
    g = draw(BUSH_WORD, jitter=8.0, seed=np.random.default_rng(3), tropism_strength=0.2)
    assert _all_bytes(a) == _all_bytes(b) == _all_bytes(g)
    assert not np.allclose(a.positions, c.positions)


def test_without_jitter_the_seed_is_ignored():
    assert _all_bytes(draw(BUSH_WORD, seed=1)) == _all_bytes(draw(BUSH_WORD, seed=2))


def test_jitter_spreads_angles_with_the_requested_deviation():
    sk = draw("[+~]" * 4000, angle=30.0, jitter=5.0, seed=11)
    turned = np.degrees(np.arctan2(-sk.leaves.headings[:, 0], sk.leaves.headings[:, 2]))
    assert turned.mean() == pytest.approx(30.0, abs=0.3)
    assert turned.std() == pytest.approx(5.0, rel=0.08)
    assert np.abs(turned - 30.0).max() <= 15.0 + 1e-9  # clipped at 3 deviations
    np.testing.assert_allclose(sk.leaves.headings[:, 1], 0.0, atol=1e-12)  # a yaw stays a yaw


def test_drawing_moves_wobble_a_little():
    sk = draw("F" * 400, jitter=10.0, seed=5)
    turn = np.degrees(np.arccos(np.clip(np.einsum("ij,ij->i", sk.headings[2:], sk.headings[1:-1]), -1, 1)))
    assert 0 < np.median(turn) < 10.0 * turtle.MOVE_JITTER * 3
    assert np.abs(sk.headings[:, 0]).max() > 0.05  # pitch alone stays in the YZ plane; the roll leaves it


# --- errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, value",
    [
        ("angle", 400.0),
        ("angle", float("nan")),
        ("step", 0.0),
        ("step", 2e4),
        ("width", -0.1),
        ("width_decay", 0.0),
        ("width_decay", 2.0),
        ("order_width_ratio", 0.0),
        ("order_length_ratio", 1.6),
        ("length_decay", -1.0),
        ("tropism_strength", 1.5),
        ("jitter", 91.0),
        ("jitter", -1.0),
        ("leaf_size", -0.5),
        ("seed", -1),
        ("max_nodes", 0),
        ("max_nodes", 30_000_000),
        ("tropism", (0.0, 1.0)),
        ("tropism", (0.0, float("inf"), 1.0)),
        ("tropism", "up"),
    ],
)
def test_bad_options_name_the_parameter_and_value(name, value):
    with pytest.raises(ParameterError, match=name) as err:
        draw("F", **{name: value})
    if not isinstance(value, (tuple, str)):
        assert f"{value:g}" in str(err.value) or repr(value) in str(err.value)


def test_zero_tropism_only_without_strength():
    assert draw("&FF", tropism=(0, 0, 0)).n_nodes == 3
    with pytest.raises(ParameterError, match="tropism"):
        draw("F", tropism=(0, 0, 0), tropism_strength=0.1)


def test_word_must_be_a_word():
    with pytest.raises(ParameterError, match="word"):
        turtle.interpret("F+F")


@pytest.mark.parametrize("symbols, message", [("F[F]]F", "module 4"), ("F{F+F+F}}", "module 8"), ("]", "module 0")])
def test_unbalanced_closers_name_the_module(symbols, message):
    with pytest.raises(ParameterError, match=message):
        draw(symbols)


@pytest.mark.parametrize(
    "module, message",
    [
        (("!", -1.0), "module 1"),
        (("F", float("nan")), "module 1"),
        (("~", -2.0), "leaf size"),
        (('"', 0.0), "step factor"),
        (("+", float("inf")), "non-finite"),
    ],
)
def test_bad_module_parameters_are_refused(module, message):
    with pytest.raises(ParameterError, match=message):
        turtle.interpret(parametric("F", module, "F"))


def test_malformed_params_are_refused():
    with pytest.raises(ParameterError, match="params"):
        turtle.interpret(Word("F+", (None, ())))


def test_max_nodes_refuses_before_any_work():
    with pytest.raises(ParameterError, match="max_nodes"):
        draw("F" * 1001, max_nodes=1000)
    assert draw("F" * 1000, max_nodes=1000).n_segments == 1000
    big = Word("F" * (turtle.MAX_NODES_DEFAULT + 1))
    t0 = time.perf_counter()
    with pytest.raises(ParameterError, match="max_nodes"):
        turtle.interpret(big)
    assert time.perf_counter() - t0 < 0.05
