"""Hangs across ranks: the rank behind the others, named from the NCCL watchdog's own numbers."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import jsonschema

from generator.diagnosis.diagnose import diagnose, rank_of
from generator.diagnosis.explain import report_text
from generator.diagnosis.logread import Source
from generator.diagnosis.progress import Hang, Report, behind, describe, furthest, hangs, parse
from generator.records.pipeline import load_catalog
from generator.signatures.facts import diagnosis_signatures
from generator.signatures.match import Matcher

from .realworld import load_cases, load_coverage

ROOT = Path(__file__).resolve().parent.parent
CATALOG = load_catalog([ROOT / "entries"], ROOT).catalog
MATCHER = Matcher(diagnosis_signatures(CATALOG))


def watchdog(rank: int | None, group: int, work: int, enqueued: int, completed: int) -> str:
    """A watchdog line in PyTorch 2.4+'s format (ProcessGroupNCCL.cpp), for synthetic ranks."""
    prefix = f"[rank{rank}]:" if rank is not None else ""
    who = f" [PG {group} Rank {rank}]" if rank is not None else ""  # a rank's own file may not name it
    return (
        f"{prefix}[E1206 18:44:12.715588844 ProcessGroupNCCL.cpp:1664]{who} Exception (either an error or timeout) "
        f"detected by watchdog at work: {work}, last enqueued NCCL work: {enqueued}, "
        f"last completed NCCL work: {completed}."
    )


def report_of(files: dict[str, str]):  # type: ignore[no-untyped-def]
    sources = [Source(name, io.BytesIO(text.encode())) for name, text in files.items()]
    return diagnose(sources, MATCHER, CATALOG)


def summary(files: dict[str, str]) -> list[tuple[str, str, list[tuple[str, int]], list[tuple[str, int]]]]:
    return [
        (h.group, h.measure, [(r.who, r.work) for r in h.behind], [(r.who, r.work) for r in h.ahead])
        for h in report_of(files).hangs
    ]


def test_a_real_excerpt_names_the_rank_that_timed_out_on_an_earlier_work() -> None:
    # LLaMA-Factory#74 as posted: rank 1's watchdog line follows a progress bar on the same line.
    case = next(c for c in load_coverage() if c.name == "LLaMA-Factory-74")
    report = report_of({"train.log": case.log})
    assert summary({"train.log": case.log}) == [("", "timed out", [("rank 0", 1516)], [("rank 1", 1517)])]
    text = report_text(report, 3, False, "")
    assert text.splitlines()[:3] == [
        "Behind the others: rank 0 (its watchdog timed out on NCCL work 1516; rank 1 on 1517)",
        "   rank 0: work 1516 at train.log:6",
        "   rank 1: work 1517 at train.log:4",
    ]


def test_ranks_that_agree_give_no_hang() -> None:
    # LLaMA-Factory#6269: ranks 0, 3 and 4 all time out on the same work; the missing rank is not in the log.
    case = next(
        c for c in load_cases("failures") if c.name == "nccl-watchdog-timeout--llamafactory-6269-reduce-scatter"
    )
    assert report_of({"train.log": case.log}).hangs == []


def test_one_file_per_rank_names_the_file_behind() -> None:
    files = {f"rank{r}.log": "step 10\n" + watchdog(None, 0, 1580, 1580 if r != 2 else 1579, 1579) for r in range(4)}
    assert summary(files) == [
        ("", "enqueued", [("rank2.log", 1579)], [("rank0.log", 1580), ("rank1.log", 1580), ("rank3.log", 1580)])
    ]


def test_process_groups_are_compared_apart() -> None:
    lines = [watchdog(r, 0, 40, 41, 39) for r in range(4)] + [
        watchdog(r, 1, 7, 9 if r != 3 else 7, 6) for r in range(4)
    ]
    assert summary({"log": "\n".join(lines)}) == [
        ("PG 1", "enqueued", [("rank 3", 7)], [("rank 0", 9), ("rank 1", 9), ("rank 2", 9)])
    ]


def test_each_rank_counts_by_its_furthest_line_and_one_rank_alone_is_no_hang() -> None:
    later = [watchdog(1, 0, 5, 5, 4), watchdog(1, 0, 9, 9, 8), watchdog(0, 0, 9, 9, 8)]
    assert summary({"log": "\n".join(later)}) == []
    assert summary({"log": watchdog(0, 0, 5, 3, 2)}) == []


def test_parse_reads_both_watchdog_forms() -> None:
    timeout = "[Rank 7] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=12, OpType=ALLREDUCE"
    assert parse("fact.timeout", "f", 3, timeout, rank_of(timeout, anywhere=True)) == Report(
        "f", 3, "rank 7", "", "timed out", 12, None
    )
    old = (
        "[PG ID 1 PG GUID 1 Rank 1]  failure detected by watchdog at work sequence id: 1 PG status: "
        "last enqueued work: 547, last completed work: -1"
    )
    assert parse("fact.progress", "f", 4, old, rank_of(old, anywhere=True)) == Report(
        "f", 4, "rank 1", "PG 1", "enqueued", 547, -1
    )
    assert hangs([]) == []


def test_hangs_are_in_the_json_and_match_its_schema(tmp_path: Path) -> None:
    log = tmp_path / "job.log"
    log.write_text("\n".join(watchdog(r, 0, 3, 3 if r else 2, 2) for r in range(2)) + "\n", encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "generator", "diagnose", "--json", str(log)], cwd=ROOT, capture_output=True, text=True
    )
    data = json.loads(result.stdout)
    jsonschema.validate(data, json.loads((ROOT / "schema/diagnosis.schema.json").read_text(encoding="utf-8")))
    assert data["hangs"] == [
        {
            "group": "PG 0",
            "measure": "enqueued",
            "behind": [{"rank": "rank 0", "work": 2, "completed": 2, "file": str(log), "line": 1}],
            "ahead": [{"rank": "rank 1", "work": 3, "completed": 2, "file": str(log), "line": 2}],
        }
    ]


def test_describe_names_the_group_the_ranks_and_their_lines() -> None:
    late = Report("a.log", 7, "rank 2", "PG 1", "enqueued", 40, 39)
    first, second = (
        Report("a.log", 3, "rank 0", "PG 1", "enqueued", 41, 39),
        Report("b.log", 5, "rank 1", "PG 1", "enqueued", 41, 40),
    )
    assert describe(Hang("PG 1", "enqueued", (late,), (first, second))) == [
        "Behind the others in PG 1: rank 2 (last enqueued NCCL work 40; rank 0, rank 1 enqueued 41)",
        "   rank 2: work 40 at a.log:7",
        "   rank 0: work 41 at a.log:3",
        "   rank 1: work 41 at b.log:5",
        "   Start from what rank 2 was doing at work 40 while the others reached 41: "
        "a branch that depends on the rank, a data loader or checkpoint save on that rank, "
        "or a process that died first.",
    ]
    both = describe(
        Hang("PG 1", "enqueued", (late, Report("a.log", 8, "rank 3", "PG 1", "enqueued", 40, 39)), (first,))
    )
    assert both[0] == "Behind the others in PG 1: rank 2, rank 3 (last enqueued NCCL work 40; rank 0 enqueued 41)"
    timed = Report("c.log", 9, "rank 4", "", "timed out", 12, None)
    assert describe(Hang("", "timed out", (timed,), (first,)))[0] == (
        "Behind the others: rank 4 (its watchdog timed out on NCCL work 12; rank 0 on 41)"
    )


def test_behind_sorts_by_work_then_rank_and_a_tie_keeps_the_earliest_line() -> None:
    def report(who: str, line: int, work: int) -> Report:
        return Report("f", line, who, "", "enqueued", work, None)

    reports = [report("rank 3", 1, 5), report("rank 1", 2, 4), report("rank 0", 3, 9), report("rank 2", 4, 4)]
    reports += [report("rank 0", 5, 9), report("rank 4", 6, 9), report("rank 3", 7, 3)]
    assert furthest(reports)["rank 0"].line == 3 and furthest(reports)["rank 3"].line == 1
    late, ahead = behind(reports)
    assert [(r.who, r.work) for r in late] == [("rank 1", 4), ("rank 2", 4), ("rank 3", 5)]
    assert [(r.who, r.line) for r in ahead] == [("rank 0", 3), ("rank 4", 6)]
    assert behind([report("rank 0", 1, 2), report("rank 1", 2, 2)]) == ((), ())
    assert behind([report("rank 0", 1, 2)]) == ((), ())
    other = Report("f", 8, "rank 1", "PG 2", "enqueued", 1, None)
    found = hangs([*reports, other, Report("f", 9, "rank 0", "PG 2", "enqueued", 2, None)])
    assert [(h.group, h.measure, [r.who for r in h.behind]) for h in found] == [
        ("", "enqueued", ["rank 1", "rank 2", "rank 3"]),
        ("PG 2", "enqueued", ["rank 1"]),
    ]


def test_parse_names_the_file_when_the_line_names_no_rank_and_ignores_other_ids() -> None:
    line = "[PG 3 Rank 0] last enqueued NCCL work: 8, last completed NCCL work: 7."
    assert parse("fact.progress", "r.log", 2, line, None) == Report("r.log", 2, "r.log", "PG 3", "enqueued", 8, 7)
    assert parse("fact.timeout", "r.log", 2, line, 0) is None
    assert parse("fact.nccl", "r.log", 2, line, 0) is None
