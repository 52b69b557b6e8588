"""One definition of matching: the browser's core (JavaScript, run under Node) and the Python
side give the same normalised lines, the same example verdicts, the same rankings, and the same
evidence and causes ordered by it."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from generator.diagnosis.causes import Seen, Stated, judge_causes
from generator.diagnosis.diagnose import diagnose
from generator.diagnosis.explain import cause_texts
from generator.diagnosis.logread import Source
from generator.diagnosis.triage import Triage, triage_json, triage_report
from generator.patterns.dialect import compile_pattern
from generator.patterns.normalize import line_host, normalize_line
from generator.patterns.translate import needles
from generator.records.pipeline import load_catalog
from generator.signatures.export import EXPORTERS, ExportOptions
from generator.signatures.facts import diagnosis_signatures
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
# Logs where the conditions of nccl-system-error's causes decide (a stated NCCL version, a shm or
# closed-socket line among the finding's own lines, the first version by time across files) and
# where nothing does; the causes check runs on these and on every corpus log.
SYSTEM_ERROR = "RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)"
CLOSED_LINE = "Net : Connection closed by remote peer"
SHM_LINE = "Error while creating shared memory segment /dev/shm/nccl-vzIpS6 (size 9637888)"
DISK_LOG = (
    "2024-01-01 10:00:09 saving checkpoint\n\x1b[31mOSError: [Errno 28] No space left on device\x1b[0m\n"
    "RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central directory\n"
)
DECIDING_LOGS = [
    [{"name": "disk.log", "text": DISK_LOG}],  # a `log:` condition: a line outside the finding decides
    [{"name": "new.log", "text": f"{SYSTEM_ERROR}, NCCL version 2.25.1\nLast error:\nsomething else\n"}],
    [{"name": "old.log", "text": f"{SYSTEM_ERROR}, NCCL version 2.10.3 Last error: {CLOSED_LINE}\n"}],
    [{"name": "shm.log", "text": f"{SYSTEM_ERROR}, NCCL version 2.19.3 Last error: {SHM_LINE}\n"}],
    [{"name": "plain.log", "text": f"\x1b[31m{SYSTEM_ERROR}\x1b[0m\n"}],
    [
        {"name": "a.log", "text": f"2024-01-01 10:00:05 NCCL INFO NCCL version 2.10.3\n{SYSTEM_ERROR} {CLOSED_LINE}\n"},
        {"name": "b.log", "text": "2024-01-01 10:00:01 NCCL INFO NCCL version 2.18.1+cuda12.1\n"},
    ],
]
CAUSE_LOGS = [[{"name": c.name, "text": c.log}] for c in [*CASES, *load_coverage()]] + DECIDING_LOGS
# Conditions judged directly, for what no record states yet: versions a `when` needs (a stated
# version outside the range rules the cause out), each fact, several bounds, == against a shorter
# version, signature conditions, and ties broken by the number of reasons.
JUDGE_CAUSES = [
    {"title": "old torch", "when": [{"version": "torch<2.2"}]},
    {"title": "new torch", "when": [{"version": "torch >= 2.2, <2.4"}, {"signature": "sig-a"}]},
    {"title": "cuda 12", "when": [{"version": "cuda==12.1"}, {"line": "cuda"}], "unless": [{"version": "driver<500"}]},
    {"title": "two reasons", "when": [{"record": "rec-b"}, {"signature": "sig-a"}, {"line": "boom"}]},
    {"title": "docker host", "when": [{"host": " [0-9a-f]{12} "}], "unless": [{"host": " node"}]},
    {"title": "no conditions"},
]
JUDGE_SEEN = [
    Seen(),
    Seen({"sig-a"}, {"rec-b"}, {"torch": Stated("2.3.1", "t.log", 2), "cuda": Stated("12.1", "t.log", 3)}),
    Seen(set(), set(), {"torch": Stated("2.1", "t.log", 1), "cuda": Stated("12.1.0", "t.log", 3)}),
    Seen(set(), set(), {"torch": Stated("2.4.0", "t.log", 1), "driver": Stated("470.82.01", "d.log", 7)}),
]
JUDGE_LINES = [
    [],
    [("t.log", 9, "RuntimeError: boom with cuda " + "x" * 200)],
    [("t.log", 4, "3f2a1b4c5d6e:77:88 [1] NCCL WARN boom"), ("t.log", 5, "[rank1]: node2:1:2 [0] NCCL WARN x")],
    [("t.log", 6, "[2024-01-01 10:00:00] 3f2a1b4c5d6e:77:88 [1] NCCL WARN boom")],
]
JUDGE_ITEMS = [(seen, lines) for seen in JUDGE_SEEN for lines in JUDGE_LINES]
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


def test_python_host_vectors() -> None:
    hosts = json.loads(VECTORS.read_text(encoding="utf-8"))["hosts"]
    assert [line_host(raw) for raw, _ in hosts] == [expected for _, expected in hosts]


def test_browser_host_vectors(node_results: dict[str, object]) -> None:
    hosts = json.loads(VECTORS.read_text(encoding="utf-8"))["hosts"]
    assert node_results["hosts"] == [expected for _, expected in hosts]


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
    causes = work / "causes.json"
    causes.write_text(json.dumps(CAUSE_LOGS), encoding="utf-8")
    judge = work / "judge.json"
    judge.write_text(json.dumps([judge_item(seen, lines) for seen, lines in JUDGE_ITEMS]), encoding="utf-8")
    script = ROOT / "tests" / "js" / "core_check.js"
    inputs = [library, VECTORS, cases, hostile, triage, causes, judge]
    result = subprocess.run(
        [node, str(script), str(CORE), *map(str, inputs)],
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


def judge_item(seen: Seen, lines: list[tuple[str, int, str]]) -> dict[str, object]:
    """Return one direct judging case as core_check.js reads it."""
    versions = {name: {"value": s.value, "file": s.file, "line": s.line} for name, s in seen.versions.items()}
    return {
        "causes": JUDGE_CAUSES,
        "seen": {"signatures": sorted(seen.signatures), "records": sorted(seen.records), "versions": versions},
        "lines": [{"file": f, "line": n, "text": t} for f, n, t in lines],
    }


def python_causes(files: list[dict[str, str]], matcher: Matcher) -> list[dict[str, object]]:
    """Return each finding's evidence, judged causes and cause texts, as the CLI gives them."""
    fields = ("file", "line", "text", "signature")
    sources = [Source(f["name"], io.BytesIO(f["text"].encode())) for f in files]
    return [
        {
            "id": f.entry.id,
            "evidence": [{name: getattr(e, name) for name in fields} for e in f.evidence],
            "causes": [{"title": c.title, "verdict": c.verdict, "reasons": list(c.reasons)} for c in f.causes],
            "texts": cause_texts(f),
        }
        for f in diagnose(sources, matcher, CATALOG).findings
    ]


@pytest.fixture(scope="module")
def cli_causes() -> list[list[dict[str, object]]]:
    matcher = Matcher(diagnosis_signatures(CATALOG))
    return [python_causes(files, matcher) for files in CAUSE_LOGS]


def test_browser_evidence_and_causes_equal_cli(
    node_results: dict[str, object], cli_causes: list[list[dict[str, object]]]
) -> None:
    got = node_results["causes"]
    assert isinstance(got, list) and len(got) == len(cli_causes) > 250
    for files, ours, theirs in zip(CAUSE_LOGS, cli_causes, got, strict=True):
        assert theirs == ours, files[0]["name"]


def test_the_causes_check_covers_decided_and_undecided_logs(cli_causes: list[list[dict[str, object]]]) -> None:
    found = [next(f for f in findings if f["id"] == "nccl-system-error") for findings in cli_causes[-5:]]
    dead_peer, shm = "Another rank or node died (NCCL older than 2.13)", "Shared memory unavailable or too small"
    shm_reason = "shm.log:1: " + f"{SYSTEM_ERROR}, NCCL version 2.19.3 Last error: {SHM_LINE}"[:160]
    check = "Rerun with `NCCL_DEBUG=WARN` (or INFO with `NCCL_DEBUG_SUBSYS=INIT,NET,SHM`) and find the first WARN line"
    assert [f["texts"] for f in found] == [
        [f"Possible cause: {shm}", f"Ruled out: {dead_peer} (NCCL 2.25.1 is >=2.13 (new.log:1))"],
        [f"Likely cause: {dead_peer} (old.log:1: {DECIDING_LOGS[2][0]['text'].rstrip()})"],
        [
            f"Likely cause: {shm} ({shm_reason}; nccl-shm-exhausted is in this log too)",
            f"Ruled out: {dead_peer} (NCCL 2.19.3 is >=2.13 (shm.log:1))",
        ],
        [
            f"Most common cause: {dead_peer} (the log does not tell the 5 causes apart; to decide: {check};"
            " it names the failing call and errno text.)"
        ],
        [f"Possible cause: {shm}", f"Ruled out: {dead_peer} (NCCL 2.18.1 is >=2.13 (b.log:1))"],
    ]
    assert [e["text"] for e in found[3]["evidence"]] == [SYSTEM_ERROR]  # type: ignore[attr-defined]


def test_a_line_anywhere_in_the_log_decides_in_both(cli_causes: list[list[dict[str, object]]]) -> None:
    found = next(f for f in cli_causes[-6] if f["id"] == "checkpoint-corrupt")
    disk = "Disk full or quota exceeded during save"
    line = "disk.log:2: OSError: [Errno 28] No space left on device"
    assert found["texts"][0] == f"Likely cause: {disk} ({line}; disk-full-no-space is in this log too)"


def test_browser_judges_conditions_as_cli(node_results: dict[str, object]) -> None:
    judged = [judge_causes(JUDGE_CAUSES, seen, lines) for seen, lines in JUDGE_ITEMS]
    expected = [[{"title": j.title, "verdict": j.verdict, "reasons": list(j.reasons)} for j in item] for item in judged]
    verdicts = {j["verdict"] for item in expected for j in item}
    assert verdicts == {"supported", "possible", "ruled out"}
    assert node_results["judged"] == expected
