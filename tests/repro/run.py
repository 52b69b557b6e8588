"""Run the live-fire reproductions, capture what they print and check that diagnose names their record.

Usage: python tests/repro/run.py [--gpu] [--timeout SECONDS] [SCRIPT ...]
Needs torch in the running interpreter's environment (make live builds one); not collected by pytest.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
SKIP = "skip"


@dataclass(frozen=True)
class Outcome:
    """One script's run: what it expected, what diagnose found first, the evidence lines."""

    script: str
    expect: str
    found: str
    seconds: float
    lines: tuple[str, ...]

    @property
    def passed(self) -> bool:
        """Return True when the first finding is the expected record."""
        return self.found == self.expect

    @property
    def skipped(self) -> bool:
        """Return True when the script said it cannot run with this torch (a line starting "skip:")."""
        return self.found == SKIP


def scripts(gpu: bool, names: list[str]) -> list[Path]:
    """Return the reproduction scripts to run, sorted."""
    found = sorted(HERE.glob("[a-z]*.py")) + (sorted((HERE / "gpu").glob("[a-z]*.py")) if gpu else [])
    found = [path for path in found if path.name != "run.py"]
    return [path for path in found if not names or path.name in names or path.stem in names]


def expected(path: Path) -> str:
    """Return the script's module constant EXPECT (read without importing it)."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "EXPECT" for t in node.targets):
            return str(ast.literal_eval(node.value))
    raise SystemExit(f"{path}: no EXPECT constant")


def torch_version() -> str:
    """Return the installed torch's version string."""
    command = [sys.executable, "-c", "import torch; print(torch.__version__)"]
    return subprocess.run(command, capture_output=True, text=True, check=True).stdout.strip()


def capture(path: Path, log: Path, timeout: float) -> float:
    """Run one script with stdout and stderr into `log`; return the seconds it took."""
    start = time.monotonic()
    with log.open("wb") as sink:
        child = subprocess.Popen(
            [sys.executable, path.name], cwd=path.parent, stdout=sink, stderr=subprocess.STDOUT, start_new_session=True
        )
        try:
            child.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            sink.write(f"\n[run.py] timed out after {timeout:g} s\n".encode())
        finally:
            stop_group(child)
    return time.monotonic() - start


def stop_group(child: subprocess.Popen[bytes]) -> None:
    """Kill whatever the script left running in its process group (its ranks, a compiler, a store)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(child.pid, signal.SIGKILL)
    child.wait()


def diagnose(log: Path) -> tuple[str, tuple[str, ...]]:
    """Return diagnose's first finding for the log and the lines that were its evidence."""
    command = [sys.executable, "-m", "generator", "diagnose", "--json", str(log)]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    # Exit 2 also comes with findings when the log has NUL bytes (torch's worker signal handlers write one).
    findings = json.loads(result.stdout)["findings"] if result.stdout.strip() else []
    if not findings:
        return "-", ()
    return findings[0]["id"], tuple(dict.fromkeys(e["text"] for e in findings[0]["evidence"]))


def run_one(path: Path, out: Path, timeout: float) -> Outcome:
    """Run one script, diagnose its capture and return the outcome."""
    log = out / path.relative_to(HERE).with_suffix(".log")
    log.parent.mkdir(parents=True, exist_ok=True)
    seconds = capture(path, log, timeout)
    said = log.read_bytes().decode("utf-8", "replace").strip().splitlines()
    found, lines = (SKIP, ()) if said and said[-1].startswith("skip:") else diagnose(log)
    return Outcome(str(path.relative_to(HERE)), expected(path), found, seconds, lines)


def report(outcomes: list[Outcome], version: str, out: Path) -> None:
    """Print the table and write summary.json next to the captures."""
    print(f"torch {version}")
    print(f"{'script':40} {'expected record':30} {'first finding':30} {'s':>6}  result")
    for o in outcomes:
        verdict = "pass" if o.passed else SKIP if o.skipped else "FAIL"
        print(f"{o.script:40} {o.expect:30} {o.found:30} {o.seconds:6.1f}  {verdict}")
    passed = {o.expect for o in outcomes if o.passed}
    counts = (
        f"{sum(o.passed for o in outcomes)}/{len(outcomes)} scripts pass, {sum(o.skipped for o in outcomes)} skipped"
    )
    print(f"{counts}; {len(passed)} records reproduced")
    rows = [{**vars(o), "lines": list(o.lines), "passed": o.passed} for o in outcomes]
    summary = {"torch": version, "results": rows}
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")


def main() -> int:
    """Run the selected scripts and return 1 when any of them was not diagnosed as its record."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpu", action="store_true", help="also run tests/repro/gpu/ (needs a CUDA device)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per script")
    parser.add_argument("names", nargs="*", help="scripts to run (default: all)")
    args = parser.parse_args()
    version = torch_version()
    out = HERE / "out" / version
    out.mkdir(parents=True, exist_ok=True)
    outcomes = [run_one(path, out, args.timeout) for path in scripts(args.gpu, args.names)]
    report(outcomes, version, out)
    return 0 if any(o.passed for o in outcomes) and all(o.passed or o.skipped for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
