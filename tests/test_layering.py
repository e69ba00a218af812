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


def test_every_family_has_its_files_in_the_known_places():
    """A family with a sidebar is a core package (spec + engine), one bridge file, one operators file, one
    property-group file and one panel file, and one entry in core.recipe.SECTIONS."""
    sections = ast.parse((ROOT / "core" / "recipe.py").read_text())
    calls = [
        n for n in ast.walk(sections) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "Section" and n.args
    ]
    # the core package is named by the section's key, or by its package= keyword ([[level]]: core/levels/)
    packages = {
        n.args[0].value: next((k.value.value for k in n.keywords if k.arg == "package"), n.args[0].value) for n in calls
    }
    # a section built on its own (build=True, the default) is a family; [world], [export] and the
    # terrain's layers ([biomes], [[splat]]: built with the terrain) only configure
    built = {n.args[0].value: not any(k.arg == "build" and k.value.value is False for k in n.keywords) for n in calls}
    families = [k for k in packages if built[k]]
    assert families, "core.recipe.SECTIONS lists no family"
    for key in families:
        for place in (
            f"core/{packages[key]}/__init__.py",
            f"core/{packages[key]}/spec.py",
            f"operators/bridge/{key}.py",
            f"operators/{key}.py",
            f"addon/properties/{key}.py",
            f"panels/{key}.py",
        ):
            assert (ROOT / place).exists(), f"family {key!r} has no {place}"


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
