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
from generator.patterns.dialect import compile_pattern
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


SLOW = Matcher(CATALOG.signatures)
SLOW.database = None  # no Hyperscan: RE2 on every line, the definition of a match
EXAMPLES = st.sampled_from(sorted({line for sig in CATALOG.signatures for line in (*sig.match, *sig.no_match)}))
ENDS = st.sampled_from([b"\n", b"\r", b"\r\n", b""])


def logs(pieces: st.SearchStrategy[bytes]) -> st.SearchStrategy[bytes]:
    """Return logs made of pieces, each followed by a line end (or none)."""
    return st.lists(st.tuples(pieces, ENDS), max_size=30).map(lambda parts: b"".join(p + end for p, end in parts))


TEXT_LOGS = logs(EXAMPLES.map(str.encode))
MIXED_LOGS = logs(EXAMPLES.map(str.encode) | st.binary(max_size=40))


def hit_set(matcher: Matcher, raw: bytes) -> set[tuple[str, int, str]]:
    return {(hit.signature.id, hit.line_offset, hit.text) for hit in matcher.scan_block(raw)}


@FAST
@given(st.binary(max_size=5000) | MIXED_LOGS)
def test_the_prefilter_path_finds_exactly_what_re2_finds(raw: bytes) -> None:
    assert hit_set(MATCHER, raw) == hit_set(SLOW, raw)


@FAST
@given(TEXT_LOGS)
def test_every_evidence_line_is_where_it_says_and_matches(raw: bytes) -> None:
    report = diagnose([Source("fuzz.log", io.BytesIO(raw))], MATCHER, CATALOG)
    lines = raw.split(b"\n")
    by_id = {sig.id: sig for sig in CATALOG.signatures}
    for finding in report.findings:
        for evidence in finding.evidence:
            # The evidence is its line's segment (cut at MAX_TEXT), and the signature matches it.
            segments = [seg for seg in lines[evidence.line - 1].split(b"\r") if seg.startswith(evidence.text.encode())]
            sig = by_id[evidence.signature]
            assert sig.entry_id == finding.entry.id
            regex = compile_pattern(sig.pattern, sig.ignore_case)
            assert any(regex.search(normalize_line(seg.decode())) for seg in segments)


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
