"""Read YAML records strictly, keeping the position of every node.

The loader walks libyaml's event stream itself instead of using a constructor, so that
aliases, anchors, tags, duplicate keys and non-string keys are refused with a location,
and plain scalars resolve by a small fixed rule set: dates and yes/no stay strings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from generator.errors import Issue, Location
from generator.locate import child_pointer

MAX_BYTES = 256 * 1024
MAX_DEPTH = 32
MAX_NODES = 20_000

try:
    PARSER: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - libyaml missing: slower, same behaviour
    PARSER = yaml.SafeLoader

INT_RE = re.compile(r"[-+]?(?:0|[1-9][0-9]*)\Z")
FLOAT_RE = re.compile(r"[-+]?(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?\Z")
NULLS = frozenset({"", "~", "null", "Null", "NULL"})
COMPLEX_KEY = "\x00complex"
BOOLS = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}


@dataclass
class SourceDoc:
    """One loaded file: its data, where each value and key stands, and load problems."""

    path: str
    data: Any = None
    value_locs: dict[str, tuple[int, int]] = field(default_factory=dict)
    key_locs: dict[str, tuple[int, int]] = field(default_factory=dict)
    issues: list[Issue] = field(default_factory=list)

    def location(self, line: int, col: int) -> Location:
        """Return a Location in this file."""
        return Location(self.path, line, col)

    def problem(self, mark: tuple[int, int], pointer: str, code: str, message: str) -> None:
        """Record a load problem at ``mark``."""
        self.issues.append(Issue(self.location(*mark), pointer, code, message))


def resolve_plain(text: str) -> Any:
    """Return the value of a plain (unquoted) scalar under the fixed rules."""
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
        Builder(doc).run(yaml.parse(text, Loader=PARSER))
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
    """A mapping or sequence being built."""

    __slots__ = ("value", "pointer", "key", "key_mark")

    def __init__(self, value: dict[str, Any] | list[Any], pointer: str) -> None:
        self.value = value
        self.pointer = pointer
        self.key: str | None = None
        self.key_mark: tuple[int, int] = (0, 0)


class Builder:
    """Turns a libyaml event stream into plain data and node positions."""

    def __init__(self, doc: SourceDoc) -> None:
        self.doc = doc
        self.stack: list[Frame] = []
        self.nodes = 0
        self.documents = 0
        self.skip = 0  # depth of a refused subtree being skipped
        self.skip_mark = (0, 0)

    def run(self, events: Any) -> None:
        """Consume every event."""
        for event in events:
            self.on_event(event)

    def on_event(self, event: Any) -> None:
        """Dispatch one event."""
        mark = (event.start_mark.line + 1, event.start_mark.column + 1)
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            self.open(event, mark)
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            self.close()
        elif isinstance(event, yaml.ScalarEvent):
            self.scalar(event, mark)
        elif isinstance(event, yaml.AliasEvent):
            self.refuse(mark, "yaml.alias", "aliases are not allowed in records")
            self.place(None, mark)
        elif isinstance(event, yaml.DocumentStartEvent):
            self.documents += 1
            if self.documents > 1:
                self.doc.problem(mark, "", "yaml.multiple-documents", "a record file holds one document")

    def refuse(self, mark: tuple[int, int], code: str, message: str) -> None:
        """Record a problem at the pointer being built."""
        self.doc.problem(mark, self.pointer_here(), code, message)

    def pointer_here(self) -> str:
        """Return the pointer of the node about to be placed."""
        if not self.stack:
            return ""
        top = self.stack[-1]
        if isinstance(top.value, list):
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

    def open(self, event: Any, mark: tuple[int, int]) -> None:
        """Start a mapping or sequence."""
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
            self.skip += 1
            return
        value: dict[str, Any] | list[Any] = {} if isinstance(event, yaml.MappingStartEvent) else []
        pointer = self.pointer_here()
        self.place(value, mark)
        self.stack.append(Frame(value, pointer))

    def close(self) -> None:
        """End the innermost mapping or sequence."""
        if self.skip:
            self.skip -= 1
            if self.skip == 0 and not (self.stack and self.stack[-1].key == COMPLEX_KEY):
                self.place(None, self.skip_mark)
            return
        self.stack.pop()

    def scalar(self, event: Any, mark: tuple[int, int]) -> None:
        """Place a scalar as a value or a key."""
        if self.skip:
            return
        ok = self.check_node(event, mark)
        value = resolve_plain(event.value) if event.implicit[0] and not event.style else event.value
        top = self.stack[-1] if self.stack else None
        if top is not None and isinstance(top.value, dict) and top.key is None:
            self.take_key(top, value, mark)
            return
        self.place(value if ok else None, mark)

    def take_key(self, top: Frame, key: Any, mark: tuple[int, int]) -> None:
        """Accept a mapping key, refusing duplicates and non-strings."""
        if not isinstance(key, str):
            self.doc.problem(mark, top.pointer, "yaml.key-type", f"key {key!r} is not a string")
            key = str(key)
        pointer = child_pointer(top.pointer, key)
        if key in top.value:
            self.doc.problem(mark, pointer, "yaml.duplicate-key", f"duplicate key {key!r}")
            key = "\x00duplicate"
        top.key, top.key_mark = key, mark
        self.doc.key_locs.setdefault(pointer, mark)

    def place(self, value: Any, mark: tuple[int, int]) -> None:
        """Put a finished value into its parent (or make it the document)."""
        if not self.stack:
            self.doc.data = value
            self.doc.value_locs[""] = mark
            return
        top = self.stack[-1]
        if isinstance(top.value, list):
            self.doc.value_locs.setdefault(child_pointer(top.pointer, len(top.value)), mark)
            top.value.append(value)
            return
        key = top.key if top.key is not None else COMPLEX_KEY
        top.key = None
        if key.startswith("\x00"):
            return
        self.doc.value_locs.setdefault(child_pointer(top.pointer, key), mark)
        top.value[key] = value


def is_implicit(event: Any) -> bool:
    """Return True when the event's tag was resolved, not written."""
    implicit = event.implicit
    if isinstance(implicit, tuple):
        return bool(implicit[0] or implicit[1])
    return bool(implicit)
