"""The layering of DESIGN.md: stage folders import one way, and where printing, exiting and mkdocs live."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "generator"
# Each layer may import only from the layers before it (and from itself); layers in one
# tuple are siblings and may not import each other. Folders are stages; the package root's
# modules are layers of their own.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("paths", "output"),  # leaf helpers: import nothing from the package
    ("patterns",),
    ("records",),
    ("signatures",),
    ("cache", "bundle"),  # the build cache; the catalog a wheel carries
    ("diagnosis", "site"),
    ("authoring", "runner", "api"),  # contributor tools; the `run` wrapper; the Python API
    ("cli",),
    ("__main__",),
)
MODULES = sorted(
    ".".join(p.relative_to(PACKAGE).with_suffix("").parts) for p in PACKAGE.rglob("*.py") if p.stem != "__init__"
)


def unit(module: str) -> str:
    """Return the layer name of a module path inside the package: its folder, or itself."""
    return module.split(".")[0]


def layer_index(name: str) -> int:
    """Return the position of a folder or root module in LAYERS."""
    return next(i for i, layer in enumerate(LAYERS) if name in layer)


def tree(module: str) -> ast.Module:
    return ast.parse((PACKAGE / f"{module.replace('.', '/')}.py").read_text(encoding="utf-8"))


def imported(module: str) -> set[str]:
    return imports_of(tree(module))


def imports_of(parsed: ast.Module) -> set[str]:
    found = set()
    for node in ast.walk(parsed):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def allowed(importer: str, target: str) -> bool:
    """Return True when module ``importer`` may import package module ``target``."""
    if target == "generator":  # the package's __init__: its version string
        return True
    source, dest = unit(importer), unit(target.removeprefix("generator."))
    return source == dest or layer_index(dest) < layer_index(source)


def test_every_module_has_a_place() -> None:
    placed = {name for layer in LAYERS for name in layer}
    assert sorted({unit(m) for m in MODULES} - placed) == []


@pytest.mark.parametrize(
    ("importer", "target", "expected"),
    [
        ("records.validate", "generator.signatures.match", False),  # upward
        ("site.render", "generator.diagnosis.diagnose", False),  # sideways between siblings
        ("diagnosis.explain", "generator.site.markup", False),
        ("paths", "generator.output", False),
        ("signatures.match", "generator.records.model", True),
        ("records.pipeline", "generator.records.validate", True),  # inside one stage
        ("site.mkdocs_plugin", "generator.cache", True),
        ("cli", "generator.authoring.fmt", True),
    ],
)
def test_the_rule_itself(importer: str, target: str, expected: bool) -> None:
    assert allowed(importer, target) is expected


@pytest.mark.parametrize("module", MODULES)
def test_imports_only_earlier_stages(module: str) -> None:
    ours = {m for m in imported(module) if m == "generator" or m.startswith("generator.")}
    assert sorted(m for m in ours if not allowed(module, m)) == []


@pytest.mark.parametrize("module", MODULES)
def test_only_the_plugin_imports_mkdocs(module: str) -> None:
    uses = any(m == "mkdocs" or m.startswith("mkdocs.") for m in imported(module))
    assert uses == (module == "site.mkdocs_plugin")


CLI_ONLY = ("exit", "stdout", "stderr", "argv")
EXEMPT = ("cli", "__main__")


def parses_prints_or_exits(module: str) -> list[str]:
    """Return what a module does that only the CLI may: argparse, print(), exit(), sys streams."""
    return cli_only_uses(tree(module))


def cli_only_uses(parsed: ast.Module) -> list[str]:
    """Return the argparse imports, print()/exit() calls and sys stream uses in a parsed module."""
    found = ["imports argparse"] if "argparse" in imports_of(parsed) else []
    for node in ast.walk(parsed):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("print", "exit", "quit"):
            found.append(f"calls {node.func.id}()")
        is_sys = isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "sys"
        if is_sys and node.attr in CLI_ONLY:
            found.append(f"uses sys.{node.attr}")
        if isinstance(node, ast.ImportFrom) and node.module == "sys":
            found.extend(f"imports sys.{alias.name}" for alias in node.names if alias.name in CLI_ONLY)
    return found


@pytest.mark.parametrize("module", [module for module in MODULES if unit(module) not in EXEMPT])
def test_only_cli_parses_prints_or_exits(module: str) -> None:
    assert parses_prints_or_exits(module) == []


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("import logging\nlogging.info('x')\nlog.print = 1\n", []),
        ("print('x')\n", ["calls print()"]),
        ("exit(1)\nquit()\n", ["calls exit()", "calls quit()"]),
        ("import sys\nsys.exit(1)\n", ["uses sys.exit"]),
        ("import sys\nsys.stdout.write('x')\nsys.stderr.flush()\n", ["uses sys.stdout", "uses sys.stderr"]),
        ("import sys\nargs = sys.argv[1:]\n", ["uses sys.argv"]),
        ("import argparse\n", ["imports argparse"]),
        ("from argparse import ArgumentParser\n", ["imports argparse"]),
        ("from sys import exit, stdout, path\n", ["imports sys.exit", "imports sys.stdout"]),
    ],
)
def test_the_detector_finds_each_cli_only_use(source: str, found: list[str]) -> None:
    assert cli_only_uses(ast.parse(source)) == found


def test_the_cli_is_what_the_rule_expects() -> None:
    """The exemption is not vacuous: the CLI's modules do parse arguments and print."""
    uses = [item for module in MODULES if unit(module) == "cli" for item in parses_prints_or_exits(module)]
    assert "imports argparse" in uses
    assert any(item.startswith("calls print") for item in uses)
