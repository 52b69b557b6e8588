"""Benchmark: `failpedia diagnose` against ripgrep with the same patterns, on one big log.

Generates a realistic multi-rank log (step lines, NCCL INFO chatter, warnings, tracebacks
and a few real failures from tests/realworld), then times, in the same run:
  - `rg -c -f failpedia.rg LOG` (the grep export's ripgrep patterns),
  - `failpedia diagnose --json LOG` (the full signature library),
and prints throughput, their ratio (ours / ripgrep; >= 1.0 means at least as fast), the
peak memory of the diagnosis and the start-up plus pattern-compile time.
Each tool runs N times, alternating, and the fastest run of each is compared (the
machine's neighbours add noise, never speed).
Usage: python bench/diagnose.py [SIZE_MIB] [N]   (defaults 1024 and 3)
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
REALWORLD = ROOT / "tests" / "realworld"


def corpus(kind: str) -> list[list[str]]:
    """Return the logs of one part of the real-world corpus, as lists of lines."""
    logs = []
    for path in sorted((REALWORLD / kind).glob("*.yaml")):
        logs.append(yaml.safe_load(path.read_text(encoding="utf-8"))["log"].splitlines())
    return logs


def healthy_chunk(rng: random.Random, size: int) -> bytes:
    """Return about ``size`` bytes of healthy multi-rank training output."""
    benign = [line for log in corpus("benign") for line in log]
    lines = []
    total = step = 0
    while total < size:
        rank = rng.randrange(64)
        roll = rng.random()
        if roll < 0.6:
            loss = rng.uniform(1.5, 3.0)
            line = f"[rank{rank}]: step {step} | loss {loss:.4f} | grad_norm {rng.uniform(0.2, 2):.3f} | lr 3.0e-04"
            step += 1
        elif roll < 0.9:
            line = f"[default{rank % 8}]:" + rng.choice(benign)
        else:
            line = f'[rank{rank}]:   File "/opt/train/model.py", line {rng.randrange(900)}, in forward'
        lines.append(line)
        total += len(line) + 1
    return ("\n".join(lines) + "\n").encode()


def write_log(path: Path, size: int, seed: int = 7) -> None:
    """Write a log of ``size`` bytes with a few real failures spread through it."""
    rng = random.Random(seed)
    chunk = healthy_chunk(rng, 8 << 20)
    failures = corpus("failures")
    written = 0
    with path.open("wb") as out:
        while written < size:
            out.write(chunk)
            written += len(chunk)
            if rng.random() < 0.25:
                excerpt = ("\n".join(rng.choice(failures)) + "\n").encode()
                out.write(excerpt)
                written += len(excerpt)


PEAK = (
    "import resource, subprocess, sys; subprocess.run(sys.argv[1:]); "
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)"
)


def timed(command: list[str], cwd: Path) -> tuple[float, int, bytes]:
    """Return (seconds, peak RSS in KiB of that command alone, stdout)."""
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-c", PEAK, *command], cwd=cwd, capture_output=True, check=False)
    if b"Traceback" in result.stderr:
        raise SystemExit(f"{command[0]} failed: {result.stderr.decode()[-800:]}")
    seconds = time.perf_counter() - start
    peak = int(result.stderr.decode().strip().splitlines()[-1])
    return seconds, peak, result.stdout


def wall(command: list[str], cwd: Path) -> float:
    """Return the seconds one run of ``command`` takes, started directly (no measuring interpreter around it)."""
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, capture_output=True, check=False)  # exit 1: nothing matched
    return time.perf_counter() - start


def main() -> None:
    size = int(sys.argv[1]) << 20 if len(sys.argv) > 1 else 1 << 30
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    rg = shutil.which("rg")
    if rg is None:
        raise SystemExit("ripgrep (rg) is needed for the reference measurement")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        log = work / "job.log"
        write_log(log, size)
        actual = log.stat().st_size
        export = [sys.executable, "-m", "generator", "export", "--format", "grep", "-o", str(work / "grep")]
        subprocess.run(export, cwd=ROOT, check=True)
        os.sync()
        log.read_bytes() if actual < (2 << 30) else None  # warm the page cache for both tools
        rg_command = [rg, "-c", "-f", str(work / "grep" / "failpedia.rg"), str(log)]
        ours_command = [sys.executable, "-m", "generator", "diagnose", "--json", str(log)]
        empty_command = [sys.executable, "-m", "generator", "diagnose", "--json", os.devnull]
        os.environ["FAILPEDIA_CACHE_DIR"] = str(work / "cache")
        cold_s = timed(empty_command, ROOT)[0]
        startup_s = min(wall(empty_command, ROOT) for _ in range(repeats))
        rg_runs, ours_runs = [], []
        for _ in range(repeats):
            rg_runs.append(timed(rg_command, ROOT)[0])
            ours_runs.append(timed(ours_command, ROOT))
        rg_s = min(rg_runs)
        ours_s, peak_kib, out = min(ours_runs)
        peak_kib = max(run[1] for run in ours_runs)
    gb = actual / 1e9
    print(f"log: {actual / 2**20:.0f} MiB")
    print(f"ripgrep:   {rg_s:6.2f} s  {gb / rg_s:5.2f} GB/s")
    print(f"failpedia: {ours_s:6.2f} s  {gb / ours_s:5.2f} GB/s  peak RSS {peak_kib / 1024:.0f} MiB")
    print(f"ratio (failpedia throughput / ripgrep throughput): {rg_s / ours_s:.2f} (fastest of {repeats} each)")
    print(
        f"start-up + load records + compile patterns (empty input): {startup_s:.2f} s with the cache, "
        f"{cold_s:.2f} s with an empty cache (validates and compiles, then fills it)"
    )
    findings = json.loads(out)["findings"]
    print(f"top findings: {[f['id'] for f in findings]}")


if __name__ == "__main__":
    main()
