"""A torchrun worker raises an exception: the agent reports ChildFailedError."""

from __future__ import annotations

import sys

from _launch import torchrun_self, under_torchrun

EXPECT = "torchrun-child-failed"

if __name__ == "__main__":
    if under_torchrun():
        raise ValueError("reproduction: the training step failed")
    sys.exit(torchrun_self(__file__))
