"""Library versioning: which change needs which bump, and what the new lock holds."""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from generator.records.model import Catalog, Signature, build_catalog
from generator.records.pipeline import load_catalog
from generator.records.source import SourceDoc
from generator.signatures import facts, library
from generator.signatures.library import (
    bumped,
    dump,
    fingerprints,
    new_lock,
    read_lock,
    required_bump,
    signature_library,
)

from .workspace import write_record

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


def test_library_items_carry_url_and_flags() -> None:
    data = changed("flags")
    library = signature_library(catalog_of(data), "1.0.0", "https://failpedia.example/docs/")
    (item,) = library["signatures"]
    assert (item["url"], item["flags"], item["record"]) == (
        "https://failpedia.example/docs/entries/minimal-record/",
        "i",
        "minimal-record",
    )
    assert library["records"]["minimal-record"]["url"] == "https://failpedia.example/docs/entries/minimal-record/"
    assert signature_library(catalog_of(MINIMAL), "1.0.0")["signatures"][0]["flags"] == ""


def test_dump_writes_utf8_text_not_escapes() -> None:
    assert dump({"b": "é…", "a": 1}) == '{\n  "a": 1,\n  "b": "é…"\n}\n'.encode()


def test_read_lock_reads_the_committed_lock() -> None:
    committed = json.loads((Path(__file__).parent.parent / "schema" / "library.lock.json").read_text(encoding="utf-8"))
    assert read_lock() == committed and committed["version"] != "0.0.0"


def test_the_library_document_of_the_minimal_record() -> None:
    data = changed("new signature")
    data["renamed_from"] = ["old-minimal"]
    data["causes"][0]["when"] = [{"log": "Widget [0-9]+ melted"}]
    document = signature_library(catalog_of(data), "1.2.3", "https://x.example")
    item = {
        "id": "minimal-record-exploded",
        "record": "minimal-record",
        "title": "Minimal record",
        "category": "memory",
        "severity": "fatal",
        "strength": "specific",
        "pattern": "Widget exploded after [0-9]+ tries",
        "flags": "",
        "description": "The widget gave up.",
        "url": "https://x.example/entries/minimal-record/",
        "js": "Widget exploded after [0-9]+ tries",
        "needles": [[" tries"], ["Widget exploded after "]],
        "examples": {
            "match": ["[rank3]: Widget exploded after 12 tries", "Widget exploded after 1 tries"],
            "no_match": ["Widget nearly exploded", "Widget exploded after many tries"],
        },
    }
    assert document == {
        "schema": "signatures.schema.json",
        "schema_version": "1.3.0",
        "library_version": "1.2.3",
        "normalization": "ANSI escape codes and leading rank, timestamp and host:pid:tid prefixes are removed "
        "before matching",
        "renames": {"old-minimal": "minimal-record"},
        "facts": library.fact_items(),  # pinned by tests/test_causes.py's fact vectors
        "conditions": [{"pattern": "Widget [0-9]+ melted", "needles": [[" melted"], ["Widget "]]}],
        "records": {
            "minimal-record": {
                "title": "Minimal record",
                "category": "memory",
                "severity": "fatal",
                "url": "https://x.example/entries/minimal-record/",
                "downstream_of": [],
                "signatures": ["minimal-record-exploded", "minimal-record-second"],
                "cause": "Too many widgets",
                "causes": [{"title": "Too many widgets", "when": [{"log": "Widget [0-9]+ melted"}]}],
                "confirm": "Count the widgets.",
                "fix": "Use fewer widgets.",
            }
        },
        "signatures": [item, {**item, "id": "minimal-record-second"}],
    }


def test_a_fingerprint_hashes_the_pattern_and_its_flags() -> None:
    assert fingerprints(catalog_of(MINIMAL)) == {"minimal-record-exploded": "c5329bf9bec45684"}


def test_without_a_lock_the_library_starts_at_zero(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(library, "schema_path", lambda name: tmp_path / name)
    assert read_lock() == {"version": "0.0.0", "fingerprints": {}, "content": ""}


def test_a_record_url_keeps_a_site_path_ending_in_x() -> None:
    assert library.record_url("a", "https://h.example/X/") == "https://h.example/X/entries/a/"
    assert library.record_url("a", "") == "/entries/a/"


def test_pseudo_signatures_belong_to_no_record_and_conditions_are_found_once(tmp_path: Path) -> None:
    assert facts.pseudo_signature("fact.x", "a+", "the x") == Signature(
        id="fact.x",
        entry_id="",
        pattern="a+",
        ignore_case=False,
        description="the x",
        strength="fact",
        match=(),
        no_match=(),
        index=-1,
    )
    assert [(s.id, s.description) for s in facts.fact_signatures()][:2] == [
        ("fact.nccl", "the nccl a log states"),
        ("fact.torch", "the torch a log states"),
    ]
    condition = "    detail: Every widget takes room.\n    when:\n      - log: 'No space left'\n"
    condition += "    unless:\n      - log: 'Dry'\n"
    write_record(tmp_path, "memory", "widget")
    path = tmp_path / "entries" / "memory" / "widget.yaml"
    path.write_text(
        path.read_text(encoding="utf-8").replace("    detail: Every widget takes room.\n", condition), encoding="utf-8"
    )
    write_record(tmp_path, "memory", "gadget")
    catalog = load_catalog([tmp_path / "entries"], tmp_path).catalog
    assert facts.condition_patterns(catalog) == ["Dry", "No space left"]
    found = facts.diagnosis_signatures(catalog)
    assert [s.id for s in found[:2]] == ["gadget-exploded", "widget-exploded"]
    assert len(found) == 2 + len(facts.fact_signatures()) + 2
    assert found[-2:] == (
        facts.pseudo_signature(facts.condition_id("Dry"), "Dry", "a line a cause condition names"),
        facts.pseudo_signature(facts.condition_id("No space left"), "No space left", "a line a cause condition names"),
    )
    assert facts.condition_id("Dry") == "cond." + hashlib.sha256(b"Dry").hexdigest()[:12]


def test_a_cause_keeps_its_when_and_unless_conditions() -> None:
    cause = {"title": "T", "detail": "D", "when": [{"line": "a"}], "unless": [{"line": "b"}, {"record": "r"}]}
    assert library.cause_item(cause) == {
        "title": "T",
        "when": [{"line": "a"}],
        "unless": [{"line": "b"}, {"record": "r"}],
    }
    assert library.cause_item({"title": "T", "detail": "D"}) == {"title": "T"}
