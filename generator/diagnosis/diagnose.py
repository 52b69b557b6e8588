"""Rank the failures found in logs: which one looks initiating, and which are consequences."""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

from generator.diagnosis.logread import INVALID_UTF8, Source, blocks, close_source
from generator.records.model import Catalog, Entry
from generator.signatures.match import Block, Hit, Matcher

STRENGTH_WEIGHT = {"specific": 10.0, "supporting": 4.0, "wrapper": 1.0}
MAX_EVIDENCE = 5
MAX_TEXT = 400
SCAN_THREADS = 2  # Hyperscan scans in parallel; the reading thread keeps both fed
SPLIT_FROM = 1 << 20  # blocks smaller than this are scanned whole
TIMESTAMP_RE = re.compile(r"([0-9]{4}-[0-9]{2}-[0-9]{2})[T ]([0-9]{2}:[0-9]{2}:[0-9]{2}(?:[.,][0-9]+)?)")


@dataclass(frozen=True)
class Evidence:
    """One log line that matched a signature."""

    file: str
    line: int
    text: str
    signature: str
    strength: str
    order: tuple[int, int]  # (input index, line) for ordering within and across files
    timestamp: str


@dataclass
class Finding:
    """A record seen in the logs, with its evidence, score and role."""

    entry: Entry
    evidence: list[Evidence] = field(default_factory=list)
    signatures: dict[str, str] = field(default_factory=dict)  # every matched signature: strength
    earliest: Evidence | None = None  # over every hit, not only the evidence kept
    score: float = 0.0
    role: str = "initiating"

    @property
    def strength(self) -> str:
        """Return the strongest strength among the matched signatures."""
        return max(self.signatures.values(), key=STRENGTH_WEIGHT.__getitem__)

    @property
    def first(self) -> Evidence:
        """Return the earliest hit."""
        assert self.earliest is not None
        return self.earliest

    def add(self, evidence: Evidence) -> None:
        """Count a hit; keep it as evidence while fewer than MAX_EVIDENCE are kept."""
        self.signatures[evidence.signature] = evidence.strength
        if self.earliest is None or time_key(evidence) < time_key(self.earliest):
            self.earliest = evidence
        if len(self.evidence) < MAX_EVIDENCE:
            self.evidence.append(evidence)


def time_key(evidence: Evidence) -> tuple[str, tuple[int, int]]:
    """Return the ordering key of a hit: its timestamp ("~" sorts after any), then position."""
    return (evidence.timestamp or "~", evidence.order)


@dataclass
class Report:
    """The ranked findings and what was scanned."""

    findings: list[Finding]
    sources: list[Source]


def timestamp_of(text: str) -> str:
    """Return a sortable timestamp found near the start of a line, or ""."""
    found = TIMESTAMP_RE.search(text, 0, 80)
    return f"{found.group(1)} {found.group(2).replace(',', '.')}" if found else ""


Progress = Callable[[int, int], None]


class Collector:
    """Gathers evidence per record while sources are scanned."""

    def __init__(self, matcher: Matcher, catalog: Catalog) -> None:
        self.matcher = matcher
        self.catalog = catalog
        self.findings: dict[str, Finding] = {}
        self.seen: set[tuple[int, str, int]] = set()

    def scan(self, index: int, source: Source, progress: Progress) -> None:
        """Scan one source, adding its evidence.

        Hyperscan releases the GIL while it scans, so each block is cut in two and the
        halves are scanned by two worker threads while this thread reads the next block
        and counts its lines. Hits are taken in file order; at most two blocks wait.
        """
        pending: deque[tuple[int, Future[list[Hit]]]] = deque()
        with ThreadPoolExecutor(max_workers=SCAN_THREADS) as pool:
            for first_line, block in blocks(source):
                for line, part in halves(first_line, block):
                    pending.append((line, pool.submit(self.matcher.scan_block, part)))
                while len(pending) > 2 * SCAN_THREADS:
                    self.take(index, source, *pending.popleft())
                progress(index, source.bytes_read)
            while pending:
                self.take(index, source, *pending.popleft())

    def take(self, index: int, source: Source, first_line: int, future: Future[list[Hit]]) -> None:
        """Add the hits of one scanned block."""
        for hit in future.result():
            self.add(index, source, first_line + hit.line_offset, hit)

    def add(self, index: int, source: Source, line: int, hit: Hit) -> None:
        """Record one hit (once per signature and line; a few lines per record)."""
        sig = hit.signature
        if (index, sig.id, line) in self.seen:
            return
        self.seen.add((index, sig.id, line))
        finding = self.findings.setdefault(sig.entry_id, Finding(self.catalog.by_id[sig.entry_id]))
        if "\ufffd" in hit.text:
            source.note(INVALID_UTF8)
        text = hit.text.rstrip("\r\n")[:MAX_TEXT]
        finding.add(Evidence(source.name, line, text, sig.id, sig.strength, (index, line), timestamp_of(text)))


def halves(first_line: int, block: Block) -> list[tuple[int, Block]]:
    """Return (first line number, part) for a block cut in two when it is big enough."""
    if block.end - block.start < SPLIT_FROM:
        return [(first_line, block)]
    parts = block.split()
    if len(parts) == 1:
        return [(first_line, block)]
    head, tail = parts
    return [(first_line, head), (first_line + head.count(b"\n"), tail)]


def collect(
    sources: Iterable[Source], matcher: Matcher, catalog: Catalog, progress: Progress
) -> tuple[dict[str, Finding], list[Source]]:
    """Scan every source (opened lazily by the iterable); return findings and the sources."""
    collector = Collector(matcher, catalog)
    scanned = []
    for index, source in enumerate(sources):
        scanned.append(source)
        try:
            collector.scan(index, source, progress)
        finally:
            close_source(source)
    return collector.findings, scanned


def upstream_ids(entry: Entry, catalog: Catalog) -> set[str]:
    """Return every record id this entry is (transitively) downstream of."""
    found: set[str] = set()
    stack = list(entry.downstream_of)
    while stack:
        current = stack.pop()
        if current not in found:
            found.add(current)
            upstream = catalog.by_id.get(current)
            stack.extend(upstream.downstream_of if upstream else ())
    return found


def score(finding: Finding) -> float:
    """Return the strength of the evidence, plus a little for independent signatures."""
    distinct = len(finding.signatures)
    return STRENGTH_WEIGHT[finding.strength] + min(distinct - 1, 3)


def assign_roles(findings: dict[str, Finding], catalog: Catalog) -> None:
    """Mark as downstream what follows another finding or merely wraps it."""
    specific = any(f.strength != "wrapper" for f in findings.values())
    for finding in findings.values():
        causes_present = upstream_ids(finding.entry, catalog) & set(findings)
        wraps = finding.strength == "wrapper" and specific
        finding.role = "downstream" if causes_present or wraps else "initiating"
        finding.score = score(finding)


def rank(findings: dict[str, Finding], catalog: Catalog) -> list[Finding]:
    """Return findings best first: initiating before downstream, then score, then time."""
    assign_roles(findings, catalog)
    return sorted(
        findings.values(),
        key=lambda f: (f.role != "initiating", -f.score, f.first.timestamp or "~", f.first.order, f.entry.id),
    )


def diagnose(
    sources: Iterable[Source], matcher: Matcher, catalog: Catalog, progress: Progress = lambda index, done: None
) -> Report:
    """Return the ranked report for the given inputs."""
    findings, scanned = collect(sources, matcher, catalog, progress)
    for finding in findings.values():
        finding.evidence.sort(key=time_key)
    return Report(rank(findings, catalog), scanned)


def report_json(report: Report, top: int) -> dict[str, object]:
    """Return the report in the --json shape fixed by DESIGN.md."""
    return {
        "findings": [
            {
                "id": f.entry.id,
                "title": f.entry.title,
                "score": f.score,
                "role": f.role,
                "evidence": [
                    {"file": e.file, "line": e.line, "text": e.text, "signature": e.signature} for e in f.evidence
                ],
            }
            for f in report.findings[:top]
        ],
        "scanned": {
            "files": [{"name": s.name, "bytes": s.bytes_read, "problems": s.notes} for s in report.sources],
            "bytes": sum(s.bytes_read for s in report.sources),
        },
    }
