"""The house rules, checked on the real import graph of the extension (every import statement, also
those inside functions), so a new family that breaks them fails here:

    addon (registration)  ->  panels  ->  operators  ->  operators.bridge  ->  core

* core imports nothing else of the project, and never Blender or scipy;
* nothing imports addon except registration (the extension root);
* the bridge never imports the operators;
* panels never import core, and draw from settings, cached results and read-only look-ups only;
* no import cycle anywhere (imports under ``if TYPE_CHECKING:`` name types for annotations only and never run:
  they make no cycle, and every other rule holds for them);
* no underscored name is imported, or reached as a module attribute, across modules, and nothing outside
  core reaches into core's private modules;
* ``scaleout`` (the headless run's Dask backend) imports core only, and nothing imports it but
  ``addon.batch``, inside a function (for ``--workers``/``--scheduler``): Dask is never needed in Blender,
  and nothing outside ``scaleout`` imports dask, distributed or cloudpickle.
"""

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGES = ("core", "operators", "panels", "addon", "scaleout")
FORBIDDEN_IN_CORE = {"bpy", "mathutils", "bmesh", "scipy", "bl_ui", "bl_operators", "bl_math", "gpu"}
#: The scale-out path's own dependencies: only ``scaleout/`` may import them.
SCALEOUT_ONLY = {"dask", "distributed", "cloudpickle"}
#: What a panel may import: Blender, the shared panel base and the bridge's read-only look-ups.
PANEL_IMPORTS = {"operators.bridge.query", "operators.bridge.presets", "operators.bridge.curve"}


def _module_name(path):
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _modules():
    files = [ROOT / "__init__.py"] + [p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))]
    return {_module_name(p): p for p in files}


MODULES = _modules()


def _is_package(name):
    return name == "" or (ROOT / name.replace(".", "/") / "__init__.py").exists()


def _imports(name, path):
    """``(line, target module, imported names)`` of every project import in one module, resolved."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = name if _is_package(name) else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, (), True
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                yield node.lineno, node.module, [a.name for a in node.names], True
                continue
            base = package.split(".") if package else []
            base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
            target = ".".join(base + ([node.module] if node.module else []))
            for alias in node.names:
                sub = f"{target}.{alias.name}" if target else alias.name
                if sub in MODULES:
                    yield node.lineno, sub, (), False
                else:
                    yield node.lineno, target, [alias.name], False


def _graph():
    graph = {}
    for name, path in MODULES.items():
        graph[name] = [(line, target, names, absolute) for line, target, names, absolute in _imports(name, path)]
    return graph


GRAPH = _graph()


def _type_only_lines(path):
    """Lines of the imports under ``if TYPE_CHECKING:``: names for annotations only, never run."""
    tree = ast.parse(path.read_text())
    lines = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            lines.update(n.lineno for stmt in node.body for n in ast.walk(stmt) if isinstance(n, ast.ImportFrom))
    return lines


#: ``{module: lines}`` of imports made for the type checker only.
TYPE_ONLY = {name: _type_only_lines(path) for name, path in MODULES.items()}


def _project_edges(name):
    return [
        (line, target, names)
        for line, target, names, absolute in GRAPH[name]
        if not absolute and (target in MODULES or target == "")
    ]


def _family(name):
    return name.split(".")[0]


def test_the_graph_is_the_whole_extension():
    assert {"core.recipe", "core.terrain.spec", "operators.bridge.world", "panels.trees", "addon.live"} <= set(MODULES)
    assert sum(len(_project_edges(m)) for m in MODULES) > 150


@pytest.mark.parametrize("name", [m for m in MODULES if _family(m) == "core"])
def test_core_imports_nothing_else_of_the_project_and_no_blender(name):
    for line, target, _names, absolute in GRAPH[name]:
        top = target.split(".")[0]
        assert not (absolute and top in FORBIDDEN_IN_CORE), f"{name}:{line} imports {target}"
        assert not (absolute and top == "worldseed"), f"{name}:{line} imports {target} absolutely"
        if not absolute:
            assert _family(target) == "core", f"{name}:{line} reaches outside core: {target or 'the root'}"


@pytest.mark.parametrize("name", list(MODULES))
def test_only_registration_imports_addon(name):
    if name == "" or _family(name) == "addon":
        return
    for line, target, _names in _project_edges(name):
        assert _family(target) != "addon", f"{name}:{line} imports {target}"


@pytest.mark.parametrize("name", [m for m in MODULES if m.startswith("operators.bridge")])
def test_the_bridge_never_imports_operators(name):
    for line, target, _names in _project_edges(name):
        assert not (_family(target) == "operators" and not target.startswith("operators.bridge")), (
            f"{name}:{line} imports {target}"
        )
        assert _family(target) in ("core", "operators"), f"{name}:{line} imports {target}"


@pytest.mark.parametrize("name", [m for m in MODULES if _family(m) == "panels"])
def test_panels_import_no_core_and_only_read_only_lookups(name):
    for line, target, _names in _project_edges(name):
        assert _family(target) != "core", f"{name}:{line} imports core ({target})"
        assert _family(target) == "panels" or target in PANEL_IMPORTS, f"{name}:{line} imports {target}"


def _calls_in_draw(path):
    tree = ast.parse(path.read_text())
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
        for fn in (n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name in ("draw", "draw_item")):
            for node in ast.walk(fn):
                if isinstance(node, ast.Call):
                    yield fn.lineno, ast.unparse(node.func)


def test_panels_draw_cached_rule_errors():
    """The Trees panel shows the rule error stored when the rules changed; nothing parses rules in draw."""
    source = (ROOT / "panels" / "trees.py").read_text()
    assert "settings.rule_error" in source
    for path in sorted((ROOT / "panels").glob("*.py")):
        for line, func in _calls_in_draw(path):
            assert "parse" not in func and "rule_error" not in func, f"{path.name}:{line} calls {func} in draw"


def test_no_import_cycle_anywhere():
    """Imports under ``if TYPE_CHECKING:`` (a recipe's type named by the modules the recipe imports) never run,
    so they make no cycle; every other rule holds for them too."""
    edges = {
        m: sorted({t for line, t, _n in _project_edges(m) if t != m and line not in TYPE_ONLY[m]}) for m in MODULES
    }
    state, stack = {}, []

    def visit(m):
        state[m] = "open"
        stack.append(m)
        for t in edges.get(m, ()):
            if state.get(t) == "open":
                cycle = stack[stack.index(t) :] + [t]
                pytest.fail("import cycle: " + " -> ".join(c or "<root>" for c in cycle))
            if t not in state:
                visit(t)
        stack.pop()
        state[m] = "done"

    for m in MODULES:
        if m not in state:
            visit(m)


@pytest.mark.parametrize("name", list(MODULES))
def test_no_underscored_names_across_modules(name):
    path = MODULES[name]
    aliases = set()
    for line, target, names, absolute in GRAPH[name]:
        if absolute:
            continue
        for imported in names:
            assert not imported.startswith("_"), f"{name}:{line} imports {imported} from {target}"
        if _family(name) != "core" and _family(target) == "core":
            assert not any(p.startswith("_") for p in target.split(".")), (
                f"{name}:{line} reaches into core's private module {target}"
            )
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            aliases.update(a.asname or a.name for a in node.names)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
        ):
            pytest.fail(f"{name}:{node.lineno} reaches {node.value.id}.{node.attr} of another module")


@pytest.mark.parametrize("folder", PACKAGES)
def test_imports_inside_the_extension_are_relative(folder):
    for name in (m for m in MODULES if _family(m) == folder):
        for line, target, _names, absolute in GRAPH[name]:
            assert not (absolute and target.split(".")[0] == "worldseed"), f"{name}:{line} imports {target}"


def test_root_init_only_hands_on_registration():
    tree = ast.parse((ROOT / "__init__.py").read_text())
    body = [n for n in tree.body if not isinstance(n, ast.Expr)]
    assert len(body) == 1 and isinstance(body[0], ast.ImportFrom) and body[0].module == "addon"
    assert {a.name for a in body[0].names} == {"register", "unregister"}


def _sections_calls():
    sections = ast.parse((ROOT / "core" / "recipe.py").read_text())
    return [
        n for n in ast.walk(sections) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "Section" and n.args
    ]


def _adapters():
    from worldseed.operators.bridge import sections

    return sections


def test_every_section_has_an_adapter_and_every_family_its_files_in_the_known_places():
    """Every recipe section has one adapter on the Blender side (or is held by one: the terrain's layers),
    and a section built on its own (a family) is a core package (spec + engine), one bridge module (or
    package), one operators file and one panel file, all named by the adapter's family name."""
    sections = _adapters()
    calls = _sections_calls()
    keys = [n.args[0].value for n in calls]
    # the core package is named by the section's key, or by its package= keyword ([[level]]: core/levels/)
    packages = {
        n.args[0].value: next((k.value.value for k in n.keywords if k.arg == "package"), n.args[0].value) for n in calls
    }
    built = {n.args[0].value: not any(k.arg == "build" and k.value.value is False for k in n.keywords) for n in calls}
    adapters = {a.key: a for a in sections.ADAPTERS}
    assert [k for k in keys if k in adapters] == [a.key for a in sections.ADAPTERS], "adapters out of registry order"
    for key in keys:
        held = sections.HELD.get(key)
        assert key in adapters or held in adapters, f"section {key!r} has no adapter (and no adapter holds it)"
        assert not (key in adapters and held), f"section {key!r} is held by {held!r} and has an adapter too"
    families = [k for k in keys if built[k]]
    assert families == [a.key for a in sections.families()], "every built section builds objects (a kind)"
    for key in families:
        name = adapters[key].name
        bridge = ROOT / "operators" / "bridge" / name
        assert bridge.with_suffix(".py").exists() or (bridge / "__init__.py").exists(), f"{key!r}: no bridge {name}"
        for place in (
            f"core/{packages[key]}/__init__.py",
            f"core/{packages[key]}/spec.py",
            f"operators/{name}.py",
            f"panels/{name}.py",
        ):
            assert (ROOT / place).exists(), f"family {key!r} has no {place}"


FAMILY_WORDS = ("terrain", "tree", "trees", "scatter", "level", "levels")


@pytest.mark.parametrize("path", ["addon/live.py", "operators/bridge/query.py", "addon/properties/__init__.py"])
def test_the_generic_modules_name_no_family(path):
    """Auto Update, the object look-ups and the property groups read from the adapters: a new family
    needs no line in them (no family's name in their code, docstrings aside)."""
    tree = ast.parse((ROOT / path).read_text())
    docstrings = {
        id(n.body[0].value)
        for n in ast.walk(tree)
        if isinstance(n, ast.Module | ast.FunctionDef | ast.ClassDef)
        and n.body
        and isinstance(n.body[0], ast.Expr)
        and isinstance(n.body[0].value, ast.Constant)
    }
    for node in ast.walk(tree):
        words = []
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            words = node.value.lower().replace(".", "_").split("_")
        elif isinstance(node, ast.Name | ast.arg):
            words = (node.id if isinstance(node, ast.Name) else node.arg).lower().split("_")
        elif isinstance(node, ast.Attribute):
            words = node.attr.lower().split("_")
        assert not set(words) & set(FAMILY_WORDS), f"{path}:{node.lineno} names a family: {ast.unparse(node)}"


def test_a_family_package_is_reached_through_its_face():
    """A family split by job (``operators/bridge/levels/``) is imported from its face only: its private
    modules from inside the package."""
    for name in MODULES:
        parts = name.split(".")
        for line, target, _names in _project_edges(name):
            private = [i for i, p in enumerate(target.split(".")) if p.startswith("_") and not p.startswith("__")]
            if not private or _family(target) == "core":
                continue
            package = ".".join(target.split(".")[: private[0]])
            assert ".".join(parts[: len(package.split("."))]) == package, f"{name}:{line} imports {target}"


def _function_import_lines(path):
    """Line numbers of the import statements inside a function (run when called, not on import)."""
    tree = ast.parse(path.read_text())
    lines = set()
    for fn in ast.walk(tree):
        if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            lines.update(n.lineno for n in ast.walk(fn) if isinstance(n, ast.Import | ast.ImportFrom))
    return lines


def test_scaleout_is_known_to_the_graph():
    assert {"scaleout", "scaleout.dask_executor", "scaleout.bootstrap"} <= set(MODULES)


@pytest.mark.parametrize("name", [m for m in MODULES if _family(m) == "scaleout"])
def test_scaleout_imports_core_only_and_no_blender(name):
    for line, target, _names, absolute in GRAPH[name]:
        top = target.split(".")[0]
        assert not (absolute and top in FORBIDDEN_IN_CORE), f"{name}:{line} imports {target}"
        if not absolute:
            assert _family(target) in ("core", "scaleout"), f"{name}:{line} imports {target or 'the root'}"


@pytest.mark.parametrize("name", [m for m in MODULES if _family(m) != "scaleout"])
def test_only_the_batch_run_imports_scaleout_and_only_when_called(name):
    inside = _function_import_lines(MODULES[name])
    for line, target, _names, absolute in GRAPH[name]:
        assert not (absolute and target.split(".")[0] in SCALEOUT_ONLY), f"{name}:{line} imports {target}"
    for line, target, _names in _project_edges(name):
        if _family(target) == "scaleout":
            assert name == "addon.batch", f"{name}:{line} imports {target}"
            assert line in inside, f"{name}:{line} imports {target} when it is imported, not inside a function"


# ---- the family contract and one door per public name (core's part) --------------------------------

#: The registry: the one place of core's root that knows every family (SECTIONS and their cross checks).
REGISTRY = {"core.recipe", "core._recipe_checks"}
#: The registry takes [world] from its spec module: the face core.world also holds the tiled-world engine, which
#: reads recipes (core.recipe.loads/dumps) and so must not be imported by core.recipe.
SPEC_MODULES = {("core.recipe", "core.world.spec")}


def _is_public(name):
    return not any(part.startswith("_") for part in name.split("."))


def _exports(name):
    """The names of a module's ``__all__`` (``__all__ = [...]`` and ``__all__ += [...]``), or None."""
    tree = ast.parse(MODULES[name].read_text())
    names = None
    for node in tree.body:
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AugAssign) else []
        )
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            value = ast.literal_eval(node.value)
            names = list(value) if isinstance(node, ast.Assign) else (names or []) + list(value)
    return names


def _bindings(name):
    """``{bound name: ("def", None) | ("import", module, original name) | ("module", module)}`` of a module's top
    level (a name imported in a function is no binding)."""
    path = MODULES[name]
    tree = ast.parse(path.read_text())
    package = name if _is_package(name) else name.rpartition(".")[0]
    out = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out[node.name] = ("def", None)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                for t in ast.walk(target):
                    if isinstance(t, ast.Name):
                        out[t.id] = ("def", None)
        elif isinstance(node, ast.ImportFrom) and node.level:
            base = package.split(".") if package else []
            base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
            target = ".".join(base + ([node.module] if node.module else []))
            for alias in node.names:
                sub = f"{target}.{alias.name}" if target else alias.name
                bound = alias.asname or alias.name
                out[bound] = ("module", sub) if sub in MODULES else ("import", target, alias.name)
    return out


BINDINGS = {m: _bindings(m) for m in MODULES}


def _origin(module, name, seen=()):
    """``(defining module, name)`` of ``module.name`` followed through imports; None when it is not bound there."""
    kind = BINDINGS.get(module, {}).get(name)
    if kind is None or (module, name) in seen:
        return None
    if kind[0] == "def":
        return (module, name)
    if kind[0] == "module":
        return None
    return _origin(kind[1], kind[2], seen + ((module, name),))


def _doors():
    """``{(defining module, name): [public modules whose __all__ list it]}`` for core's names."""
    doors = {}
    for module in MODULES:
        if _family(module) != "core" or not _is_public(module):
            continue
        for name in _exports(module) or ():
            origin = _origin(module, name)
            if origin is not None:
                doors.setdefault(origin, []).append(module)
    return doors


DOORS = _doors()


def _door(origin):
    """The one door of a name: the outermost public module that lists it (a face over its spec module), else
    the module that defines it."""
    return min(DOORS.get(origin, [origin[0]]), key=lambda m: m.count("."))


def test_every_section_is_a_family_package_with_its_spec():
    """Each recipe section's family is a core package named by its key (or by ``package=``): ``spec.py`` holds the
    dataclass, its ``LIMITS`` and its reader and writer ``from_dict`` / ``to_dict``, the one SECTIONS entry names
    exactly those, and the package face lists them in ``__all__``."""
    import importlib

    recipe = importlib.import_module("core.recipe")
    for section in recipe.SECTIONS:
        package = section.package or section.key
        assert section.package != section.key, f"[{section.key}]: package= names only a package other than the key"
        assert (ROOT / "core" / package / "spec.py").exists(), f"[{section.key}] has no core/{package}/spec.py"
        spec = importlib.import_module(f"core.{package}.spec")
        face = importlib.import_module(f"core.{package}")
        assert (section.limits, section.parse, section.dump) == (spec.LIMITS, spec.from_dict, spec.to_dict), (
            f"[{section.key}]: SECTIONS must name core.{package}.spec's LIMITS, from_dict and to_dict"
        )
        assert getattr(spec, section.spec.__name__) is section.spec, f"[{section.key}]: the spec class is not spec.py's"
        for name in ("LIMITS", "from_dict", "to_dict", section.spec.__name__):
            assert name in face.__all__ and getattr(face, name) is getattr(spec, name), f"core.{package} lacks {name}"
        assert set(spec.LIMITS) == {f.name for f in __import__("dataclasses").fields(section.spec)}, section.key


@pytest.mark.parametrize("name", [m for m in MODULES if m.count(".") == 1 and _family(m) == "core"])
def test_the_shared_root_of_core_knows_no_family(name):
    """core's root modules (mesh, noise, unity_package ...) are shared pieces: only the registry (core.recipe and
    its checks) imports a family package."""
    if name in REGISTRY or _is_package(name):
        return
    for line, target, _names in _project_edges(name):
        assert target.count(".") == 1 or target == "core", f"{name}:{line} imports the family {target}"
        assert not _is_package(target), f"{name}:{line} imports the family {target}"


@pytest.mark.parametrize("name", [m for m in MODULES if m and _is_package(m)])
def test_package_faces_declare_their_public_names(name):
    exports = _exports(name)
    assert exports is not None, f"{name} (a package face) has no __all__"
    assert len(exports) == len(set(exports)), f"{name}.__all__ names a name twice"
    for public in exports:
        assert public in BINDINGS[name], f"{name}.__all__ names {public}, which it does not bind"


@pytest.mark.parametrize("name", list(MODULES))
def test_no_name_is_imported_as_itself(name):
    """No ``from x import y as y`` facades: a name is re-exported through ``__all__`` or not at all."""
    tree = ast.parse(MODULES[name].read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and _family(name) == "core":
            for alias in node.names:
                assert alias.asname != alias.name, f"{name}:{node.lineno} imports {alias.name} as itself"


def test_every_core_name_has_one_door():
    """A public name of core is listed by one public module, or by a package face and the spec module under it."""
    for (module, name), listed in DOORS.items():
        door = _door((module, name))
        for other in listed:
            assert other == door or other.startswith(door + "."), f"{module}.{name} has two doors: {door} and {other}"


def _core_uses(name):
    """``(line, module reached, name)`` of each name a module takes from core: ``from X import n`` and ``alias.n`` of
    a module alias."""
    tree = ast.parse(MODULES[name].read_text())
    package = name if _is_package(name) else name.rpartition(".")[0]
    aliases = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package.split(".") if package else []
            base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
            target = ".".join(base + ([node.module] if node.module else []))
            for alias in node.names:
                sub = f"{target}.{alias.name}" if target else alias.name
                if sub in MODULES:
                    aliases[alias.asname or alias.name] = sub
                elif _family(target) == "core":
                    yield node.lineno, target, alias.name
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
            target = aliases[node.value.id]
            if _family(target) == "core" and f"{target}.{node.attr}" not in MODULES:
                yield node.lineno, target, node.attr


@pytest.mark.parametrize("name", list(MODULES))
def test_core_names_are_taken_through_their_door(name):
    """Every name taken from core comes through its one door (``ParameterError`` from ``core.errors``, ``LIMITS``
    from the family's face, never a module that merely imports it); inside a package its modules may also take a
    name from the module that defines it."""
    for line, target, imported in _core_uses(name):
        origin = _origin(target, imported)
        if origin is None:
            continue
        door = _door(origin)
        family = target.rpartition(".")[0] if target.count(".") > 1 or not _is_package(target) else target
        inside = family.count(".") >= 1 and (name == family or name.startswith(family + "."))
        helpers = target == origin[0] and target.count(".") == name.count(".") == 1  # core's root helpers
        spec = (name, target) in SPEC_MODULES and target in DOORS.get(origin, ())
        assert target == door or name == door or inside or helpers or spec, (
            f"{name}:{line} takes {imported} from {target}; its door is {door}"
        )
