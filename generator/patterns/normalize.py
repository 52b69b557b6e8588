"""The one log-normalisation step shared by the matcher, the tests and the browser page.

Every rule here has a twin in ``overrides/assets/javascripts/normalize.js``; the shared
vectors in ``tests/vectors/normalize.json`` hold both to the same behaviour.
"""

from __future__ import annotations

import re

# ANSI/VT escape sequences: CSI (colours, cursor), OSC (window title, clipboard), and
# two-character escapes. Stripped so that colour codes cannot split an error word.
ANSI_RE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"
    r"|\x1b[@-Z\\-_]"
)

# Prefixes that launchers, loggers and NCCL put before the message. They are removed
# from the start of the line, repeatedly, so that patterns see the message itself.
PREFIX_RE = re.compile(
    r"(?:"
    r"\[(?:rank|default|local_rank)?\d+\]:?"  # [rank3]: [default0]: [3]:
    r"|\[\d+,\d+\]<std(?:out|err)>:"  # mpirun --tag-output: [1,0]<stderr>:
    r"|\d{1,5}: "  # srun -l: "12: "
    r"|\[?\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\]?"  # ISO time
    r"|\[ *\d+\.\d+\]"  # dmesg: [ 1234.567890]
    r"|[\w.-]+:\d+:\d+ \[\d+\]"  # NCCL: host:pid:tid [dev]
    r")[ \t]*",
    re.ASCII,
)

# The host of NCCL's "host:pid:tid [dev]" prefix (cause conditions `host:` read it).
HOST_RE = re.compile(r"([\w.-]+):\d+:\d+ \[\d+\]", re.ASCII)

MAX_PREFIXES = 8
# Exactly the characters both Python and the browser strip from the end of a line.
TRAILING_SPACE = " \t\r\n\f\v"


def strip_ansi(text: str) -> str:
    """Return ``text`` without ANSI escape sequences."""
    return ANSI_RE.sub("", text)


def strip_prefixes(text: str) -> str:
    """Return ``text`` without leading rank, timestamp and host:pid:tid prefixes."""
    text = text.lstrip(" \t")
    for _ in range(MAX_PREFIXES):
        match = PREFIX_RE.match(text)
        if match is None or match.end() == 0:
            break
        text = text[match.end() :]
    return text


def line_host(line: str) -> str | None:
    """Return the host a line's NCCL prefix names ("node7:123:456 [0] ..." -> "node7"), or None."""
    text = strip_ansi(line).lstrip(" \t")
    for _ in range(MAX_PREFIXES):
        match = PREFIX_RE.match(text)
        if match is None or match.end() == 0:
            return None
        host = HOST_RE.match(text)
        if host is not None:
            return host.group(1)
        text = text[match.end() :]
    return None


def normalize_line(line: str) -> str:
    """Return the line as patterns see it: no ANSI codes, no prefixes, no trailing space."""
    return strip_prefixes(strip_ansi(line) if "\x1b" in line else line).rstrip(TRAILING_SPACE)
