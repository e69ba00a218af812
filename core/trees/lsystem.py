"""L-systems: rule text in, expanded `Word` out (ABOP's bracketed, stochastic and parametric OL-systems).

`parse` reads an axiom and the rule text an artist types; `expand` rewrites
every module of the word in parallel, ``iterations`` times; the result is a
`core.skeleton.Word` for the turtle.

Rule text
---------
One production per line (or several on one line separated by ``;``); ``#``
starts a comment; blank lines are ignored::

    predecessor [: condition] -> successor [: weight]

The arrow may be written ``->``, ``-->`` or ``→`` (the first arrow in the
line counts; write ``- -> +`` with spaces when the predecessor is ``-``).  A
condition of ``*`` means none.  Examples::

    F -> F[+F]F[-F]F                    # ABOP fig. 1.24 (a)
    X -> F[+X]F[-X]+X ; F -> FF         # fig. 1.24 (d), two productions on one line

    F -> F[+F]F[-F]F : 0.33             # stochastic, fig. 1.27: one of three,
    F -> F[+F]F      : 0.33             # chosen at random with these weights
    F -> F[-F]F      : 0.34

    # parametric (constants r1 = 0.9, wr = 0.707 passed to parse)
    A(l,w) : l > 1 -> !(w)F(l)[&(30)A(l*0.7,w*wr)]/(137.5)A(l*r1,w*wr)

**Modules.**  A module is one character, optionally followed by parameters
``X(expr, expr, ...)``.  Letters, the turtle symbols ``F f G + - & ^ \\ / | [ ]
! ' $ { . } ~ %`` and any other printable non-space character can be a symbol,
except ``( ) , : ; #``.  Whitespace between modules is ignored.  ``[ ]`` and
``{ }`` must balance in the axiom and in each successor on its own.

**Predecessor.**  One module; its parameters are formal names, e.g.
``A(l,w)``.  Context-sensitive productions (``A < B > C``) are not supported.

**Expressions** (module parameters, conditions, weights): numbers, formal
parameters, constants (``constants=`` of `parse`), ``pi``; ``+ - * /``, ``^``
for power (``2^3^2`` is ``2^9``, ``-x^2`` is ``-(x^2)``), unary minus,
parentheses; comparisons ``< <= > >= == !=``; logic ``&&``/``and``,
``||``/``or``, ``!``/``not``; functions ``sin cos tan`` (of degrees), ``asin
acos atan atan2`` (in degrees), ``sqrt abs min max floor ceil exp log``, and
``rand(lo, hi)``, a uniform number from the seeded generator.  A comparison
used as a parameter gives 1.0 or 0.0.  Weights and the parameters of the
axiom may use numbers and constants only.

Semantics
---------
Every module is rewritten at the same time; a module without a matching
production is copied.  A production matches a module with the same symbol
*and* the same number of parameters whose condition holds (``A(x)`` and
``A(x,y)`` are unrelated).  Among the productions that match one module:

* if any carries a weight, one is picked at random with probability
  proportional to its weight (weights need not sum to 1; one without a
  weight counts as 1);
* otherwise the first one in file order applies.

Two productions for the same symbol and arity with neither a condition nor
a weight are an error (the second could never apply).

Randomness comes from one stream of ``numpy.random.Generator.random``
numbers per expansion, read module by module from left to right; within a
module: the conditions in file order (all of them when the productions are
weighted, else up to the first that holds), then one number for the
weighted choice, then the ``rand`` calls of the successor from left to
right.  The same seed gives the same word; the words of different seeds
differ.

Speed
-----
Systems without parameters (the common bracketed and stochastic plants)
rewrite whole strings: a 1:1 ``str.translate`` to placeholder characters,
one ``str.replace`` per rewritten symbol and, for stochastic symbols, one
``split`` and ``join`` with all successors chosen by one vectorised
``searchsorted`` draw.  The length of each step is known before it is built,
and an expansion that would exceed ``max_modules`` is refused before any
large allocation.  Parametric systems run one generated Python function per
predecessor in a tight loop over the modules, and stop as soon as the word
exceeds ``max_modules``.

Examples
--------
>>> bush = parse("F", "F -> F[+F]F[-F]F")
>>> expand(bush, 1).symbols
'F[+F]F[-F]F'
>>> len(expand(bush, 7))
195311
>>> countdown = parse("A(3)", '''
...     A(x) : x > 0 -> F(x)A(x-1)   # grow one segment per step
...     A(x) : x <= 0 -> L
... ''')
>>> str(expand(countdown, 5))
'F(3)F(2)F(1)L'
>>> str(parse_word("F(1)[+A(2,3*k)]", constants={"k": 2}))
'F(1)[+A(2,6)]'
"""

from collections.abc import Mapping
from dataclasses import dataclass, field

from .._checks import Seed, check_float, check_int, make_rng
from ..errors import short
from ._lsystem_expr import ExpressionError, check_name
from ._lsystem_parse import LSystemError, Production, check_brackets, check_symbols, parse_rules
from ._lsystem_parse import parse_word as _parse_word
from ._rewrite import Program, WordTooLong, build_program, expand_fast, expand_general
from .skeleton import Word

__all__ = [
    "ITERATIONS",
    "MAX_MODULES",
    "DEFAULT_MAX_MODULES",
    "LSystemError",
    "WordTooLong",
    "Production",
    "LSystem",
    "parse_word",
    "parse",
    "expand",
]

#: Number of rewriting steps `expand` accepts.
ITERATIONS = (0, 30)
#: Bounds of ``max_modules``: the longest word `expand` may build.
MAX_MODULES = (1, 50_000_000)
#: Default ``max_modules``: 5 M modules is 5 MB of symbols (a parametric word costs ~100 bytes a module).
DEFAULT_MAX_MODULES = 5_000_000


def _constants(constants: Mapping[str, float] | None) -> tuple[tuple[str, float], ...]:
    """Constants as a tuple of (name, float) pairs, names and values checked."""
    if constants is None:
        return ()
    if not isinstance(constants, Mapping):
        try:
            constants = dict(constants)
        except (TypeError, ValueError):
            raise LSystemError(f"constants must be a mapping of name to number, got {short(constants)}") from None
    out = []
    for name, value in constants.items():
        try:
            check_name(name, what="constant")
        except ExpressionError as err:
            raise LSystemError(str(err)) from None
        out.append((name, check_float(value, name=f"constant {name}")))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class LSystem:
    """An axiom and its productions, checked and compiled (built by `parse`, or by hand).

    Attributes
    ----------
    axiom : Word
        The starting word.
    productions : tuple of Production
        In file order.
    constants : tuple of (str, float)
        Named constants the expressions were compiled with.

    Constructing one checks every production and compiles it; a malformed one
    raises `LSystemError`.
    """

    axiom: Word
    productions: tuple[Production, ...]
    constants: tuple[tuple[str, float], ...] = ()
    _program: Program = field(init=False, repr=False, compare=False, default=None)  # type: ignore[assignment]  # made in __post_init__

    def __post_init__(self) -> None:
        if not isinstance(self.axiom, Word):
            raise LSystemError(f"axiom must be a Word, got {type(self.axiom).__name__}")
        try:
            check_symbols(self.axiom.symbols)
            check_brackets(self.axiom.symbols, "the axiom")
        except ExpressionError as err:
            raise LSystemError(f"axiom: {err}") from None
        object.__setattr__(self, "productions", tuple(self.productions))
        object.__setattr__(self, "constants", _constants(dict(self.constants)))
        object.__setattr__(self, "_program", build_program(self.productions, dict(self.constants)))

    @property
    def parametric(self) -> bool:
        """Whether the word can carry parameters (False: the fast string engine applies)."""
        return self._program.fast is None or self.axiom.params is not None


def parse_word(text: str, *, constants: Mapping[str, float] | None = None) -> Word:
    """Read a word such as ``F(1)[+A(2,3*2)]``.

    Parameters
    ----------
    text : str
        Modules; parameters may be expressions of numbers and constants.
    constants : mapping of str to float, optional
        Named constants usable in the parameters.

    Returns
    -------
    Word
        ``params`` is None when no module has parameters.  ``str(word)``
        reads back to the same word (parameters printed with ``:g``).

    Raises
    ------
    LSystemError
        Unknown symbols or names, unbalanced ``[ ]``/``{ }``, bad expressions.

    >>> w = parse_word("F(1)[+A(2,3*2)]")
    >>> w.symbols, w.params
    ('F[+A]', ((1.0,), (), (), (2.0, 6.0), ()))
    """
    return _parse_word(text, constants=dict(_constants(constants)), where="word")


def parse(axiom: str | Word, rules: str, *, constants: Mapping[str, float] | None = None) -> LSystem:
    """Read an L-system from its axiom and rule text (syntax in the module docstring).

    Parameters
    ----------
    axiom : str or Word
        The starting word, e.g. ``"F"`` or ``"A(1,10)"``.
    rules : str
        The productions, one per line (or separated by ``;``).
    constants : mapping of str to float, optional
        Named constants for the expressions, e.g. ``{"r1": 0.9, "d": 137.5}``.

    Returns
    -------
    LSystem

    Raises
    ------
    LSystemError
        With the line number, what is wrong and the text of the production:
        missing arrow, predecessor not one module, context-sensitive rules,
        unbalanced brackets, bad weights or expressions, unknown names,
        duplicate formal names, ambiguous productions.

    >>> parse("X", "X -> F[+X]F[-X]+X ; F -> FF").productions[1].successor
    'FF'
    """
    constants = dict(_constants(constants))
    if not isinstance(axiom, Word):
        axiom = _parse_word(axiom, constants=constants, where="axiom")
    return LSystem(axiom, parse_rules(rules, constants=constants), tuple(constants.items()))


def expand(system: LSystem, iterations: int, *, seed: Seed = 0, max_modules: int = DEFAULT_MAX_MODULES) -> Word:
    """Rewrite the axiom of ``system`` ``iterations`` times.

    Parameters
    ----------
    system : LSystem
        From `parse`.
    iterations : int
        Number of parallel rewriting steps, within ``ITERATIONS`` = (0, 30).
    seed : int or numpy.random.Generator, optional
        Drives stochastic choices and ``rand``; the same seed gives the same word.
    max_modules : int, optional
        Largest word allowed at any step, within ``MAX_MODULES``; default
        ``DEFAULT_MAX_MODULES`` (5 M).

    Returns
    -------
    Word
        ``params`` is None when no module has parameters.

    Raises
    ------
    LSystemError
        When a step would exceed ``max_modules`` (naming it, the length and the
        iteration; refused before building the step for systems without
        parameters), or an expression fails (e.g. division by zero), naming
        the module, the lines of its productions and the iteration.
    """
    if not isinstance(system, LSystem):
        raise LSystemError(f"system must be an LSystem (from parse), got {type(system).__name__}")
    iterations = check_int(iterations, name="iterations", bounds=ITERATIONS)
    max_modules = check_int(max_modules, name="max_modules", bounds=MAX_MODULES)
    rng = make_rng(seed)
    axiom = system.axiom
    if len(axiom) > max_modules:
        raise WordTooLong(len(axiom), 0, max_modules)
    if not system.parametric:
        return Word(expand_fast(axiom.symbols, system._program, iterations, rng, max_modules))
    return expand_general(axiom, system._program, iterations, rng, max_modules)
