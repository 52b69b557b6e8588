"""Cross-record checks, each on a small workspace built for it, with the exact diagnostics."""

from __future__ import annotations

from pathlib import Path

from generator.records.errors import GeneratorError, Issue, Location, has_errors
from generator.records.locate import (
    child_pointer,
    escape_token,
    find_mark,
    parent_pointer,
    pointer_from_path,
    unescape_token,
)
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


def test_locations_and_issues_are_written_path_line_col() -> None:
    assert [str(Location("a.yaml", line, col)) for line, col in ((0, 5), (-1, 0), (1, 0), (2, 7))] == [
        "a.yaml",
        "a.yaml",
        "a.yaml:1:0",
        "a.yaml:2:7",
    ]
    warning = Issue(Location("a.yaml", 3, 4), "/id", "catalog.x", "bad", "warning")
    assert str(warning) == "a.yaml:3:4: warning[catalog.x] /id: bad"
    assert str(Issue(Location("a.yaml"), "", "load.y", "worse")) == "a.yaml: error[load.y] worse"
    assert [has_errors(issues) for issues in ([], [warning], (warning, Issue(Location("b"), "", "c", "m")))] == [
        False,
        False,
        True,
    ]
    error = GeneratorError("stopped", (warning,))
    assert (str(error), error.issues, GeneratorError("x").issues) == ("stopped", (warning,), ())


def test_json_pointers_escape_and_find_the_nearest_mark() -> None:
    assert (escape_token("a~/b"), escape_token(3), unescape_token("a~0~1b"), unescape_token("~01")) == (
        "a~0~1b",
        "3",
        "a~/b",
        "~1",
    )
    assert (child_pointer("/a", "b/c"), pointer_from_path(["a", 0, "x~"]), pointer_from_path([])) == (
        "/a/b~1c",
        "/a/0/x~0",
        "",
    )
    assert [parent_pointer(pointer) for pointer in ("/a/b", "/a", "")] == ["/a", "", ""]
    values = {"/a": (2, 3), "/a/b": (4, 5)}
    keys = {"/a/c": (6, 1), "/a/b": (9, 9)}
    assert [find_mark(pointer, values, keys) for pointer in ("/a/c", "/a/b", "/a/b/0/z", "/q", "")] == [
        (6, 1),
        (4, 5),
        (4, 5),
        (1, 1),
        (1, 1),
    ]
    assert find_mark("/a/c", values) == (2, 3)
