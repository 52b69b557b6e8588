"""A DataLoader worker dies of SIGSEGV, as from a segmentation fault in a native decoder."""

from __future__ import annotations

import signal

from _launch import die_in_worker

EXPECT = "dataloader-worker-exception"

if __name__ == "__main__":
    die_in_worker(signal.SIGSEGV)
