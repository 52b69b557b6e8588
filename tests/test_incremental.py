"""Validation that recalls records which passed every check before, unchanged."""

from __future__ import annotations

import shutil
from pathlib import Path

from generator.records.pipeline import load_catalog
from generator.records.source import SourceDoc

ROOT = Path(__file__).resolve().parent.parent


def project(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "entries", tmp_path / "entries")
    return tmp_path / "entries"


def checked_run(entries: Path, checked: dict[str, object]) -> tuple[list[str], list[SourceDoc]]:
    docs: list[SourceDoc] = []
    loaded = load_catalog([entries], entries.parent, keep=docs, checked=checked)
    return [str(issue) for issue in loaded.issues], docs


def test_unchanged_records_are_recalled_and_give_the_same_catalog(tmp_path: Path) -> None:
    entries = project(tmp_path)
    issues, first = checked_run(entries, {})
    assert issues == [] and not any(doc.recalled for doc in first) and all(doc.digest for doc in first)
    checked = {doc.digest: doc.data for doc in first}
    edited = entries / "memory" / "cuda-out-of-memory.yaml"
    edited.write_text(edited.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    issues, second = checked_run(entries, checked)
    assert issues == []
    assert [doc.path for doc in second if not doc.recalled] == ["entries/memory/cuda-out-of-memory.yaml"]
    assert [(doc.path, doc.data) for doc in second] == [(doc.path, doc.data) for doc in first]


def test_an_issue_is_reported_where_a_run_without_recall_reports_it(tmp_path: Path) -> None:
    entries = project(tmp_path)
    _, docs = checked_run(entries, {})
    checked = {doc.digest: doc.data for doc in docs}
    # A record that keeps its bytes (so it is recalled) is now named by an unknown id.
    (entries / "memory" / "cuda-out-of-memory.yaml").rename(entries / "memory" / "cuda-oom.yaml")
    recalled_issues, _ = checked_run(entries, checked)
    full_issues, _ = checked_run(entries, {})
    assert recalled_issues == full_issues
    assert any("cuda-oom.yaml:" in line and "catalog.id-mismatch" in line for line in full_issues)
    assert all(":1:1:" not in line for line in full_issues), full_issues
