"""Property-based fuzzing: whatever comes in, only the project's own results come out."""

from __future__ import annotations

import io
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.diagnose import diagnose
from generator.load import load_text
from generator.logread import Source
from generator.match import Matcher
from generator.normalize import normalize_line
from generator.pipeline import load_catalog
from generator.validate import check_document

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
