"""Cross-record checks, each on a small workspace built for it, with the exact diagnostics."""

from __future__ import annotations

from pathlib import Path

from generator.records.pipeline import load_catalog

from .workspace import write_record


def issues_of(root: Path) -> list[str]:
    """Return the issues of the workspace's records as text lines."""
    return [str(issue) for issue in load_catalog([root / "entries"], root).issues]


def test_the_minimal_workspace_is_clean(tmp_path: Path) -> None:
    write_record(tmp_path, "memory", "widget")
    write_record(tmp_path, "numerical", "gadget")
    assert issues_of(tmp_path) == []


def test_an_id_used_in_two_folders_is_reported_on_both_files(tmp_path: Path) -> None:
    write_record(tmp_path, "memory", "widget", sig_id="widget-a")
    write_record(tmp_path, "numerical", "widget", sig_id="widget-b")
    assert issues_of(tmp_path) == [
        "entries/memory/widget.yaml:2:5: error[catalog.duplicate-id] /id: id 'widget' is also used by "
        "entries/numerical/widget.yaml",
        "entries/numerical/widget.yaml:2:5: error[catalog.duplicate-id] /id: id 'widget' is also used by "
        "entries/memory/widget.yaml",
    ]


def test_a_signature_id_used_by_two_records_is_reported(tmp_path: Path) -> None:
    write_record(tmp_path, "memory", "widget", sig_id="shared-sig")
    write_record(tmp_path, "memory", "gadget", sig_id="shared-sig")
    assert issues_of(tmp_path) == [
        "entries/memory/gadget.yaml:30:9: error[signature.duplicate-id] /signatures/0/id: "
        "signature id 'shared-sig' is used twice",
        "entries/memory/widget.yaml:30:9: error[signature.duplicate-id] /signatures/0/id: "
        "signature id 'shared-sig' is used twice",
    ]


def test_a_reserved_id_is_refused(tmp_path: Path) -> None:
    write_record(tmp_path, "memory", "index")
    assert issues_of(tmp_path) == [
        "entries/memory/index.yaml:2:5: error[catalog.reserved-id] /id: id 'index' is reserved for a site path "
        "or device name"
    ]


def test_downstream_of_must_name_a_record(tmp_path: Path) -> None:
    write_record(tmp_path, "memory", "widget", extra="downstream_of: [gadget, no-such-record]\n")
    write_record(tmp_path, "memory", "gadget")
    assert issues_of(tmp_path) == [
        "entries/memory/widget.yaml:41:25: error[catalog.unknown-id] /downstream_of/1: no record has id "
        "'no-such-record'"
    ]
