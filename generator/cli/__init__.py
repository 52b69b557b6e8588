"""The ``failpedia`` command: the only package that parses arguments, prints or exits.

Commands other than diagnose import their stages when they run: a diagnosis starts in a
fraction of a second only if validation, Jinja and the exporters are not imported first.
"""

from generator.cli.parsers import main, parser

__all__ = ["main", "parser"]
