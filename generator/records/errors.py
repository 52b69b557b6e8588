"""Locations, issues and the one exception type of the generator."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Location:
    """A 1-based position in a source file."""

    path: str
    line: int = 0
    col: int = 0

    def __str__(self) -> str:
        if self.line <= 0:
            return self.path
        return f"{self.path}:{self.line}:{self.col}"


@dataclass(frozen=True, order=True)
class Issue:
    """One problem found in the data, with where it is and a stable dotted code."""

    location: Location
    pointer: str
    code: str
    message: str
    severity: str = "error"

    def __str__(self) -> str:
        pointer = f" {self.pointer}:" if self.pointer else ""
        return f"{self.location}: {self.severity}[{self.code}]{pointer} {self.message}"


class GeneratorError(Exception):
    """Raised when the generator cannot continue; carries the issues that stopped it."""

    def __init__(self, message: str, issues: tuple[Issue, ...] = ()) -> None:
        super().__init__(message)
        self.issues = issues


def has_errors(issues: list[Issue] | tuple[Issue, ...]) -> bool:
    """Return True when any issue is an error (not a warning)."""
    return any(issue.severity == "error" for issue in issues)
