"""Failpedia: an encyclopedia of ML training failures, and the tools built from it."""

from __future__ import annotations

__version__ = "0.1.0"
