"""`failpedia run -- CMD`: run a training command, pass its output through, keep a copy to diagnose.

The command's stdout and stderr are copied through unchanged, chunk by chunk, and also to a
capture file on disk (a temporary one unless the user names it), so memory stays bounded
however much the command prints. Standard input is inherited. Signals sent to the wrapper
(SIGINT, SIGTERM, SIGHUP) are forwarded to the command; the wrapper's status is the
command's own, or 128+N when it died of signal N.
"""

from __future__ import annotations

import signal
import subprocess
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

CHUNK = 1 << 16
MAX_PARTIAL = 1 << 20  # a line longer than this is captured in pieces: memory stays bounded
FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


@dataclass(frozen=True)
class Ran:
    """How the command ended, and where its output was captured."""

    status: int  # the exit code, or 128+N for signal N
    capture: Path


def pump(source: IO[bytes], target: IO[bytes], capture: IO[bytes], lock: threading.Lock) -> None:
    """Copy a pipe to its terminal stream as it comes, and whole lines of it to the capture file."""
    pending = b""
    while chunk := source.read1(CHUNK):  # type: ignore[attr-defined]
        target.write(chunk)
        target.flush()
        pending += chunk
        cut = pending.rfind(b"\n") + 1 if len(pending) < MAX_PARTIAL else len(pending)
        if cut:
            with lock:  # the other stream's lines never land inside this one's
                capture.write(pending[:cut])
            pending = pending[cut:]
    if pending:
        with lock:
            capture.write(pending + b"\n")


def exit_status(returncode: int) -> int:
    """Return the shell's view of a child's end: its code, or 128+N for signal N."""
    return 128 - returncode if returncode < 0 else returncode


@contextmanager
def forwarding(process: subprocess.Popen[bytes]) -> Iterator[None]:
    """Forward SIGINT, SIGTERM and SIGHUP to the command while it runs."""

    def forward(signum: int, frame: Any) -> None:
        if process.poll() is None:
            process.send_signal(signum)

    previous = {sig: signal.signal(sig, forward) for sig in FORWARDED}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def run_command(argv: Sequence[str], capture_path: Path, out: IO[bytes], err: IO[bytes]) -> Ran:
    """Run ``argv`` with its output copied to ``out``/``err`` and to ``capture_path``; return how it ended."""
    lock = threading.Lock()
    with capture_path.open("wb") as capture:
        process = subprocess.Popen(list(argv), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert process.stdout is not None and process.stderr is not None
        with forwarding(process):
            pumps = [
                threading.Thread(target=pump, args=(process.stdout, out, capture, lock), daemon=True),
                threading.Thread(target=pump, args=(process.stderr, err, capture, lock), daemon=True),
            ]
            for thread in pumps:
                thread.start()
            returncode = process.wait()
            for thread in pumps:
                thread.join()
    return Ran(exit_status(returncode), capture_path)
