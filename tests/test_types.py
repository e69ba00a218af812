"""core is typed: every function and method carries annotations, and the public ones are checked where
scripts meet them.

* every public function, method and property of core -- what a package face lists in ``__all__`` and what a
  public module (``core.mesh``, ``core.levels.spec`` ...) defines -- has every parameter and its return
  annotated (read with ``inspect`` from the imported objects, so a name re-exported through a face counts);
* every ``def`` anywhere in core, private engines included, is annotated (read from the source with ``ast``);
* no dataclass field of core is a bare container (``tuple``, ``dict``, ``np.ndarray`` ...): it says what it holds;
* every public function and method of the bridge (``operators/bridge``, the levels package's job modules too) is
  annotated: Blender's types from fake-bpy-module (``bpy.types.Object`` ...), core's specs, numpy arrays (read from
  the source with ``ast``: the bridge imports ``bpy``).

``make typecheck`` (mypy, settings in ``pyproject.toml``) checks that the annotations are true; this test keeps
``make test`` failing for a new function without them.
"""

import ast
import dataclasses
import importlib
import inspect
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
CORE = ROOT / "core"
BRIDGE = ROOT / "operators" / "bridge"
#: Methods checked although their names start with ``_``.
DUNDERS = ("__init__", "__call__", "__post_init__", "__len__", "__str__", "__getattr__")
#: Field annotations that say nothing about what they hold.
BARE = {"tuple", "dict", "list", "set", "frozenset", "object", "ndarray", "np.ndarray", "numpy.ndarray", "npt.NDArray"}


def _module_name(path):
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _public_modules():
    """Package faces and public modules of core: no underscored part in their dotted name."""
    names = [_module_name(p) for p in sorted(CORE.rglob("*.py"))]
    return [n for n in names if not any(part.startswith("_") for part in n.split("."))]


def _public_objects(name):
    """``(qualified name, object)`` of what ``name`` offers: its ``__all__``, else the public names it defines."""
    module = importlib.import_module(name)
    listed = getattr(module, "__all__", None)
    if listed is None:
        listed = [k for k, v in vars(module).items() if not k.startswith("_") and getattr(v, "__module__", "") == name]
    return [(f"{name}.{k}", getattr(module, k)) for k in listed]


def _callables(qualname, obj):
    """The functions a public name stands for: itself, or a class's own methods and properties."""
    if inspect.isfunction(obj):
        yield qualname, obj, False
    elif inspect.isclass(obj) and obj.__module__.split(".")[0] == "core":
        for attr, value in vars(obj).items():
            if attr.startswith("_") and attr not in ("__init__", "__call__", "__post_init__", "__len__", "__str__"):
                continue
            if isinstance(value, (staticmethod, classmethod)):
                yield f"{qualname}.{attr}", value.__func__, isinstance(value, classmethod)
            elif isinstance(value, property) and value.fget is not None:
                yield f"{qualname}.{attr}", value.fget, True
            elif inspect.isfunction(value):
                yield f"{qualname}.{attr}", value, True


def missing_annotations(fn, *, bound):
    """Names of ``fn``'s unannotated parameters (``self``/``cls`` of a method excepted), plus ``"return"``."""
    signature = inspect.signature(fn)
    params = list(signature.parameters.values())
    if bound and params:
        params = params[1:]
    missing = [p.name for p in params if p.annotation is inspect.Parameter.empty]
    if signature.return_annotation is inspect.Signature.empty:
        missing.append("return")
    return missing


def test_the_check_finds_a_missing_annotation():
    def typed(a: int, *, b: str = "") -> int:
        return a

    def untyped(a, *, b: str = ""):
        return a

    class Spec:
        def method(self, x: int):
            return x

    assert missing_annotations(typed, bound=False) == []
    assert missing_annotations(untyped, bound=False) == ["a", "return"]
    assert missing_annotations(Spec.method, bound=True) == ["return"]


@pytest.mark.parametrize("name", _public_modules())
def test_every_public_function_of_core_is_annotated(name):
    unannotated = []
    for qualname, obj in _public_objects(name):
        for where, fn, bound in _callables(qualname, obj):
            missing = missing_annotations(fn, bound=bound)
            if missing:
                unannotated.append(f"{where}: {', '.join(missing)}")
    assert not unannotated, "public functions without annotations:\n" + "\n".join(unannotated)


def _defs(tree):
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node


def _is_method(tree, fn):
    return any(isinstance(node, ast.ClassDef) and fn in node.body for node in ast.walk(tree))


@pytest.mark.parametrize("path", sorted(CORE.rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_def_in_core_is_annotated(path):
    tree = ast.parse(path.read_text(), filename=str(path))
    unannotated = []
    for fn in _defs(tree):
        a = fn.args
        params = a.posonlyargs + a.args + a.kwonlyargs + [x for x in (a.vararg, a.kwarg) if x]
        if params and _is_method(tree, fn) and params[0].arg in ("self", "cls"):
            params = params[1:]
        missing = [p.arg for p in params if p.annotation is None] + (["return"] if fn.returns is None else [])
        if missing:
            unannotated.append(f"{path.name}:{fn.lineno} {fn.name}: {', '.join(missing)}")
    assert not unannotated, "functions without annotations:\n" + "\n".join(unannotated)


def _dataclasses():
    for name in sorted({_module_name(p) for p in CORE.rglob("*.py")}):
        module = importlib.import_module(name)
        for value in vars(module).values():
            if inspect.isclass(value) and dataclasses.is_dataclass(value) and value.__module__ == name:
                yield f"{name}.{value.__qualname__}", value


def is_bare(annotation):
    """Whether a field's annotation (a string under ``from __future__ import annotations``) is a bare container,
    alone or in a union."""
    if isinstance(annotation, str):
        text = annotation
    elif isinstance(annotation, type):
        text = annotation.__name__
    else:
        text = repr(annotation)
    return any(part.strip() in BARE for part in text.split("|"))


def test_the_check_finds_a_bare_field():
    @dataclasses.dataclass
    class Loose:
        a: tuple
        b: "np.ndarray | None" = None  # noqa: F821 (a string, as under the future import)
        c: tuple[int, int] = (0, 0)
        d: "npt.NDArray[np.float32] | None" = None  # noqa: F821

    assert [is_bare(f.type) for f in dataclasses.fields(Loose)] == [True, True, False, False]


def test_no_dataclass_field_of_core_is_a_bare_container():
    bare = []
    for qualname, cls in _dataclasses():
        for f in dataclasses.fields(cls):
            if is_bare(f.type):
                bare.append(f"{qualname}.{f.name}: {f.type}")
    assert not bare, "dataclass fields that do not say what they hold:\n" + "\n".join(bare)


def _public_defs(tree):
    """``(name, def, is a method)`` of the module-level functions and the methods of the classes a module
    offers (names not starting with ``_``, but :data:`DUNDERS`); nested functions are the bodies' own."""
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.name.startswith("_"):
            yield node.name, node, False
        elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            for item in node.body:
                if not isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                if item.name.startswith("_") and item.name not in DUNDERS:
                    continue
                static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in item.decorator_list)
                yield f"{node.name}.{item.name}", item, not static


def unannotated_defs(source):
    """``"name: params"`` of the public functions and methods in ``source`` missing an annotation."""
    missing = []
    for name, fn, method in _public_defs(ast.parse(source)):
        a = fn.args
        params = a.posonlyargs + a.args + a.kwonlyargs + [x for x in (a.vararg, a.kwarg) if x]
        if method and params:
            params = params[1:]
        lacking = [p.arg for p in params if p.annotation is None] + (["return"] if fn.returns is None else [])
        if lacking:
            missing.append(f"{name}: {', '.join(lacking)}")
    return missing


def test_the_bridge_check_finds_a_missing_annotation():
    source = (
        "def typed(obj: 'bpy.types.Object', *, n: int = 1) -> None: ...\n"
        "def untyped(obj, *, n: int = 1): ...\n"
        "def _private(obj): ...\n"
        "class Adapter:\n"
        "    def root(self, obj): ...\n"
        "    def __init__(self) -> None: ...\n"
        "    @staticmethod\n"
        "    def make(x) -> int: ...\n"
        "    def _helper(self, x): ...\n"
        "class _Hidden:\n"
        "    def run(self, x): ...\n"
    )
    assert unannotated_defs(source) == ["untyped: obj, return", "Adapter.root: obj, return", "Adapter.make: x"]


@pytest.mark.parametrize("path", sorted(BRIDGE.rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_public_function_of_the_bridge_is_annotated(path):
    missing = unannotated_defs(path.read_text())
    assert not missing, f"public functions of {path.name} without annotations:\n" + "\n".join(missing)
