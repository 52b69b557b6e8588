"""Fetch released archives from the package index with pip, once, into a cache outside the repository."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

# Compiled libraries are read from Linux x86-64 wheels for one Python; pure packages from
# their universal wheel, else their sdist.
WHEEL_TARGET = (
    "--only-binary=:all:",
    "--python-version",
    "3.11",
    "--implementation",
    "cp",
    "--platform",
    "manylinux_2_34_x86_64",
    "--platform",
    "manylinux_2_28_x86_64",
    "--platform",
    "manylinux_2_27_x86_64",
    "--platform",
    "manylinux_2_18_x86_64",
    "--platform",
    "manylinux_2_17_x86_64",
    "--platform",
    "manylinux2014_x86_64",
    "--platform",
    "manylinux1_x86_64",
)
ARCHIVES = ("*.whl", "*.tar.gz", "*.zip")


def releases_dir() -> Path:
    """Return where downloaded releases are kept: $FAILPEDIA_RELEASES, else ~/.cache/failpedia/releases."""
    configured = os.environ.get("FAILPEDIA_RELEASES")
    return Path(configured) if configured else Path.home() / ".cache" / "failpedia" / "releases"


def cached_archive(folder: Path) -> Path | None:
    """Return the archive already downloaded into ``folder``, if any."""
    found = sorted(path for pattern in ARCHIVES for path in folder.glob(pattern))
    return found[0] if found else None


def local_build(archive: Path) -> bool:
    """Return True for a wheel with a local version label (``torch-2.13.0+cpu-...``): a rebuild, not the release."""
    return archive.suffix == ".whl" and "+" in archive.name.split("-")[1]


def pip_download(requirement: str, folder: Path, extra: tuple[str, ...]) -> bool:
    """Run ``pip download --no-deps`` for one requirement; return True when it succeeded."""
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d", str(folder), *extra, requirement]
    return subprocess.run(command, capture_output=True, check=False).returncode == 0


def fetch_release(package: str, version: str) -> Path:
    """Return the path of one release's archive, downloading it on first use (raises OSError)."""
    folder = releases_dir() / package / version
    archive = cached_archive(folder)
    if archive is not None:
        return archive
    folder.mkdir(parents=True, exist_ok=True)
    requirement = f"{package}=={version}"
    # This machine's own wheel first, then a Linux x86-64 one for Python 3.11, then the sdist. A
    # local rebuild (e.g. a +cpu torch without libtorch_cuda) found on the way is set aside.
    for extra in (("--only-binary=:all:",), WHEEL_TARGET, ("--no-binary=:all:", "--no-build-isolation")):
        if pip_download(requirement, folder, extra) and (archive := cached_archive(folder)) is not None:
            if not local_build(archive):
                return archive
            archive.unlink()
    raise OSError(f"pip could not download {requirement}")
