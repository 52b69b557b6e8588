"""Read logs as bytes in bounded blocks: plain, gzip or UTF-16, from files or stdin.

Memory stays flat: a block is at most BLOCK_SIZE plus one partial line, and a line longer
than MAX_LINE is cut into overlapping windows. Problems (truncated gzip, NUL bytes, invalid
UTF-8, over-long lines) are reported as notes, and whatever was read before them is kept.
"""

from __future__ import annotations

import codecs
import io
import zlib
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from typing import BinaryIO

from generator.signatures.match import Block

BLOCK_SIZE = 16 << 20
MAX_LINE = 1 << 20
WINDOW_OVERLAP = 4096
SNIFF = 8192
MAX_DECOMPRESSED = 64 << 30
GZIP_MAGIC = b"\x1f\x8b"
EMPTY: BinaryIO = io.BytesIO(b"")
BINARY_NUL_SHARE = 0.1
UTF8_SNIFF = 1 << 20  # how much of an input is checked for invalid UTF-8 up front (decoding 16 MiB costs 0.03 s)


@dataclass
class Source:
    """One input being read, with the notes gathered about it."""

    name: str
    stream: BinaryIO
    notes: list[str] = field(default_factory=list)
    failed: bool = False
    bytes_read: int = 0

    def note(self, message: str) -> None:
        """Record a problem with this input (each message once)."""
        if message not in self.notes:
            self.notes.append(message)


def raw_chunks(source: Source, size: int) -> Iterator[bytes]:
    """Yield the input's bytes as read, counting them; a read error ends the input."""
    while True:
        try:
            chunk = source.stream.read(size)
        except OSError as exc:
            source.note(f"read failed: {exc.strerror or exc}; hits before it are kept")
            source.failed = True
            return
        if not chunk:
            return
        source.bytes_read += len(chunk)
        yield chunk


def gunzip(
    source: Source, chunks: Iterator[bytes], limit: int = MAX_DECOMPRESSED, size: int = BLOCK_SIZE
) -> Iterator[bytes]:
    """Yield decompressed bytes of a (possibly multi-member) gzip stream, noting damage."""
    decoder = zlib.decompressobj(16 + zlib.MAX_WBITS)
    produced = 0
    in_member = False
    for chunk in chunks:
        data = chunk
        while data:
            in_member = True
            try:
                out = decoder.decompress(data, size)
            except zlib.error as exc:
                source.note(f"gzip data is corrupt ({exc}); hits before the damage are kept")
                return
            produced += len(out)
            if produced > limit:
                source.note(f"decompressed size passed {limit} bytes; the rest was not read")
                return
            yield out
            data = decoder.unconsumed_tail
            if decoder.eof:
                data, decoder = decoder.unused_data + data, zlib.decompressobj(16 + zlib.MAX_WBITS)
                in_member = False
    if in_member:
        source.note("gzip stream is truncated; hits before the cut are kept")


def from_utf16(chunks: Iterator[bytes]) -> Iterator[bytes]:
    """Yield UTF-8 bytes for a UTF-16 stream (the BOM tells the byte order)."""
    decoder = codecs.getincrementaldecoder("utf-16")(errors="replace")
    for chunk in chunks:
        yield decoder.decode(chunk).encode("utf-8")
    yield decoder.decode(b"", final=True).encode("utf-8")


def peek(chunks: Iterator[bytes], size: int = SNIFF) -> tuple[bytes, Iterator[bytes]]:
    """Return the first bytes of a stream and an iterator that still yields all of it."""
    head = b""
    taken: list[bytes] = []
    for chunk in chunks:
        taken.append(chunk)
        head += chunk
        if len(head) >= size:
            break

    def replay() -> Iterator[bytes]:
        yield from taken
        yield from chunks

    return head[:size], replay()


def decoded_stream(source: Source, size: int = BLOCK_SIZE) -> Iterator[bytes]:
    """Yield the input as UTF-8-ish bytes in chunks of about ``size``: gunzipped and transcoded as its magic says."""
    head, chunks = peek(raw_chunks(source, size))
    if head.startswith(GZIP_MAGIC):
        head, chunks = peek(gunzip(source, chunks, size=size))
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return from_utf16(chunks)
    if head.startswith(codecs.BOM_UTF8):
        head = head[3:]
    if head and head.count(0) / len(head) > BINARY_NUL_SHARE:
        source.note("binary file (not a text log); skipped")
        source.failed = True
        return iter(())
    return chunks


INVALID_UTF8 = "contains invalid UTF-8 (shown with replacement characters)"


def check_text(source: Source, block: Block, first: bool) -> None:
    """Note NUL bytes, and invalid UTF-8 in the first UTF8_SNIFF bytes (matched lines are checked too)."""
    if block.contains(b"\x00"):
        source.note("contains NUL bytes (scanned as text)")
    if first and not valid_utf8(block.data[block.start : min(block.end, block.start + UTF8_SNIFF)]):
        source.note(INVALID_UTF8)


def valid_utf8(head: bytes) -> bool:
    """Return True unless ``head`` holds invalid UTF-8 (a character cut at its end is not invalid)."""
    if head.isascii():
        return True
    try:
        codecs.utf_8_decode(head, "strict", False)
    except UnicodeDecodeError:
        return False
    return True


LONG_LINE = "a line longer than {} bytes was scanned in overlapping windows"


def first_line_end(chunk: bytes) -> int:
    """Return the index just after the first \\n or \\r in ``chunk``, or 0."""
    newline = chunk.find(b"\n")
    carriage = chunk.find(b"\r", 0, len(chunk) if newline < 0 else newline)  # only before the first \n
    ends = [found for found in (newline, carriage) if found >= 0]
    return min(ends) + 1 if ends else 0


def last_line_end(chunk: bytes, start: int) -> int:
    """Return the index just after the last \\n or \\r at or after ``start``, or ``start``."""
    newline = chunk.rfind(b"\n", start)
    return max(newline, chunk.rfind(b"\r", max(newline, start)), start - 1) + 1  # a \r only after the last \n


def blocks(source: Source, block_size: int = BLOCK_SIZE, max_line: int = MAX_LINE) -> Iterator[tuple[int, Block]]:
    """Yield (first line number, block) for each block read_blocks yields."""
    line_no = 1
    for block in read_blocks(source, block_size, max_line):
        yield line_no, block
        line_no += block.count(b"\n")


def read_blocks(source: Source, block_size: int = BLOCK_SIZE, max_line: int = MAX_LINE) -> Iterator[Block]:
    """Yield blocks of whole lines, in order; over-long lines come in windows.

    The bulk of each chunk is yielded in place, without a copy: the partial line carried
    over from the previous chunk is completed first, as a small block of its own. Lines are
    not counted here (the scanners count them); a window holds no newline.
    """
    carry = b""
    first = True
    for chunk in decoded_stream(source, block_size):
        start = 0
        if carry:
            start = first_line_end(chunk)
            if not start:
                carry += chunk
                carry = yield from window(source, carry, max_line)
                continue
            yield checked(source, Block.of(carry + chunk[:start]), first)
            first = False
        cut = last_line_end(chunk, start)
        if cut > start:
            yield checked(source, Block(chunk, start, cut), first)
            first = False
        carry = yield from window(source, chunk[cut:], max_line)
    if carry:
        yield checked(source, Block.of(carry), first)


def window(source: Source, carry: bytes, max_line: int) -> Generator[Block, None, bytes]:
    """Yield an unfinished line once it is too long to hold; return what to carry on."""
    if len(carry) <= max_line:
        return carry
    source.note(LONG_LINE.format(max_line))
    check_text(source, Block.of(carry), False)
    yield Block.of(carry)
    return carry[-WINDOW_OVERLAP:]


def checked(source: Source, block: Block, first: bool) -> Block:
    """Check a block's text (the input's first block for invalid UTF-8 too); return the block."""
    check_text(source, block, first)
    return block


def open_source(name: str, stdin: BinaryIO | None) -> Source:
    """Return a Source for a path or "-" (stdin); an unusable input is a failed Source."""
    if name == "-":
        if stdin is None or stdin.closed:
            return failed_source(name, "standard input is closed")
        return Source("<stdin>", stdin)
    try:
        handle = open(name, "rb")  # noqa: SIM115 - closed by close_source
    except IsADirectoryError:
        return failed_source(name, "is a directory")
    except FileNotFoundError:
        return failed_source(name, "no such file")
    except OSError as exc:
        return failed_source(name, f"cannot be read: {exc.strerror or exc}")
    return Source(name, handle)


def failed_source(name: str, message: str) -> Source:
    """Return a Source that yields nothing and carries why."""
    return Source(name, EMPTY, [message], failed=True)


def close_source(source: Source) -> None:
    """Close the input unless it is standard input."""
    if source.name != "<stdin>" and source.stream is not EMPTY:
        source.stream.close()
