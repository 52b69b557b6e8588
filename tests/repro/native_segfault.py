"""A torchrun worker dies of SIGSEGV, as from a native segmentation fault."""

from __future__ import annotations

import os
import signal
import sys

from _launch import torchrun_self, under_torchrun

EXPECT = "native-segfault"

if __name__ == "__main__":
    if under_torchrun():
        os.kill(os.getpid(), signal.SIGSEGV)
    sys.exit(torchrun_self(__file__))
