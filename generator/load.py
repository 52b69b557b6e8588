"""Read YAML records strictly, keeping the position of every node.

The loader walks libyaml's event stream itself instead of using a constructor, so that
aliases, anchors, tags, duplicate keys and non-string keys are refused with a location,
and plain scalars resolve by a small fixed rule set: dates and yes/no stay strings.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from generator.errors import Issue, Location
from generator.locate import child_pointer, unescape_token

MAX_BYTES = 256 * 1024
MAX_DEPTH = 32
MAX_NODES = 20_000

try:
    PARSER: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - libyaml missing: slower, same behaviour
    PARSER = yaml.SafeLoader

INT_RE = re.compile(r"[-+]?(?:0|[1-9][0-9]*)\Z")
FLOAT_RE = re.compile(r"[-+]?(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?\Z")
# C0 and C1 controls except tab and newline, DEL, and the bidi controls (Trojan Source).
BAD_CHAR_RE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
NULLS = frozenset({"", "~", "null", "Null", "NULL"})
COMPLEX_KEY = "\x00complex"
DUPLICATE_KEY = "\x00duplicate"
# First characters of every plain scalar that resolves to something other than a string.
MAYBE_SPECIAL = frozenset("~nNtTfF+-.0123456789")
BOOLS = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}


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


def resolve_plain(text: str) -> Any:
    """Return the value of a plain (unquoted) scalar under the fixed rules."""
    if text and text[0] not in MAYBE_SPECIAL:
        return text
    if text in NULLS:
        return None
    if text in BOOLS:
        return BOOLS[text]
    if INT_RE.match(text):
        return int(text)
    if FLOAT_RE.match(text):
        return float(text)
    return text


def load_text(path: str, raw: bytes) -> SourceDoc:
    """Return the SourceDoc for ``raw`` bytes read from ``path``."""
    doc = SourceDoc(path)
    if len(raw) > MAX_BYTES:
        doc.problem((1, 1), "", "yaml.too-large", f"file is {len(raw)} bytes; the limit is {MAX_BYTES}")
        return doc
    text = decode_strict(doc, raw)
    if text is None:
        return doc
    try:
        Builder(doc, check_text=BAD_CHAR_RE.search(text) is not None).run(PARSER(text))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        doc.problem(where, "", "yaml.syntax", str(exc.problem or exc.context or "invalid YAML"))
        doc.data = None
    except yaml.YAMLError as exc:
        doc.problem((1, 1), "", "yaml.syntax", str(exc).splitlines()[0])
        doc.data = None
    return doc


def decode_strict(doc: SourceDoc, raw: bytes) -> str | None:
    """Return ``raw`` decoded as UTF-8, or None after recording where it is not."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = raw[: exc.start]
        line = before.count(b"\n") + 1
        col = exc.start - (before.rfind(b"\n") + 1) + 1
        doc.problem((line, col), "", "yaml.encoding", "file is not valid UTF-8")
        return None


def discover(paths: Iterable[Path]) -> list[Path]:
    """Return the record files named by ``paths`` (directories are searched), sorted."""
    found: set[Path] = set()
    for path in paths:
        if path.is_dir():
            found.update(p.resolve() for p in path.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file())
        else:
            found.add(path.resolve())
    return sorted(found)


def display_path(path: Path, root: Path) -> str:
    """Return ``path`` relative to ``root`` when it is inside it, with forward slashes."""
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return os.fspath(path)


def load_file(path: Path, display: str | None = None) -> SourceDoc:
    """Return the SourceDoc for a file on disk; unreadable files become issues."""
    name = display or str(path)
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_BYTES + 1)
    except OSError as exc:
        doc = SourceDoc(name)
        doc.problem((0, 0), "", "file.unreadable", exc.strerror or str(exc))
        return doc
    return load_text(name, raw)


class Frame:
    """A mapping or sequence being built, with the positions of its children."""

    __slots__ = ("key", "keys", "marks", "pointer", "value")

    def __init__(self, value: dict[str, Any] | list[Any], pointer: str, doc: SourceDoc) -> None:
        self.value = value
        self.pointer = pointer
        self.key: str | None = None
        self.marks: dict[Any, tuple[int, int]] = doc.value_marks.setdefault(pointer, {})
        self.keys: dict[Any, tuple[int, int]] = doc.key_marks.setdefault(pointer, {})


class Builder:
    """Turns a libyaml event stream into plain data and node positions."""

    def __init__(self, doc: SourceDoc, check_text: bool = True) -> None:
        self.doc = doc
        self.check_text = check_text  # False when the whole file has no control character
        self.stack: list[Frame] = []
        self.nodes = 0
        self.documents = 0
        self.skip = 0  # depth of a refused subtree being skipped
        self.skip_mark = (0, 0)
        self.handlers: dict[type, Any] = {
            yaml.ScalarEvent: self.scalar,
            yaml.MappingStartEvent: self.open,
            yaml.SequenceStartEvent: self.open,
            yaml.MappingEndEvent: self.close,
            yaml.SequenceEndEvent: self.close,
            yaml.AliasEvent: self.alias,
            yaml.DocumentStartEvent: self.document,
        }

    def run(self, parser: Any) -> None:
        """Consume every event of ``parser`` (read directly: a generator costs a call per event)."""
        handlers = self.handlers
        next_event = parser.get_event
        try:
            while parser.check_event():
                handler = handlers.get(type(event := next_event()))
                if handler is not None:
                    handler(event)
        finally:
            parser.dispose()

    @staticmethod
    def mark(event: Any) -> tuple[int, int]:
        """Return the 1-based (line, col) where an event starts."""
        start = event.start_mark
        return (start.line + 1, start.column + 1)

    def document(self, event: Any) -> None:
        """Count documents: a record file holds one."""
        self.documents += 1
        if self.documents > 1:
            self.doc.problem(self.mark(event), "", "yaml.multiple-documents", "a record file holds one document")

    def alias(self, event: Any) -> None:
        """Refuse an alias, placing nothing in its stead."""
        if self.skip:
            return
        mark = self.mark(event)
        self.refuse(mark, "yaml.alias", "aliases are not allowed in records")
        self.place(None, mark)

    def refuse(self, mark: tuple[int, int], code: str, message: str) -> None:
        """Record a problem at the pointer being built."""
        self.doc.problem(mark, self.pointer_here(), code, message)

    def pointer_here(self) -> str:
        """Return the pointer of the node about to be placed."""
        if not self.stack:
            return ""
        top = self.stack[-1]
        if type(top.value) is list:
            return child_pointer(top.pointer, len(top.value))
        return child_pointer(top.pointer, top.key) if top.key is not None else top.pointer

    def check_node(self, event: Any, mark: tuple[int, int]) -> bool:
        """Count a node and refuse anchors, tags and excess; return False to skip it."""
        self.nodes += 1
        if self.nodes > MAX_NODES:
            if self.nodes == MAX_NODES + 1:
                self.refuse(mark, "yaml.too-many-nodes", f"more than {MAX_NODES} nodes")
            return False
        if event.anchor is not None:
            self.refuse(mark, "yaml.anchor", "anchors are not allowed in records")
        if event.tag is not None and not is_implicit(event):
            self.refuse(mark, "yaml.tag", f"explicit tag {event.tag!r} is not allowed")
            return False
        return True

    def open(self, event: Any) -> None:
        """Start a mapping or sequence."""
        mark = self.mark(event)
        if self.skip or len(self.stack) >= MAX_DEPTH or not self.check_node(event, mark):
            if not self.skip and len(self.stack) >= MAX_DEPTH:
                self.refuse(mark, "yaml.too-deep", f"nesting deeper than {MAX_DEPTH} levels")
            if not self.skip:
                self.skip_mark = mark
            self.skip += 1
            return
        top = self.stack[-1] if self.stack else None
        if top is not None and isinstance(top.value, dict) and top.key is None:
            self.refuse(mark, "yaml.key-type", "keys must be plain strings")
            top.key = COMPLEX_KEY
            self.skip_mark = mark
            self.skip += 1
            return
        value: dict[str, Any] | list[Any] = {} if type(event) is yaml.MappingStartEvent else []
        pointer = self.pointer_here()
        self.place(value, mark)
        self.stack.append(Frame(value, pointer, self.doc))

    def close(self, event: Any = None) -> None:
        """End the innermost mapping or sequence."""
        if self.skip:
            self.skip -= 1
            if self.skip == 0 and not (self.stack and self.stack[-1].key == COMPLEX_KEY):
                self.place(None, self.skip_mark)
            return
        self.stack.pop()

    def scalar(self, event: Any) -> None:
        """Place a scalar as a value or a key."""
        if self.skip:
            return
        start = event.start_mark
        mark = (start.line + 1, start.column + 1)
        ok = True
        if event.anchor is not None or event.tag is not None or self.nodes >= MAX_NODES:
            ok = self.check_node(event, mark)
        else:
            self.nodes += 1
        text = event.value
        # Only a double-quoted scalar can hold a character its source does not (an escape).
        if (self.check_text or event.style == '"') and BAD_CHAR_RE.search(text):
            self.bad_text(text, mark)
        value = resolve_plain(text) if not event.style and event.implicit[0] else text
        top = self.stack[-1] if self.stack else None
        if top is not None and top.key is None and type(top.value) is dict:
            self.take_key(top, value, mark)
            return
        self.place(value if ok else None, mark)

    def bad_text(self, text: str, mark: tuple[int, int]) -> None:
        """Refuse control and bidi characters (they hide or reorder text)."""
        char = BAD_CHAR_RE.search(text)
        assert char is not None
        message = f"control or bidi character U+{ord(char.group()):04X} is not allowed"
        self.refuse(mark, "text.control-char", message)

    def take_key(self, top: Frame, key: Any, mark: tuple[int, int]) -> None:
        """Accept a mapping key, refusing duplicates and non-strings."""
        if not isinstance(key, str):
            self.doc.problem(mark, top.pointer, "yaml.key-type", f"key {key!r} is not a string")
            key = str(key)
        if key in top.value:
            self.doc.problem(mark, child_pointer(top.pointer, key), "yaml.duplicate-key", f"duplicate key {key!r}")
            key = DUPLICATE_KEY
        top.key = key
        top.keys.setdefault(key, mark)

    def place(self, value: Any, mark: tuple[int, int]) -> None:
        """Put a finished value into its parent (or make it the document)."""
        if not self.stack:
            self.doc.data = value
            self.doc.root_mark = mark
            return
        top = self.stack[-1]
        container = top.value
        if type(container) is list:
            top.marks[len(container)] = mark
            container.append(value)
            return
        key = top.key if top.key is not None else COMPLEX_KEY
        top.key = None
        if key in (COMPLEX_KEY, DUPLICATE_KEY):
            return
        top.marks[key] = mark
        container[key] = value  # type: ignore[call-overload]


def is_implicit(event: Any) -> bool:
    """Return True when the event's tag was resolved, not written."""
    implicit = event.implicit
    if isinstance(implicit, tuple):
        return bool(implicit[0] or implicit[1])
    return bool(implicit)
