"""Read YAML records strictly, keeping the position of every node.

The loader walks libyaml's event stream itself instead of using a constructor, so that
aliases, anchors, tags, duplicate keys and non-string keys are refused with a location,
and plain scalars resolve by a small fixed rule set: dates and yes/no stay strings.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path
from typing import Any

import yaml

from generator.records.locate import child_pointer
from generator.records.source import SourceDoc

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
CONTROL_OR_BIDI = "\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
# Every invisible format character (Unicode 14 category Cf: U+200B, U+2060, U+FEFF, tags, ...).
FORMAT = (
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U00013438"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f"
)
BAD_CHAR_RE = re.compile(f"[{CONTROL_OR_BIDI}{FORMAT}]")
CONTROL_OR_BIDI_RE = re.compile(f"[{CONTROL_OR_BIDI}]")
NULLS = frozenset({"", "~", "null", "Null", "NULL"})
COMPLEX_KEY = "\x00complex"
DUPLICATE_KEY = "\x00duplicate"
# First characters of every plain scalar that resolves to something other than a string.
MAYBE_SPECIAL = frozenset("~nNtTfF+-.0123456789")
BOOLS = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
Token = str | int | None  # where a node sits in its parent: a key, an index, or None for the parent


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
        Reader(doc, PARSER(text), check_text=BAD_CHAR_RE.search(text) is not None).run()
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
    raw = read_source(path, name)
    return raw if isinstance(raw, SourceDoc) else load_text(name, raw)


def read_source(path: Path, name: str) -> bytes | SourceDoc:
    """Return a file's bytes (up to one past the size limit), or a SourceDoc saying why not."""
    try:
        with path.open("rb") as handle:
            return handle.read(MAX_BYTES + 1)
    except OSError as exc:
        doc = SourceDoc(name)
        doc.problem((0, 0), "", "file.unreadable", exc.strerror or str(exc))
        return doc


OPENERS = (yaml.MappingStartEvent, yaml.SequenceStartEvent)
CLOSERS = (yaml.MappingEndEvent, yaml.SequenceEndEvent)


class Reader:
    """Turns a libyaml event stream into plain data and node positions.

    A recursive descent: each container reads its own children, so a child needs no stack
    frame and a scalar's pointer is only formatted when something is wrong with it.
    """

    def __init__(self, doc: SourceDoc, parser: Any, check_text: bool = True) -> None:
        self.doc = doc
        self.parser = parser
        self.next_event = parser.get_event  # read directly: a generator costs a call per event
        self.check_text = check_text  # False when the whole file has no control character
        self.nodes = 0
        self.depth = 0

    def run(self) -> None:
        """Read every document of the stream; the last one's root is the data."""
        documents = 0
        try:
            while (event := self.next_event()) is not None:
                kind = type(event)
                if kind is yaml.DocumentStartEvent:
                    documents += 1
                    if documents > 1:
                        self.doc.problem(mark(event), "", "yaml.multiple-documents", "a record file holds one document")
                elif kind is yaml.ScalarEvent or kind is yaml.AliasEvent or kind in OPENERS:
                    self.doc.root_mark = where = mark(event)
                    self.doc.data = self.value(event, where, "", None)
        finally:
            self.parser.dispose()

    def value(self, event: Any, where: tuple[int, int], parent: str, token: Token) -> Any:
        """Return the value of the node that starts with ``event`` (None when refused)."""
        kind = type(event)
        if kind is yaml.ScalarEvent:
            return self.scalar(event, where, parent, token)
        if kind is yaml.AliasEvent:
            self.refuse(where, parent, token, "yaml.alias", "aliases are not allowed in records")
            return None
        if self.depth >= MAX_DEPTH:
            self.refuse(where, parent, token, "yaml.too-deep", f"nesting deeper than {MAX_DEPTH} levels")
            self.skip()
            return None
        if not self.check_node(event, where, parent, token):
            self.skip()
            return None
        pointer = parent if token is None else child_pointer(parent, token)
        self.depth += 1
        data = self.mapping(pointer) if kind is yaml.MappingStartEvent else self.sequence(pointer)
        self.depth -= 1
        return data

    def mapping(self, pointer: str) -> dict[str, Any]:
        """Read a mapping's entries up to its end event."""
        data: dict[str, Any] = {}
        marks = self.doc.value_marks.setdefault(pointer, {})
        keys = self.doc.key_marks.setdefault(pointer, {})
        next_event = self.next_event
        while type(event := next_event()) is not yaml.MappingEndEvent:
            key_mark = mark(event)
            key = self.key(event, key_mark, pointer, data)
            event = next_event()
            where = mark(event)
            if type(event) is yaml.ScalarEvent:
                item = self.scalar(event, where, pointer, key)
            else:
                item = self.value(event, where, pointer, key)
            if key is not COMPLEX_KEY and key is not DUPLICATE_KEY:
                keys[key] = key_mark
                marks[key] = where
                data[key] = item
        return data

    def sequence(self, pointer: str) -> list[Any]:
        """Read a sequence's items up to its end event."""
        data: list[Any] = []
        marks = self.doc.value_marks.setdefault(pointer, {})
        next_event = self.next_event
        while type(event := next_event()) is not yaml.SequenceEndEvent:
            index = len(data)
            marks[index] = where = mark(event)
            if type(event) is yaml.ScalarEvent:
                data.append(self.scalar(event, where, pointer, index))
            else:
                data.append(self.value(event, where, pointer, index))
        return data

    def key(self, event: Any, where: tuple[int, int], pointer: str, data: dict[str, Any]) -> str:
        """Return a mapping key, refusing duplicates and anything but a plain string."""
        if type(event) is not yaml.ScalarEvent:
            if type(event) is yaml.AliasEvent:
                self.refuse(where, pointer, None, "yaml.alias", "aliases are not allowed in records")
            else:
                self.check_node(event, where, pointer, None)
                self.refuse(where, pointer, None, "yaml.key-type", "keys must be plain strings")
                self.skip()
            return COMPLEX_KEY
        key = self.scalar(event, where, pointer, None, keep=True)
        if not isinstance(key, str):
            self.doc.problem(where, pointer, "yaml.key-type", f"key {key!r} is not a string")
            key = str(key)
        if key in data:
            self.doc.problem(where, child_pointer(pointer, key), "yaml.duplicate-key", f"duplicate key {key!r}")
            return DUPLICATE_KEY
        return key

    def scalar(self, event: Any, where: tuple[int, int], parent: str, token: Token, keep: bool = False) -> Any:
        """Return a scalar's value (None when refused, unless ``keep``: keys are kept)."""
        if event.anchor is None and event.tag is None and self.nodes < MAX_NODES:
            self.nodes += 1
        elif not self.check_node(event, where, parent, token) and not keep:
            return None
        text = event.value
        # Only a double-quoted scalar can hold a character its source does not (an escape).
        if (self.check_text or event.style == '"') and BAD_CHAR_RE.search(text):
            self.bad_text(text, where, parent, token)
        return resolve_plain(text) if not event.style and event.implicit[0] else text

    def check_node(self, event: Any, where: tuple[int, int], parent: str, token: Token) -> bool:
        """Count a node and refuse anchors, tags and excess; return False to drop it."""
        self.nodes += 1
        if self.nodes > MAX_NODES:
            if self.nodes == MAX_NODES + 1:
                self.refuse(where, parent, token, "yaml.too-many-nodes", f"more than {MAX_NODES} nodes")
            return False
        if event.anchor is not None:
            self.refuse(where, parent, token, "yaml.anchor", "anchors are not allowed in records")
        if event.tag is not None and not is_implicit(event):
            self.refuse(where, parent, token, "yaml.tag", f"explicit tag {event.tag!r} is not allowed")
            return False
        return True

    def bad_text(self, text: str, where: tuple[int, int], parent: str, token: Token) -> None:
        """Refuse control and bidi characters (they hide or reorder text)."""
        char = BAD_CHAR_RE.search(text)
        assert char is not None
        message = bad_char_message(char.group())
        self.refuse(where, parent, token, "text.control-char", message)

    def refuse(self, where: tuple[int, int], parent: str, token: Token, code: str, message: str) -> None:
        """Record a problem at the node ``token`` of ``parent`` (``parent`` itself for None)."""
        pointer = parent if token is None or token is COMPLEX_KEY else child_pointer(parent, token)
        self.doc.problem(where, pointer, code, message)

    def skip(self) -> None:
        """Consume the rest of a refused container, whatever it holds."""
        depth = 1
        while depth:
            event = self.next_event()
            if event is None:  # the stream ended (the parser reports why)
                return
            kind = type(event)
            if kind in OPENERS:
                depth += 1
            elif kind in CLOSERS:
                depth -= 1


def bad_char_message(char: str) -> str:
    """Return why ``char`` is refused in record text, naming it."""
    if CONTROL_OR_BIDI_RE.match(char):
        return f"control or bidi character U+{ord(char):04X} is not allowed"
    name = unicodedata.name(char, "unnamed")
    return f"invisible format character U+{ord(char):04X} ({name}) is not allowed: readers cannot see it"


def mark(event: Any) -> tuple[int, int]:
    """Return the 1-based (line, col) where an event starts."""
    start = event.start_mark
    return (start.line + 1, start.column + 1)


def is_implicit(event: Any) -> bool:
    """Return True when the event's tag was resolved, not written."""
    implicit = event.implicit
    if isinstance(implicit, tuple):
        return bool(implicit[0] or implicit[1])
    return bool(implicit)
