"""Hangs across ranks: which rank is behind, from the numbers PyTorch's NCCL watchdog prints.

When a collective hangs, each rank's watchdog reports how far that rank got: "Timeout at NCCL
work: N, last enqueued NCCL work: E, last completed NCCL work: C" (per process group), and
"Watchdog caught collective operation timeout: WorkNCCL(SeqNum=S, ...)". The ranks that went
on enqueue (or wait on) a later work item than the one that stopped; that one is behind, and
what it was doing before that work (a data loader, a checkpoint save, a rank-dependent branch,
a dead process) is where the hang starts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from generator.signatures.facts import FACT_PREFIX

PROGRESS_ID = f"{FACT_PREFIX}progress"
TIMEOUT_ID = f"{FACT_PREFIX}timeout"
PROGRESS_IDS = frozenset({PROGRESS_ID, TIMEOUT_ID})  # every such line counts, not only the first
ENQUEUED_RE = re.compile(r"last enqueued (?:NCCL )?work: (-?[0-9]+), last completed (?:NCCL )?work: (-?[0-9]+)")
SEQ_RE = re.compile(r"WorkNCCL\(SeqNum=([0-9]+)")
PG_RE = re.compile(r"\[PG (?:ID )?([0-9]+)")


@dataclass(frozen=True)
class Report:
    """One rank's watchdog line: where it is, and the work numbers it states."""

    file: str
    line: int
    who: str  # "rank 3", or the file name when the line names no rank
    group: str  # the process group ("PG 1"), "" when the line does not say
    measure: str  # "enqueued" (last enqueued work) or "timed out" (the SeqNum it waited on)
    work: int
    completed: int | None


@dataclass(frozen=True)
class Hang:
    """Ranks behind the others in one process group, by one measure, with the deciding lines."""

    group: str
    measure: str
    behind: tuple[Report, ...]
    ahead: tuple[Report, ...]


def parse(signature_id: str, file: str, line: int, text: str, rank: int | None) -> Report | None:
    """Return the watchdog numbers a progress line states (``rank``: the one the line names), or None."""
    group_found = PG_RE.search(text)
    group = f"PG {group_found.group(1)}" if group_found else ""
    who = file if rank is None else f"rank {rank}"
    if signature_id == PROGRESS_ID and (found := ENQUEUED_RE.search(text)):
        return Report(file, line, who, group, "enqueued", int(found.group(1)), int(found.group(2)))
    if signature_id == TIMEOUT_ID and (found := SEQ_RE.search(text)):
        return Report(file, line, who, group, "timed out", int(found.group(1)), None)
    return None


def furthest(reports: Iterable[Report]) -> dict[str, Report]:
    """Return each rank's furthest report (the highest work number; the earliest line on a tie)."""
    best: dict[str, Report] = {}
    for report in reports:
        held = best.get(report.who)
        if held is None or report.work > held.work:
            best[report.who] = report
    return best


def behind(reports: list[Report]) -> tuple[tuple[Report, ...], tuple[Report, ...]]:
    """Return (ranks behind the furthest, ranks at the furthest) among one group's reports."""
    by_rank = furthest(reports)
    if len(by_rank) < 2:
        return (), ()
    top = max(r.work for r in by_rank.values())
    late = tuple(sorted((r for r in by_rank.values() if r.work < top), key=lambda r: (r.work, r.who)))
    ahead = tuple(sorted((r for r in by_rank.values() if r.work == top), key=lambda r: r.who))
    return (late, ahead) if late else ((), ())


def hangs(reports: Iterable[Report]) -> list[Hang]:
    """Return, per process group and measure, the ranks behind the others (none when all agree)."""
    groups: dict[tuple[str, str], list[Report]] = {}
    for report in reports:
        groups.setdefault((report.measure, report.group), []).append(report)
    found = []
    for (measure, group), members in sorted(groups.items()):
        late, ahead = behind(members)
        if late:
            found.append(Hang(group, measure, late, ahead))
    return found


def describe(hang: Hang) -> list[str]:
    """Return the lines that explain one hang: who is behind, at which work, on which lines."""
    where = f" in {hang.group}" if hang.group else ""
    late = ", ".join(r.who for r in hang.behind)
    ahead = ", ".join(r.who for r in hang.ahead)
    if hang.measure == "enqueued":
        what = f"last enqueued NCCL work {hang.behind[0].work}; {ahead} enqueued {hang.ahead[0].work}"
    else:
        what = f"its watchdog timed out on NCCL work {hang.behind[0].work}; {ahead} on {hang.ahead[0].work}"
    lines = [f"Behind the others{where}: {late} ({what})"]
    for report in (*hang.behind, *hang.ahead):
        lines.append(f"   {report.who}: work {report.work} at {report.file}:{report.line}")
    first = hang.behind[0]
    lines.append(
        f"   Start from what {first.who} was doing at work {first.work} while the others reached {hang.ahead[0].work}: "
        "a branch that depends on the rank, a data loader or checkpoint save on that rank, "
        "or a process that died first."
    )
    return lines
