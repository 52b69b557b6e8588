"""Refuse records that still hold what ``failpedia new`` wrote: TODO text and example URLs."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import urlsplit

from generator.records.errors import Issue
from generator.records.locate import child_pointer
from generator.records.model import Entry

PLACEHOLDER_CODE = "record.placeholder"
TODO = re.compile(r"\bTODO\b")
# The names reserved for examples (RFC 2606: example.org, .com, .net and the .example TLD)
# never name a real source. (.invalid and .test stay allowed: test fixtures use them.)
EXAMPLE_DOMAIN = re.compile(r"(?:^|\.)(?:example\.(?:org|com|net)|example)\Z")


def strings(value: Any, pointer: str = "") -> Iterator[tuple[str, str]]:
    """Yield (pointer, text) for every string inside a record's data."""
    if isinstance(value, str):
        yield pointer, value
    elif isinstance(value, Mapping):
        for key, child in value.items():
            yield from strings(child, child_pointer(pointer, key))
    elif isinstance(value, (list, tuple)):
        for index, child in enumerate(value):
            yield from strings(child, child_pointer(pointer, index))


def placeholder_problem(pointer: str, text: str) -> str:
    """Return why a field still holds skeleton text, or ""."""
    if TODO.search(text) or (pointer.startswith("/tags/") and text == "todo"):
        return "placeholder text from the skeleton (TODO): replace it with the record's own"
    if (
        pointer.startswith("/references/")
        and pointer.endswith("/url")
        and EXAMPLE_DOMAIN.search((urlsplit(text).hostname or "").lower())
    ):
        return f"{text!r} is a placeholder address: cite the real source"
    return ""


def placeholder_issues(entry: Entry) -> list[Issue]:
    """Return an error for every field that still holds what ``failpedia new`` wrote."""
    found = []
    for pointer, text in strings(entry.data):
        problem = placeholder_problem(pointer, text)
        if problem:
            found.append(Issue(entry.location(pointer), pointer, PLACEHOLDER_CODE, problem))
    return found
