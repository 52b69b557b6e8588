"""Allow ``python -m generator``."""

from __future__ import annotations

from generator.cli import main

raise SystemExit(main())
