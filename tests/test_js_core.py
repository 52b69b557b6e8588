"""One definition of matching: the browser's core (JavaScript, run under Node) and the Python
side give the same normalised lines, the same example verdicts and the same rankings."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from generator.diagnosis.diagnose import diagnose
from generator.diagnosis.logread import Source
from generator.diagnosis.triage import Triage, triage_json, triage_report
from generator.patterns.dialect import compile_pattern
from generator.patterns.normalize import normalize_line
from generator.patterns.translate import needles
from generator.records.pipeline import load_catalog
from generator.signatures.export import EXPORTERS, ExportOptions
from generator.signatures.match import Matcher

from .realworld import load_cases, load_coverage

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "overrides" / "assets" / "javascripts" / "failpedia-core.js"
VECTORS = ROOT / "tests" / "vectors" / "normalize.json"
CATALOG = load_catalog([ROOT / "entries"], ROOT).catalog
CASES = load_cases("failures") + load_cases("benign")
# Triage runs on every log, so its twin is checked on the coverage corpus too, and on logs of
# several ranks, with \r-redrawn progress lines, CRLF ends, timestamps out of file order and
# one message repeated with other numbers.
RANKS_LOG = "".join(f"[rank{r}]: step {s}\r[rank{r}]: step {s + 1}\n" for s in range(0, 300, 2) for r in (1, 0))
TRIAGE_LOGS = (
    [[{"name": c.name, "text": c.log}] for c in CASES]
    + [[{"name": c.name, "text": c.log}] for c in load_coverage()]
    + [
        [
            {
                "name": "ranks.log",
                "text": RANKS_LOG + "[rank1]: RuntimeError: boom 7\r\n[rank0]: RuntimeError: boom 8\r\n",
            }
        ],
        [
            {"name": "b.log", "text": "2024-01-01 10:00:05 ERROR late\n2024-01-01 10:00:01 fatal: early 3\n"},
            {"name": "my log.txt", "text": "2024-01-01 10:00:00 Killed\n2024-01-01 10:00:02 fatal: early 4\n"},
        ],
    ]
)
# Patterns the dialect accepts that V8's backtracking RegExp runs in exponential time (issue 21),
# each on a long line that almost matches; the page's engine is linear, so they just run.
HOSTILE = [
    ("(a|aa)+$", "a" * 50_000 + "!"),
    ("zqadv(a|a)*b", "zqadv" + "a" * 50_000),
    ("zqadv(a|a)*b", "zqadv" + "a" * 50_000 + "b"),
    ("x(a+)+y", "x" + "a" * 50_000),
]


def test_python_normalisation_vectors() -> None:
    cases = json.loads(VECTORS.read_text(encoding="utf-8"))["cases"]
    assert [normalize_line(raw) for raw, _ in cases] == [expected for _, expected in cases]


def python_rankings() -> list[list[dict[str, object]]]:
    matcher = Matcher(CATALOG.signatures)
    out = []
    for case in CASES:
        report = diagnose([Source(case.name, io.BytesIO(case.log.encode()))], matcher, CATALOG)
        out.append([{"id": f.entry.id, "role": f.role, "score": f.score} for f in report.findings])
    return out


@pytest.fixture(scope="module")
def node_results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is required to test the browser's matching core")
    work = tmp_path_factory.mktemp("js")
    library = work / "signatures.json"
    library.write_bytes(EXPORTERS["json"](CATALOG, ExportOptions()).files["signatures.json"])
    cases = work / "cases.json"
    cases.write_text(json.dumps([[{"name": c.name, "text": c.log}] for c in CASES]), encoding="utf-8")
    hostile = work / "hostile.json"
    hostile.write_text(json.dumps([{"pattern": p, "needles": needles(p), "line": line} for p, line in HOSTILE]))
    triage = work / "triage.json"
    triage.write_text(json.dumps(TRIAGE_LOGS), encoding="utf-8")
    script = ROOT / "tests" / "js" / "core_check.js"
    result = subprocess.run(
        [node, str(script), str(CORE), str(library), str(VECTORS), str(cases), str(hostile), str(triage)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    data: dict[str, object] = json.loads(result.stdout)
    return data


def test_browser_normalisation_vectors(node_results: dict[str, object]) -> None:
    cases = json.loads(VECTORS.read_text(encoding="utf-8"))["cases"]
    assert node_results["normalize"] == [expected for _, expected in cases]


def test_browser_examples_agree_with_records(node_results: dict[str, object]) -> None:
    verdicts = {item["id"]: item for item in node_results["examples"]}  # type: ignore[attr-defined]
    for sig in CATALOG.signatures:
        assert verdicts[sig.id]["match"] == [True] * len(sig.match), sig.id
        assert verdicts[sig.id]["no_match"] == [False] * len(sig.no_match), sig.id


def test_browser_ranking_equals_cli(node_results: dict[str, object]) -> None:
    assert node_results["diagnoses"] == python_rankings()


def test_the_prefilter_passes_every_example_to_the_engine(node_results: dict[str, object]) -> None:
    verdicts = {item["id"]: item for item in node_results["scanned"]}  # type: ignore[attr-defined]
    for sig in CATALOG.signatures:
        assert verdicts[sig.id]["match"] == [True] * len(sig.match), sig.id
        assert verdicts[sig.id]["no_match"] == [False] * len(sig.no_match), sig.id


def test_patterns_that_backtrack_in_v8_give_re2s_verdict(node_results: dict[str, object]) -> None:
    expected = [compile_pattern(pattern).search(normalize_line(line)) for pattern, line in HOSTILE]
    assert expected == [False, False, True, False]
    assert node_results["hostile"] == expected


def python_triage(files: list[dict[str, str]], matcher: Matcher) -> dict[str, object]:
    triage = Triage()
    sources = [Source(f["name"], io.BytesIO(f["text"].encode())) for f in files]
    diagnose(sources, matcher, CATALOG, observe=triage.observe)
    return triage_json(triage_report(triage), "")


def test_browser_triage_equals_cli(node_results: dict[str, object]) -> None:
    matcher = Matcher(CATALOG.signatures)
    expected = [python_triage(files, matcher) for files in TRIAGE_LOGS]
    assert len(expected) > 200
    assert node_results["triage"] == expected
