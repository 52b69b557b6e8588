"""Hostile input to `failpedia validate` (issue 21): patterns outside the dialect, invisible
characters, odd file names and duplicate ids each get an exact diagnostic, never a traceback."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from generator.patterns.normalize import normalize_line
from generator.patterns.translate import needles
from generator.records.pipeline import ENTRIES_DIR, discover, load_catalog

ROOT = Path(__file__).resolve().parent.parent
MINIMAL = ROOT / "tests" / "fixtures" / "valid" / "minimal-record.yaml"
PATTERN_LINE = 'pattern: "Widget exploded after [0-9]+ tries"'
WHERE = "entries/memory/minimal-record.yaml:31:14"
AT = f"{WHERE}: error[signature.dialect] /signatures/0/pattern:"

# Each pattern with the exact messages validate gives it (issue 21's list, and text that is not a regex).
HOSTILE = {
    "(?=x)Widget": ["lookaround is not portable"],
    "Widget(?<=t)": ["lookaround is not portable"],
    r"(W)idget\1": ["backreferences are not portable"],
    "(?>Widget) exploded": ["possessive and atomic constructs are not portable"],
    "Widget a++ exploded": ["possessive and atomic constructs are not portable"],
    r"Widget exploded\Z": [r"\A, \Z, \z and \G differ between engines"],
    "(a{100}){100}Widget": ["RE2 cannot compile it: invalid repetition size: {100}"],
    "(?x)Widget exploded": ["inline flags are not portable; use the flags field"],
    "[unclosed Widget": [
        "Python re cannot compile it: unterminated character set at position 0",
        "RE2 cannot compile it: missing ]: [unclosed Widget",
    ],
    "*Widget": [
        "Python re cannot compile it: nothing to repeat at position 0",
        "RE2 cannot compile it: no argument for repetition operator: *",
    ],
}


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", "FAILPEDIA_CACHE_DIR": str(cwd / ".cache")}
    return subprocess.run([sys.executable, "-m", "generator", *args], cwd=cwd, capture_output=True, text=True, env=env)


def project_with(tmp_path: Path, pattern: str) -> Path:
    """A project whose one record carries ``pattern`` (single-quoted) as its signature."""
    folder = tmp_path / "entries" / "memory"
    folder.mkdir(parents=True)
    text = MINIMAL.read_text(encoding="utf-8").replace(PATTERN_LINE, "pattern: '{}'".format(pattern.replace("'", "''")))
    (folder / "minimal-record.yaml").write_text(text, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("pattern", list(HOSTILE), ids=range(len(HOSTILE)))
def test_hostile_pattern_is_a_dialect_issue_in_every_mode(tmp_path: Path, pattern: str) -> None:
    project = project_with(tmp_path, pattern)
    lines = [f"{AT} {message}" for message in HOSTILE[pattern]]
    whole = run("validate", cwd=project)
    named = run("validate", "--format", "github", "entries/memory/minimal-record.yaml", cwd=project)
    outside = run("validate", "--format", "json", "minimal-record.yaml", cwd=project / "entries" / "memory")
    for result in (whole, named, outside):
        assert result.returncode == 1, result.stdout + result.stderr
        assert "Traceback" not in result.stderr and "b'" not in result.stdout + result.stderr
    assert whole.stdout == "".join(line + "\n" for line in lines)
    github = "::error file=entries/memory/minimal-record.yaml,line=31,col=14,title=signature.dialect::"
    assert named.stdout == "".join(f"{github}/signatures/0/pattern: {message}\n" for message in HOSTILE[pattern])
    found = [(i["file"], i["line"], i["col"], i["message"]) for i in json.loads(outside.stdout)["issues"]]
    assert found == [("minimal-record.yaml", 31, 14, message) for message in HOSTILE[pattern]]


@pytest.mark.parametrize(
    ("escape", "message"),
    [
        ("\\u200b", "invisible format character U+200B (ZERO WIDTH SPACE) is not allowed: readers cannot see it"),
        ("\\u2060", "invisible format character U+2060 (WORD JOINER) is not allowed: readers cannot see it"),
        (
            "\\ufeff",
            "invisible format character U+FEFF (ZERO WIDTH NO-BREAK SPACE) is not allowed: readers cannot see it",
        ),
        ("\\u202e", "control or bidi character U+202E is not allowed"),
    ],
)
def test_invisible_format_characters_are_refused(tmp_path: Path, escape: str, message: str) -> None:
    text = MINIMAL.read_text(encoding="utf-8")
    (tmp_path / "minimal-record.yaml").write_text(text.replace("title: Minimal record", f'title: "Mini{escape}mal"'))
    result = run("validate", "minimal-record.yaml", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout == f"minimal-record.yaml:3:8: error[text.control-char] /title: {message}\n"


def test_invisible_characters_are_refused_in_every_one_line_field(tmp_path: Path) -> None:
    text = MINIMAL.read_text(encoding="utf-8").replace("category: memory", 'category: "mem\\u2060ory"')
    (tmp_path / "minimal-record.yaml").write_text(text, encoding="utf-8")
    result = run("validate", "minimal-record.yaml", cwd=tmp_path)
    message = "invisible format character U+2060 (WORD JOINER) is not allowed: readers cannot see it"
    assert f"minimal-record.yaml:4:11: error[text.control-char] /category: {message}\n" in result.stdout


@pytest.mark.parametrize(
    ("name", "shown"),
    [("bad\nname.yaml", "bad\\x0aname.yaml"), ("evil\u202elmy.yaml", "evil\\u202elmy.yaml")],
    ids=["newline", "rlo"],
)
def test_file_names_are_escaped_in_every_format(tmp_path: Path, name: str, shown: str) -> None:
    (tmp_path / name).write_text("id: [unclosed\n", encoding="utf-8")
    text = run("validate", name, cwd=tmp_path)
    assert text.returncode == 1
    assert text.stdout == f"{shown}:2:1: error[yaml.syntax] did not find expected ',' or ']'\n"
    github = run("validate", "--format", "github", name, cwd=tmp_path)
    assert github.stdout == f"::error file={shown},line=2,col=1,title=yaml.syntax::did not find expected ',' or ']'\n"
    issues = json.loads(run("validate", "--format", "json", name, cwd=tmp_path).stdout)["issues"]
    assert [issue["file"] for issue in issues] == [name]  # JSON escapes it itself


def test_github_file_property_escapes_its_separators(tmp_path: Path) -> None:
    (tmp_path / "a,b:c%d.yaml").write_text("id: [unclosed\n", encoding="utf-8")
    github = run("validate", "--format", "github", "a,b:c%d.yaml", cwd=tmp_path)
    assert (
        github.stdout
        == "::error file=a%2Cb%3Ac%25d.yaml,line=2,col=1,title=yaml.syntax::did not find expected ',' or ']'\n"
    )


def test_a_duplicate_id_is_reported_on_both_files(tmp_path: Path) -> None:
    folder = tmp_path / "entries" / "memory"
    folder.mkdir(parents=True)
    shutil.copy(MINIMAL, folder / "minimal-record.yaml")
    shutil.copy(MINIMAL, folder / "Minimal-Record.yaml")
    first = run("validate", "entries/memory/minimal-record.yaml", cwd=tmp_path)
    second = run("validate", "entries/memory/Minimal-Record.yaml", cwd=tmp_path)
    assert first.returncode == second.returncode == 1
    also = "error[catalog.duplicate-id] /id: id 'minimal-record' is also used by"
    sig = "error[signature.duplicate-id] /signatures/0/id: signature id 'minimal-record-exploded' is used twice"
    assert first.stdout.splitlines()[:1] == [
        f"entries/memory/minimal-record.yaml:2:5: {also} entries/memory/Minimal-Record.yaml"
    ]
    assert f"entries/memory/minimal-record.yaml:30:9: {sig}" in first.stdout.splitlines()
    assert f"entries/memory/Minimal-Record.yaml:2:5: {also} entries/memory/minimal-record.yaml" in second.stdout
    assert f"entries/memory/Minimal-Record.yaml:30:9: {sig}" in second.stdout.splitlines()


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("ab+c", [["ab"], ["c"]]),
        ("a?bc", [["bc"]]),
        ("foo|bar(x|y)", [["bar", "foo"]]),
        ("(ab|cd)", [["ab", "cd"]]),
        ("(ab|cd)+z", [["ab", "cd"], ["z"]]),
        ("(ab)?xyz", [["xyz"]]),
        ("abc|[0-9]", []),
        (r"x\.y{2}z", [["x.y"], ["z"]]),
        ("Unsupported operand (60|118)([^0-9]|$)", [["Unsupported operand "], ["118", "60"]]),
    ],
)
def test_needles_are_text_every_match_holds(pattern: str, expected: list[list[str]]) -> None:
    assert needles(pattern) == expected


def test_every_match_example_holds_its_signatures_needles() -> None:
    catalog = load_catalog(discover([ROOT / ENTRIES_DIR]), ROOT).catalog
    missing = []
    for sig in catalog.signatures:
        for line in sig.match:
            text = normalize_line(line).casefold() if sig.ignore_case else normalize_line(line)
            for found in needles(sig.pattern):
                members = [m.casefold() for m in found] if sig.ignore_case else found
                if not any(member in text for member in members):
                    missing.append((sig.id, found, line))
    assert missing == []
