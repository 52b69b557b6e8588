"""The records cache: only a clean validation is remembered."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator import cache
from generator.signatures import match
from generator.signatures.facts import fact_signatures

from .workspace import write_record


@pytest.fixture(autouse=True)
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Give each test an empty cache directory and no catalog remembered in this process."""
    monkeypatch.setenv("FAILPEDIA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(cache, "READ", {})


def validate_twice(root: Path) -> list[list[str]]:
    """Return the issues of two validations of the same workspace, one after the other."""
    runs = []
    for _ in range(2):
        _, loaded = cache.load_validated(root / "entries", root)
        runs.append([str(issue) for issue in loaded.issues])
    return runs


def test_a_broken_workspace_is_broken_again_on_the_second_run(tmp_path: Path) -> None:
    write_record(tmp_path / "ws", "memory", "index")
    expected = [
        "entries/memory/index.yaml:2:5: error[catalog.reserved-id] /id: id 'index' is reserved for a site path "
        "or device name"
    ]
    assert validate_twice(tmp_path / "ws") == [expected, expected]
    assert sorted(path.name.split("-")[0] for path in (tmp_path / "cache").glob("*")) == []


def test_a_clean_workspace_is_recalled(tmp_path: Path) -> None:
    write_record(tmp_path / "ws", "memory", "widget")
    assert validate_twice(tmp_path / "ws") == [[], []]
    assert sorted(path.name.split("-")[0] for path in (tmp_path / "cache").glob("*")) == ["checked", "records"]
    _, loaded, catalog = cache.validated_catalog(tmp_path / "ws" / "entries", tmp_path / "ws")
    assert loaded is None and [entry.id for entry in catalog.entries] == ["widget"]


def cache_files(root: Path) -> list[str]:
    """Return the names of the files in the cache directory, sorted."""
    return sorted(path.name for path in (root / "cache").glob("*"))


def cache_bytes(root: Path, name: str) -> bytes:
    """Return the bytes of one cache file."""
    return (root / "cache" / name).read_bytes()


def test_the_cache_directory_is_the_explicit_one_else_the_xdg_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert cache.cache_dir() == tmp_path / "cache"
    monkeypatch.setenv("FAILPEDIA_CACHE_DIR", "")
    monkeypatch.setenv("XDG_CACHE_HOME", "/xdg")
    assert cache.cache_dir() == Path("/xdg/failpedia")
    monkeypatch.setenv("XDG_CACHE_HOME", "")
    monkeypatch.setenv("HOME", "/home/someone")
    assert cache.cache_dir() == Path("/home/someone/.cache/failpedia")


def test_a_records_key_changes_with_each_record_path_and_byte_and_each_schema(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    schemas = tmp_path / "schema"
    schemas.mkdir()
    (schemas / "entry.schema.json").write_text("{}", encoding="utf-8")
    (schemas / "notes.txt").write_text("a", encoding="utf-8")
    monkeypatch.setattr(cache, "SCHEMA_DIR", schemas)
    record = tmp_path / "a.yaml"
    record.write_text("id: a\n", encoding="utf-8")
    first = cache.cache_key([record])
    assert len(first) == 32 and first == cache.cache_key([record]) != cache.cache_key([])
    record.write_text("id: b\n", encoding="utf-8")
    second = cache.cache_key([record])
    moved = record.rename(tmp_path / "b.yaml")
    third = cache.cache_key([moved])
    (schemas / "notes.txt").write_text("b", encoding="utf-8")  # not a schema: no new key
    assert cache.cache_key([moved]) == third
    (schemas / "entry.schema.json").write_text("{ }", encoding="utf-8")
    assert len({first, second, third, cache.cache_key([moved])}) == 4
    assert cache.checks_key() == cache.cache_key([])


def test_an_outputs_key_changes_with_the_records_the_inputs_and_the_settings(tmp_path: Path) -> None:
    hub = tmp_path / "hub.yaml"
    hub.write_text("hub", encoding="utf-8")
    keys = [
        cache.outputs_key("r", [hub], "s"),
        cache.outputs_key("q", [hub], "s"),
        cache.outputs_key("r", [hub], "t"),
        cache.outputs_key("r", [], "s"),
        cache.outputs_key("r|", [], "s"),
        cache.outputs_key("r", [], "|s"),
    ]
    hub.write_text("hub!", encoding="utf-8")
    keys.append(cache.outputs_key("r", [hub], "s"))
    assert [len(key) for key in keys] == [32] * 7 and len(set(keys)) == 6
    assert keys[4] == keys[5] and cache.outputs_key("r", [hub], "s") == keys[-1]


def test_generated_files_are_kept_for_their_key_only(tmp_path: Path) -> None:
    assert cache.read_outputs("k1") is None
    cache.write_outputs("k1", {"a.html": "é"})
    assert (tmp_path / "cache" / "outputs-k1.json").read_bytes() == '{"a.html": "é"}'.encode()
    cache.write_mapping("names-m1.json", {"b": "2", "a": "1"})
    cache.write_outputs("k2", {"b.html": "x"})
    assert cache_files(tmp_path) == ["names-m1.json", "outputs-k2.json"]
    assert cache.read_outputs("k1") is None
    assert cache.read_outputs("k2") == {"b.html": "x"}
    assert (tmp_path / "cache" / "names-m1.json").read_bytes() == b'{"a": "1", "b": "2"}'
    assert cache.read_mapping("names-m1.json") == {"a": "1", "b": "2"}


@pytest.mark.parametrize(
    ("text", "outputs", "mapping"),
    [
        ("{not json", None, {}),
        ('["a.html"]', None, {}),
        ('{"a.html": "x", "b.html": 1}', None, {"a.html": "x"}),
        ('{"a.html": 1}', None, {}),
        ('"\\ud800"', None, {}),
    ],
)
def test_a_damaged_cache_file_is_a_miss(
    tmp_path: Path, text: str, outputs: dict[str, str] | None, mapping: dict[str, str]
) -> None:
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "outputs-k.json").write_text(text, encoding="utf-8")
    assert cache.read_outputs("k") == outputs
    assert cache.read_mapping("outputs-k.json") == mapping


def test_a_cache_that_cannot_be_written_costs_only_the_cache(tmp_path: Path) -> None:
    (tmp_path / "cache").write_text("a file, not a directory", encoding="utf-8")
    cache.write_outputs("k", {"a.html": "x"})
    assert cache.read_outputs("k") is None


def test_an_old_file_that_cannot_be_removed_is_left(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache.write_outputs("k1", {})
    monkeypatch.setattr(Path, "unlink", lambda self: (_ for _ in ()).throw(PermissionError(self)))
    cache.write_outputs("k2", {})
    assert cache_files(tmp_path) == ["outputs-k1.json", "outputs-k2.json"]


def test_records_are_recalled_from_the_file_in_a_new_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_record(tmp_path / "ws", "memory", "widget")
    key, loaded, _ = cache.validated_catalog(tmp_path / "ws" / "entries", tmp_path / "ws")
    assert loaded is not None and loaded.ok and list(cache.READ) == [key]
    monkeypatch.setattr(cache, "READ", {})
    catalog = cache.read_records(key)
    assert catalog is not None and [entry.id for entry in catalog.entries] == ["widget"]
    assert {key: catalog} == cache.READ and cache.read_records(key) is catalog
    cache.remember("other", catalog)
    assert list(cache.READ) == ["other"]


@pytest.mark.parametrize("text", ["{}", '[{"path": "a.yaml"}]', "[1]"])
def test_damaged_records_are_a_miss(tmp_path: Path, text: str) -> None:
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "records-k.json").write_text(text, encoding="utf-8")
    assert cache.read_records("k") is None and cache.READ == {}


def test_damaged_per_record_results_are_ignored_and_everything_is_checked(tmp_path: Path) -> None:
    (tmp_path / "cache").mkdir()
    write_record(tmp_path / "ws", "memory", "widget")
    checked = tmp_path / "cache" / f"checked-{cache.checks_key()}.json"
    checked.write_text("[1]", encoding="utf-8")
    assert cache.read_checked() == {}
    files = cache.discover([tmp_path / "ws" / "entries"])
    digest = cache.hashlib.sha256(files[0].read_bytes()).hexdigest()
    checked.write_text(f'{{"{digest}": {{"id": "widget"}}}}', encoding="utf-8")
    assert cache.read_checked() == {digest: {"id": "widget"}}
    _, loaded, catalog = cache.validated_catalog(tmp_path / "ws" / "entries", tmp_path / "ws")
    assert loaded is not None and loaded.issues == () and [entry.id for entry in catalog.entries] == ["widget"]
    assert list(cache.read_checked()) == [digest] and cache.read_checked()[digest]["id"] == "widget"


def test_records_without_a_digest_keep_no_per_record_results(tmp_path: Path) -> None:
    write_record(tmp_path / "ws", "memory", "widget")
    _, _, catalog = cache.validated_catalog(tmp_path / "ws" / "entries", tmp_path / "ws")
    checked = cache.read_checked()
    docs = [cache.SourceDoc("a.yaml", {"id": "a"}, digest="d1"), cache.SourceDoc("b.yaml", {"id": "b"})]
    cache.store_records("k", docs, catalog)
    assert cache_files(tmp_path) == [f"checked-{cache.checks_key()}.json", "records-k.json"]
    assert cache.read_checked() == checked and len(checked) == 1
    assert cache.read_cache_json("records-k.json") == [
        {"path": "a.yaml", "data": {"id": "a"}},
        {"path": "b.yaml", "data": {"id": "b"}},
    ]
    assert {"k": catalog} == cache.READ


def test_the_compiled_database_is_kept_beside_valid_records(tmp_path: Path) -> None:
    write_record(tmp_path / "ws", "memory", "widget")
    entries = tmp_path / "ws" / "entries"
    loaded, _, matcher = cache.load_for_diagnosis(entries, tmp_path / "ws")
    key = cache.cache_key(cache.discover([entries]))
    assert loaded is not None and loaded.ok and matcher.database is not None
    assert [sig.id for sig in matcher.signatures[:1]] == ["widget-exploded"]
    assert len(matcher.signatures) == 1 + len(fact_signatures())  # the minimal record gives no log: condition
    assert cache_files(tmp_path) == [f"checked-{cache.checks_key()}.json", f"patterns-{key}.hs", f"records-{key}.json"]
    again, _, recalled = cache.load_for_diagnosis(entries, tmp_path / "ws")
    assert again is None and match.hyperscan.dumpb(recalled.database) == cache_bytes(tmp_path, f"patterns-{key}.hs")


def test_databases_of_records_with_errors_are_not_kept(tmp_path: Path) -> None:
    write_record(tmp_path / "ws", "memory", "widget")
    _, _, catalog = cache.validated_catalog(tmp_path / "ws" / "entries", tmp_path / "ws")
    before = cache_files(tmp_path)
    matcher = cache.cached_matcher("k", catalog, keep=False)
    assert matcher.database is not None and cache_files(tmp_path) == before


def test_a_damaged_or_unusable_database_is_a_miss(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "patterns-k.hs").write_bytes(b"not a database")
    assert cache.read_database("k") is None and cache.read_database("missing") is None
    monkeypatch.setattr(cache, "hyperscan", None)
    assert cache.read_database("k") is None


def test_a_record_whose_bytes_passed_before_is_recalled_not_parsed(tmp_path: Path) -> None:
    write_record(tmp_path / "ws", "memory", "widget")
    entries = tmp_path / "ws" / "entries"
    _, first, _ = cache.validated_catalog(entries, tmp_path / "ws")
    assert first is not None
    digest = cache.hashlib.sha256(cache.discover([entries])[0].read_bytes()).hexdigest()
    data = dict(cache.read_checked()[digest], title="Recalled")
    cache.replace_cache_file("checked", cache.checks_key(), {digest: data})
    (tmp_path / "cache" / f"records-{cache.cache_key(cache.discover([entries]))}.json").unlink()
    cache.READ.clear()
    _, loaded, catalog = cache.validated_catalog(entries, tmp_path / "ws")
    assert loaded is not None and loaded.issues == () and [entry.title for entry in catalog.entries] == ["Recalled"]


def test_issues_and_recalled_catalogs_keep_their_workspace(tmp_path: Path) -> None:
    write_record(tmp_path / "ws", "memory", "index")
    loaded, _, _ = cache.load_for_diagnosis(tmp_path / "ws" / "entries", tmp_path / "ws")
    assert loaded is not None and [str(issue).split(":")[0] for issue in loaded.issues] == ["entries/memory/index.yaml"]
    write_record(tmp_path / "ok", "memory", "widget")
    paths = []
    for _ in range(2):  # read from YAML, then recalled from the cache file
        cache.READ.clear()  # a new process: nothing remembered in memory
        _, recalled = cache.load_validated(tmp_path / "ok" / "entries", tmp_path / "ok")
        assert [entry.id for entry in recalled.catalog.entries] == ["widget"]
        paths += [str(entry.path) for entry in recalled.catalog.entries]
    assert paths == ["entries/memory/widget.yaml"] * 2


def test_keys_with_dashes_replace_only_their_own_kind(tmp_path: Path) -> None:
    cache.write_outputs("k1", {})
    cache.write_outputs("k-2", {})
    assert cache_files(tmp_path) == ["outputs-k-2.json"]


def test_an_outputs_key_changes_with_an_input_path(tmp_path: Path) -> None:
    for name in ("a.yaml", "b.yaml"):
        (tmp_path / name).write_text("same", encoding="utf-8")
    assert cache.outputs_key("r", [tmp_path / "a.yaml"], "s") != cache.outputs_key("r", [tmp_path / "b.yaml"], "s")


def test_a_recalled_database_is_not_compiled_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_record(tmp_path / "ws", "memory", "widget")
    entries = tmp_path / "ws" / "entries"
    _, _, matcher = cache.load_for_diagnosis(entries, tmp_path / "ws")
    compiled: list[bool] = []
    real = match.block_database
    monkeypatch.setattr(match, "block_database", lambda *args, **kw: compiled.append(True) or real(*args, **kw))
    _, _, recalled = cache.load_for_diagnosis(entries, tmp_path / "ws")
    assert compiled == [] and match.hyperscan.dumpb(recalled.database) == match.hyperscan.dumpb(matcher.database)
    block = b"ok\nWidget exploded after 3 tries\n"
    assert [(h.signature.id, h.line_offset) for h in recalled.scan_block(block)] == [("widget-exploded", 1)]


def test_issues_found_after_damaged_recalled_data_keep_their_workspace(tmp_path: Path) -> None:
    (tmp_path / "cache").mkdir()
    write_record(tmp_path / "ws", "memory", "widget")
    write_record(tmp_path / "ws", "memory", "index")
    entries = tmp_path / "ws" / "entries"
    widget = next(path for path in cache.discover([entries]) if path.stem == "widget")
    digest = cache.hashlib.sha256(widget.read_bytes()).hexdigest()
    cache.replace_cache_file("checked", cache.checks_key(), {digest: {"id": "widget"}})
    _, loaded, _ = cache.validated_catalog(entries, tmp_path / "ws")
    assert loaded is not None and [str(issue).split(":")[0] for issue in loaded.issues] == ["entries/memory/index.yaml"]
