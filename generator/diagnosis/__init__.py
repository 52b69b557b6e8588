"""Logs in, findings out: bounded reading, matching and ranking, and the text report."""
