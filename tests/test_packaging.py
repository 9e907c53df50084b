"""The wheel holds every package of the interpreter and its core dependencies cover every import:
pyproject.toml lists packages by name (the rulesets and schemas are mapped folders), so a new
sub-package must be added there, or a non-editable install would lack it."""
import ast
import os
import sys
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _pyproject():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as handle:
        return tomllib.load(handle)


def test_every_subpackage_is_listed_in_pyproject():
    found = {os.path.relpath(folder, ROOT).replace(os.sep, ".")
             for folder, _, files in os.walk(os.path.join(ROOT, "interpreter")) if "__init__.py" in files}
    listed = set(_pyproject()["tool"]["setuptools"]["packages"])
    assert found - listed == set(), f"add to [tool.setuptools] packages: {sorted(found - listed)}"


def _top_level_imports(path):
    with open(path, encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module.split(".")[0]


def test_the_core_imports_only_the_standard_library_and_core_dependencies():
    """Modules outside the optional parts (adapters, analyze, web) import nothing that a plain
    `pip install rulebook` lacks."""
    core = {"yaml", "jsonschema", "lark", "networkx", "rich", "interpreter"}
    optional_parts = {"adapters", "analyze", "web"}
    missing = {}
    for folder, _, files in os.walk(os.path.join(ROOT, "interpreter")):
        part = os.path.relpath(folder, os.path.join(ROOT, "interpreter")).split(os.sep)[0]
        if part in optional_parts:
            continue
        for name in files:
            if not name.endswith(".py"):
                continue
            path = os.path.join(folder, name)
            for module in _top_level_imports(path):
                if module not in core and module not in sys.stdlib_module_names:
                    missing.setdefault(module, []).append(os.path.relpath(path, ROOT))
    names = {dependency.split(">")[0].split("[")[0].split("=")[0].strip()
             for dependency in _pyproject()["project"]["dependencies"]}
    assert {"pyyaml", "jsonschema", "lark", "networkx", "rich"} <= names
    assert missing == {}, f"imports outside the core dependencies: {missing}"
