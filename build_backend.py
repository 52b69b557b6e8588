"""The build backend: setuptools', with the validated catalog written into the package before a wheel.

`pip install .`, `pipx install .` and `python -m build` build the wheel through here, so the
installed `failpedia` carries the records and schemas (generator/catalog/, generated, not
committed) and works outside a checkout. An editable install needs no copy: it reads the
checkout's records.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from setuptools import build_meta
from setuptools.build_meta import *  # noqa: F403 - every hook not redefined here is setuptools' own

ROOT = Path(__file__).resolve().parent


def write_catalog() -> None:
    """Validate the records and write them, with the schemas, into generator/catalog/."""
    if not (ROOT / "entries").is_dir():
        return  # building from an sdist, which already carries generator/catalog/
    sys.path.insert(0, str(ROOT))
    from generator.bundle import bundle_files
    from generator.output import write_atomically

    write_atomically(bundle_files(ROOT / "entries", ROOT))


def build_wheel(wheel_directory: str, config_settings: Any = None, metadata_directory: Any = None) -> str:
    write_catalog()
    return build_meta.build_wheel(wheel_directory, config_settings, metadata_directory)


def build_sdist(sdist_directory: str, config_settings: Any = None) -> str:
    write_catalog()
    return build_meta.build_sdist(sdist_directory, config_settings)
