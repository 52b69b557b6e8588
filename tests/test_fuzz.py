"""Property-based fuzzing: whatever comes in, only the project's own results come out."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.diagnosis.diagnose import diagnose
from generator.diagnosis.logread import Source
from generator.patterns.normalize import normalize_line
from generator.records.load import load_text
from generator.records.pipeline import load_catalog
from generator.records.validate import check_document
from generator.signatures.match import Matcher

ROOT = Path(__file__).resolve().parent.parent
CATALOG = load_catalog([ROOT / "entries"], ROOT).catalog
MATCHER = Matcher(CATALOG.signatures)
YAML_BITS = st.sampled_from(
    [
        "id: x\n",
        "title: [",
        "&a x",
        "*a",
        "!!python/object:os.system\n",
        "- ",
        "? [a]\n: b\n",
        "{",
        "'",
        '"\\u202e"',
        "\t",
    ]
)
FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(st.binary(max_size=2000) | st.lists(YAML_BITS, max_size=40).map(lambda parts: "".join(parts).encode()))
def test_loader_and_validator_only_report_issues(raw: bytes) -> None:
    doc = load_text("fuzz.yaml", raw)
    issues = check_document(doc)
    assert all(issue.location.path == "fuzz.yaml" and issue.code for issue in issues)


@FAST
@given(st.text(max_size=500))
def test_normaliser_always_returns_a_trimmed_line(text: str) -> None:
    line = normalize_line(text.replace("\n", " "))
    assert isinstance(line, str) and line == line.rstrip(" \t\r\n\f\v")
    assert normalize_line("\x1b[31m" + line) == normalize_line(line)


@FAST
@given(st.binary(max_size=5000))
def test_matcher_and_diagnosis_take_any_bytes(raw: bytes) -> None:
    MATCHER.scan_block(raw)
    report = diagnose([Source("fuzz.log", io.BytesIO(raw))], MATCHER, CATALOG)
    assert all(f.role in ("initiating", "downstream") for f in report.findings)


BOMBS = {
    "alias": b'a: &a ["x","x","x","x","x","x","x","x","x"]\n'
    + b"".join(
        f"{c}: &{c} [*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p}]\n".encode()
        for p, c in zip("abcdefgh", "bcdefghi", strict=True)
    ),
    "deep": b"[" * 20_000,
    "wide": b"k: [" + b"1," * 120_000 + b"1]\n",
    "large": b"x: " + b"a" * 300_000,
}


@pytest.mark.parametrize("name", sorted(BOMBS))
def test_hostile_yaml_is_refused_under_a_memory_limit(name: str, tmp_path: Path) -> None:
    path = tmp_path / f"{name}.yaml"
    path.write_bytes(BOMBS[name])
    script = (
        "import resource, sys; resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30));"
        "from pathlib import Path; from generator.records.load import load_file;"
        "from generator.records.validate import check_document;"
        "print(' '.join(sorted({i.code for i in check_document(load_file(Path(sys.argv[1])))})))"
    )
    result = subprocess.run(
        [sys.executable, "-c", script, str(path)], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip(), "the bomb must be refused with an issue"
    assert "Traceback" not in result.stderr
