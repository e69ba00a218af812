"""The layering rules, checked on the source: core stays pure numpy, panels only draw."""
import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
FORBIDDEN_IN_CORE = {"bpy", "mathutils", "bmesh", "scipy", "bl_ui", "bl_operators"}


def _imports(path):
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node, alias.name, 0
        elif isinstance(node, ast.ImportFrom):
            yield node, node.module or "", node.level


def _py_files(folder):
    files = sorted((ROOT / folder).rglob("*.py"))
    assert files, f"no Python files under {folder}/"
    return files


@pytest.mark.parametrize("path", _py_files("core"), ids=lambda p: p.name)
def test_core_imports_no_blender_or_scipy(path):
    for node, module, level in _imports(path):
        top = module.split(".")[0]
        assert level > 0 or top not in FORBIDDEN_IN_CORE, f"{path.name}:{node.lineno} imports {module}"
        assert level <= 1, f"{path.name}:{node.lineno} reaches outside core with a relative import"


@pytest.mark.parametrize("folder", ["core", "addon", "operators", "panels"])
def test_imports_inside_the_extension_are_relative(folder):
    for path in _py_files(folder):
        for node, module, level in _imports(path):
            assert not module.startswith("worldseed"), f"{path.name}:{node.lineno} imports {module} absolutely"


def test_panels_do_not_import_core():
    for path in _py_files("panels"):
        for node, module, level in _imports(path):
            parts = module.split(".")
            assert not (level >= 2 and parts[0] == "core"), f"{path.name}:{node.lineno} imports core"


def test_root_init_only_hands_on_registration():
    tree = ast.parse((ROOT / "__init__.py").read_text())
    body = [n for n in tree.body if not isinstance(n, ast.Expr)]
    assert len(body) == 1 and isinstance(body[0], ast.ImportFrom) and body[0].module == "addon"
    assert {a.name for a in body[0].names} == {"register", "unregister"}
