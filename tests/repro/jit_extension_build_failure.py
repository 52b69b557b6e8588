"""torch.utils.cpp_extension.load of a C++ source that does not compile."""

from __future__ import annotations

import tempfile
from pathlib import Path

from torch.utils.cpp_extension import load

EXPECT = "jit-extension-build-failure"

# Fails before any header is read, so the build is quick.
SOURCE = '#error "reproduction: this extension does not compile"\n'

if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "broken.cpp"
        source.write_text(SOURCE, encoding="utf-8")
        load("repro_broken_ext", sources=[str(source)], build_directory=tmp)
