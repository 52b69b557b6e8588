"""The records cache: only a clean validation is remembered."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator import cache

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
