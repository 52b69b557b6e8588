"""Contributor tools: the canonical formatter and the skeleton of a new record."""
