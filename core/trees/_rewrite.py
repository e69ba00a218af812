"""The rewriting engines behind ``core.lsystem.expand``.

`build_program` turns checked productions into two forms:

* **Groups** (always): one generated Python function per ``(symbol, arity)``
  pair, ``rewrite(params, u) -> (successor symbols, successor params) or
  None``, with the conditions, the weighted choice and the parameter
  expressions written inline.  `expand_general` loops over the modules once
  per step and calls them: the parametric engine.
* **Fast tables** (when no successor carries parameters and no condition
  calls ``rand``): a 1:1 ``str.translate`` table that turns every rewritten
  symbol into a placeholder character (ASCII control characters, or the
  private-use area when those run out, neither of which can be a module
  symbol), one ``str.replace`` per deterministic symbol, and for each
  stochastic symbol its successors, cumulative weights and lengths.
  `expand_fast` works on ``str`` only.  (A ``translate`` that maps a character
  straight to a whole string runs item by item through a dict in CPython and
  is no faster than a Python loop; the 1:1 translate has a cached C path, and
  ``replace`` is a C loop, which makes each step about 9x faster.)

Random numbers: one uniform stream per expansion, ``rng.random`` read in
order, consumed module by module from left to right; within a module the
conditions in file order, then one draw for the weighted choice (when the
matching productions carry weights), then the ``rand`` calls of the successor
from left to right.  The fast engine draws ``rng.random(k)`` for the ``k``
stochastic modules of a step in the same order, so both engines give the same
word for the same seed (the tests check this).
"""

from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import short
from ._lsystem_expr import NAMESPACE
from ._lsystem_parse import CompiledProduction, LSystemError, Production, compile_production, fail
from .skeleton import Word

__all__ = ["Program", "WordTooLong", "build_program", "expand_fast", "expand_general"]


class WordTooLong(LSystemError):
    """An expansion would outgrow ``max_modules``: ``length`` modules (at least, when ``at_least``) at
    ``iteration``, more than ``limit``.  Callers that fix ``max_modules`` themselves (a tree grows with a
    set limit) can say what the user should change instead."""

    def __init__(
        self, length: int, iteration: int, limit: int, *, at_least: bool = False, stopped: bool = False
    ) -> None:
        self.length, self.iteration, self.limit, self.at_least = length, iteration, limit, at_least
        if iteration == 0:
            what = f"the axiom has {length:,} modules, more than max_modules={limit:,}"
        elif stopped:
            what = f"the word grew past max_modules={limit:,} modules at iteration {iteration} (stopped there)"
        else:
            what = (
                f"the word would reach {'at least ' if at_least else ''}{length:,} modules at iteration "
                f"{iteration}, more than max_modules={limit:,}"
            )
        super().__init__(f"{what}; use fewer iterations or raise max_modules")


#: Uniforms drawn at a time by the general engine (only the order matters, not the chunking).
_CHUNK = 4096
_ASCII_PLACEHOLDERS = [chr(i) for i in range(32)] + [chr(127)]


@dataclass(frozen=True)
class _Choice:
    """A stochastic symbol of the fast engine."""

    symbol: str
    placeholder: str
    successors: npt.NDArray[np.object_]  # (K,) successor strings
    lengths: npt.NDArray[np.int64]  # (K,)
    cumulative: npt.NDArray[np.float64]  # (K,) running sum of the weights


@dataclass(frozen=True)
class _FastTables:
    table: dict[int, int]  # ord(symbol) -> ord(placeholder), every rewritten symbol
    replacements: tuple[tuple[str, str], ...]  # (placeholder, successor) of the deterministic symbols
    growth: tuple[tuple[str, int], ...]  # (symbol, len(successor) - 1) of deterministic symbols that change length
    rewritten: tuple[str, ...]  # the deterministic symbols, in the order of growth_matrix
    growth_matrix: npt.NDArray[np.int64]  # (k+1, k+1) int64: row i = counts of rewritten[j] (and of all others, last
    # column) in the successor of rewritten[i]; the last row keeps the others
    choices: tuple[_Choice, ...]  # per stochastic symbol
    ascii_kinds: npt.NDArray[np.int16]  # (256,): index into choices, -1 for others


@dataclass(frozen=True)
class Program:
    """What `expand` runs: generated group functions and, when possible, the fast tables."""

    groups: dict[str, tuple[Callable[..., Any] | None, ...]]  # symbol -> by arity: rewrite function or None
    lines: dict[tuple[str, int], tuple[int, ...]]  # (symbol, arity) -> line numbers of its productions
    sources: dict[tuple[str, int], str]  # (symbol, arity) -> generated source (for reading / debugging)
    fast: _FastTables | None


# --- building ---------------------------------------------------------------------------------


def _params_source(compiled: CompiledProduction) -> str:
    modules = []
    for exprs in compiled.params:
        modules.append("(" + ", ".join(e.float_source for e in exprs) + ",)" if exprs else "()")
    return "(" + ", ".join(modules) + ("," if len(modules) == 1 else "") + ")"


def _return(compiled: CompiledProduction, indent: str) -> str:
    return f"{indent}return ({compiled.symbols!r}, {_params_source(compiled)})"


def _group_source(arity: int, members: Sequence[CompiledProduction]) -> str:
    """Source of ``def _rewrite(_p, _u)`` for the productions of one (symbol, arity), in file order."""
    out = ["def _rewrite(_p, _u):"]
    if arity:
        out.append("    " + ", ".join(f"_p{i}" for i in range(arity)) + ", = _p")
    weighted = any(m.production.weight is not None for m in members)
    conditional = any(m.condition is not None for m in members)
    if not weighted:  # first matching production in file order
        for m in members:
            if m.condition is None:
                out.append(_return(m, "    "))
                break
            out += [f"    if {m.condition.source}:", _return(m, "        ")]
        else:
            out.append("    return None")
        return "\n".join(out)
    if not conditional:  # one weighted draw among all of them
        out.append("    _k = _bisect(_cumulative, _u() * _total)")
    else:  # the matching set depends on the parameters
        out.append("    _m = []")
        for k, m in enumerate(members):
            if m.condition is None:
                out.append(f"    _m.append({k})")
            else:
                out += [f"    if {m.condition.source}:", f"        _m.append({k})"]
        out += ["    if not _m:", "        return None", "    _k = _choose(_m, _u)"]
    for k, m in enumerate(members[:-1]):
        out += [f"    if _k == {k}:", _return(m, "        ")]
    out.append(_return(members[-1], "    "))
    return "\n".join(out)


def _make_chooser(
    weights: Sequence[float], has_weight: Sequence[bool]
) -> Callable[[Sequence[int], Callable[[], float]], int]:
    def choose(matching: Sequence[int], u: Callable[[], float]) -> int:
        if not any(has_weight[i] for i in matching):
            return matching[0]
        cumulative = list(accumulate(weights[i] for i in matching))
        return matching[bisect_right(cumulative, u() * cumulative[-1])]

    return choose


def _compile_group(symbol: str, arity: int, members: Sequence[CompiledProduction]) -> tuple[Callable[..., Any], str]:
    source = _group_source(arity, members)
    weights = [1.0 if m.production.weight is None else float(m.production.weight) for m in members]
    cumulative = list(accumulate(weights))
    namespace: dict[str, Any] = dict(
        NAMESPACE,
        _bisect=bisect_right,
        _cumulative=cumulative,
        _total=cumulative[-1],
        _choose=_make_chooser(weights, [m.production.weight is not None for m in members]),
    )
    try:
        code = compile(source, f"<l-system productions for {symbol!r}/{arity}>", "exec")
    except (SyntaxError, RecursionError, MemoryError):  # expressions are bounded; this is a last resort
        raise LSystemError(
            f"the productions for {symbol!r} with {arity} parameter{'' if arity == 1 else 's'} are too "
            "complex to compile; use simpler expressions"
        ) from None
    exec(code, namespace)  # noqa: S102
    rewrite: Callable[..., Any] = namespace["_rewrite"]
    return rewrite, source


def _check_ambiguity(members: Sequence[CompiledProduction]) -> None:
    plain = [m.production for m in members if m.condition is None and m.production.weight is None]
    if len(plain) > 1:
        first, second = plain[0], plain[1]
        arity = len(first.params)
        raise fail(
            f"line {second.line}" if second.line else "production",
            f"a second production for {first.predecessor!r} with {arity} parameter"
            f"{'' if arity == 1 else 's'} and neither condition nor weight (the one on line "
            f"{first.line} would always win): add ': weight' to each for a random choice, or a "
            "condition",
            second.text or str(second),
        )


def _static_condition(compiled: CompiledProduction) -> bool:
    """Value of the condition of a production without parameters and without rand (True if none)."""
    if compiled.condition is None:
        return True
    try:
        return bool(eval(compile(compiled.condition.source, "<condition>", "eval"), dict(NAMESPACE)))  # noqa: S307
    except (ArithmeticError, ValueError) as err:
        p = compiled.production
        raise fail(
            f"line {p.line}" if p.line else "production",
            f"the condition {short(p.condition, limit=60)} cannot be evaluated: {err}",
            p.text or str(p),
        ) from None


def _fast_tables(grouped: Mapping[tuple[str, int], Sequence[CompiledProduction]]) -> _FastTables | None:
    """String-engine tables, or None with more rewritten symbols than placeholders (6,433)."""
    placeholders = iter(_ASCII_PLACEHOLDERS + [chr(0xE000 + i) for i in range(6400)])  # never symbols
    table, replacements, growth, rewritten, choices = {}, [], [], [], []
    for (symbol, arity), members in grouped.items():
        if arity:
            continue  # no module ever carries parameters here
        live = [m for m in members if _static_condition(m)]
        if not live:
            continue
        placeholder = next(placeholders, None)
        if placeholder is None:
            return None
        if any(m.production.weight is not None for m in live):
            weights = [1.0 if m.production.weight is None else float(m.production.weight) for m in live]
            successors = np.empty(len(live), dtype=object)
            successors[:] = [m.symbols for m in live]
            choices.append(
                _Choice(
                    symbol,
                    placeholder,
                    successors,
                    np.array([len(m.symbols) for m in live], dtype=np.int64),
                    np.array(list(accumulate(weights))),
                )
            )
        else:
            successor = live[0].symbols
            if successor == symbol:
                continue
            replacements.append((placeholder, successor))
            rewritten.append((symbol, successor))
            if len(successor) != 1:
                growth.append((symbol, len(successor) - 1))
        table[ord(symbol)] = ord(placeholder)
    ascii_kinds = np.full(256, -1, dtype=np.int16)
    for k, choice in enumerate(choices):
        if ord(choice.symbol) < 128:
            ascii_kinds[ord(choice.symbol)] = k
    k = len(rewritten)
    matrix = np.zeros((k + 1, k + 1), dtype=np.int64)
    matrix[k, k] = 1
    for i, (_, successor) in enumerate(rewritten):
        for j, (other, _) in enumerate(rewritten):
            matrix[i, j] = successor.count(other)
        matrix[i, k] = len(successor) - matrix[i, :k].sum()
    return _FastTables(
        table, tuple(replacements), tuple(growth), tuple(s for s, _ in rewritten), matrix, tuple(choices), ascii_kinds
    )


def build_program(productions: Iterable[Production], constants: Mapping[str, float]) -> Program:
    """Check and compile ``productions`` (a tuple of Production) into a `Program`."""
    grouped: dict[tuple[str, int], list[CompiledProduction]] = {}
    for production in productions:
        compiled = compile_production(production, constants)
        grouped.setdefault((production.predecessor, compiled.arity), []).append(compiled)
    table: dict[str, tuple[Callable[..., Any] | None, ...]]
    lines: dict[tuple[str, int], tuple[int, ...]]
    sources: dict[tuple[str, int], str]
    table, lines, sources = {}, {}, {}
    for (symbol, arity), members in grouped.items():
        _check_ambiguity(members)
        function, sources[symbol, arity] = _compile_group(symbol, arity, members)
        slots = list(table.get(symbol, ()))
        slots += [None] * (arity + 1 - len(slots))
        slots[arity] = function
        table[symbol] = tuple(slots)
        lines[symbol, arity] = tuple(m.production.line for m in members)
    compiled_all = [m for members in grouped.values() for m in members]
    simple = not any(m.parametric for m in compiled_all) and not any(
        m.condition is not None and m.condition.uses_rand for m in compiled_all
    )
    return Program(table, lines, sources, _fast_tables(grouped) if simple else None)


# --- the fast engine (words without parameters) -----------------------------------------------


def _too_long(length: int, iteration: int, limit: int, *, at_least: bool = False) -> WordTooLong:
    return WordTooLong(length, iteration, limit, at_least=at_least)


def _predict_lengths(symbols: str, fast: _FastTables, iterations: int, limit: int) -> None:
    """Refuse a deterministic expansion that would outgrow ``limit``, before any work (growth matrix).

    Counts stay exact in int64: the loop stops at the first length above ``limit``
    (at most 5e7), which is at most ``limit`` times the longest successor.
    """
    counts = np.array([symbols.count(c) for c in fast.rewritten] + [0], dtype=np.int64)
    counts[-1] = len(symbols) - counts.sum()
    for iteration in range(1, iterations + 1):
        counts = counts @ fast.growth_matrix
        length = int(counts.sum())
        if length > limit:
            raise _too_long(length, iteration, limit)


def _stochastic_kinds(symbols: str, fast: _FastTables) -> npt.NDArray[np.int16]:
    """(n,) int16 index into ``fast.choices`` of every module, -1 where not stochastic."""
    if symbols.isascii():
        return fast.ascii_kinds[np.frombuffer(symbols.encode("ascii"), np.uint8)]
    codes = np.frombuffer(symbols.encode("utf-32-le"), np.uint32)
    kinds = np.full(codes.shape, -1, dtype=np.int16)
    for k, choice in enumerate(fast.choices):
        kinds[codes == ord(choice.symbol)] = k
    return kinds


def _fast_step(symbols: str, fast: _FastTables, rng: np.random.Generator, limit: int, iteration: int) -> str:
    length = len(symbols) + sum(symbols.count(s) * d for s, d in fast.growth)
    draws = []
    if fast.choices:
        if len(fast.choices) == 1:
            kinds, counts = None, [symbols.count(fast.choices[0].symbol)]
        else:
            kinds = _stochastic_kinds(symbols, fast)
            kinds = kinds[kinds >= 0]
            counts = np.bincount(kinds, minlength=len(fast.choices)).tolist()
        shortest = length + sum(k * (int(c.lengths.min()) - 1) for k, c in zip(counts, fast.choices))
        if shortest > limit:  # refused before drawing anything
            raise _too_long(shortest, iteration, limit, at_least=True)
        u = rng.random(sum(counts))
        uniforms = [u] if kinds is None else [u[kinds == k] for k in range(len(fast.choices))]
        for choice, u in zip(fast.choices, uniforms):
            picked = np.searchsorted(choice.cumulative, u * choice.cumulative[-1], side="right")
            draws.append(picked)
            length += int(choice.lengths[picked].sum()) - picked.size
    if length > limit:
        raise _too_long(length, iteration, limit)
    out = symbols.translate(fast.table)
    for placeholder, successor in fast.replacements:
        out = out.replace(placeholder, successor)
    for choice, picked in zip(fast.choices, draws):
        parts = out.split(choice.placeholder)
        pieces: list[Any] = [None] * (2 * len(parts) - 1)
        pieces[::2] = parts
        pieces[1::2] = choice.successors[picked].tolist()
        out = "".join(pieces)
    return out


def expand_fast(symbols: str, program: Program, iterations: int, rng: np.random.Generator, limit: int) -> str:
    """Rewrite the str ``symbols`` ``iterations`` times with the fast tables; returns a str."""
    fast = program.fast
    assert fast is not None, "a program with fast tables"
    if not fast.choices:
        _predict_lengths(symbols, fast, iterations, limit)
    for iteration in range(1, iterations + 1):
        if not fast.table:
            break
        symbols = _fast_step(symbols, fast, rng, limit, iteration)
    return symbols


# --- the general engine (parameters, conditions, rand) ----------------------------------------


def _uniform_stream(rng: np.random.Generator) -> Iterator[float]:
    while True:
        yield from rng.random(_CHUNK).tolist()


def _general_step(
    symbols: str,
    params: Sequence[tuple[float, ...]],
    groups: Mapping[str, tuple[Callable[..., Any] | None, ...]],
    u: Callable[[], float],
    limit: int,
) -> tuple[list[str], list[tuple[float, ...]]] | None:
    """One parallel rewrite; returns (list of str pieces, list of param tuples) or raises.

    Stops as soon as the output holds more than ``limit`` modules (returns None then).
    """
    out_symbols: list[str]
    out_params: list[tuple[float, ...]]
    out_symbols, out_params = [], []
    add_symbols, add_param, add_params = out_symbols.append, out_params.append, out_params.extend
    get = groups.get
    for symbol, p in zip(symbols, params):
        functions = get(symbol)
        if functions is not None and len(p) < len(functions):
            function = functions[len(p)]
            if function is not None:
                result = function(p, u)
                if result is not None:
                    add_symbols(result[0])
                    add_params(result[1])
                    if len(out_params) > limit:
                        return None
                    continue
        add_symbols(symbol)
        add_param(p)
    return out_symbols, out_params


def expand_general(word: Word, program: Program, iterations: int, rng: np.random.Generator, limit: int) -> Word:
    """Rewrite the `Word` ``word`` ``iterations`` times by calling the group functions; returns a Word."""
    symbols = word.symbols
    params = list(word.params) if word.params is not None else [()] * len(symbols)
    u = _uniform_stream(rng).__next__
    for iteration in range(1, iterations + 1):
        try:
            result = _general_step(symbols, params, program.groups, u, limit)
        except (ArithmeticError, ValueError, TypeError) as err:
            symbol, p = _failing_module(symbols, params, err)
            raise _evaluation_error(program, symbol, p, iteration, err) from None
        if result is None or len(result[1]) > limit:
            raise WordTooLong(limit + 1, iteration, limit, at_least=True, stopped=True)
        symbols, params = "".join(result[0]), result[1]
    return Word(symbols, tuple(params) if any(params) else None)


def _failing_module(symbols: str, params: Sequence[tuple[float, ...]], err: Exception) -> tuple[Any, Any]:
    """The module being rewritten when ``err`` was raised (from the traceback of the step loop)."""
    tb = err.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code is _general_step.__code__:
            return tb.tb_frame.f_locals.get("symbol"), tb.tb_frame.f_locals.get("p")
        tb = tb.tb_next
    return None, None


def _evaluation_error(program: Program, symbol: Any, p: Any, iteration: int, err: Exception) -> LSystemError:
    module = str(Word(symbol, (p,))) if symbol is not None else "a module"
    lines = program.lines.get((symbol, len(p) if p is not None else 0), ())
    at = f" (productions on line{'s' if len(lines) > 1 else ''} {', '.join(map(str, lines))})" if lines else ""
    return LSystemError(f"iteration {iteration}: rewriting {module} failed{at}: {err}")
