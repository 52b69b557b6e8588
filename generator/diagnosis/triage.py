"""Triage for a log no signature matched: its most error-like lines and the last lines of each rank.

Nothing here names a cause: the lines are shown as they are, with a site search for the
key line and the command that starts a record from the log. Memory stays bounded on huge
logs: at most MAX_LINES distinct error-like lines and TAIL_LINES lines per input are kept.
The browser's twin is ``Triage`` in overrides/assets/javascripts/failpedia-core.js.
"""

from __future__ import annotations

import re
import shlex
from collections import deque
from dataclasses import dataclass, field
from urllib.parse import quote_plus

import re2

from generator.diagnosis.diagnose import MAX_TEXT, rank_of, timestamp_of
from generator.patterns.normalize import TRAILING_SPACE, normalize_line
from generator.signatures.match import Block

# What makes a line look like an error: an exception class, or one of the words logs use.
CLASS_WORDS = r"\b[A-Z][A-Za-z0-9]*(?:Error|Exception)\b"
ERROR_WORDS = (
    CLASS_WORDS + r"|\b(?:ERROR|Error|error|FAILED|Failed|failed|FATAL|Fatal|fatal|Killed|killed"
    r"|Traceback|Segmentation fault|core dumped|Aborted)\b"
)
# RE2 scans a block in one linear pass; Python's re retried the class words at every capital
# letter and made triage, which watches every block, the slowest part of a diagnosis.
ERROR_BYTES = re2.compile(ERROR_WORDS.encode())
# The line an exception prints: its (dotted) class first, e.g. "torch.OutOfMemoryError: ...".
RAISED_RE = re.compile(r"[A-Za-z0-9_.]*[A-Z][A-Za-z0-9]*(?:Error|Exception)\b")
DIGITS = re.compile(r"[0-9]+")
SLUG_WORD = re.compile(r"[a-z0-9]+")
CAMEL = re.compile(r"([a-z0-9])([A-Z])")
MAX_LINES = 8  # distinct error-like lines reported
TAIL_LINES = 200  # last lines kept per input, from which each rank's last lines come
TAIL_BYTES = 1 << 20  # of a block, only its end can hold the input's last lines
RANK_LINES = 3
MAX_GROUPS = 16  # rank groups shown per input
QUERY_CHARS = 120
NO_FILE = "LOG-FILE"  # the --from-log argument when the log came on standard input


@dataclass(frozen=True)
class TriageLine:
    """One log line kept for triage."""

    file: str
    line: int
    text: str
    timestamp: str
    order: tuple[int, int]  # (input index, line)


@dataclass
class Triage:
    """Gathers, block by block, what a triage reports; keeps only that."""

    kept: list[tuple[str, TriageLine]] = field(default_factory=list)  # (dedup key, line), by time
    tails: dict[int, tuple[str, deque[tuple[int, str]]]] = field(default_factory=dict)

    def observe(self, index: int, name: str, first_line: int, block: Block) -> None:
        """Take the error-like lines and the input's latest lines from one block."""
        for line, text in error_segments(block, first_line):
            self.keep(TriageLine(name, line, text, timestamp_of(text), (index, line)))
        tail = self.tails.setdefault(index, (name, deque(maxlen=TAIL_LINES)))[1]
        for line, text in last_lines(block, first_line):
            if tail and tail[-1][0] == line:
                tail.pop()  # a window of an over-long line seen again
            tail.append((line, text))

    def keep(self, item: TriageLine) -> None:
        """Keep the earliest line by time of each distinct text, at most MAX_LINES of them."""
        key, order = dedup_key(item.text), line_key(item)
        for position, (other, kept) in enumerate(self.kept):
            if other == key:
                if order < line_key(kept):
                    del self.kept[position]
                    break
                return
        if len(self.kept) >= MAX_LINES and order >= line_key(self.kept[-1][1]):
            return
        at = next((i for i, (_, kept) in enumerate(self.kept) if order < line_key(kept)), len(self.kept))
        self.kept.insert(at, (key, item))
        del self.kept[MAX_LINES:]


def line_key(item: TriageLine) -> tuple[str, tuple[int, int]]:
    """Return the ordering key of a line: its timestamp ("~" sorts after any), then position."""
    return (item.timestamp or "~", item.order)


def dedup_key(text: str) -> str:
    """Return what two copies of one message share: the normalised text with numbers blanked."""
    return DIGITS.sub("#", normalize_line(text))


def error_segments(block: Block, first_line: int) -> list[tuple[int, str]]:
    """Return (line number, text) of the first error-like \\r-segment of each line of a block."""
    data, pos, line, counted = block.data, block.start, first_line, block.start
    found = []
    while (match := ERROR_BYTES.search(data, pos, block.end)) is not None:
        line_start = data.rfind(b"\n", block.start, match.start()) + 1 or block.start
        start = data.rfind(b"\r", line_start, match.start()) + 1 or line_start
        line += data.count(b"\n", counted, line_start)
        counted = line_start
        newline = data.find(b"\n", match.end(), block.end)
        end = block.end if newline < 0 else newline
        segment_end = data.find(b"\r", match.end(), end)
        text = data[start : end if segment_end < 0 else segment_end]
        found.append((line, text.decode("utf-8", "replace")[:MAX_TEXT]))
        pos = end + 1
    return found


def last_lines(block: Block, first_line: int) -> list[tuple[int, str]]:
    """Return (line number, text) of the last TAIL_LINES lines of a block (within its last TAIL_BYTES)."""
    cut = max(block.start, block.end - TAIL_BYTES)
    if cut > block.start:
        cut = block.data.find(b"\n", cut - 1, block.end) + 1 or block.end
    line = first_line + Block(block.data, block.start, cut).count(b"\n")
    pieces = block.data[cut : block.end].split(b"\n")
    if pieces and not pieces[-1]:
        pieces.pop()  # the block ends with a newline: no line follows it
    skip = max(len(pieces) - TAIL_LINES, 0)
    return [(line + skip + i, piece.decode("utf-8", "replace")) for i, piece in enumerate(pieces[skip:])]


@dataclass(frozen=True)
class TailGroup:
    """The last lines of one rank (or of the lines naming no rank) of one input."""

    file: str
    rank: int | None
    lines: tuple[tuple[int, str], ...]


@dataclass(frozen=True)
class TriageReport:
    """What a triage shows: error-like lines first by time, each rank's last lines, and next steps."""

    lines: tuple[TriageLine, ...]
    tails: tuple[TailGroup, ...]
    omitted_groups: int
    key: TriageLine | None
    query: str
    new_id: str
    new_file: str


def tail_text(text: str) -> str:
    """Return what a terminal shows of a line: its last \\r-segment, without trailing space."""
    return text.rstrip("\r").rsplit("\r", 1)[-1].rstrip(TRAILING_SPACE)[:MAX_TEXT]


def rank_groups(name: str, tail: deque[tuple[int, str]]) -> list[TailGroup]:
    """Return the last RANK_LINES non-blank lines per rank (lines naming none first)."""
    groups: dict[int | None, list[tuple[int, str]]] = {}
    for line, text in tail:
        shown = tail_text(text)
        if shown:
            groups.setdefault(rank_of(text), []).append((line, shown))
    order = sorted(groups, key=lambda rank: -1 if rank is None else rank)
    return [TailGroup(name, rank, tuple(groups[rank][-RANK_LINES:])) for rank in order]


def key_line(lines: tuple[TriageLine, ...]) -> TriageLine | None:
    """Return the line to search for: the first an exception printed, else the first but a "Traceback" header."""
    telling = [item for item in lines if not normalize_line(item.text).startswith("Traceback")]
    raised = (item for item in telling if RAISED_RE.match(normalize_line(item.text)))
    return next(raised, telling[0] if telling else None)


def search_query(text: str) -> str:
    """Return the key line as a search query: normalised, cut at a word end near QUERY_CHARS."""
    query = normalize_line(text)
    if len(query) > QUERY_CHARS:
        query = query[:QUERY_CHARS].rsplit(" ", 1)[0]
    return query


def slug_of(text: str) -> str:
    """Return a record id proposed from a line: its first words, lowercase, joined by hyphens."""
    words = [w for w in SLUG_WORD.findall(CAMEL.sub(r"\1-\2", normalize_line(text)).lower()) if not w.isdigit()]
    slug = "-".join(words[:6])
    while len(slug) > 48 and "-" in slug:
        slug = slug.rsplit("-", 1)[0]
    return slug[:48] or "new-failure"


def triage_report(triage: Triage) -> TriageReport:
    """Return the triage of what was observed."""
    lines = tuple(item for _, item in triage.kept)
    groups = [group for index in sorted(triage.tails) for group in rank_groups(*triage.tails[index])]
    key = key_line(lines)
    first = key.file if key else lines[0].file if lines else groups[0].file if groups else NO_FILE
    new_file = NO_FILE if first == "<stdin>" else first
    return TriageReport(
        lines=lines,
        tails=tuple(groups[:MAX_GROUPS]),
        omitted_groups=max(len(groups) - MAX_GROUPS, 0),
        key=key,
        query=search_query(key.text) if key else "",
        new_id=slug_of(key.text) if key else "new-failure",
        new_file=new_file,
    )


def search_url(report: TriageReport, site_url: str) -> str | None:
    """Return the site search for the key line (the theme opens search on any page's ?q=)."""
    if not report.query or not site_url:
        return None
    return f"{site_url.rstrip('/')}/?q={quote_plus(report.query)}"


def new_command(report: TriageReport) -> str:
    """Return the command that starts a record from this log."""
    return f"failpedia new {report.new_id} --category CATEGORY --from-log {shlex.quote(report.new_file)}"


def triage_json(report: TriageReport, site_url: str) -> dict[str, object]:
    """Return the triage in the --json shape (schema/diagnosis.schema.json, $defs/triage)."""
    return {
        "lines": [
            {"file": i.file, "line": i.line, "text": i.text, "timestamp": i.timestamp or None} for i in report.lines
        ],
        "tails": [
            {"file": g.file, "rank": g.rank, "lines": [{"line": n, "text": t} for n, t in g.lines]}
            for g in report.tails
        ],
        "omitted_groups": report.omitted_groups,
        "key_line": None if report.key is None else {"file": report.key.file, "line": report.key.line},
        "search": {"query": report.query, "url": search_url(report, site_url)},
        "new_command": new_command(report),
    }
