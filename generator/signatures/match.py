"""The one definition of "matches": compile signatures once, scan blocks, attribute lines.

A signature matches a line when its RE2 pattern matches the normalised line. Large inputs
are scanned block by block with Hyperscan (when installed) as an exact-or-wider prefilter,
in one pass that reports every candidate line; each is then confirmed with RE2 on the
normalised line, so the prefilter never decides a match on its own.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from generator.patterns.dialect import Compiled, compile_pattern
from generator.patterns.normalize import normalize_line
from generator.patterns.translate import needles
from generator.records.model import Signature

NUMPY_FROM = 1 << 20  # blocks smaller than this are counted by bytes.count
# numpy counts a byte about four times as fast as bytes.count when it compares a slice that
# stays in the CPU cache (1 MiB: 0.03 s for 256 MiB, against 0.08 s in 16 MiB slices and
# 0.12 s for bytes.count), and it lets the scanning threads run meanwhile (bytes.count holds
# the GIL). Importing it costs about 0.07 s, what it saves on about 200 MiB: it is imported
# only once this many bytes were counted, or when the caller said the input is that large
# (expect).
NUMPY_AFTER = 128 << 20
NUMPY_SLICE = 1 << 20
GRANULE = 4096  # numpy counts newlines per this many bytes; a hit's own granule is counted by bytes.count
counted = [0]  # bytes counted so far in this process (a race between threads only delays numpy)
expected = [0]  # bytes the caller said it will scan (see expect)
buffers = threading.local()  # each thread's numpy scratch (compare_buffer)


def expect(size: int) -> None:
    """Say how many bytes are about to be scanned: on a large input numpy counts from the start."""
    expected[0] = size


@lru_cache(maxsize=1)
def numpy_module() -> Any:
    """Return numpy when installed (imported on first use: start-up time matters), else None."""
    try:
        import numpy
    except ImportError:  # pragma: no cover - bytes.count gives the same answer, slower
        return None
    return numpy


hyperscan: Any
try:
    import hyperscan
except ImportError:  # pragma: no cover - the RE2 line scanner takes over
    hyperscan = None

# A pattern whose rarest required text is at least this long is prefiltered by that text
# alone: a literal search costs Hyperscan a fraction of a regex's, and RE2 still confirms
# every candidate line (shorter texts, such as "loss" or "NCCL INFO", would make most
# healthy lines candidates).
LITERAL_FROM = 12

ANSI_BYTES = re.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b\n\r]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]")
LINE_END = re.compile(rb"[\r\n]")


def prefilter_pattern(pattern: str) -> str:
    """Return ``pattern`` without ^ and $ anchors: it then matches a superset of lines."""
    out = []
    in_class = escaped = False
    for index, char in enumerate(pattern):
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif in_class:
            in_class = char != "]" or pattern[index - 1] == "["
        elif char == "[":
            in_class = True
        elif char in "^$":
            continue
        out.append(char)
    return "".join(out)


def block_expression(pattern: str) -> str:
    """Return what Hyperscan searches for a pattern: a wider expression that every line the
    pattern matches also matches (its longest required texts when long enough, else the
    pattern without anchors)."""
    texts = literal_texts(pattern)
    return "|".join(escape_literal(text.decode("utf-8")) for text in texts) if texts else prefilter_pattern(pattern)


def escape_literal(text: str) -> str:
    """Return ``text`` as a Hyperscan expression matching exactly it (ASCII punctuation escaped)."""
    return "".join(f"\\{char}" if char.isascii() and not char.isalnum() and char != " " else char for char in text)


@dataclass(frozen=True)
class Block:
    """A run of whole lines inside a larger bytes object: data[start:end], never copied."""

    data: bytes
    start: int
    end: int

    @classmethod
    def of(cls, data: bytes) -> Block:
        """Return a block covering all of ``data``."""
        return cls(data, 0, len(data))

    def view(self) -> memoryview:
        """Return the block's bytes without copying them."""
        return memoryview(self.data)[self.start : self.end]

    def count(self, needle: bytes) -> int:
        """Return how many times ``needle`` occurs in the block."""
        numpy = numpy_module() if len(needle) == 1 and self.worth_numpy() else None
        if numpy is not None:
            return sum(self.count_slice(numpy, at, needle[0]) for at in range(self.start, self.end, NUMPY_SLICE))
        return self.data.count(needle, self.start, self.end)

    def count_slice(self, numpy: Any, at: int, byte: int) -> int:
        """Return how many times ``byte`` occurs in the NUMPY_SLICE bytes from ``at`` (within the block)."""
        size = min(NUMPY_SLICE, self.end - at)
        found = compare_buffer(numpy)[:size]
        numpy.equal(numpy.frombuffer(self.data, numpy.uint8, size, at), byte, out=found)
        return int(numpy.count_nonzero(found))

    def worth_numpy(self) -> bool:
        """Return True when numpy should count this block: it is large, and numpy's import has
        paid off (or will: the input is known to be large)."""
        size = self.end - self.start
        counted[0] += size
        return size > NUMPY_FROM and max(counted[0], expected[0]) > NUMPY_AFTER

    def contains(self, needle: bytes) -> bool:
        """Return True when ``needle`` occurs in the block."""
        return self.data.find(needle, self.start, self.end) >= 0

    def split(self) -> tuple[Block, ...]:
        """Return the block cut in two at the line end nearest after its middle (or whole)."""
        middle = self.data.find(b"\n", (self.start + self.end) // 2, self.end - 1)
        if middle < 0:
            return (self,)
        return Block(self.data, self.start, middle + 1), Block(self.data, middle + 1, self.end)

    def copy(self) -> bytes:
        """Return the block's bytes as a new object."""
        return self.data[self.start : self.end]


@dataclass(frozen=True)
class Hit:
    """One confirmed match: a signature on a line of a block."""

    signature: Signature
    line_offset: int  # 0-based line index within the block
    text: str  # the raw line, decoded


Candidates = dict[tuple[int, int], int]  # {(line start, signature index): line stop}


class Matcher:
    """Every signature compiled once: RE2 for lines, Hyperscan for blocks when available.

    One Hyperscan pass over a block reports every line each signature's prefilter matches.
    (A first pass that reported each signature once, followed by a pass for the signatures
    that matched, cost about as much as this single pass for its first part alone: with
    literal prefilters, healthy lines give few match events.)
    """

    def __init__(self, signatures: Iterable[Signature], database: Any = None) -> None:
        self.signatures = tuple(signatures)
        self.database = database if database is not None else block_database(self.signatures)
        self.local = threading.local()

    def scratch(self) -> Any:
        """Return this thread's Hyperscan scratch space (one scan at a time may use it)."""
        scratch = getattr(self.local, "scratch", None)
        if scratch is None:
            scratch = self.local.scratch = hyperscan.Scratch(self.database)
        return scratch

    @property
    def compiled(self) -> tuple[Compiled, ...]:
        """Return every signature compiled with RE2 (compiled once, cached)."""
        return tuple(self.regex(index) for index in range(len(self.signatures)))

    def regex(self, index: int) -> Compiled:
        """Return one signature compiled with RE2 (compiled on first use)."""
        sig = self.signatures[index]
        return compile_pattern(sig.pattern, sig.ignore_case)

    def scan_block(self, block: Block | bytes) -> list[Hit]:
        """Return every confirmed hit in a block of whole lines: each line once per signature, in line order."""
        return self.scan_counted(block)[0]

    def scan_counted(self, block: Block | bytes) -> tuple[list[Hit], int]:
        """Return the block's hits (as scan_block) and how many newlines it holds.

        The lines are counted while the hits are confirmed, so each byte is counted once,
        in the scanning thread.
        """
        if isinstance(block, bytes):
            block = Block.of(block)
        if block.contains(b"\x1b"):
            block = Block.of(ANSI_BYTES.sub(b"", block.copy()))  # escape sequences hold no newline
        if self.database is None:
            return self.scan_lines(block.copy(), range(len(self.signatures))), block.count(b"\n")
        return self.confirm_counted(block, self.candidates(block))

    def candidates(self, block: Block) -> Candidates:
        """Return {(line start, signature index): line stop} for each line a prefilter matches."""
        data, low, high = block.data, block.start, block.end
        found: Candidates = {}
        last_stop: dict[int, int] = {}

        def on_match(sig_index: int, start: int, end: int, flags: int, context: Any) -> None:
            offset = low + max(end - 1, 0)
            if offset < last_stop.get(sig_index, -1):
                return  # another match end on a line already taken
            line_start, line_stop = line_bounds(data, offset, low, high)
            last_stop[sig_index] = line_stop
            found[(line_start, sig_index)] = line_stop

        self.database.scan(block.view(), match_event_handler=on_match, scratch=self.scratch())
        return found

    def confirm_counted(self, block: Block, candidates: Candidates) -> tuple[list[Hit], int]:
        """Return the confirmed hits, in line order, and the block's newline count."""
        confirmed = []
        data = block.data
        last_start, text, normal = -1, "", ""
        for (start, sig_index), stop in sorted(candidates.items()):
            if start != last_start:  # a line several signatures are candidates on is decoded once
                last_start, text = start, data[start:stop].decode("utf-8", "replace")
                normal = normalize_line(text)
            if self.regex(sig_index).search(normal):
                confirmed.append((start, sig_index, text))
        lines, newlines = line_offsets(block, [start for start, _, _ in confirmed])
        hits = [Hit(self.signatures[i], line, text) for (_, i, text), line in zip(confirmed, lines, strict=True)]
        return hits, newlines

    def scan_lines(self, block: bytes, sig_indexes: Iterable[int]) -> list[Hit]:
        """Return every hit by checking each line with RE2 (the path without Hyperscan)."""
        wanted = list(sig_indexes)
        hits: list[Hit] = []
        for line_index, raw in split_lines(block):
            text = raw.decode("utf-8", "replace")
            line = normalize_line(text)
            hits.extend(Hit(self.signatures[i], line_index, text) for i in wanted if self.regex(i).search(line))
        return hits


def line_offsets(block: Block, starts: list[int]) -> tuple[list[int], int]:
    """Return the 0-based line of each offset in ``starts`` (ascending, inside the block) and
    the block's newline count.

    A large block is counted by numpy, which releases the GIL (bytes.count holds it, and
    counting there stalled the other threads as long as it took): newlines per GRANULE
    bytes first, then each offset's own granule by bytes.count.
    """
    numpy = numpy_module() if block.worth_numpy() else None
    data, lines = block.data, []
    if numpy is None:
        line, counted = 0, block.start
        for start in starts:
            line += data.count(b"\n", counted, start)
            counted = start
            lines.append(line)
        return lines, line + data.count(b"\n", counted, block.end)
    before = granule_prefix(numpy, block)
    for start in starts:
        granule = min((start - block.start) // GRANULE, len(before) - 1)
        lines.append(before[granule] + data.count(b"\n", block.start + granule * GRANULE, start))
    tail = block.start + (len(before) - 1) * GRANULE
    return lines, before[-1] + data.count(b"\n", tail, block.end)


def granule_prefix(numpy: Any, block: Block) -> list[int]:
    """Return the newlines before each whole GRANULE of the block (and after the last one)."""
    whole = (block.end - block.start) // GRANULE * GRANULE
    sums = [numpy.zeros(1, numpy.int64)]
    found = compare_buffer(numpy)
    for at in range(0, whole, NUMPY_SLICE):
        size = min(NUMPY_SLICE, whole - at)
        values = numpy.frombuffer(block.data, numpy.uint8, size, block.start + at)
        numpy.equal(values, 10, out=found[:size])
        sums.append(found[:size].view(numpy.uint8).reshape(-1, GRANULE).sum(axis=1, dtype=numpy.int64))
    before: list[int] = numpy.cumsum(numpy.concatenate(sums)).tolist()
    return before


def compare_buffer(numpy: Any) -> Any:
    """Return this thread's NUMPY_SLICE booleans to compare a slice into (a fresh array per
    slice cost a page fault per 4 KiB, 0.2 s of system time per GiB)."""
    found = getattr(buffers, "compared", None)
    if found is None or len(found) < NUMPY_SLICE:
        found = buffers.compared = numpy.empty(NUMPY_SLICE, numpy.bool_)
    return found


@lru_cache(maxsize=4096)
def literal_texts(pattern: str) -> tuple[bytes, ...]:
    """Return the texts Hyperscan searches for a pattern when it searches literal texts alone, else ()."""
    texts = required_texts(pattern)
    return tuple(text.encode("utf-8") for text in texts) if texts and min(map(len, texts)) >= LITERAL_FROM else ()


def required_texts(pattern: str) -> list[str]:
    """Return the pattern's set of required texts whose shortest member is longest (every match holds one)."""
    return max(needles(pattern), key=lambda found: min(map(len, found)), default=[])


def split_lines(block: bytes) -> Iterator[tuple[int, bytes]]:
    """Yield (line index by newline, segment) for every \r- or \n-delimited segment."""
    for index, line in enumerate(block.split(b"\n")):
        for segment in line.split(b"\r"):
            yield index, segment


def line_bounds(data: bytes, offset: int, low: int = 0, high: int | None = None) -> tuple[int, int]:
    """Return the (start, stop) of the \\r- or \\n-delimited segment holding byte ``offset``.

    The search stays within data[low:high].
    """
    high = len(data) if high is None else high
    while offset > low and data[offset] in b"\r\n":
        offset -= 1
    start = max(data.rfind(b"\n", low, offset + 1), low - 1) + 1
    # Only the line's own bytes are searched for a \r: a block without one is not read back
    # to its start for every match (that made a block with many hits quadratic).
    start = max(data.rfind(b"\r", start, offset + 1) + 1, start)
    found = LINE_END.search(data, offset, high)
    return start, found.start() if found else high


def block_database(signatures: tuple[Signature, ...]) -> Any:
    """Return a Hyperscan database reporting every match of each signature's prefilter under its index, or None."""
    if hyperscan is None or not signatures:
        return None
    expressions = [block_expression(sig.pattern).encode("utf-8") for sig in signatures]
    base = hyperscan.HS_FLAG_UTF8 | hyperscan.HS_FLAG_ALLOWEMPTY
    flags = [base | (hyperscan.HS_FLAG_CASELESS if sig.ignore_case else 0) for sig in signatures]
    database = hyperscan.Database()
    database.compile(expressions=expressions, ids=list(range(len(signatures))), elements=len(signatures), flags=flags)
    return database
