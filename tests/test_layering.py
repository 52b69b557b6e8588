"""The module layering of DESIGN.md: one-way imports, and where printing, exiting and mkdocs live."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "generator"
# Each module may import only modules listed before it.
ORDER = [
    "paths",
    "errors",
    "locate",
    "load",
    "schema",
    "normalize",
    "dialect",
    "model",
    "match",
    "validate",
    "pipeline",
    "logread",
    "diagnose",
    "translate",
    "library",
    "export",
    "output",
    "cache",
    "markup",
    "sanitize",
    "hubs",
    "templating",
    "hubpages",
    "refpages",
    "fmt",
    "render",
    "sitefiles",
    "explain",
    "skeleton",
    "mkdocs_plugin",
    "cli",
    "__main__",
]
MODULES = sorted(p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__")


def tree(name: str) -> ast.Module:
    return ast.parse((PACKAGE / f"{name}.py").read_text(encoding="utf-8"))


def imported(name: str) -> set[str]:
    found = set()
    for node in ast.walk(tree(name)):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def test_every_module_has_a_place() -> None:
    assert sorted(set(MODULES) - set(ORDER)) == []


@pytest.mark.parametrize("name", MODULES)
def test_imports_only_earlier_stages(name: str) -> None:
    allowed = {f"generator.{m}" for m in ORDER[: ORDER.index(name)]}
    ours = {m for m in imported(name) if m.startswith("generator.")}
    assert ours <= allowed, f"{name} imports {sorted(ours - allowed)}"


@pytest.mark.parametrize("name", MODULES)
def test_only_the_plugin_imports_mkdocs(name: str) -> None:
    uses = any(m == "mkdocs" or m.startswith("mkdocs.") for m in imported(name))
    assert uses == (name == "mkdocs_plugin")


@pytest.mark.parametrize("name", MODULES)
def test_only_cli_parses_prints_or_exits(name: str) -> None:
    if name in ("cli", "__main__"):
        return
    assert "argparse" not in imported(name)
    for node in ast.walk(tree(name)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            assert node.func.id not in ("print", "exit", "quit"), f"{name} calls {node.func.id}()"
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "sys":
            assert node.attr not in ("exit", "stdout", "stderr", "argv"), f"{name} uses sys.{node.attr}"
