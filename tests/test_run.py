"""failpedia run -- CMD: output passed through, a diagnosis on failure, the command's status, signals forwarded."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OOM = (
    "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. "
    "GPU 3 has a total capacity of 79.15 GiB of which 1.02 GiB is free."
)


def wrap(*command: str, stdin: bytes = b"", extra: tuple[str, ...] = ()) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "FAILPEDIA_CACHE_DIR": str(ROOT / ".pytest-run-cache")}
    argv = [sys.executable, "-m", "generator", "run", "--catalog", str(ROOT), *extra, "--", *command]
    return subprocess.run(argv, input=stdin, capture_output=True, env=env, timeout=300)


def test_a_failure_is_passed_through_then_diagnosed_with_its_status() -> None:
    script = f"import sys; print('step 1', flush=True); print({OOM!r}, file=sys.stderr); sys.exit(3)"
    result = wrap(sys.executable, "-c", script)
    assert result.returncode == 3
    assert result.stdout == b"step 1\n"
    head, _, diagnosis = result.stderr.decode().partition("failpedia: the command ended with status 3")
    assert head == OOM + "\n\n"
    # The two streams reach the capture in either order, each line whole.
    assert "1. CUDA out of memory" in diagnosis and re.search(r"output\.log:[12]: " + re.escape(OOM), diagnosis)


def test_a_signal_death_is_128_plus_n() -> None:
    result = wrap(sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)")
    assert result.returncode == 128 + signal.SIGKILL
    assert b"ended with status 137" in result.stderr


def test_success_adds_nothing_and_stdin_passes_through() -> None:
    result = wrap(sys.executable, "-c", "print(input().upper())", stdin=b"hello\n")
    assert (result.returncode, result.stdout, result.stderr) == (0, b"HELLO\n", b"")


def test_the_log_option_keeps_the_output(tmp_path: Path) -> None:
    log = tmp_path / "job.log"
    result = wrap(sys.executable, "-c", "print('a'); print('b')", extra=("--log", str(log)))
    assert result.returncode == 0 and log.read_bytes() == b"a\nb\n"


def test_a_missing_command_is_127() -> None:
    result = wrap("/nonexistent/trainer")
    assert result.returncode == 127 and b"cannot run '/nonexistent/trainer'" in result.stderr


def test_ctrl_c_reaches_the_command() -> None:
    env = {**os.environ, "FAILPEDIA_CACHE_DIR": str(ROOT / ".pytest-run-cache")}
    child = (
        "import signal, sys, time\nsignal.signal(signal.SIGINT, lambda *a: sys.exit(42))\n"
        "print('ready', flush=True)\ntime.sleep(60)"
    )
    argv = [sys.executable, "-m", "generator", "run", "--catalog", str(ROOT), "--", sys.executable, "-c", child]
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env) as wrapper:
        assert wrapper.stdout is not None
        assert wrapper.stdout.readline() == b"ready\n"
        wrapper.send_signal(signal.SIGINT)  # to the wrapper alone: it must forward it
        assert wrapper.wait(timeout=60) == 42  # the child's SIGINT handler, not the end of its sleep


def test_memory_stays_bounded_on_a_large_output(tmp_path: Path) -> None:
    # A fresh harness process runs the wrapper, so its peak child RSS covers the wrapper and the
    # printer alone (pytest's own earlier children - builds, browsers - would count otherwise).
    script = "import sys\nline = b'x' * 1023 + b'\\n'\nfor _ in range(300_000): sys.stdout.buffer.write(line)"
    out = tmp_path / "out.bin"
    wrapper = [sys.executable, "-m", "generator", "run", "--catalog", str(ROOT), "--", sys.executable, "-c", script]
    harness = (
        "import resource, subprocess, sys\n"
        f"with open({str(out)!r}, 'wb') as sink: code = subprocess.run({wrapper!r}, stdout=sink).returncode\n"
        "print(code, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    env = {**os.environ, "FAILPEDIA_CACHE_DIR": str(ROOT / ".pytest-run-cache")}
    result = subprocess.run([sys.executable, "-c", harness], capture_output=True, text=True, env=env, timeout=300)
    code, peak_kib = (int(value) for value in result.stdout.split())
    assert code == 0 and out.stat().st_size == 300_000 * 1024
    assert peak_kib < 200 * 1024, f"the wrapper peaked at {peak_kib} KiB while 293 MiB passed through"
