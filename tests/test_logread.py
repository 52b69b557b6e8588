"""Reading logs in bounded blocks: every line keeps its number whatever the block size."""

from __future__ import annotations

import gzip
import io
from collections import defaultdict

import pytest

from generator.diagnosis.logread import Source, blocks

LINES = [f"line {n} " + "x" * (n % 7) for n in range(1, 60)]
TEXT = "\n".join(LINES) + "\n"


def numbered(data: bytes, block_size: int) -> tuple[dict[int, bytes], list[str]]:
    """Return the bytes read per line number (from each block's first line) and the notes."""
    source = Source("log", io.BytesIO(data))
    found: dict[int, bytes] = defaultdict(bytes)
    for first, block in blocks(source, block_size):
        for offset, piece in enumerate(block.copy().split(b"\n")):
            found[first + offset] += piece
    return {n: text for n, text in found.items() if text}, source.notes


def expected(text: str) -> dict[int, bytes]:
    return {n: line.encode() for n, line in enumerate(text.split("\n"), 1) if line}


@pytest.mark.parametrize("block_size", [1, 2, 3, 5, 8, 13, 64, 1 << 20])
def test_every_line_keeps_its_number_across_block_cuts(block_size: int) -> None:
    assert numbered(TEXT.encode(), block_size) == (expected(TEXT), [])


@pytest.mark.parametrize("block_size", [1, 3, 7, 1 << 20])
def test_carriage_returns_are_no_new_lines_across_blocks(block_size: int) -> None:
    text = "a\r 10%\r 50%\r100%\nb\r\nc\rd\n"
    assert numbered(text.encode(), block_size) == (expected(text), [])


@pytest.mark.parametrize("block_size", [4, 9, 1 << 20])
def test_a_last_line_without_newline_is_read(block_size: int) -> None:
    assert numbered(b"one\ntwo\nthree", block_size) == ({1: b"one", 2: b"two", 3: b"three"}, [])


@pytest.mark.parametrize("block_size", [16, 1 << 20])
def test_every_member_of_a_concatenated_gzip_is_read(block_size: int) -> None:
    first, second = "\n".join(LINES[:20]) + "\n", "\n".join(LINES[20:]) + "\n"
    data = gzip.compress(first.encode()) + gzip.compress(second.encode())
    assert numbered(data, block_size) == (expected(TEXT), [])


def test_a_truncated_gzip_keeps_what_came_before_the_cut() -> None:
    data = gzip.compress(TEXT.encode() * 50)[:-20]
    lines, notes = numbered(data, 64)
    assert notes == ["gzip stream is truncated; hits before the cut are kept"]
    assert lines[1] == LINES[0].encode() and len(lines) > 100


def test_block_size_bounds_the_blocks() -> None:
    source = Source("log", io.BytesIO(TEXT.encode()))
    sizes = [block.end - block.start for _, block in blocks(source, 32)]
    assert max(sizes) <= 32 + max(len(line) for line in LINES) + 1
    assert len(sizes) > len(TEXT) // 64
