"""Rank the failures found in logs: which one looks initiating, and which are consequences."""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

from generator.diagnosis.causes import REASON_TEXT, Judged, Seen, Stated, judge_causes
from generator.diagnosis.logread import INVALID_UTF8, Source, close_source, read_blocks
from generator.diagnosis.progress import PROGRESS_IDS, Hang, hangs
from generator.diagnosis.progress import Report as ProgressReport
from generator.diagnosis.progress import parse as parse_progress
from generator.records.model import Catalog, Entry
from generator.signatures.facts import CONDITION_PREFIX, fact_value
from generator.signatures.match import Block, Hit, Matcher

STRENGTH_WEIGHT = {"specific": 10.0, "supporting": 4.0, "wrapper": 1.0}
MAX_EVIDENCE = 5
MAX_TEXT = 400
SCAN_THREADS = 2  # Hyperscan scans in parallel; the reading thread keeps both fed
SPLIT_FROM = 1 << 20  # blocks smaller than this are scanned whole
# torchrun's "[rank3]:" / "[default3]:" prefixes, and c10d's "[Rank 3]" / "[PG ... Rank 3]".
LAUNCHER_RANK = r"\[(?:rank|default)([0-9]+)\]:"  # torchrun's line prefix
C10D_RANK = r"\[(?:PG [^\]]*)?Rank ([0-9]+)\]"  # the tag of ProcessGroupNCCL's messages
RANK_RE = re.compile(f"^{LAUNCHER_RANK}|{C10D_RANK}", re.ASCII)
RANK_ANYWHERE = re.compile(f"{LAUNCHER_RANK}|{C10D_RANK}", re.ASCII)
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
    evidence: list[Evidence] = field(default_factory=list)  # the earliest lines by time, at most MAX_EVIDENCE
    signatures: dict[str, str] = field(default_factory=dict)  # every matched signature: strength
    latest: Evidence | None = None
    lines: int = 0  # every matching line, counted once however many signatures match it
    files: set[str] = field(default_factory=set)
    ranks: set[int] = field(default_factory=set)
    last_line: tuple[int, int] = (-1, -1)
    score: float = 0.0
    role: str = "initiating"
    causes: list[Judged] = field(default_factory=list)  # the record's causes, ordered by the evidence

    @property
    def strength(self) -> str:
        """Return the strongest strength among the matched signatures."""
        return max(self.signatures.values(), key=STRENGTH_WEIGHT.__getitem__)

    @property
    def first(self) -> Evidence:
        """Return the earliest hit (keep_earliest always keeps it, first)."""
        return self.evidence[0]

    def add(self, evidence: Evidence) -> None:
        """Count a hit once per line; keep the MAX_EVIDENCE earliest lines by time."""
        self.signatures.setdefault(evidence.signature, evidence.strength)
        if evidence.order == self.last_line:
            return  # another signature of this record on the same line (hits arrive in line order)
        self.last_line = evidence.order
        self.lines += 1
        self.files.add(evidence.file)
        rank = rank_of(evidence.text)
        if rank is not None:
            self.ranks.add(rank)
        if self.latest is None or time_key(evidence) > time_key(self.latest):
            self.latest = evidence
        keep_earliest(self.evidence, evidence)


def keep_earliest(kept: list[Evidence], evidence: Evidence) -> None:
    """Insert a line into the time-ordered list, dropping the latest beyond MAX_EVIDENCE."""
    key = time_key(evidence)
    if len(kept) >= MAX_EVIDENCE and key >= time_key(kept[-1]):
        return
    index = next((i for i, item in enumerate(kept) if key < time_key(item)), len(kept))
    kept.insert(index, evidence)
    del kept[MAX_EVIDENCE:]


def rank_of(text: str, anywhere: bool = False) -> int | None:
    """Return the rank a launcher prefix or a c10d message names on this line, if any.

    A launcher prefix counts at the line's start and a c10d tag in its first 200 characters;
    ``anywhere`` finds either at any place (a watchdog line may follow a progress bar).
    """
    found = RANK_ANYWHERE.search(text) if anywhere else RANK_RE.search(text, 0, 200)
    if found is None:
        return None
    return int(next(group for group in found.groups() if group is not None))


def time_key(evidence: Evidence) -> tuple[str, tuple[int, int]]:
    """Return the ordering key of a hit: its timestamp ("~" sorts after any), then position."""
    return (evidence.timestamp or "~", evidence.order)


@dataclass
class Report:
    """The ranked findings and what was scanned."""

    findings: list[Finding]
    sources: list[Source]
    seen: Seen = field(default_factory=Seen)
    hangs: list[Hang] = field(default_factory=list)  # ranks behind the others, by the watchdog's numbers


def timestamp_of(text: str) -> str:
    """Return a sortable timestamp found near the start of a line, or ""."""
    found = TIMESTAMP_RE.search(text, 0, 80)
    return f"{found.group(1)} {found.group(2).replace(',', '.')}" if found else ""


Progress = Callable[[int, int], None]
Kept = dict[str, tuple[tuple[str, tuple[int, int]], Stated]]  # name: (time and position key, what the line stated)
Observer = Callable[[int, str, int, Block], None]  # (input index, name, first line, block)


class Collector:
    """Gathers evidence per record while sources are scanned."""

    def __init__(self, matcher: Matcher, catalog: Catalog, observe: Observer | None = None) -> None:
        self.matcher = matcher
        self.catalog = catalog
        self.observe = observe
        self.findings: dict[str, Finding] = {}
        self.facts: Kept = {}
        self.logged: Kept = {}  # the first line of each `log:` condition
        self.progress: list[ProgressReport] = []
        self.line = 1  # the number of the next part's first line in the source being scanned

    def scan(self, index: int, source: Source, progress: Progress) -> None:
        """Scan one source, adding its evidence.

        Hyperscan releases the GIL while it scans, so each block is cut in two and the
        halves are scanned by two worker threads while this thread reads the next block.
        Each worker counts its part's lines; parts are taken in file order, which gives every
        hit its line number. At most two blocks wait.
        """
        pending: deque[tuple[Block, Future[tuple[list[Hit], int]]]] = deque()
        self.line = 1
        with ThreadPoolExecutor(max_workers=SCAN_THREADS) as pool:
            for block in read_blocks(source):
                for part in halves(block):
                    pending.append((part, pool.submit(self.scan_part, part)))
                while len(pending) > 2 * SCAN_THREADS:
                    self.take(index, source, *pending.popleft())
                progress(index, source.bytes_read)
            while pending:
                self.take(index, source, *pending.popleft())

    def scan_part(self, part: Block) -> tuple[list[Hit], int]:
        """Scan one part (in a worker thread): its hits, with only the earliest line by time of
        each fact and condition (the only one state keeps), and its newline count."""
        hits, newlines = self.matcher.scan_counted(part)
        return earliest_statements(hits), newlines

    def take(self, index: int, source: Source, part: Block, future: Future[tuple[list[Hit], int]]) -> None:
        """Add the hits of one scanned part and move the line count past it; the observer sees
        the part first, until a finding is known."""
        hits, newlines = future.result()
        if self.observe is not None and not self.findings:
            self.observe(index, source.name, self.line, part)
        for hit in hits:
            self.add(index, source, self.line + hit.line_offset, hit)
        self.line += newlines

    def add(self, index: int, source: Source, line: int, hit: Hit) -> None:
        """Record one hit (a finding counts each line once and keeps a few)."""
        sig = hit.signature
        if not sig.entry_id:
            self.state(index, source, line, hit)
            return
        finding = self.findings.setdefault(sig.entry_id, Finding(self.catalog.by_id[sig.entry_id]))
        if "\ufffd" in hit.text:
            source.note(INVALID_UTF8)
        text = hit.text.rstrip("\r\n")[:MAX_TEXT]
        finding.add(Evidence(source.name, line, text, sig.id, sig.strength, (index, line), timestamp_of(text)))

    def state(self, index: int, source: Source, line: int, hit: Hit) -> None:
        """Keep the first (by time) value of a fact the log states, such as the NCCL version,
        every watchdog line that says how far a rank got, and the first line of each condition."""
        key = (timestamp_of(hit.text) or "~", (index, line))
        if hit.signature.id.startswith(CONDITION_PREFIX):
            text = hit.text.rstrip("\r\n")[:REASON_TEXT]
            keep_first(self.logged, hit.signature.id, key, Stated(text, source.name, line))
            return
        progress = parse_progress(hit.signature.id, source.name, line, hit.text, rank_of(hit.text, anywhere=True))
        if progress is not None:
            self.progress.append(progress)
            return
        fact = fact_value(hit.signature.id, hit.text)
        if fact is None:
            return
        name, value = fact
        keep_first(self.facts, name, key, Stated(value, source.name, line))


def earliest_statements(hits: list[Hit]) -> list[Hit]:
    """Return the hits of one part, in line order, keeping of each fact or condition signature
    only its earliest line by time (timestamp, then position): the one keep_first would keep.
    Records' hits and watchdog progress lines are all kept.

    A healthy log repeats such lines (NCCL INFO version lines on every rank), and each hit
    handed to the reading thread costs it Python time that the scan threads wait on.
    """
    kept: list[Hit] = []
    earliest: dict[str, tuple[tuple[str, int], Hit]] = {}
    for hit in hits:
        sig_id = hit.signature.id
        if hit.signature.entry_id or sig_id in PROGRESS_IDS:
            kept.append(hit)
            continue
        key = (timestamp_of(hit.text) or "~", hit.line_offset)
        if sig_id not in earliest or key < earliest[sig_id][0]:
            earliest[sig_id] = (key, hit)
    if not earliest:
        return kept
    return sorted(kept + [hit for _, hit in earliest.values()], key=lambda hit: hit.line_offset)


def keep_first(kept: Kept, name: str, key: tuple[str, tuple[int, int]], stated: Stated) -> None:
    """Keep ``stated`` under ``name`` unless an earlier line (by time, then position) is kept."""
    if name not in kept or key < kept[name][0]:
        kept[name] = (key, stated)


def halves(block: Block) -> tuple[Block, ...]:
    """Return the block cut in two for the two scanning threads when it is big enough, else whole."""
    return block.split() if block.end - block.start >= SPLIT_FROM else (block,)


def collect(
    sources: Iterable[Source], matcher: Matcher, catalog: Catalog, progress: Progress, observe: Observer | None = None
) -> tuple[Collector, list[Source]]:
    """Scan every source (opened lazily by the iterable); return what was collected and the sources."""
    collector = Collector(matcher, catalog, observe)
    scanned = []
    for index, source in enumerate(sources):
        scanned.append(source)
        try:
            collector.scan(index, source, progress)
        finally:
            close_source(source)
    return collector, scanned


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
    sources: Iterable[Source],
    matcher: Matcher,
    catalog: Catalog,
    progress: Progress = lambda index, done: None,
    observe: Observer | None = None,
) -> Report:
    """Return the ranked report for the given inputs.

    ``observe`` sees every scanned part, in order, until a finding is known (it watches for
    the triage of a log nothing matched, so a log that matched is not read twice over).
    """
    collector, scanned = collect(sources, matcher, catalog, progress, observe)
    findings = collector.findings
    stated = {name: value for name, (_, value) in collector.facts.items()}
    logged = {name: value for name, (_, value) in collector.logged.items()}
    seen = Seen({sig for f in findings.values() for sig in f.signatures}, set(findings), stated, logged)
    for finding in findings.values():
        lines = [(e.file, e.line, e.text) for e in finding.evidence]
        finding.causes = judge_causes(finding.entry.data["causes"], seen, lines)
    return Report(rank(findings, catalog), scanned, seen, hangs(collector.progress))


def finding_json(finding: Finding, site_url: str) -> dict[str, object]:
    """Return one finding in the --json shape: DESIGN.md's fields, then where and when it was seen."""
    entry, first, last = finding.entry, finding.first, finding.latest or finding.first
    fix = entry.data["fix"]
    return {
        "id": entry.id,
        "title": entry.title,
        "score": finding.score,
        "role": finding.role,
        "url": f"{site_url.rstrip('/')}/entries/{entry.id}/" if site_url else f"entries/{entry.id}/",
        "evidence": [
            {"file": e.file, "line": e.line, "text": e.text, "signature": e.signature} for e in finding.evidence
        ],
        "lines": finding.lines,
        "signatures": sorted(finding.signatures),
        "files": sorted(finding.files),
        "ranks": sorted(finding.ranks),
        "first": {"file": first.file, "line": first.line, "timestamp": first.timestamp or None},
        "last": {"file": last.file, "line": last.line, "timestamp": last.timestamp or None},
        "causes": [{"title": c.title, "verdict": c.verdict, "reasons": list(c.reasons)} for c in finding.causes],
        "fix": {
            "first_step": fix["steps"][0]["text"],
            "command": fix["steps"][0].get("command"),
            "verify": fix["verify"],
        },
    }


def hang_json(hang: Hang) -> dict[str, object]:
    """Return one hang in the --json shape: the ranks behind, the ranks ahead, each with its line."""

    def place(r: ProgressReport) -> dict[str, object]:
        return {"rank": r.who, "work": r.work, "completed": r.completed, "file": r.file, "line": r.line}

    return {
        "group": hang.group or None,
        "measure": hang.measure,
        "behind": [place(r) for r in hang.behind],
        "ahead": [place(r) for r in hang.ahead],
    }


def report_json(report: Report, top: int, site_url: str = "") -> dict[str, object]:
    """Return the report in the --json shape fixed by DESIGN.md (schema/diagnosis.schema.json)."""
    return {
        "hangs": [hang_json(hang) for hang in report.hangs],
        "findings": [finding_json(f, site_url) for f in report.findings[:top]],
        "scanned": {
            "files": [{"name": s.name, "bytes": s.bytes_read, "problems": s.notes} for s in report.sources],
            "bytes": sum(s.bytes_read for s in report.sources),
        },
    }
