"""Third-party scripts the site ships, copied at build time from the pinned npm packages."""

from __future__ import annotations

import json

from generator.paths import PROJECT_DIR
from generator.records.errors import GeneratorError

PACKAGE_JSON = PROJECT_DIR / "package.json"
NODE_MODULES = PROJECT_DIR / "node_modules"
# Site path -> file inside the package; the licence travels with the code.
VENDORED = {
    "re2js": {
        "assets/javascripts/vendor/re2js.js": "build/index.umd.js",
        "assets/javascripts/vendor/re2js.LICENSE.txt": "LICENSE",
    },
}


def pinned_versions() -> dict[str, str]:
    """Return the exact version package.json pins for each vendored package."""
    data = json.loads(PACKAGE_JSON.read_text(encoding="utf-8"))
    return {name: str(data["dependencies"][name]) for name in VENDORED}


def vendor_files() -> dict[str, bytes]:
    """Return the vendored files by site path (raises GeneratorError when npm ci has not run)."""
    files = {}
    for name, version in pinned_versions().items():
        folder = NODE_MODULES / name
        manifest = folder / "package.json"
        installed = json.loads(manifest.read_text(encoding="utf-8"))["version"] if manifest.exists() else None
        if installed != version:
            found = f"version {installed}" if installed else "nothing"
            raise GeneratorError(f"{name} {version} is needed in node_modules/ ({found} there): run npm ci")
        files.update({target: (folder / source).read_bytes() for target, source in VENDORED[name].items()})
    return files
