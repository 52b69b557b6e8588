"""One loaded record file and where its values stand, and finding record files (no YAML here:
`diagnose` reads records from the cache without importing a YAML parser)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from generator.records.errors import Issue, Location
from generator.records.locate import child_pointer, unescape_token


@dataclass
class SourceDoc:
    """One loaded file: its data, where each value and key stands, and load problems.

    Positions are kept per container (pointer of the container -> child -> (line, col)) so
    that loading formats no pointer strings for scalars; ``mark`` looks one up on demand.
    """

    path: str
    data: Any = None
    value_marks: dict[str, dict[Any, tuple[int, int]]] = field(default_factory=dict)
    key_marks: dict[str, dict[Any, tuple[int, int]]] = field(default_factory=dict)
    root_mark: tuple[int, int] = (1, 1)
    issues: list[Issue] = field(default_factory=list)
    # Set when the data was recalled from a cache of records that passed every check
    # (by the digest of the file's bytes): it has no positions and was not checked again.
    digest: str = ""
    recalled: bool = False

    def location(self, line: int, col: int) -> Location:
        """Return a Location in this file."""
        return Location(self.path, line, col)

    def problem(self, mark: tuple[int, int], pointer: str, code: str, message: str) -> None:
        """Record a load problem at ``mark``."""
        self.issues.append(Issue(self.location(*mark), pointer, code, message))

    @property
    def value_locs(self) -> PointerMarks:
        """Return a mapping view from pointers to value positions."""
        return PointerMarks(self.value_marks, self.root_mark)

    @property
    def key_locs(self) -> PointerMarks:
        """Return a mapping view from pointers to key positions."""
        return PointerMarks(self.key_marks, None)


class PointerMarks(Mapping[str, tuple[int, int]]):
    """Read-only mapping from JSON pointers to positions, over per-container marks."""

    def __init__(self, marks: dict[str, dict[Any, tuple[int, int]]], root: tuple[int, int] | None) -> None:
        self.marks = marks
        self.root = root

    def __getitem__(self, pointer: str) -> tuple[int, int]:
        if pointer == "":
            if self.root is None:
                raise KeyError(pointer)
            return self.root
        parent, _, token = pointer.rpartition("/")
        children = self.marks[parent]
        key: Any = unescape_token(token)
        if key not in children and key.isdigit():
            key = int(key)
        return children[key]

    def __contains__(self, pointer: object) -> bool:
        try:
            self[str(pointer)]
        except (KeyError, ValueError):
            return False
        return True

    def __iter__(self) -> Iterator[str]:
        if self.root is not None:
            yield ""
        for parent, children in self.marks.items():
            for key in children:
                yield child_pointer(parent, key)

    def __len__(self) -> int:
        return sum(len(children) for children in self.marks.values()) + (self.root is not None)


def discover(paths: Iterable[Path]) -> list[Path]:
    """Return the record files named by ``paths`` (directories are searched), sorted."""
    found: set[Path] = set()
    for path in paths:
        if path.is_dir():  # resolved once: what is found under it is then absolute already
            found.update(p for p in path.resolve().rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file())
        else:
            found.add(path.resolve())
    return sorted(found)


def display_path(path: Path, root: Path) -> str:
    """Return ``path`` relative to ``root`` when it is inside it, with forward slashes."""
    base = root.resolve()
    if not path.is_relative_to(base):  # a relative or unresolved path: resolve it first
        resolved = path.resolve()
        if not resolved.is_relative_to(base):
            return os.fspath(path)
        path = resolved
    return path.relative_to(base).as_posix()
