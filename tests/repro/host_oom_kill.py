"""A torchrun worker dies of SIGKILL, as from the kernel OOM killer's SIGKILL."""

from __future__ import annotations

import os
import signal
import sys

from _launch import torchrun_self, under_torchrun

EXPECT = "host-oom-kill"

if __name__ == "__main__":
    if under_torchrun():
        os.kill(os.getpid(), signal.SIGKILL)
    sys.exit(torchrun_self(__file__))
