"""The house rules, checked on the real import graph of the extension (every import statement, also
those inside functions), so a new family that breaks them fails here:

    addon (registration)  ->  panels  ->  operators  ->  operators.bridge  ->  core

* core imports nothing else of the project, and never Blender or scipy;
* nothing imports addon except registration (the extension root);
* the bridge never imports the operators;
* panels never import core, and draw from settings, cached results and read-only look-ups only;
* no import cycle anywhere;
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
    edges = {m: sorted({t for _line, t, _n in _project_edges(m) if t != m}) for m in MODULES}
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
