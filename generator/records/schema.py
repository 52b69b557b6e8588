"""Load the JSON Schemas once and validate against them: fast first, fully on failure.

jsonschema, which writes the full error report, is imported only when a document fails
the compiled check: a build or a diagnosis of valid records never pays for its import.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import fastjsonschema

from generator.paths import SCHEMA_DIR

if TYPE_CHECKING:
    from jsonschema import ValidationError
    from referencing import Registry

ENTRY_SCHEMA = "entry.schema.json"


def schema_path(name: str) -> Path:
    """Return the path of a schema file shipped with the project."""
    return SCHEMA_DIR / name


@cache
def load_schema(name: str) -> dict[str, Any]:
    """Return a schema document by file name."""
    with schema_path(name).open(encoding="utf-8") as handle:
        data: dict[str, Any] = json.load(handle)
    return data


def strict_pattern(pattern: str) -> str:
    """Return ``pattern`` with a final ``$`` made to mean end of string only."""
    if pattern.endswith("$") and not pattern.endswith("\\$"):
        return pattern[:-1] + r"\Z"
    return pattern


def pattern_keyword(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[ValidationError]:
    """The ``pattern`` keyword, with a final ``$`` that refuses a trailing newline."""
    from jsonschema import ValidationError

    if isinstance(instance, str) and not re.search(strict_pattern(pattern), instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


@cache
def registry() -> Registry:
    """Return a registry holding every project schema under its $id."""
    from referencing import Registry, Resource

    resources = []
    for path in sorted(SCHEMA_DIR.glob("*.schema.json")):
        resource = Resource.from_contents(load_schema(path.name))
        resources.append((resource.id() or path.name, resource))
    return Registry().with_resources(resources)


@cache
def full_validator(name: str) -> Any:
    """Return the jsonschema validator that reports every error."""
    import jsonschema

    base = jsonschema.Draft202012Validator
    strict = jsonschema.validators.extend(base, {"pattern": pattern_keyword})  # type: ignore[no-untyped-call]
    return strict(load_schema(name), registry=registry(), format_checker=base.FORMAT_CHECKER)


def enum_form(node: Any) -> Any:
    """Return a schema with every oneOf-of-consts written as the equivalent enum."""
    if isinstance(node, list):
        return [enum_form(item) for item in node]
    if not isinstance(node, dict):
        return node
    options = node.get("oneOf")
    if isinstance(options, list) and options and all(isinstance(o, dict) and "const" in o for o in options):
        rest = {key: enum_form(value) for key, value in node.items() if key != "oneOf"}
        return {**rest, "enum": [option["const"] for option in options]}
    return {key: enum_form(value) for key, value in node.items()}


def inline_refs(node: Any, defs: dict[str, Any]) -> Any:
    """Return a schema with every local ``#/$defs/...`` reference replaced by its definition.

    fastjsonschema turns each reference into a function call that formats the instance path
    with ``locals()``, which costs more than the check itself; the definitions are not
    recursive, so writing them in place keeps the meaning and drops the calls.
    """
    if isinstance(node, list):
        return [inline_refs(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        target = inline_refs(defs[ref.removeprefix("#/$defs/")], defs)
        rest = {key: inline_refs(value, defs) for key, value in node.items() if key != "$ref"}
        return {**rest, "allOf": [*rest.get("allOf", []), target]} if rest else target
    return {key: inline_refs(value, defs) for key, value in node.items() if key != "$defs"}


@cache
def fast_validator(name: str) -> Callable[[Any], Any]:
    """Return the compiled validator used to accept valid documents quickly."""
    schema = load_schema(name)
    plain = inline_refs(enum_form(schema), enum_form(schema.get("$defs", {})))
    validate: Callable[[Any], Any] = fastjsonschema.compile(plain)
    return validate


def is_valid_fast(name: str, data: Any) -> bool:
    """Return True when ``data`` passes the compiled validator."""
    try:
        fast_validator(name)(data)
    except fastjsonschema.JsonSchemaException:
        return False
    return True


def schema_errors(name: str, data: Any) -> list[ValidationError]:
    """Return every schema error, or none when the fast path accepts ``data``."""
    if is_valid_fast(name, data):
        return []
    return list(full_validator(name).iter_errors(data))


def resolve(node: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """Return ``node`` with a local $ref (direct or in allOf) merged in."""
    refs = [node["$ref"]] if "$ref" in node else [part["$ref"] for part in node.get("allOf", ()) if "$ref" in part]
    merged = dict(node)
    for ref in refs:
        target = schema["$defs"][ref.rsplit("/", 1)[1]]
        merged = {**resolve(target, schema), **{k: v for k, v in merged.items() if k not in ("$ref", "allOf")}}
    return merged
