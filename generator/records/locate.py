"""JSON pointers (RFC 6901) and the mapping from pointers to source locations."""

from __future__ import annotations

from collections.abc import Iterable, Mapping


def escape_token(token: str | int) -> str:
    """Return one pointer token escaped per RFC 6901."""
    return str(token).replace("~", "~0").replace("/", "~1")


def unescape_token(token: str) -> str:
    """Return one pointer token unescaped per RFC 6901."""
    return token.replace("~1", "/").replace("~0", "~")


def child_pointer(parent: str, token: str | int) -> str:
    """Return the pointer of ``token`` under ``parent``."""
    return f"{parent}/{escape_token(token)}"


def pointer_from_path(path: Iterable[str | int]) -> str:
    """Return the pointer for a sequence of keys and indexes."""
    return "".join(f"/{escape_token(token)}" for token in path)


def parent_pointer(pointer: str) -> str:
    """Return the pointer one level up ("" for the root)."""
    return pointer.rsplit("/", 1)[0] if pointer else ""


def find_mark(
    pointer: str, value_locs: Mapping[str, tuple[int, int]], key_locs: Mapping[str, tuple[int, int]] | None = None
) -> tuple[int, int]:
    """Return the (line, col) of the value at ``pointer``, or of its nearest ancestor."""
    if key_locs is not None and pointer in key_locs and pointer not in value_locs:
        return key_locs[pointer]
    probe = pointer
    while True:
        if probe in value_locs:
            return value_locs[probe]
        if not probe:
            return (1, 1)
        probe = parent_pointer(probe)
