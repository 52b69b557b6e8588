"""The one definition of "matches": compile signatures once, scan blocks, attribute lines.

A signature matches a line when its RE2 pattern matches the normalised line. Large inputs
are scanned block by block with Hyperscan (when installed) as an exact-or-wider prefilter;
every candidate line is then confirmed with RE2 on the normalised line, so the prefilter
never decides a match on its own.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from generator.patterns.dialect import Compiled, compile_pattern
from generator.patterns.normalize import normalize_line
from generator.records.model import Signature

NUMPY_FROM = 1 << 20  # blocks smaller than this are counted by bytes.count
# numpy counts a byte about twice as fast as bytes.count, but importing it costs about as
# much as counting 500 MiB: it is imported only once this many bytes were counted.
NUMPY_AFTER = 512 << 20
counted = [0]  # bytes counted so far in this process (a race between threads only delays numpy)


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
            values = numpy.frombuffer(self.data, numpy.uint8, self.end - self.start, self.start)
            return int(numpy.count_nonzero(values == needle[0]))
        return self.data.count(needle, self.start, self.end)

    def worth_numpy(self) -> bool:
        """Return True when numpy should count this block: it is large, and numpy's import has paid off."""
        size = self.end - self.start
        counted[0] += size
        return size > NUMPY_FROM and counted[0] > NUMPY_AFTER

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


class Matcher:
    """Every signature compiled once: RE2 for lines, Hyperscan for blocks when available."""

    def __init__(
        self,
        signatures: Iterable[Signature],
        database: Any = None,
        every: Any = None,
        on_compiled: Callable[[Any], None] | None = None,
    ) -> None:
        self.signatures = tuple(signatures)
        self.database = database if database is not None else block_database(self.signatures)
        self.local = threading.local()
        self.every = every
        self.on_compiled = on_compiled  # told when the every-match database is compiled, so it can be kept
        self.lock = threading.Lock()

    def scratch(self) -> Any:
        """Return this thread's Hyperscan scratch space (one scan at a time may use each)."""
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

    def every_line(self) -> Any:
        """Return the database that reports every match (compiled on first use, only for blocks with hits)."""
        with self.lock:  # two scanning threads may both meet their first hit
            if self.every is None:
                self.every = block_database(self.signatures, single=False)
                if self.on_compiled is not None:
                    self.on_compiled(self.every)
        return self.every

    def scan_block(self, block: Block | bytes, direct: bool = False) -> list[Hit]:
        """Return every confirmed hit in a block of whole lines: each line once per signature, in line order.

        ``direct`` skips the first pass when the block is expected to hold a hit (the one
        before it did): the every-match pass alone then finds the same lines, in one scan.
        """
        if isinstance(block, bytes):
            block = Block.of(block)
        if block.contains(b"\x1b"):
            block = Block.of(ANSI_BYTES.sub(b"", block.copy()))
        if self.database is None:
            return self.scan_lines(block.copy(), range(len(self.signatures)))
        if direct:
            return self.confirm(block, self.candidate_lines(block))
        present: set[int] = set()

        def on_match(sig_index: int, start: int, end: int, flags: int, context: Any) -> None:
            present.add(sig_index)

        # A first pass with one event per signature finds the (rare) blocks that hold a hit.
        self.database.scan(block.view(), match_event_handler=on_match, scratch=self.scratch())
        return self.confirm(block, self.candidate_lines(block)) if present else []

    def candidate_lines(self, block: Block) -> dict[tuple[int, int], int]:
        """Return {(line start, signature index): line stop} for every line where a prefilter matches."""
        data, base, high = block.data, block.start, block.end
        found: dict[tuple[int, int], int] = {}
        last_stop: dict[int, int] = {}

        def on_match(sig_index: int, start: int, end: int, flags: int, context: Any) -> None:
            offset = base + max(end - 1, 0)
            if offset < last_stop.get(sig_index, -1):
                return  # another match end on a line already taken
            line_start, line_stop = line_bounds(data, offset, base, high)
            last_stop[sig_index] = line_stop
            found[(line_start, sig_index)] = line_stop

        scratch = getattr(self.local, "every_scratch", None)
        if scratch is None:
            scratch = self.local.every_scratch = hyperscan.Scratch(self.every_line())
        self.every_line().scan(block.view(), match_event_handler=on_match, scratch=scratch)
        return found

    def confirm(self, block: Block, candidates: dict[tuple[int, int], int]) -> list[Hit]:
        """Return the candidates whose normalised line RE2 confirms, in line order."""
        hits = []
        data, base = block.data, block.start
        line, counted = 0, base
        for (start, sig_index), stop in sorted(candidates.items()):
            text = data[start:stop].decode("utf-8", "replace")
            if self.regex(sig_index).search(normalize_line(text)):
                line += data.count(b"\n", counted, start)
                counted = start
                hits.append(Hit(self.signatures[sig_index], line, text))
        return hits

    def scan_lines(self, block: bytes, sig_indexes: Iterable[int]) -> list[Hit]:
        """Return every hit by checking each line with RE2 (the path without Hyperscan)."""
        wanted = list(sig_indexes)
        hits: list[Hit] = []
        for line_index, raw in split_lines(block):
            text = raw.decode("utf-8", "replace")
            line = normalize_line(text)
            hits.extend(Hit(self.signatures[i], line_index, text) for i in wanted if self.regex(i).search(line))
        return hits


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


def block_database(signatures: tuple[Signature, ...], single: bool = True) -> Any:
    """Return a Hyperscan database of every signature (one event per signature when ``single``), or None."""
    if hyperscan is None or not signatures:
        return None
    expressions = [prefilter_pattern(sig.pattern).encode("utf-8") for sig in signatures]
    base = hyperscan.HS_FLAG_UTF8 | hyperscan.HS_FLAG_ALLOWEMPTY | (hyperscan.HS_FLAG_SINGLEMATCH if single else 0)
    flags = [base | (hyperscan.HS_FLAG_CASELESS if sig.ignore_case else 0) for sig in signatures]
    database = hyperscan.Database()
    database.compile(expressions=expressions, ids=list(range(len(signatures))), elements=len(signatures), flags=flags)
    return database
