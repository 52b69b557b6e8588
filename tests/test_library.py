"""Library versioning: which change needs which bump, and what the new lock holds."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from generator.records.load import SourceDoc
from generator.records.model import Catalog, build_catalog
from generator.signatures.library import bumped, fingerprints, new_lock, required_bump

MINIMAL = yaml.safe_load((Path(__file__).parent / "fixtures" / "valid" / "minimal-record.yaml").read_text())


def catalog_of(data: dict[str, Any]) -> Catalog:
    return build_catalog([SourceDoc("entries/memory/minimal-record.yaml", data)])


def changed(edit: str) -> dict[str, Any]:
    """Return the minimal record with one kind of change made to it."""
    data = copy.deepcopy(MINIMAL)
    sig = data["signatures"][0]
    if edit == "new signature":
        data["signatures"].append({**copy.deepcopy(sig), "id": "minimal-record-second"})
    elif edit == "pattern":
        sig["pattern"] = "Widget exploded after [0-9]+ attempts"
    elif edit == "flags":
        sig["flags"] = "i"
    elif edit == "removed":
        sig["id"] = "minimal-record-renamed"
    elif edit == "description":
        sig["description"] = "The widget gave up, for good."
    return data


LOCK = {"version": "1.4.2", "fingerprints": fingerprints(catalog_of(MINIMAL)), "content": ""}
LOCK["content"] = new_lock(LOCK, catalog_of(MINIMAL))["content"]


@pytest.mark.parametrize(
    ("edit", "bump", "version"),
    [
        ("nothing", "", "1.4.2"),
        ("description", "patch", "1.4.3"),
        ("new signature", "minor", "1.5.0"),
        ("pattern", "major", "2.0.0"),
        ("flags", "major", "2.0.0"),
        ("removed", "major", "2.0.0"),
    ],
)
def test_each_change_needs_its_bump(edit: str, bump: str, version: str) -> None:
    catalog = catalog_of(changed(edit))
    assert required_bump(LOCK, catalog) == bump
    lock = new_lock(LOCK, catalog)
    assert lock["version"] == version
    assert lock["fingerprints"] == fingerprints(catalog)
    assert required_bump(lock, catalog) == ""


@pytest.mark.parametrize(
    ("kind", "version"), [("major", "3.0.0"), ("minor", "2.8.0"), ("patch", "2.7.10"), ("", "2.7.9")]
)
def test_bumped(kind: str, version: str) -> None:
    assert bumped("2.7.9", kind) == version
