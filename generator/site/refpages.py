"""Reference pages: the field reference generated from the schema, and the guides."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from generator.records.schema import ENTRY_SCHEMA, load_schema, resolve
from generator.site.markup import front_matter
from generator.site.templating import Page, render_template


def type_name(node: dict[str, Any]) -> str:
    """Return a short type description of a schema node."""
    if "oneOf" in node and all("const" in option for option in node["oneOf"]):
        return "one of: " + ", ".join(f"`{option['const']}`" for option in node["oneOf"])
    if "enum" in node:
        return "one of: " + ", ".join(f"`{value}`" for value in node["enum"])
    kind = node.get("type", "any")
    if kind == "array":
        return f"list of {type_name(node.get('items', {}))}" if node.get("items") else "list"
    return str(kind)


def fields(node: dict[str, Any], schema: dict[str, Any], prefix: str = "") -> Iterator[dict[str, Any]]:
    """Yield one row per field, depth first, with its path, type, whether required, description."""
    node = resolve(node, schema)
    if node.get("type") == "array" and isinstance(node.get("items"), dict):
        node = resolve(node["items"], schema)
        prefix += "[]"
    required = set(node.get("required", ()))
    for name, child in node.get("properties", {}).items():
        full = resolve(child, schema)
        path = f"{prefix}.{name}" if prefix else name
        yield {"path": path, "type": type_name(full), "required": name in required, "description": full["description"]}
        yield from fields(full, schema, path)


def enum_values(schema: dict[str, Any]) -> Iterator[tuple[str, str, str]]:
    """Yield (field, value, description) for every described enum value."""
    for name, node in schema["properties"].items():
        for option in resolve(node, schema).get("oneOf", ()):
            if "const" in option:
                yield name, option["const"], option.get("description", "")


def render_field_reference() -> Page:
    """Return the field reference page, generated from the record schema."""
    schema = load_schema(ENTRY_SCHEMA)
    meta = front_matter("Record field reference", "Every field of a Failpedia record, from the JSON Schema.")
    rows = list(fields(schema, schema))
    markdown = render_template("fields.md.j2", meta=meta, schema=schema, rows=rows, enums=list(enum_values(schema)))
    return Page("reference/fields.md", markdown)


def render_static(name: str, title: str, description: str, **context: Any) -> Page:
    """Return a hand-written page from ``templates/<name>.md.j2``."""
    meta = front_matter(title, description)
    return Page(f"{name}.md", render_template(f"{name.replace('/', '-')}.md.j2", meta=meta, **context))
