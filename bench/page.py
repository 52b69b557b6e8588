"""Benchmark: the /diagnose/ page in headless Chromium against `failpedia diagnose`, same log.

Builds the site, writes the multi-rank log of bench/diagnose.py, then in the same run:
  - chooses the log in the page's file input and times the click until #findings is done
    (the worker: RE2JS behind the needle prefilter), recording main-thread long tasks;
  - times `failpedia diagnose --json LOG`;
and prints both throughputs, their ratio, the longest main-thread task and whether the two
found the same records in the same order.
Usage: python bench/page.py [SIZE_MIB]   (default 100)
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from diagnose import ROOT, write_log

CHROMIUM = os.environ.get("FAILPEDIA_CHROMIUM", "/usr/bin/chromium")
# Main-thread tasks over 50 ms that start after the click (page load is not the diagnosis).
LONG_TASKS = """window.__longest = 0;
document.getElementById("diagnose-run").addEventListener("click", () => { window.__clicked = performance.now(); });
new PerformanceObserver((list) => list.getEntries().forEach((e) => {
  if (window.__clicked === undefined || e.startTime < window.__clicked - 1) return;
  window.__longest = Math.max(window.__longest, e.duration);
})).observe({type: "longtask"});"""


class Quiet(SimpleHTTPRequestHandler):
    """A static file handler that does not log every request."""

    def log_message(self, format: str, *args: object) -> None:
        """Log nothing."""


def build_site(target: Path) -> None:
    """Build the site into ``target`` with the project's records."""
    command = [sys.executable, "-m", "generator", "build", "--site-dir", str(target)]
    subprocess.run(command, cwd=ROOT, check=True, capture_output=True)


def page_run(site: Path, log: Path) -> tuple[float, float, list[str]]:
    """Return (seconds, longest main-thread task in ms from the click, finding ids) for the page on ``log``."""
    from playwright.sync_api import sync_playwright

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"], headless=True)
            page = browser.new_page()
            page.goto(f"http://127.0.0.1:{server.server_port}/diagnose/")
            page.wait_for_load_state("networkidle")
            page.evaluate(LONG_TASKS)
            page.set_input_files("#log-files", str(log))
            start = time.perf_counter()
            page.click("#diagnose-run")
            page.wait_for_selector("#findings[data-state=done]", state="attached", timeout=600_000)
            seconds = time.perf_counter() - start
            ids = page.eval_on_selector_all("#findings [data-finding-id]", "els => els.map(e => e.dataset.findingId)")
            longest = float(page.evaluate("window.__longest"))
            browser.close()
    finally:
        server.shutdown()
    return seconds, longest, list(ids)


def cli_run(log: Path) -> tuple[float, list[str]]:
    """Return (seconds, finding ids) for `failpedia diagnose --json` on ``log``."""
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "generator", "diagnose", "--json", "--top", "10", str(log)],
        cwd=ROOT,
        capture_output=True,
        check=False,
    )
    seconds = time.perf_counter() - start
    return seconds, [f["id"] for f in json.loads(result.stdout)["findings"]]


def main() -> None:
    size = (int(sys.argv[1]) if len(sys.argv) > 1 else 100) << 20
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        build_site(work / "site")
        log = work / "job.log"
        write_log(log, size)
        actual = log.stat().st_size
        log.read_bytes()  # warm the page cache for both
        page_s, longest, page_ids = page_run(work / "site", log)
        cli_s, cli_ids = cli_run(log)
    mb = actual / 1e6
    print(f"log: {actual / 2**20:.0f} MiB")
    print(f"load average during the run: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (wall times include it)")
    print(f"page (Chromium): {page_s:6.2f} s  {mb / page_s:6.1f} MB/s  longest main-thread task {longest:.0f} ms")
    print(f"CLI:             {cli_s:6.2f} s  {mb / cli_s:6.1f} MB/s")
    print(f"ratio (CLI time / page time): {cli_s / page_s:.2f}")
    print(f"same findings, same order: {page_ids[:10] == cli_ids[:10]} (the page shows up to 10)")
    print(f"page: {page_ids[:10]}")
    print(f"CLI:  {cli_ids[:10]}")


if __name__ == "__main__":
    main()
