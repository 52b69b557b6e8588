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
