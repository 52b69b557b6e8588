"""Hand-written ranking cases: the inputs and the exact order (and roles) they must give; then
diagnose's small parts on their own: timestamps, ranks, the kept evidence, halves, scores, the --json shape."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from generator.diagnosis import diagnose as dg
from generator.diagnosis.causes import Stated
from generator.diagnosis.diagnose import diagnose
from generator.diagnosis.logread import INVALID_UTF8, Source, read_blocks
from generator.diagnosis.progress import Hang
from generator.diagnosis.progress import Report as ProgressReport
from generator.records.pipeline import load_catalog
from generator.signatures.facts import diagnosis_signatures
from generator.signatures.match import Block, Matcher

ROOT = Path(__file__).resolve().parent.parent
CATALOG = load_catalog([ROOT / "entries"], ROOT).catalog
# Compiled at import: a mutation run forks a process per mutant after importing the tests.
MATCHER = Matcher(CATALOG.signatures)
OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."
SIG = "cuda-out-of-memory-allocator"
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


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2024-05-01T12:00:01,5 x", "2024-05-01 12:00:01.5"),
        ("[rank0]: 2024-05-01 12:00:01.250 x", "2024-05-01 12:00:01.250"),
        ("2024-05-01 12:00:01 x", "2024-05-01 12:00:01"),
        ("no time 12:00:01", ""),
        ("x" * 70 + "2024-05-01 12:00:01", ""),
        ("x" * 61 + "2024-05-01 12:00:01", "2024-05-01 12:00:01"),
    ],
)
def test_timestamp_of(text: str, expected: str) -> None:
    assert dg.timestamp_of(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[rank3]: x", 3),
        ("[default12]: x", 12),
        ("w [PG 0 (default_pg) Rank 5] y", 5),
        ("[Rank 2] y", 2),
        ("x [rank3]: y", None),
        ("[rank3]:[Rank 4] y", 3),
        ("a" * 193 + "[Rank 1]", None),
        ("a" * 192 + "[Rank 1]", 1),
        ("[rank]: no number", None),
    ],
)
def test_rank_of(text: str, expected: int | None) -> None:
    assert dg.rank_of(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("x [rank3]: y", 3),
        ("10%|## | [default4]: z", 4),
        ("a" * 300 + "[PG 1 Rank 6] watchdog", 6),
        ("[rank]: no number", None),
    ],
)
def test_rank_of_anywhere(text: str, expected: int | None) -> None:
    assert dg.rank_of(text, anywhere=True) == expected


def evidence(line: int, timestamp: str = "") -> dg.Evidence:
    """Return a hit on ``line`` of the first input."""
    return dg.Evidence("a.log", line, f"l{line}", "sig", "specific", (0, line), timestamp)


def test_time_key_puts_lines_without_a_timestamp_last() -> None:
    assert dg.time_key(evidence(3)) == ("~", (0, 3))
    assert dg.time_key(evidence(3, "2024-05-01 12:00:01")) == ("2024-05-01 12:00:01", (0, 3))


def test_keep_earliest_keeps_the_five_earliest_in_time_order() -> None:
    kept: list[dg.Evidence] = []
    for line, stamp in [(1, "09"), (2, ""), (3, "05"), (4, "01"), (5, "07"), (6, "03"), (7, "08"), (8, "02")]:
        dg.keep_earliest(kept, evidence(line, f"2024-05-01 12:00:{stamp}" if stamp else ""))
    assert [item.line for item in kept] == [4, 8, 6, 3, 5]
    dg.keep_earliest(kept, evidence(9, "2024-05-01 12:00:07"))
    assert [item.line for item in kept] == [4, 8, 6, 3, 5]
    dg.keep_earliest(kept, evidence(0, "2024-05-01 12:00:07"))
    assert [item.line for item in kept] == [4, 8, 6, 3, 0]


def test_a_finding_counts_each_line_once_and_keeps_its_latest() -> None:
    finding = dg.Finding(CATALOG.by_id["cuda-out-of-memory"])
    finding.add(evidence(1, "2024-05-01 12:00:05"))
    finding.add(dg.Evidence("a.log", 1, "[rank2]: l1", "other", "wrapper", (0, 1), "2024-05-01 12:00:05"))
    finding.add(dg.Evidence("b.log", 2, "[rank2]: l2", "sig", "specific", (1, 2), "2024-05-01 12:00:09"))
    finding.add(dg.Evidence("b.log", 3, "l3", "sig", "specific", (1, 3), "2024-05-01 12:00:01"))
    assert (finding.lines, finding.files, finding.ranks) == (3, {"a.log", "b.log"}, {2})
    assert (finding.signatures, finding.strength) == ({"sig": "specific", "other": "wrapper"}, "specific")
    assert (finding.first.line, finding.latest and finding.latest.line) == (3, 2)


@pytest.mark.parametrize(
    ("signatures", "expected"),
    [
        ({"a": "wrapper"}, 1.0),
        ({"a": "supporting", "b": "wrapper"}, 5.0),
        ({"a": "specific", "b": "wrapper", "c": "wrapper"}, 12.0),
        ({name: "specific" for name in "abcdef"}, 13.0),
    ],
)
def test_score(signatures: dict[str, str], expected: float) -> None:
    finding = dg.Finding(CATALOG.by_id["cuda-out-of-memory"], signatures=signatures)
    assert dg.score(finding) == expected


def test_halves_cut_a_big_block_at_a_line_end(monkeypatch: pytest.MonkeyPatch) -> None:
    data = b"aa\nbb\ncc\n"
    assert dg.halves(Block(data, 0, 9)) == (Block(data, 0, 9),)
    monkeypatch.setattr(dg, "SPLIT_FROM", 9)
    assert dg.halves(Block(data, 0, 9)) == (Block(data, 0, 6), Block(data, 6, 9))
    assert dg.halves(Block(data, 1, 9)) == (Block(data, 1, 9),)
    assert dg.halves(Block(b"abcdefgh\n", 0, 9)) == (Block(b"abcdefgh\n", 0, 9),)


def test_a_split_scan_gives_the_whole_scan_line_numbers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dg, "SPLIT_FROM", 16)
    log = "".join(f"step {n}\n" for n in range(40)) + OOM + "\n" + "step\n" * 40 + OOM + "\n"
    report = dg.diagnose([Source("a.log", io.BytesIO(log.encode()))], MATCHER, CATALOG)
    assert [(f.entry.id, [e.line for e in f.evidence]) for f in report.findings] == [("cuda-out-of-memory", [41, 82])]


def test_report_json_shape() -> None:
    log = f"2024-05-01 12:00:01 [rank1]: {OOM}\nx\n[rank0]: {OOM}\ufffd\n".encode()
    source = Source("a.log", io.BytesIO(log))
    report = dg.diagnose([source], MATCHER, CATALOG)
    late = ProgressReport("b.log", 4, "rank 1", "PG 1", "enqueued", 3, None)
    hang = Hang("PG 1", "enqueued", (late,), (ProgressReport("b.log", 9, "rank 0", "PG 1", "enqueued", 5, 4),))
    report.hangs = [hang]
    out = dg.report_json(report, 1, "https://x.org/X/")
    fix = CATALOG.by_id["cuda-out-of-memory"].data["fix"]
    finding = out["findings"][0]
    assert out["hangs"] == [
        {
            "group": "PG 1",
            "measure": "enqueued",
            "behind": [{"rank": "rank 1", "work": 3, "completed": None, "file": "b.log", "line": 4}],
            "ahead": [{"rank": "rank 0", "work": 5, "completed": 4, "file": "b.log", "line": 9}],
        }
    ]
    assert len(out["findings"]) == 1
    assert {key: finding[key] for key in finding if key not in ("causes", "title", "evidence")} == {
        "id": "cuda-out-of-memory",
        "score": report.findings[0].score,
        "role": "initiating",
        "url": "https://x.org/X/entries/cuda-out-of-memory/",
        "lines": 2,
        "signatures": sorted(report.findings[0].signatures),
        "files": ["a.log"],
        "ranks": [0],
        "first": {"file": "a.log", "line": 1, "timestamp": "2024-05-01 12:00:01"},
        "last": {"file": "a.log", "line": 3, "timestamp": None},
        "fix": {
            "first_step": fix["steps"][0]["text"],
            "command": fix["steps"][0].get("command"),
            "verify": fix["verify"],
        },
    }
    assert finding["evidence"] == [
        {"file": "a.log", "line": 1, "text": f"2024-05-01 12:00:01 [rank1]: {OOM}", "signature": SIG},
        {"file": "a.log", "line": 3, "text": f"[rank0]: {OOM}\ufffd", "signature": SIG},
    ]
    titles = sorted(cause["title"] for cause in CATALOG.by_id["cuda-out-of-memory"].data["causes"])
    assert sorted(cause["title"] for cause in finding["causes"]) == titles
    assert {tuple(cause) for cause in finding["causes"]} == {("title", "verdict", "reasons")}
    assert out["scanned"] == {
        "files": [{"name": "a.log", "bytes": len(log), "problems": [INVALID_UTF8]}],
        "bytes": len(log),
    }
    assert dg.finding_json(report.findings[0], "")["url"] == "entries/cuda-out-of-memory/"
    assert dg.report_json(report, 0)["findings"] == []


FACTS_MATCHER = Matcher(diagnosis_signatures(CATALOG))


def test_the_earliest_stated_version_by_time_is_kept() -> None:
    log = (
        "2024-05-01 12:00:05 NCCL version 2.21.5+cuda12.4\n"
        "2024-05-01 12:00:01 NCCL version 2.18.1\n"
        "NCCL version 2.19.3\n"
        "2024-05-01 12:00:03 NCCL version 2.20.1\n"
    )
    report = diagnose([Source("a.log", io.BytesIO(log.encode()))], FACTS_MATCHER, CATALOG)
    assert report.seen.versions == {"nccl": Stated("2.18.1", "a.log", 2), "cuda": Stated("12.4", "a.log", 1)}
    assert report.findings == []


def test_watchdog_progress_lines_give_the_rank_behind() -> None:
    lines = [
        f"[rank{rank}]:[E ProcessGroupNCCL.cpp:1] [PG 0 Rank {rank}] Timeout at NCCL work: {work}, "
        f"last enqueued NCCL work: {work}, last completed NCCL work: {work - 1}."
        for rank, work in [(0, 9), (1, 7), (2, 9)]
    ]
    source = Source("a.log", io.BytesIO(("\n".join(lines) + "\n").encode()))
    assert [
        (h.group, h.measure, [r.who for r in h.behind]) for h in diagnose([source], FACTS_MATCHER, CATALOG).hangs
    ] == [("PG 0", "enqueued", ["rank 1"])]


def test_a_wrapper_alone_initiates_and_after_a_specific_failure_follows() -> None:
    alone = diagnose([Source("a.log", io.BytesIO(b"Aborted (core dumped)\n"))], MATCHER, CATALOG)
    assert [(f.entry.id, f.role) for f in alone.findings] == [("native-abort", "initiating")]
    both = diagnose([Source("a.log", io.BytesIO(f"Aborted (core dumped)\n{OOM}\n".encode()))], MATCHER, CATALOG)
    assert [(f.entry.id, f.role) for f in both.findings] == [
        ("cuda-out-of-memory", "initiating"),
        ("native-abort", "downstream"),
    ]


def test_many_small_blocks_keep_file_order_and_report_progress(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dg, "read_blocks", lambda source: read_blocks(source, 64))
    log = "".join(f"step {n}\n" for n in range(30)) + f"{OOM} X \n" + "step\n" * 30 + f"{OOM}\n"
    told: list[tuple[int, int]] = []
    sources = [Source("a.log", io.BytesIO(b"x\n")), Source("b.log", io.BytesIO(log.encode()))]
    report = diagnose(sources, MATCHER, CATALOG, lambda index, done: told.append((index, done)))
    evidence = [(e.file, e.line, e.text, e.signature, e.order) for e in report.findings[0].evidence]
    assert evidence == [
        ("b.log", 31, f"{OOM} X ", "cuda-out-of-memory-allocator", (1, 31)),
        ("b.log", 62, OOM, "cuda-out-of-memory-allocator", (1, 62)),
    ]
    assert told[0] == (0, 2) and told[-1] == (1, len(log)) and len(told) > 6
    assert dg.report_json(report, 1)["scanned"] == {
        "files": [{"name": "a.log", "bytes": 2, "problems": []}, {"name": "b.log", "bytes": len(log), "problems": []}],
        "bytes": 2 + len(log),
    }


def test_without_timestamps_a_fact_of_an_earlier_file_comes_first() -> None:
    sources = [
        Source("a.log", io.BytesIO(b"x\nx\nNCCL version 2.18.1\n")),
        Source("b.log", io.BytesIO(b"NCCL version 2.19.3\n")),
    ]
    report = diagnose(sources, FACTS_MATCHER, CATALOG)
    assert report.seen.versions["nccl"] == Stated("2.18.1", "a.log", 3)


def test_within_one_part_the_fact_kept_is_the_earliest_by_time() -> None:
    # The scan threads keep one line per fact and condition of each part: the earliest by time,
    # also when it comes after a later-stamped copy; watchdog progress lines are all kept.
    progress = "[Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE)"
    log = (
        "2024-05-01 12:00:09 NCCL version 2.19.3\n"
        "2024-05-01 12:00:01 NCCL version 2.18.1\n"
        "NCCL version 2.20.5\n"
        f"2024-05-01 12:00:05 {progress}\n"
        f"2024-05-01 12:00:06 {progress.replace('Rank 1', 'Rank 2')}\n"
        f"{OOM}\n"
    ).encode()
    hits, newlines = FACTS_MATCHER.scan_counted(log)
    kept = dg.earliest_statements(hits)
    assert newlines == 6 and [h.line_offset for h in kept] == sorted(h.line_offset for h in kept)
    assert [(h.signature.id, h.line_offset) for h in kept if h.signature.id == "fact.nccl"] == [("fact.nccl", 1)]
    assert [h.line_offset for h in kept if h.signature.id == "fact.timeout"] == [3, 4]
    records = {h.line_offset for h in hits if h.signature.entry_id}
    assert records == {h.line_offset for h in kept if h.signature.entry_id}
    report = diagnose([Source("a.log", io.BytesIO(log))], FACTS_MATCHER, CATALOG)
    assert report.seen.versions["nccl"] == Stated("2.18.1", "a.log", 2)


def condition_with(text: str) -> str:
    """Return the id of the condition pseudo-signature whose pattern holds ``text``."""
    (found,) = [s.id for s in FACTS_MATCHER.signatures if s.id.startswith("cond.") and text in s.pattern]
    return found


@pytest.mark.parametrize(
    "line", ["  Getting requirements to build wheel ... error X", "Getting requirements to build wheel "]
)
def test_a_condition_line_is_kept_as_written(line: str) -> None:
    report = diagnose([Source("a.log", io.BytesIO(f"{line}\n".encode()))], FACTS_MATCHER, CATALOG)
    assert report.seen.lines[condition_with("Getting requirements")] == Stated(line, "a.log", 1)


def test_an_evidence_line_is_kept_as_written() -> None:
    report = diagnose([Source("a.log", io.BytesIO(f"{OOM} X\n".encode()))], MATCHER, CATALOG)
    assert [e.text for e in report.findings[0].evidence] == [f"{OOM} X"]


NCCL_INTERNAL = (
    "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1333, "
    "internal error - please report this issue to the NCCL developers, NCCL version 2.18.1"
)


def test_a_finding_follows_a_cause_two_records_up_its_chain() -> None:
    # nccl-internal-error is downstream of nccl-remote-error, which is downstream of cuda-out-of-memory
    assert "cuda-out-of-memory" not in CATALOG.by_id["nccl-internal-error"].downstream_of
    log = f"{NCCL_INTERNAL}\n{OOM}\n"
    report = diagnose([Source("a.log", io.BytesIO(log.encode()))], MATCHER, CATALOG)
    assert [(f.entry.id, f.role) for f in report.findings] == [
        ("cuda-out-of-memory", "initiating"),
        ("nccl-internal-error", "downstream"),
    ]


def test_report_json_links_are_relative_without_a_site_url() -> None:
    report = diagnose([Source("a.log", io.BytesIO(f"{OOM}\n".encode()))], MATCHER, CATALOG)
    assert [f["url"] for f in dg.report_json(report, 1)["findings"]] == ["entries/cuda-out-of-memory/"]  # type: ignore[index]


def test_a_wrapper_no_record_links_to_a_specific_failure_follows_it() -> None:
    # no downstream_of chain joins the two: only the wrapper rule makes the replica error follow
    assert "cuda-out-of-memory" not in dg.upstream_ids(CATALOG.by_id["dataparallel-replica-error"], CATALOG)
    log = f"RuntimeError: Caught RuntimeError in replica 1 on device 1.\n{OOM}\n"
    report = diagnose([Source("a.log", io.BytesIO(log.encode()))], MATCHER, CATALOG)
    assert [(f.entry.id, f.role) for f in report.findings] == [
        ("cuda-out-of-memory", "initiating"),
        ("dataparallel-replica-error", "downstream"),
    ]


@pytest.mark.parametrize(("indent", "expected"), [(61, "2024-05-01 12:00:05"), (62, "")])
def test_a_timestamp_counts_only_within_the_first_80_characters(indent: int, expected: str) -> None:
    assert dg.timestamp_of(" " * indent + "2024-05-01 12:00:05 boom") == expected
