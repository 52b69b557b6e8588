"""Cross-record checks, each on a small workspace built for it, with the exact diagnostics."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest

from generator.records import schema
from generator.records.errors import GeneratorError, Issue, Location, has_errors
from generator.records.load import (
    MAX_BYTES,
    MAX_NODES,
    bad_char_message,
    load_file,
    load_text,
    resolve_plain,
)
from generator.records.locate import (
    child_pointer,
    escape_token,
    find_mark,
    parent_pointer,
    pointer_from_path,
    unescape_token,
)
from generator.records.model import Catalog, Example, PrintedBy, build_printed_by, freeze
from generator.records.pipeline import claimed_id, healthy_logs, load_catalog, published_ids, record_digest
from generator.records.schema import (
    ENTRY_SCHEMA,
    enum_form,
    inline_refs,
    is_valid_fast,
    resolve,
    schema_errors,
    strict_pattern,
)
from generator.records.search import expansions, fields, listed, search, search_index, terms, texts, tokens
from generator.records.source import SourceDoc, discover, display_path
from generator.records.validate import MAX_MESSAGE, fold, schema_issues, shorten

from .workspace import MINIMAL, write_record


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


def search_workspace(root: Path) -> Catalog:
    """Return the catalog of two records: widget (memory) and gadget (numerical, its own title and tag)."""
    write_record(root, "memory", "widget")
    write_record(root, "numerical", "gadget")
    path = root / "entries" / "numerical" / "gadget.yaml"
    text = path.read_text(encoding="utf-8").replace("title: Minimal record", "title: Gadget overflow in NCCL 2")
    path.write_text(text.replace("tags: [test]", "tags: [test, nccl]"), encoding="utf-8")
    loaded = load_catalog([root / "entries"], root)
    assert loaded.issues == ()
    return loaded.catalog


def test_search_scores_by_bm25_over_the_record_fields(tmp_path: Path) -> None:
    catalog = search_workspace(tmp_path)
    index = search_index(catalog)
    assert index.average == {"title": 3.5, "tags": 2.5, "lines": 11.0, "body": 42.0}
    assert index.lengths[("gadget", "title")] == 5 and index.lengths[("widget", "tags")] == 2
    # gadget in title (length 5) and tags (length 3), idf log(2):
    # 10 * log 2 * 2.2 / (1 + 1.2 * (0.25 + 0.75 * 5 / 3.5)) + 5 * log 2 * 2.2 / (1 + 1.2 * (0.25 + 0.75 * 3 / 2.5))
    assert [(e.id, s) for e, s in search(catalog, "gadget", index)] == [("gadget", 9.101)]
    assert [(e.id, s) for e, s in search(catalog, "Gadget")] == [("gadget", 9.101)]
    assert [(e.id, s) for e, s in search(catalog, "widget exploded", index)] == [("widget", 3.313), ("gadget", 2.321)]
    assert [(e.id, s) for e, s in search(catalog, "widget widget", index)] == [("widget", 1.946), ("gadget", 0.953)]
    assert [(e.id, s) for e, s in search(catalog, "record", index)] == [("widget", 2.393), ("gadget", 0.182)]
    assert [(e.id, s) for e, s in search(catalog, "nccl 2", index)] == [("gadget", 20.896)]
    assert [(e.id, s) for e, s in search(catalog, "2", index)] == [("gadget", 5.897)]
    assert [(e.id, s) for e, s in search(catalog, "overfl", index)] == [("gadget", 2.949)]
    assert search(catalog, "zzz", index) == []


def test_search_expands_words_by_prefix_but_not_digits_or_pairs(tmp_path: Path) -> None:
    index = search_index(search_workspace(tmp_path))
    assert expansions(index, "wid") == {"widget": 0.5, "widgets": 0.5}
    assert expansions(index, "widget") == {"widgets": 0.5, "widget": 1.0}
    assert expansions(index, "2") == {"2": 1.0}
    assert expansions(index, "1") == {"1": 1.0}
    assert expansions(index, "widget exploded") == {"widget exploded": 1.0}
    assert expansions(index, "widget explo") == {}
    gadget = search_workspace(tmp_path / "again").by_id["gadget"]
    assert fields(gadget)["title"] == ["gadget", "overflow", "in", "nccl", "2"]
    assert fields(gadget)["tags"] == ["gadget", "test", "nccl"]


def test_search_words_split_as_the_site_splits_them() -> None:
    assert tokens("torch.OutOfMemoryError: SeqNum=2, e.g. NCCL 2.18.3 Xid 79 &lt;x&gt; a/b") == [
        *("torch", "out", "of", "memory", "error", "seq", "num", "2", "nccl", "2.18.3", "xid", "79"),
    ]
    assert terms(["bus", "error", "here"]) == ["bus", "error", "here", "bus error", "error here"]
    assert list(texts({"a": ["x", {"b": "y"}, 3], "c": ("z",)})) == ["x", "y", "z"]


def test_list_filters_by_tag_and_category_and_sorts_by_id(tmp_path: Path) -> None:
    entries = search_workspace(tmp_path).entries
    assert [e.id for e in listed(entries, None, None)] == ["gadget", "widget"]
    assert [e.id for e in listed(entries, "nccl", None)] == ["gadget"]
    assert [e.id for e in listed(entries, None, "memory")] == ["widget"]
    assert [e.id for e in listed(entries, "nccl", "memory")] == []


def loaded_issues(raw: bytes) -> tuple[Any, list[str]]:
    """Return the data and the issue lines of ``raw`` loaded as r.yaml."""
    doc = load_text("r.yaml", raw)
    return doc.data, [str(issue) for issue in doc.issues]


def test_plain_scalars_resolve_by_the_fixed_rules() -> None:
    values = ["~", "", "null", "NULL", "Null", "nULL", "true", "TRUE", "True", "tRUE", "FALSE", "yes", "on"]
    values += ["12", "-3", "+4", "012", "1.5", "-.5", "1.", "1e3", "1.0e3", "2024-01-01", "0x10", ".inf", "-x"]
    assert [resolve_plain(text) for text in values] == [
        *(None, None, None, None, None, "nULL", True, True, True, "tRUE", False, "yes", "on"),
        *(12, -3, 4, "012", 1.5, -0.5, 1.0, "1e3", 1000.0, "2024-01-01", "0x10", ".inf", "-x"),
    ]
    assert loaded_issues(b"a: !!str 5\nb: '7'\nc: 7\nd: \"7\"\ne: 1.0\n") == (
        {"a": None, "b": "7", "c": 7, "d": "7", "e": 1.0},
        ["r.yaml:1:4: error[yaml.tag] /a: explicit tag 'tag:yaml.org,2002:str' is not allowed"],
    )
    # The non-specific tag `!` leaves a plain scalar to the plain rules, as PyYAML reads it; on a
    # collection it is refused like any other tag.
    assert loaded_issues(b"a: ! 5\nb: ! {c: d}\n") == (
        {"a": 5, "b": None},
        ["r.yaml:2:4: error[yaml.tag] /b: explicit tag '!' is not allowed"],
    )


def test_load_limits_and_encoding_are_issues_at_their_place() -> None:
    assert loaded_issues(b"a: 1\n--- \nb: 2\n") == (
        {"b": 2},
        ["r.yaml:2:1: error[yaml.multiple-documents] a record file holds one document"],
    )
    assert loaded_issues(b"a: 1\n...\n") == ({"a": 1}, [])
    assert loaded_issues(b"a: b\nc: d\xff\n") == (None, ["r.yaml:2:5: error[yaml.encoding] file is not valid UTF-8"])
    too_large = ["r.yaml:1:1: error[yaml.too-large] file is 262145 bytes; the limit is 262144"]
    assert loaded_issues(b"x" * (MAX_BYTES + 1)) == (None, too_large)
    assert loaded_issues(b"x" * MAX_BYTES) == ("x" * MAX_BYTES, [])
    data, found = loaded_issues(b"a: [" + b"[" * 40 + b"]" * 40 + b"]\n")
    assert found == [f"r.yaml:1:35: error[yaml.too-deep] /a{'/0' * 31}: nesting deeper than 32 levels"]
    deepest = data["a"]
    for _ in range(31):
        deepest = deepest[0]
    assert deepest is None
    data, found = loaded_issues(b"a: [" + b"x, " * (MAX_NODES + 5) + b"]\n")
    assert found == ["r.yaml:1:59996: error[yaml.too-many-nodes] /a/19997: more than 20000 nodes"]
    assert data["a"][19996:] == ["x", None, None, None, None, None, None, None, None]
    assert loaded_issues(b"key: [a, b\n") == (None, ["r.yaml:2:1: error[yaml.syntax] did not find expected ',' or ']'"])
    assert loaded_issues(b"- 1\n- \t2\n") == (
        None,
        ["r.yaml:2:3: error[yaml.syntax] found character that cannot start any token"],
    )


def test_anchors_tags_complex_keys_and_hidden_characters_are_refused() -> None:
    assert loaded_issues(b"a: &x [1]\n") == (
        {"a": [1]},
        ["r.yaml:1:4: error[yaml.anchor] /a: anchors are not allowed in records"],
    )
    seq_tag = "r.yaml:1:4: error[yaml.tag] /a: explicit tag 'tag:yaml.org,2002:seq' is not allowed"
    assert loaded_issues(b"a: !!seq [1]\nb: 2\n") == ({"a": None, "b": 2}, [seq_tag])
    key_type = ["r.yaml:1:1: error[yaml.key-type] keys must be plain strings"]
    assert loaded_issues(b"[1, 2]: x\nb: 2\n") == ({"b": 2}, key_type)
    assert loaded_issues(b"{a: 1}: b\n") == ({}, key_type)
    assert loaded_issues(b"a: \"x\\u202ey\"\nb: 'p\xe2\x80\x8bq'\n") == (
        {"a": "x\u202ey", "b": "p\u200bq"},
        [
            "r.yaml:1:4: error[text.control-char] /a: control or bidi character U+202E is not allowed",
            "r.yaml:2:4: error[text.control-char] /b: invisible format character U+200B (ZERO WIDTH SPACE)"
            " is not allowed: readers cannot see it",
        ],
    )
    assert loaded_issues(b'a:\n  - b\n  - "c\\x07"\n') == (
        {"a": ["b", "c\x07"]},
        ["r.yaml:3:5: error[text.control-char] /a/1: control or bidi character U+0007 is not allowed"],
    )
    assert loaded_issues(b"'\\x01': 1\n") == ({"\\x01": 1}, [])
    assert bad_char_message("\U000e0001") == (
        "invisible format character U+E0001 (LANGUAGE TAG) is not allowed: readers cannot see it"
    )


def test_positions_are_kept_per_pointer_for_values_and_keys() -> None:
    doc = load_text("r.yaml", b"a: {b: [c, {d: e}]}\n'x/y': 1\n")
    assert doc.data == {"a": {"b": ["c", {"d": "e"}]}, "x/y": 1}
    assert dict(doc.value_locs) == {
        "": (1, 1),
        "/a": (1, 4),
        "/x~1y": (2, 8),
        "/a/b": (1, 8),
        "/a/b/0": (1, 9),
        "/a/b/1": (1, 12),
        "/a/b/1/d": (1, 16),
    }
    assert dict(doc.key_locs) == {"/a": (1, 1), "/x~1y": (2, 1), "/a/b": (1, 5), "/a/b/1/d": (1, 13)}
    assert (len(doc.value_locs), len(doc.key_locs)) == (7, 4)
    assert ("" in doc.value_locs, "" in doc.key_locs, "/a/b/1" in doc.value_locs, "/a/q" in doc.value_locs) == (
        True,
        False,
        True,
        False,
    )
    assert "/a/b/x" not in doc.value_locs and "/q/b" not in doc.value_locs


def test_discover_and_display_paths(tmp_path: Path) -> None:
    for name in ("b.yaml", "a.yml", "c.txt", "sub/d.yaml"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("id: x\n", encoding="utf-8")
    (tmp_path / "dir.yaml").mkdir()
    found = discover([tmp_path, tmp_path / "b.yaml"])
    assert [display_path(path, tmp_path) for path in found] == ["a.yml", "b.yaml", "sub/d.yaml"]
    assert display_path(Path("/elsewhere/e.yaml"), tmp_path) == "/elsewhere/e.yaml"
    missing = load_file(tmp_path / "gone.yaml", "gone.yaml")
    assert [str(i) for i in missing.issues] == ["gone.yaml: error[file.unreadable] No such file or directory"]
    assert missing.issues[0].location == Location("gone.yaml", 0, 0)
    assert load_file(tmp_path / "b.yaml").data == {"id": "x"}
    assert load_file(tmp_path / "b.yaml").path == str(tmp_path / "b.yaml")
    assert load_file(tmp_path / "b.yaml", "b.yaml").path == "b.yaml"


def project_workspace(root: Path) -> None:
    """Write two records whose patterns match each other's examples, a healthy log and published ids."""
    write_record(root, "memory", "widget")
    write_record(root, "memory", "gadget")
    (root / "tests" / "realworld" / "benign").mkdir(parents=True)
    healthy = "log: |\n  ok\n  [rank3]: Widget exploded after 12 tries\n"
    (root / "tests" / "realworld" / "benign" / "b.yaml").write_text(healthy, encoding="utf-8")
    (root / "tests" / "realworld" / "benign" / "a.yaml").write_text("note: no log\n", encoding="utf-8")
    (root / "schema").mkdir()
    (root / "schema" / "published-ids.txt").write_text("widget\n\n  old-id  \ngadget\n", encoding="utf-8")


def test_project_checks_read_the_healthy_logs_and_published_ids(tmp_path: Path) -> None:
    project_workspace(tmp_path)
    assert healthy_logs(tmp_path) == [("a.yaml", ""), ("b.yaml", "ok\n[rank3]: Widget exploded after 12 tries\n")]
    published = "schema/published-ids.txt"
    assert published_ids(tmp_path) == [
        (Location(published, 1, 1), "widget"),
        (Location(published, 3, 1), "old-id"),
        (Location(published, 4, 1), "gadget"),
    ]
    assert published_ids(tmp_path / "entries") == [] and healthy_logs(tmp_path / "entries") == []
    loaded = load_catalog([tmp_path / "entries"], tmp_path, project=True)
    collision = "/signatures/0/pattern: '{0}-exploded' matches "
    assert [str(issue) for issue in loaded.issues] == [
        "entries/memory/gadget.yaml:31:14: error[signature.collision] "
        + collision.format("gadget")
        + "a healthy log (b.yaml): '[rank3]: Widget exploded after 12 tries'",
        "entries/memory/gadget.yaml:31:14: error[signature.collision] "
        + collision.format("gadget")
        + "an example of 'widget-exploded' (widget); narrow it or declare confused_with",
        "entries/memory/widget.yaml:31:14: error[signature.collision] "
        + collision.format("widget")
        + "a healthy log (b.yaml): '[rank3]: Widget exploded after 12 tries'",
        "entries/memory/widget.yaml:31:14: error[signature.collision] "
        + collision.format("widget")
        + "an example of 'gadget-exploded' (gadget); narrow it or declare confused_with",
        "schema/published-ids.txt:3:1: error[catalog.missing-published-id] "
        "published id 'old-id' has no record and no successor",
    ]
    assert [issue.pointer for issue in loaded.issues if issue.code == "catalog.missing-published-id"] == [""]
    assert not loaded.ok
    assert load_catalog([tmp_path / "entries"], tmp_path).ok


def collision_lines(root: Path) -> list[str]:
    """Return the collision issues of the project at root, each as its record and message."""
    loaded = load_catalog([root / "entries"], root, project=True)
    return [f"{issue.location.path}: {issue.message}" for issue in loaded.issues if issue.code == "signature.collision"]


def test_a_caseless_signature_collides_caselessly_unless_confused_with_is_declared(tmp_path: Path) -> None:
    write_record(tmp_path, "memory", "widget")
    write_record(tmp_path, "memory", "gadget")
    gadget = tmp_path / "entries" / "memory" / "gadget.yaml"
    text = gadget.read_text(encoding="utf-8").replace('"Widget exploded after', '"WIDGET EXPLODED AFTER')
    gadget.write_text(
        text.replace("    strength: specific\n", "    strength: specific\n    flags: [i]\n"), encoding="utf-8"
    )
    (tmp_path / "tests" / "realworld" / "benign").mkdir(parents=True)
    long_line = "widget exploded after 3 tries " + "x" * 200
    (tmp_path / "tests" / "realworld" / "benign" / "b.yaml").write_text(f"log: |\n  {long_line}\n", encoding="utf-8")
    assert collision_lines(tmp_path) == [
        f"entries/memory/gadget.yaml: 'gadget-exploded' matches a healthy log (b.yaml): {long_line[:120]!r}",
        "entries/memory/gadget.yaml: 'gadget-exploded' matches an example of 'widget-exploded' (widget);"
        " narrow it or declare confused_with",
        "entries/memory/widget.yaml: 'widget-exploded' matches an example of 'gadget-exploded' (gadget);"
        " narrow it or declare confused_with",
    ]
    told = "confused_with:\n  - id: widget\n    tell: The gadget says it in capitals.\n"
    gadget.write_text(gadget.read_text(encoding="utf-8") + told, encoding="utf-8")
    assert collision_lines(tmp_path) == [
        f"entries/memory/gadget.yaml: 'gadget-exploded' matches a healthy log (b.yaml): {long_line[:120]!r}"
    ]


def test_checked_records_are_recalled_by_digest_unless_the_catalog_has_an_issue(tmp_path: Path) -> None:
    write_record(tmp_path, "memory", "widget")
    write_record(tmp_path, "memory", "gadget")
    keep: list[SourceDoc] = []
    load_catalog([tmp_path / "entries"], tmp_path, keep=keep)
    assert [(doc.path, doc.recalled) for doc in keep] == [
        ("entries/memory/gadget.yaml", False),
        ("entries/memory/widget.yaml", False),
    ]
    raw = (tmp_path / "entries" / "memory" / "widget.yaml").read_bytes()
    assert keep[1].digest == record_digest(raw) == hashlib.sha256(raw).hexdigest()
    checked = {doc.digest: doc.data for doc in keep}
    again: list[SourceDoc] = []
    recalled = load_catalog([tmp_path / "entries"], tmp_path, keep=again, checked=checked)
    assert [(doc.path, doc.recalled) for doc in again] == [
        ("entries/memory/gadget.yaml", True),
        ("entries/memory/widget.yaml", True),
    ]
    assert recalled.issues == () and [e.id for e in recalled.catalog.entries] == ["gadget", "widget"]
    write_record(tmp_path, "memory", "gizmo", extra="related: [nothing]\n")
    full: list[SourceDoc] = []
    found = load_catalog([tmp_path / "entries"], tmp_path, keep=full, checked=checked)
    assert [str(i) for i in found.issues] == [
        "entries/memory/gizmo.yaml:41:11: error[catalog.unknown-id] /related/0: no record has id 'nothing'"
    ]
    assert [doc.recalled for doc in full] == [False, False, False]


def test_a_record_that_failed_to_load_is_known_by_its_own_id_else_its_file_name(tmp_path: Path) -> None:
    path = tmp_path / "file-name.yaml"
    assert claimed_id(SourceDoc("x", {"id": "own"}), path) == "own"
    assert claimed_id(SourceDoc("x", {"id": 3}), path) == "file-name"
    assert claimed_id(SourceDoc("x", ["id"]), path) == "file-name"
    assert claimed_id(SourceDoc("x", None), path) == "file-name"


def test_references_conditions_renames_and_folders_are_checked_across_records(tmp_path: Path) -> None:
    conditions = (
        "    detail: Every widget takes room.\n    when:\n      - record: gizmo\n      - signature: no-such-sig\n"
        "      - line: 'a(?=b)c'\n    unless:\n      - signature: widget-exploded\n      - log: 'x(?!y)z'\n"
        "      - record: ghost\n"
    )
    extra = "related: [widget]\nconfused_with:\n  - id: nobody\n    tell: nothing\nrenamed_from: [gadget, old-one]\n"
    write_record(tmp_path, "numerical", "widget", extra=extra)
    path = tmp_path / "entries" / "numerical" / "widget.yaml"
    text = path.read_text(encoding="utf-8").replace("    detail: Every widget takes room.\n", conditions)
    path.write_text(text, encoding="utf-8")
    write_record(tmp_path, "memory", "gadget", extra="renamed_from: [old-one]\n")
    write_record(tmp_path, "memory", "gizmo", sig_id="gizmo-two")
    write_record(tmp_path, "memory", "com3")
    write_record(tmp_path, "memory", "lpt9x", extra="merged_into: nobody-else\n")
    path = tmp_path / "entries" / "memory" / "lpt9x.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("category: memory", "category: data"), encoding="utf-8")
    widget = "entries/numerical/widget.yaml"
    assert issues_of(tmp_path) == [
        "entries/memory/com3.yaml:2:5: error[catalog.reserved-id] /id: id 'com3' is reserved for a site path "
        "or device name",
        "entries/memory/lpt9x.yaml:4:11: error[catalog.category-mismatch] /category: category 'data' differs "
        "from the folder 'memory'",
        "entries/memory/lpt9x.yaml:41:14: error[catalog.unknown-id] /merged_into: no record has id 'nobody-else'",
        f"{widget}:20:20: error[catalog.unknown-signature] /causes/0/when/1/signature: no signature has id "
        "'no-such-sig'",
        f"{widget}:21:15: error[signature.dialect] /causes/0/when/2/line: lookaround is not portable",
        f"{widget}:24:14: error[signature.dialect] /causes/0/unless/1/log: lookaround is not portable",
        f"{widget}:25:17: error[catalog.unknown-id] /causes/0/unless/2/record: no record has id 'ghost'",
        f"{widget}:49:11: error[catalog.self-reference] /related/0: a record cannot refer to itself",
        f"{widget}:51:9: error[catalog.unknown-id] /confused_with/0/id: no record has id 'nobody'",
        f"{widget}:53:16: error[catalog.rename-conflict] /renamed_from/0: 'gadget' is still the id of a record",
        f"{widget}:53:24: error[catalog.rename-conflict] /renamed_from/1: 'old-one' is also claimed by 'gadget'",
    ]


def test_messages_are_cut_to_a_readable_length_and_ids_fold_for_case_insensitive_systems() -> None:
    assert shorten("a  b\n c") == "a b c"
    assert shorten("y" * MAX_MESSAGE) == "y" * MAX_MESSAGE
    assert shorten("x" * 300) == "x" * (MAX_MESSAGE - 3) + "..."
    assert (fold("\ufb01le"), fold("ABC")) == ("file", "abc")


def test_schema_forms_for_the_fast_validator_keep_the_meaning() -> None:
    assert [strict_pattern(p) for p in ("^a$", "^a\\$", "a", "$")] == ["^a\\Z", "^a\\$", "a", "\\Z"]
    node = {"oneOf": [{"const": "a"}, {"const": "b"}], "description": "d", "items": [{"oneOf": [{"const": 1}]}]}
    assert enum_form(node) == {"description": "d", "items": [{"enum": [1]}], "enum": ["a", "b"]}
    assert enum_form({"oneOf": [{"const": "a"}, {"type": "string"}]}) == {"oneOf": [{"const": "a"}, {"type": "string"}]}
    assert enum_form({"oneOf": []}) == {"oneOf": []} and enum_form([1, {"oneOf": [{"const": 2}]}]) == [1, {"enum": [2]}]
    defs = {"slug": {"type": "string", "pattern": "^x$"}, "wrap": {"$ref": "#/$defs/slug"}}
    properties = {
        "a": {"$ref": "#/$defs/slug"},
        "b": {"$ref": "#/$defs/wrap", "maxLength": 3, "allOf": [{"minLength": 1}]},
        "d": {"$ref": "#/$defs/slug", "items": {"$ref": "#/$defs/wrap"}},
    }
    schema = {"$defs": defs, "properties": {**properties, "c": {"$ref": "other.json"}}, "l": [{"$ref": "#/$defs/slug"}]}
    slug = {"type": "string", "pattern": "^x$"}
    assert inline_refs(schema, defs) == {
        "properties": {
            "a": slug,
            "b": {"maxLength": 3, "allOf": [{"minLength": 1}, slug]},
            "c": {"$ref": "other.json"},
            "d": {"items": slug, "allOf": [slug]},
        },
        "l": [slug],
    }
    nested = {
        "$defs": {"base": {"type": "object", "description": "base"}, "mid": {"$ref": "#/$defs/base", "title": "mid"}}
    }
    assert resolve({"$ref": "#/$defs/mid", "title": "top"}, nested) == {
        "type": "object",
        "description": "base",
        "title": "top",
    }
    assert resolve({"allOf": [{"$ref": "#/$defs/base"}, {"minLength": 1}], "x": 1}, nested) == {
        "type": "object",
        "description": "base",
        "x": 1,
    }
    assert resolve({"y": 2}, nested) == {"y": 2}


def test_a_valid_document_is_accepted_without_the_full_validator(tmp_path: Path, monkeypatch: Any) -> None:
    write_record(tmp_path, "memory", "widget")
    data = load_file(tmp_path / "entries" / "memory" / "widget.yaml").data
    assert [error.message for error in schema_errors(ENTRY_SCHEMA, {**data, "id": "Widget"})] == [
        "'Widget' does not match '^[a-z0-9]+(-[a-z0-9]+)*$'"
    ]

    def refuse(name: str) -> None:
        raise AssertionError(f"the full validator of {name} was built for a valid document")

    monkeypatch.setattr(schema, "full_validator", refuse)
    assert schema_errors(ENTRY_SCHEMA, data) == []


def test_a_final_dollar_in_a_schema_pattern_refuses_a_trailing_newline(tmp_path: Path) -> None:
    write_record(tmp_path, "memory", "widget")
    path = tmp_path / "entries" / "memory" / "widget.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("tags: [test]", 'tags: ["test\\n"]'), encoding="utf-8")
    assert is_valid_fast(ENTRY_SCHEMA, {}) is False
    assert issues_of(tmp_path) == [
        "entries/memory/widget.yaml:24:8: error[schema.pattern] /tags/0: 'test\\n' does not match "
        "'^[a-z0-9]+(-[a-z0-9]+)*$'"
    ]


def test_the_model_keeps_examples_flags_groups_and_renames(tmp_path: Path) -> None:
    example = (
        "        - from: log\n          url: https://github.com/o/r/issues/1\n"
        "          line: 'Widget exploded after 3 tries'\n          versions: '2.1'\n"
    )
    links = "renamed_from: [zeta, alpha]\nrelated: [gadget]\ndownstream_of: [gadget]\n"
    write_record(tmp_path, "memory", "widget", extra=links)
    path = tmp_path / "entries" / "memory" / "widget.yaml"
    text = path.read_text(encoding="utf-8").replace('        - "Widget exploded after 1 tries"\n', f"{example}")
    text = text.replace("tags: [test]", "tags: [test, b-tag]").replace(
        'pattern: "Widget', 'flags: [i]\n    pattern: "Widget'
    )
    path.write_text(text, encoding="utf-8")
    write_record(tmp_path, "numerical", "gadget")
    loaded = load_catalog([tmp_path / "entries"], tmp_path)
    assert loaded.issues == ()
    catalog = loaded.catalog
    widget, gadget = catalog.by_id["widget"], catalog.by_id["gadget"]
    assert (widget.related, widget.downstream_of, gadget.related, gadget.downstream_of) == (
        ("gadget",),
        ("gadget",),
        (),
        (),
    )
    assert widget.signatures[0].examples == (
        Example("[rank3]: Widget exploded after 12 tries"),
        Example("Widget exploded after 3 tries", "log", "https://github.com/o/r/issues/1", "", "2.1", ""),
    )
    assert widget.signatures[0].match == ("[rank3]: Widget exploded after 12 tries", "Widget exploded after 3 tries")
    assert widget.signatures[0].no_match == ("Widget nearly exploded", "Widget exploded after many tries")
    assert (widget.signatures[0].ignore_case, gadget.signatures[0].ignore_case) == (True, False)
    assert {tag: [e.id for e in entries] for tag, entries in catalog.by_tag.items()} == {
        "b-tag": ["widget"],
        "test": ["gadget", "widget"],
    }
    assert list(catalog.by_tag) == ["b-tag", "test"]
    assert {name: [e.id for e in entries] for name, entries in catalog.by_category.items()} == {
        "memory": ["widget"],
        "numerical": ["gadget"],
    }
    assert list(catalog.renames.items()) == [("alpha", "widget"), ("zeta", "widget")]
    assert [sig.id for sig in catalog.signatures] == ["gadget-exploded", "widget-exploded"]
    assert (widget.tags, widget.renamed_from, widget.related, widget.get("nope", 5)) == (
        ("test", "b-tag"),
        ("zeta", "alpha"),
        ("gadget",),
        5,
    )
    assert str(widget.location("/tags/1")) == "entries/memory/widget.yaml:24:14"
    assert (widget.status, widget.severity, widget.summary) == (
        "draft",
        "fatal",
        "The smallest record the schema accepts.",
    )
    assert (widget.signatures[0].entry_id, widget.signatures[0].index, widget.signatures[0].strength) == (
        "widget",
        0,
        "specific",
    )
    assert widget.signatures[0].description == "The widget gave up." and widget.signatures[0].printed_by is None


def test_frozen_data_and_printed_by_claims() -> None:
    frozen = freeze({"a": [1, {"b": [2]}]})
    assert frozen == {"a": (1, {"b": (2,)})} and type(frozen).__name__ == "mappingproxy"
    assert type(frozen["a"][1]).__name__ == "mappingproxy"
    assert build_printed_by({"package": "p", "file": "f", "present": [1.2, "3"]}) == PrintedBy(
        "p", "f", (), ("1.2", "3"), ()
    )
    assert PrintedBy("p", "f", ("t",), ("1",), ("0",)).as_dict() == {
        "package": "p",
        "file": "f",
        "present": ["1"],
        "text": ["t"],
        "absent": ["0"],
    }


def test_search_reads_observations_faq_and_nccl_and_averages_over_one_record(tmp_path: Path) -> None:
    extra = "observations: [Zebra stripes appear]\nfaq:\n  - q: Quokka here?\n    a: Yes.\n"
    write_record(tmp_path, "memory", "gadget", extra=extra + "nccl:\n  code: 2\n  name: ncclSystemError\n")
    path = tmp_path / "entries" / "memory" / "gadget.yaml"
    path.write_text(
        path.read_text(encoding="utf-8").replace("title: Minimal record", "title: Gadget"), encoding="utf-8"
    )
    catalog = load_catalog([tmp_path / "entries"], tmp_path).catalog
    index = search_index(catalog)
    assert index.average == {"title": 1.0, "tags": 2.0, "lines": 11.0, "body": 51.0}
    # One record: idf log(4/3); every field at its average length, so each gain is boost * log(4/3).
    assert [(e.id, s) for e, s in search(catalog, "zebra", index)] == [("gadget", 0.288)]
    assert [(e.id, s) for e, s in search(catalog, "quokka", index)] == [("gadget", 0.288)]
    assert [(e.id, s) for e, s in search(catalog, "system", index)] == [("gadget", 0.288)]
    assert [(e.id, s) for e, s in search(catalog, "gadget", index)] == [("gadget", 4.315)]


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            'symptoms:\n  - signal: "`Widget exploded` in the log"\n    meaning: The widget ran out of room.\n',
            "symptoms: []\n",
            "r.yaml:8:11: error[schema.minItems] /symptoms: [] should be non-empty",
        ),
        (
            '        - "Widget exploded after 1 tries"\n',
            '        - {from: log, line: "Widget exploded after 1 tries"}\n',
            "r.yaml:37:11: error[schema.oneOf] /signatures/0/examples/match/1: {'from': 'log', 'line': 'Widget"
            " exploded after 1 tries'} is not valid under any of the given schemas",
        ),
        (
            "severity: fatal",
            "severity: 5",
            "r.yaml:5:11: error[schema.enum] /severity: 5 is not one of 'fatal', 'error', 'warning'",
        ),
        (
            "title: Minimal record\n",
            "title: Minimal record\nbogus: 1\n",
            "r.yaml:4:1: error[schema.additionalProperties] /bogus: unknown field 'bogus'",
        ),
    ],
)
def test_schema_errors_of_each_kind_read_as_written(old: str, new: str, expected: str) -> None:
    assert MINIMAL.count(old) == 1
    doc = load_text("r.yaml", MINIMAL.replace(old, new).encode())
    assert [str(issue) for issue in schema_issues(doc)] == [expected]


@pytest.mark.parametrize(
    ("raw", "data", "issues"),
    [
        (b"a: 1\nb: 2\nc: \xff\n", None, [("r.yaml:3:4: error[yaml.encoding] file is not valid UTF-8", "")]),
        (b"a: [1\n", None, [("r.yaml:2:1: error[yaml.syntax] did not find expected ',' or ']'", "")]),
        (
            b"a: \x00\n",
            None,
            [("r.yaml:1:1: error[yaml.syntax] unacceptable character #x0000: control characters are not allowed", "")],
        ),
        (b"a:\n  1: x\n", {"a": {"1": "x"}}, [("r.yaml:2:3: error[yaml.key-type] /a: key 1 is not a string", "/a")]),
        (
            b"a:\n  true: 1\n  2020-01-01: 3\n",
            {"a": {"True": 1, "2020-01-01": 3}},
            [("r.yaml:2:3: error[yaml.key-type] /a: key True is not a string", "/a")],
        ),
        (
            b"a:\n  ? [b]\n  : 1\n",
            {"a": {}},
            [("r.yaml:2:5: error[yaml.key-type] /a: keys must be plain strings", "/a")],
        ),
        (
            b"a: {&k b: 1, c: 2}\n",
            {"a": {"b": 1, "c": 2}},
            [("r.yaml:1:5: error[yaml.anchor] /a: anchors are not allowed in records", "/a")],
        ),
        (
            b"a: {!!str b: 1}\n",
            {"a": {"b": 1}},  # a refused key is kept, so its value is still checked
            [("r.yaml:1:5: error[yaml.tag] /a: explicit tag 'tag:yaml.org,2002:str' is not allowed", "/a")],
        ),
        (
            b"a:\n  &k b: 1\n  c: 2\n",
            {"a": {"b": 1, "c": 2}},
            [("r.yaml:2:3: error[yaml.anchor] /a: anchors are not allowed in records", "/a")],
        ),
    ],
)
def test_unreadable_yaml_and_refused_keys_are_located_exactly(
    raw: bytes, data: Any, issues: list[tuple[str, str]]
) -> None:
    doc = load_text("r.yaml", raw)
    assert (doc.data, [(str(issue), issue.pointer) for issue in doc.issues]) == (data, issues)


def test_a_file_over_the_limit_is_read_one_byte_past_it(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    path.write_bytes(b"a: " + b"x" * (MAX_BYTES + 5))
    doc = load_file(path, "big.yaml")
    assert [(str(issue), issue.pointer) for issue in doc.issues] == [
        (f"big.yaml:1:1: error[yaml.too-large] file is {MAX_BYTES + 1} bytes; the limit is {MAX_BYTES}", "")
    ]
    path.write_bytes(b"a: " + b"x" * (MAX_BYTES - 3))  # exactly the limit
    assert load_file(path, "big.yaml").issues == []


def test_nesting_is_counted_back_after_each_sibling_value() -> None:
    # /a/b's lists start one level below /a/x: 30 of them stay within the limit, 31 pass it
    def nested(levels: int) -> bytes:
        return ("a: {x: 1, b: " + "[" * levels + "]" * levels + "}\n").encode()

    assert load_text("r.yaml", nested(30)).issues == []
    too_deep = [issue.code for issue in load_text("r.yaml", nested(31)).issues]
    assert too_deep == ["yaml.too-deep"]


def test_aliased_keys_and_extra_documents_are_refused_where_they_are() -> None:
    assert loaded_issues(b"a:\n  *x : 1\n")[1] == [
        "r.yaml:2:3: error[yaml.alias] /a: aliases are not allowed in records"
    ]
    doc = load_text("r.yaml", b"a: 1\n---\nb: 2\n")
    assert [(str(issue), issue.pointer) for issue in doc.issues] == [
        ("r.yaml:2:1: error[yaml.multiple-documents] a record file holds one document", "")
    ]


def test_a_pattern_re2_cannot_compile_is_one_located_issue(tmp_path: Path) -> None:
    write_record(tmp_path, "memory", "widget")
    path = tmp_path / "entries" / "memory" / "widget.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("after [0-9]+ tries", "a{1001}"), encoding="utf-8")
    loaded = load_catalog([tmp_path / "entries"], tmp_path)
    assert [(str(issue), issue.pointer) for issue in loaded.issues] == [
        (
            "entries/memory/widget.yaml:31:14: error[signature.dialect] /signatures/0/pattern:"
            " RE2 cannot compile it: invalid repetition size: {1001}",
            "/signatures/0/pattern",
        )
    ]
