"""Records that still hold what `failpedia new` wrote are refused: TODO text, example addresses."""

from __future__ import annotations

from pathlib import Path

from generator.authoring.skeleton import skeleton_text
from generator.records.pipeline import load_catalog

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
MINIMAL = (FIXTURES / "valid" / "minimal-record.yaml").read_text(encoding="utf-8")


def diagnostics(path: Path) -> list[str]:
    return [str(issue) for issue in load_catalog([path], ROOT).issues]


def test_the_skeleton_fixture_is_what_new_writes() -> None:
    # tests/fixtures/invalid/skeleton-placeholders.expected holds its exact diagnostics.
    fixture = FIXTURES / "invalid" / "skeleton-placeholders.yaml"
    assert fixture.read_text(encoding="utf-8") == skeleton_text("skeleton-placeholders", "memory")


def test_an_example_reference_is_refused_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / "minimal-record.yaml"
    path.write_text(MINIMAL.replace("https://widgets.invalid/docs", "https://docs.example.com/widgets"), "utf-8")
    assert diagnostics(path) == [
        f"{path}:27:10: error[record.placeholder] /references/0/url: "
        "'https://docs.example.com/widgets' is a placeholder address: cite the real source"
    ]


def test_todo_anywhere_is_refused_but_lowercase_words_and_example_hosts_in_log_lines_are_not(
    tmp_path: Path,
) -> None:
    text = MINIMAL.replace("A widget fills up.", "A widget on host-01.example.com fills up (a todo list does too).")
    text = text.replace("title: Widget docs", "title: Widget docs, TODO pick the page")
    assert "a todo list" in text and "TODO pick" in text
    path = tmp_path / "minimal-record.yaml"
    path.write_text(text, encoding="utf-8")
    assert [line.split(": error")[1] for line in diagnostics(path)] == [
        "[record.placeholder] /references/0/title: "
        "placeholder text from the skeleton (TODO): replace it with the record's own"
    ]
