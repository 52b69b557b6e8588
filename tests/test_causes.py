"""Causes chosen by the evidence: conditions in records, decided against what a log shows."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from generator.diagnosis.causes import (
    Judged,
    Seen,
    Stated,
    condition,
    in_range,
    judge_causes,
    undecided,
    version_condition,
    version_tuple,
)
from generator.diagnosis.diagnose import diagnose
from generator.diagnosis.logread import Source
from generator.records.pipeline import load_catalog
from generator.signatures.facts import (
    condition_id,
    condition_patterns,
    diagnosis_signatures,
    fact_signatures,
    fact_value,
)
from generator.signatures.match import Matcher

from .realworld import load_cases

ROOT = Path(__file__).resolve().parent.parent
CATALOG = load_catalog([ROOT / "entries"], ROOT).catalog
MATCHER = Matcher(diagnosis_signatures(CATALOG))


@pytest.mark.parametrize(
    ("version", "bounds", "expected"),
    [
        ("2.25.1", ">=2.13", True),
        ("2.12.12", ">=2.13", False),
        ("2.13", ">=2.13,<2.20", True),
        ("2.20.5", "<2.20", False),
    ],
)
def test_version_bounds(version: str, bounds: str, expected: bool) -> None:
    assert in_range(version, bounds) is expected


def test_an_unstated_version_decides_nothing() -> None:
    assert version_condition("nccl<2.13", Seen()) == (None, "")
    stated = Seen(versions={"nccl": Stated("2.18.1", "rank0.log", 4)})
    assert version_condition("nccl<2.13", stated) == (False, "NCCL 2.18.1 is not <2.13 (rank0.log:4)")


@pytest.mark.parametrize(
    ("line", "fact"),
    [
        ("NCCL INFO NCCL version 2.18.1+cuda12.1", ("nccl", "2.18.1")),
        ("ncclSystemError: ..., NCCL version 2.25.1", ("nccl", "2.25.1")),
        ("PyTorch version: 2.4.0+cu121", ("torch", "2.4.0")),
        ("| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2 |", ("driver", "535.104.05")),
    ],
)
def test_facts_read_from_lines(line: str, fact: tuple[str, str]) -> None:
    hits = [sig.id for sig in fact_signatures() if fact_value(sig.id, line) == fact]
    assert hits == [f"fact.{fact[0]}"]


CAUSES = [
    {
        "title": "old peer death",
        "detail": "",
        "when": [{"line": "Connection closed"}],
        "unless": [{"version": "nccl>=2.13"}],
    },
    {"title": "shm", "detail": "", "when": [{"line": "shm"}, {"record": "nccl-shm-exhausted"}]},
    {"title": "config", "detail": "", "when": [{"line": "NCCL_GRAPH_FILE"}]},
]


def test_ruled_out_sinks_supported_rises() -> None:
    seen = Seen(records={"nccl-shm-exhausted"}, versions={"nccl": Stated("2.19.3", "a.log", 1)})
    lines = [("a.log", 9, "Last error: Connection closed by remote peer")]
    judged = judge_causes(CAUSES, seen, lines)
    assert [(j.title, j.verdict) for j in judged] == [
        ("shm", "supported"),
        ("config", "possible"),
        ("old peer death", "ruled out"),
    ]
    assert judged[0].reasons == ("nccl-shm-exhausted is in this log too",)
    assert judged[2].reasons == ("NCCL 2.19.3 is >=2.13 (a.log:1)",)


def test_nothing_decided_keeps_the_record_order_and_says_so() -> None:
    judged = judge_causes(CAUSES, Seen(), [])
    assert [j.title for j in judged] == ["old peer death", "shm", "config"] and undecided(judged)


def test_the_issue_example_a_new_nccl_rules_out_the_old_peer_cause() -> None:
    case = next(c for c in load_cases("failures") if c.name == "nccl-system-error--pytorch-149984-async-after-abort")
    report = diagnose([Source("log", io.BytesIO(case.log.encode()))], MATCHER, CATALOG)
    finding = report.findings[0]
    assert finding.entry.id == "nccl-system-error"
    dead_peer = next(j for j in finding.causes if j.title.startswith("Another rank or node died"))
    assert dead_peer.verdict == "ruled out" and dead_peer.reasons[0].startswith("NCCL 2.25.1 is >=2.13 (log:")
    assert finding.causes[0] is not dead_peer


def test_a_log_condition_is_decided_by_any_line_of_the_log() -> None:
    pattern = "No space left on device|Disk quota exceeded"
    stated = Stated("OSError: [Errno 28] No space left on device", "rank1.log", 40)
    assert condition({"log": pattern}, Seen(lines={condition_id(pattern): stated}), []) == (
        True,
        "rank1.log:40: OSError: [Errno 28] No space left on device",
    )
    assert condition({"log": pattern}, Seen(), [("a", 1, "No space left on device")]) == (
        False,
        "",
    )  # not a line: condition
    assert pattern in condition_patterns(CATALOG)


def test_a_full_disk_elsewhere_in_the_log_puts_the_disk_cause_first() -> None:
    log = (
        "Epoch 3: saving checkpoint to /ckpt/last.pt\n"
        "OSError: [Errno 28] No space left on device\n"
        "resuming from /ckpt/last.pt\n"
        "RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central directory\n"
    )
    finding = diagnose([Source("job.log", io.BytesIO(log.encode()))], MATCHER, CATALOG).findings[0]
    assert finding.entry.id == "checkpoint-corrupt"
    assert (finding.causes[0].title, finding.causes[0].verdict) == (
        "Disk full or quota exceeded during save",
        "supported",
    )
    # Two pieces of evidence: the line itself, and the disk-full record, which answers it too.
    assert finding.causes[0].reasons == (
        "job.log:2: OSError: [Errno 28] No space left on device",
        "disk-full-no-space is in this log too",
    )
    without = log.replace("OSError: [Errno 28] No space left on device\n", "")
    unchanged = diagnose([Source("job.log", io.BytesIO(without.encode()))], MATCHER, CATALOG).findings[0]
    assert unchanged.causes[0].title == "Save interrupted by a kill, preemption, OOM or time limit"


def test_conditions_naming_unknown_signatures_or_hostile_patterns_are_refused(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "entries", tmp_path / "entries")
    path = tmp_path / "entries/communication/nccl-system-error.yaml"
    text = path.read_text(encoding="utf-8")
    text = text.replace("      - record: nccl-shm-exhausted\n", "      - signature: no-such-signature\n", 1)
    text = text.replace("      - line: 'ibv_[a-z_]+'\n", "      - line: '(?=ibv)'\n", 1)
    text = text.replace("      - record: nccl-socket-interface\n", "      - log: '(a+)+b'\n", 1)
    path.write_text(text, encoding="utf-8")
    env = {**os.environ, "FAILPEDIA_CACHE_DIR": str(tmp_path / ".cache")}
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "generator",
            "validate",
            "--format",
            "json",
            "entries/communication/nccl-system-error.yaml",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
    )
    codes = sorted((i["code"], i["pointer"]) for i in json.loads(result.stdout)["issues"])
    assert result.returncode == 1
    assert ("catalog.unknown-signature", "/causes/1/when/1/signature") in codes
    assert any(code == "signature.dialect" and pointer == "/causes/3/when/0/line" for code, pointer in codes)
    assert any(code == "signature.dialect" and pointer == "/causes/2/when/1/log" for code, pointer in codes)


def test_versions_compare_by_their_first_four_numbers() -> None:
    assert version_tuple("2.18.1+cuda12.1") == (2, 18, 1, 12) and version_tuple("535.104.05") == (535, 104, 5)
    cases = [("2.4.0", "==2.4.0"), ("2.4", "<=2.4"), ("2.4", ">2.4"), ("2.3.9", ">= 2.2 , < 2.4"), ("2.4", "<2.4")]
    assert [in_range(version, bounds) for version, bounds in cases] == [True, True, False, True, False]


def test_a_version_condition_says_what_the_log_states_and_where() -> None:
    seen = Seen(versions={"torch": Stated("2.3.1", "w.log", 7), "driver": Stated("535.1", "smi.txt", 2)})
    assert version_condition(" torch >= 2.2, <2.4, ", seen) == (True, "PyTorch 2.3.1 is >= 2.2, <2.4 (w.log:7)")
    assert version_condition("driver<530", seen) == (False, "the NVIDIA driver 535.1 is not <530 (smi.txt:2)")
    assert version_condition("torch~=2.2", seen) == (None, "")
    assert version_condition("cuda>=12", seen) == (None, "")


def test_conditions_name_the_evidence_that_decides_them() -> None:
    seen = Seen(signatures={"sig-a"}, records={"rec-b"})
    lines = [("a.log", 3, "no"), ("a.log", 5, "[rank1]: shm " + "x" * 200), ("b.log", 1, "shm too")]
    assert [condition(item, seen, lines) for item in ({"signature": "sig-a"}, {"signature": "sig-z"})] == [
        (True, "signature sig-a matched"),
        (False, ""),
    ]
    assert [condition(item, seen, lines) for item in ({"record": "rec-b"}, {"record": "rec-z"})] == [
        (True, "rec-b is in this log too"),
        (False, ""),
    ]
    assert condition({"line": "shm x"}, seen, lines) == (True, "a.log:5: [rank1]: shm " + "x" * 147)
    assert condition({"line": "absent"}, seen, lines) == (False, "")
    assert condition({"version": "nccl<2"}, seen, lines) == (None, "")


def test_a_host_condition_reads_the_host_of_the_findings_own_nccl_lines() -> None:
    lines = [
        ("a.log", 2, "RuntimeError: 3f2a1b4c5d6e:1:2 [0] is not a prefix here"),
        ("a.log", 7, "[2024-01-01 10:00:00] 3f2a1b4c5d6e:202016:202235 [0] misc/shmutils.cc:88 NCCL WARN x"),
        ("b.log", 1, "node-a:1:2 [1] NCCL WARN y"),
    ]
    docker = {"host": " [0-9a-f]{12} "}
    assert condition(docker, Seen(), lines) == (True, "a.log:7: host 3f2a1b4c5d6e")
    assert condition(docker, Seen(), lines[:1] + lines[2:]) == (False, "")
    assert condition({"host": " node-"}, Seen(), lines) == (True, "b.log:1: host node-a")
    assert condition(docker, Seen(), []) == (False, "")


def test_a_cause_is_ruled_out_only_by_what_the_log_states() -> None:
    seen = Seen(signatures={"s"}, versions={"nccl": Stated("2.18.1", "a.log", 1)})
    causes = [
        {"title": "two reasons", "when": [{"signature": "s"}, {"version": "nccl>=2.10"}]},
        {"title": "unless undecided", "when": [{"record": "r"}], "unless": [{"version": "torch>=2"}]},
        {"title": "old nccl", "when": [{"version": "nccl<2.10"}, {"version": "nccl<2.12"}]},
        {"title": "old nccl or a line", "when": [{"version": "nccl<2.10"}, {"line": "absent"}]},
        {"title": "one reason", "when": [{"signature": "s"}]},
        {
            "title": "three against",
            "unless": [{"signature": "s"}, {"version": "nccl>=2"}, {"record": "r"}, {"version": "nccl>=1"}],
        },
    ]
    judged = judge_causes(causes, seen, [])
    assert [(j.title, j.verdict, j.reasons) for j in judged] == [
        ("two reasons", "supported", ("signature s matched", "NCCL 2.18.1 is >=2.10 (a.log:1)")),
        ("one reason", "supported", ("signature s matched",)),
        ("unless undecided", "possible", ()),
        ("old nccl or a line", "possible", ()),
        (
            "three against",
            "ruled out",
            ("signature s matched", "NCCL 2.18.1 is >=2 (a.log:1)", "NCCL 2.18.1 is >=1 (a.log:1)"),
        ),
        ("old nccl", "ruled out", ("NCCL 2.18.1 is not <2.10 (a.log:1)", "NCCL 2.18.1 is not <2.12 (a.log:1)")),
    ]
    assert [j.index for j in judged] == [0, 4, 1, 3, 5, 2]


def test_undecided_needs_several_causes_all_possible() -> None:
    possible, supported = Judged(0, "a", "possible"), Judged(1, "b", "supported", ("x",))
    assert [undecided(js) for js in ([possible], [possible, possible], [possible, supported], [])] == [
        False,
        True,
        False,
        False,
    ]
