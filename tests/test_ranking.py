"""Hand-written ranking cases: the inputs and the exact order (and roles) they must give."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from generator.diagnosis.diagnose import diagnose
from generator.diagnosis.logread import Source
from generator.records.pipeline import load_catalog
from generator.signatures.match import Matcher

ROOT = Path(__file__).resolve().parent.parent
CATALOG = load_catalog([ROOT / "entries"], ROOT).catalog
MATCHER = Matcher(CATALOG.signatures)
OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."
IMA = "RuntimeError: CUDA error: an illegal memory access was encountered"
TIMEOUT = (
    "[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE, NumelIn=1, "
    "NumelOut=1, Timeout(ms)=600000) ran for 600012 milliseconds before timing out."
)
KILLED = "[rank1]: Out of memory: Killed process 4242 (python) total-vm:12kB, anon-rss:8kB"

# name: (files as (name, lines), expected [(record id, role)] best first)
CASES = {
    "the earlier timestamp wins across files, whatever the file order": (
        [("a.log", [f"2024-05-01 12:00:09 {OOM}"]), ("b.log", [f"2024-05-01 12:00:01 {IMA}"])],
        [("cuda-illegal-memory-access", "initiating"), ("cuda-out-of-memory", "initiating")],
    ),
    "the same files the other way round": (
        [("a.log", [f"2024-05-01 12:00:01 {OOM}"]), ("b.log", [f"2024-05-01 12:00:09 {IMA}"])],
        [("cuda-out-of-memory", "initiating"), ("cuda-illegal-memory-access", "initiating")],
    ),
    "fractions of a second decide, comma or point": (
        [("a.log", [f"2024-05-01 12:00:01,900 {OOM}"]), ("b.log", [f"2024-05-01 12:00:01.100 {IMA}"])],
        [("cuda-illegal-memory-access", "initiating"), ("cuda-out-of-memory", "initiating")],
    ),
    "without timestamps the file order decides": (
        [("a.log", [OOM]), ("b.log", [IMA])],
        [("cuda-out-of-memory", "initiating"), ("cuda-illegal-memory-access", "initiating")],
    ),
    "within one file the earlier line decides": (
        [("a.log", ["step 1", IMA, "step 2", OOM])],
        [("cuda-illegal-memory-access", "initiating"), ("cuda-out-of-memory", "initiating")],
    ),
    "a line with a timestamp ranks before one without": (
        [("a.log", [OOM]), ("b.log", [f"2024-05-01 12:00:09 {IMA}"])],
        [("cuda-illegal-memory-access", "initiating"), ("cuda-out-of-memory", "initiating")],
    ),
    "a record's earliest hit is its earliest timestamp, not its first file": (
        [
            ("rank0.log", [f"2024-05-01 12:00:09 {OOM}"]),
            ("rank1.log", [f"2024-05-01 12:00:05 {IMA}"]),
            ("rank2.log", [f"2024-05-01 12:00:01 {OOM}"]),
        ],
        [("cuda-out-of-memory", "initiating"), ("cuda-illegal-memory-access", "initiating")],
    ),
    "a consequence ranks after its cause even when it came first": (
        [("rank0.log", [f"2024-05-01 12:00:01 {TIMEOUT}"]), ("rank1.log", [f"2024-05-01 12:00:05 {KILLED}"])],
        [("host-oom-kill", "initiating"), ("nccl-watchdog-timeout", "downstream")],
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_ranking_case(name: str) -> None:
    files, expected = CASES[name]
    sources = [Source(file, io.BytesIO(("\n".join(lines) + "\n").encode())) for file, lines in files]
    report = diagnose(sources, MATCHER, CATALOG)
    assert [(finding.entry.id, finding.role) for finding in report.findings] == expected
