"""Rewrite records in the canonical key order (the schema's), keeping comments and styles.

Round-trip YAML (ruamel.yaml) keeps comments attached to their keys, block scalars and
quoting; keys are moved into the order the schema lists them, unknown keys last.
"""

from __future__ import annotations

import io
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq

from generator.records.schema import ENTRY_SCHEMA, load_schema, resolve


def round_trip() -> YAML:
    """Return the YAML reader/writer in the house style."""
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 4096
    yaml.indent(mapping=2, sequence=4, offset=2)
    return yaml


def reorder(node: Any, schema_node: dict[str, Any], schema: dict[str, Any]) -> None:
    """Put a mapping's keys (and its children's) in the schema's order, in place."""
    schema_node = resolve(schema_node, schema)
    if isinstance(node, CommentedSeq) and isinstance(schema_node.get("items"), dict):
        for item in node:
            reorder(item, schema_node["items"], schema)
        return
    if not isinstance(node, CommentedMap):
        return
    properties = schema_node.get("properties", {})
    order = [key for key in properties if key in node] + [key for key in node if key not in properties]
    for key in order:
        node.move_to_end(key)
    for key, child in properties.items():
        if key in node:
            reorder(node[key], child, schema)


def formatted(text: str) -> str:
    """Return a record's text in canonical form."""
    yaml = round_trip()
    data = yaml.load(text)
    schema = load_schema(ENTRY_SCHEMA)
    reorder(data, schema, schema)
    out = io.StringIO()
    yaml.dump(data, out)
    return out.getvalue()
