"""Shared test options: ``--update-goldens`` rewrites golden files instead of comparing."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-goldens", action="store_true", help="rewrite golden files")


@pytest.fixture
def golden(request: pytest.FixtureRequest):
    """Compare text with a golden file, or rewrite it under --update-goldens."""
    update = request.config.getoption("--update-goldens")

    def check(path: Path, actual: str) -> None:
        if update or not path.exists():
            if not update:
                pytest.fail(f"missing golden {path}; run pytest --update-goldens and review the diff")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(actual, encoding="utf-8")
            return
        assert actual == path.read_text(encoding="utf-8"), f"{path} differs; review, then --update-goldens"

    return check


# The skip reason of a test that needs a tool this machine lacks (serving.py, test_export.py).
NOT_INSTALLED = " is not installed here; CI installs it"


def missing_tools(reports: list[pytest.TestReport]) -> dict[str, int]:
    """Return how many tests each missing tool skipped, by tool name."""
    counts: dict[str, int] = {}
    for report in reports:
        reason = str(report.longrepr[2]) if isinstance(report.longrepr, tuple) else str(report.longrepr)
        if NOT_INSTALLED in reason:
            tool = reason.split(NOT_INSTALLED)[0].removeprefix("Skipped: ")
            counts[tool] = counts.get(tool, 0) + 1
    return counts


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Warn at the very end, not only in a skip line, when a missing tool left checks unrun."""
    counts = missing_tools(terminalreporter.stats.get("skipped", []))
    if not counts:
        return
    terminalreporter.section("MISSING TOOLS: these checks did not run", sep="!", red=True, bold=True)
    for tool, skipped in sorted(counts.items()):
        terminalreporter.write_line(f"WARNING: {tool} is missing here; {skipped} test(s) skipped", red=True, bold=True)
