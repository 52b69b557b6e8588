"""The one definition of "matches": compile signatures once, scan blocks, attribute lines.

A signature matches a line when its RE2 pattern matches the normalised line. Large inputs
are scanned block by block with Hyperscan (when installed) as an exact-or-wider prefilter;
every candidate line is then confirmed with RE2 on the normalised line, so the prefilter
never decides a match on its own.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from generator.dialect import Compiled, compile_pattern
from generator.model import Signature
from generator.normalize import normalize_line

hyperscan: Any
try:
    import hyperscan
except ImportError:  # pragma: no cover - the RE2 line scanner takes over
    hyperscan = None

ANSI_BYTES = re.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b\n\r]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]")
LINE_END = re.compile(rb"[\r\n]")


def signature_matches(compiled: Compiled, raw_line: str) -> bool:
    """Return True when a compiled signature matches one raw log line."""
    return compiled.search(normalize_line(raw_line))


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
class Hit:
    """One confirmed match: a signature on a line of a block."""

    signature: Signature
    line_offset: int  # 0-based line index within the block
    text: str  # the raw line, decoded


class Matcher:
    """Every signature compiled once: RE2 for lines, Hyperscan for blocks when available."""

    def __init__(self, signatures: Iterable[Signature]) -> None:
        self.signatures = tuple(signatures)
        self.compiled = tuple(compile_pattern(s.pattern, s.ignore_case) for s in self.signatures)
        self.database = block_database(self.signatures)

    def line_matches(self, raw_line: str) -> list[Signature]:
        """Return the signatures that match one raw line."""
        line = normalize_line(raw_line)
        return [sig for sig, rx in zip(self.signatures, self.compiled, strict=True) if rx.search(line)]

    def scan_block(self, block: bytes) -> list[Hit]:
        """Return confirmed hits in a block of whole lines (first hit per signature)."""
        if b"\x1b" in block:
            block = ANSI_BYTES.sub(b"", block)
        if self.database is None:
            return self.scan_lines(block, range(len(self.signatures)))
        candidates: dict[int, int] = {}

        def on_match(sig_index: int, start: int, end: int, flags: int, context: Any) -> None:
            candidates.setdefault(sig_index, end)

        self.database.scan(block, match_event_handler=on_match)
        return self.confirm(block, candidates)

    def confirm(self, block: bytes, candidates: dict[int, int]) -> list[Hit]:
        """Return hits for candidates whose line RE2 confirms; rescan those it does not."""
        hits = []
        unconfirmed = []
        for sig_index, end in sorted(candidates.items(), key=lambda item: item[1]):
            start, stop = line_bounds(block, max(end - 1, 0))
            text = block[start:stop].decode("utf-8", "replace")
            if self.compiled[sig_index].search(normalize_line(text)):
                hits.append(Hit(self.signatures[sig_index], count_lines(block, start), text))
            else:
                unconfirmed.append(sig_index)
        if unconfirmed:
            hits.extend(self.scan_lines(block, unconfirmed))
        return hits

    def scan_lines(self, block: bytes, sig_indexes: Iterable[int]) -> list[Hit]:
        """Return the first hit per signature by checking every line with RE2 (slow path)."""
        wanted = list(sig_indexes)
        hits = []
        for line_index, raw in split_lines(block):
            if not wanted:
                break
            text = raw.decode("utf-8", "replace")
            line = normalize_line(text)
            for sig_index in [i for i in wanted if self.compiled[i].search(line)]:
                hits.append(Hit(self.signatures[sig_index], line_index, text))
                wanted.remove(sig_index)
        return hits


def split_lines(block: bytes) -> Iterator[tuple[int, bytes]]:
    """Yield (line index by newline, segment) for every \r- or \n-delimited segment."""
    for index, line in enumerate(block.split(b"\n")):
        for segment in line.split(b"\r"):
            yield index, segment


def line_bounds(block: bytes, offset: int) -> tuple[int, int]:
    """Return the (start, stop) of the \r- or \n-delimited segment holding byte ``offset``."""
    while offset > 0 and block[offset] in b"\r\n":
        offset -= 1
    start = max(block.rfind(b"\n", 0, offset + 1), block.rfind(b"\r", 0, offset + 1)) + 1
    found = LINE_END.search(block, offset)
    return start, found.start() if found else len(block)


def count_lines(block: bytes, offset: int) -> int:
    """Return the 0-based line index (by newline) of ``offset`` in the block."""
    return block.count(b"\n", 0, offset)


def block_database(signatures: tuple[Signature, ...]) -> Any:
    """Return a Hyperscan database of every signature, or None without Hyperscan."""
    if hyperscan is None or not signatures:
        return None
    expressions = [prefilter_pattern(sig.pattern).encode("utf-8") for sig in signatures]
    base = hyperscan.HS_FLAG_SINGLEMATCH | hyperscan.HS_FLAG_UTF8 | hyperscan.HS_FLAG_ALLOWEMPTY
    flags = [base | (hyperscan.HS_FLAG_CASELESS if sig.ignore_case else 0) for sig in signatures]
    database = hyperscan.Database()
    database.compile(expressions=expressions, ids=list(range(len(signatures))), elements=len(signatures), flags=flags)
    return database
