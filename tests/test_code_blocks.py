"""Every code block a record shows is checked: Python parses and its imports and attribute
names resolve where the library is installed here, shell passes `bash -n`, YAML, JSON and
TOML parse. Libraries that are not installed are reported as skipped tests, by name."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import tomllib
import yaml

from generator.records.pipeline import load_catalog
from generator.site.render import alert_rules

ROOT = Path(__file__).resolve().parent.parent
CATALOG = load_catalog([ROOT / "entries"], ROOT).catalog

Block = tuple[str, str, str]  # (pointer, language, code)


def blocks(data: Any) -> list[Block]:
    """Return a record's code examples and fix-step commands with their languages."""
    found = [(f"/code/{i}", item["language"], item["code"]) for i, item in enumerate(data.get("code", ()))]
    for i, step in enumerate(data["fix"]["steps"]):
        if "command" in step:
            found.append((f"/fix/steps/{i}/command", step.get("language", "bash"), step["command"]))
    return found


def imported(tree: ast.AST) -> Iterator[tuple[str, str, str]]:
    """Yield (module, name or "", local binding) for each absolute import in ``tree``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, "", alias.asname or alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                yield node.module, alias.name, alias.asname or alias.name


def attribute_chains(tree: ast.AST) -> Iterator[list[str]]:
    """Yield each outermost dotted name (``torch.cuda.memory``) used in ``tree``, split."""
    inner = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and id(node) not in inner:
            parts: list[str] = []
            current: ast.expr = node
            while isinstance(current, ast.Attribute):
                parts.insert(0, current.attr)
                current = current.value
            if isinstance(current, ast.Name):
                yield [current.id, *parts]


def installed(module: str) -> bool:
    """Return whether the top-level package of ``module`` is installed here."""
    return importlib.util.find_spec(module.split(".")[0]) is not None


def resolve(obj: Any, names: list[str], base: str) -> str:
    """Return "" when each of ``names`` resolves as an attribute or submodule, else the first that does not."""
    path = base
    for name in names:
        path = f"{path}.{name}"
        if hasattr(obj, name):
            obj = getattr(obj, name)
        elif importlib.util.find_spec(path) is not None:
            obj = importlib.import_module(path)
        else:
            return path
    return ""


def python_problems(code: str) -> list[str]:
    """Return why a Python block does not parse or names what its installed imports lack."""
    try:
        tree = ast.parse(code)
    except SyntaxError as error:
        return [f"does not parse: {error.msg} (line {error.lineno})"]
    problems, bound = [], {}
    for module, name, local in imported(tree):
        if not installed(module):
            continue
        missing = resolve(importlib.import_module(module.split(".")[0]), module.split(".")[1:], module.split(".")[0])
        missing = missing or (resolve(importlib.import_module(module), [name], module) if name else "")
        if missing:
            problems.append(f"{missing} does not exist")
        elif name:
            bound[local] = (getattr(importlib.import_module(module), name, None), f"{module}.{name}")
        else:
            target = module if local != module.split(".")[0] else local  # `import a.b` binds a
            bound[local] = (importlib.import_module(target), target)
    for chain in attribute_chains(tree):
        if chain[0] in bound and bound[chain[0]][0] is not None:
            missing = resolve(bound[chain[0]][0], chain[1:], bound[chain[0]][1])
            problems += [f"{missing} does not exist"] if missing else []
    return sorted(set(problems))


def shell_problems(code: str) -> list[str]:
    """Return `bash -n`'s complaints about a shell block."""
    result = subprocess.run(["bash", "-n"], input=code, capture_output=True, text=True)
    return [line for line in result.stderr.splitlines() if line] if result.returncode else []


def data_problems(language: str, code: str) -> list[str]:
    """Return why a YAML, JSON or TOML block does not parse."""
    try:
        if language == "yaml":
            list(yaml.safe_load_all(code))
        elif language == "json":
            json.loads(code)
        else:
            tomllib.loads(code)
    except (yaml.YAMLError, ValueError) as error:
        return [f"does not parse as {language}: {' '.join(str(error).split())}"]
    return []


def problems(language: str, code: str) -> list[str]:
    """Return the problems of one block in its language ("text" is shown as is, unchecked)."""
    if language == "python":
        return python_problems(code)
    if language == "bash":
        return shell_problems(code)
    return data_problems(language, code) if language in ("yaml", "json", "toml") else []


@pytest.mark.parametrize("entry", CATALOG.entries, ids=lambda entry: entry.id)
def test_every_code_block_checks(entry: Any) -> None:
    assert shutil.which("bash"), "bash is required to check shell blocks"
    found = [
        f"{entry.path}:{entry.location(pointer).line}: {language}: {problem}"
        for pointer, language, code in blocks(entry.data)
        for problem in problems(language, code)
    ]
    assert found == []


def unresolved_libraries() -> dict[str, list[str]]:
    """Return each imported library that is not installed here, with the records importing it."""
    found: dict[str, set[str]] = {}
    for entry in CATALOG.entries:
        for _, language, code in blocks(entry.data):
            if language != "python":
                continue
            try:
                tree = ast.parse(code)
            except SyntaxError:
                continue
            for module, _, _ in imported(tree):
                if not installed(module):
                    found.setdefault(module.split(".")[0], set()).add(entry.id)
    return {name: sorted(ids) for name, ids in sorted(found.items())}


UNRESOLVED = unresolved_libraries()


@pytest.mark.parametrize("library", sorted(UNRESOLVED))
def test_imports_of_libraries_not_installed_are_not_resolved(library: str) -> None:
    records = UNRESOLVED[library]
    pytest.skip(
        f"{library} is not installed in the test environment: its imports and attribute names in "
        f"{len(records)} records ({', '.join(records)}) are parsed but not resolved"
    )


def test_the_checks_fail_on_broken_blocks() -> None:
    assert python_problems("import json\njson.loadz('{}')\n") == ["json.loadz does not exist"]
    assert python_problems("from json import loadz\n") == ["json.loadz does not exist"]
    assert python_problems("import yaml.nope\n") == ["yaml.nope does not exist"]
    assert python_problems("x = (1,\n") == ["does not parse: '(' was never closed (line 1)"]
    assert python_problems("import yaml as y\ny.safe_load('a: 1')\nimport notinstalledlib\n") == []
    assert shell_problems("kill <PID>\n") == [
        "bash: line 1: syntax error near unexpected token `newline'",
        "bash: line 1: `kill <PID>'",
    ]
    assert data_problems("json", "{'a': 1}") != []
    assert data_problems("yaml", "a: [1\n") != []
    assert data_problems("toml", "a = \n") != []


@pytest.mark.parametrize("entry", CATALOG.entries, ids=lambda entry: entry.id)
def test_alert_rules_on_the_page_parse_and_hold_every_fingerprint(entry: Any) -> None:
    rules = dict(alert_rules(entry))
    loki = yaml.safe_load(rules["Loki"])["groups"][0]["rules"]
    sigma = yaml.safe_load(rules["Sigma"])
    assert [rule["labels"]["failpedia_id"] for rule in loki] == [entry.id]
    patterns = [next(iter(selection.values())) for key, selection in sigma["detection"].items() if key != "condition"]
    assert patterns == [sig.pattern for sig in entry.signatures]
