"""A DataLoader worker dies of SIGBUS, as from a bus error on a full /dev/shm."""

from __future__ import annotations

import signal

from _launch import die_in_worker

EXPECT = "dataloader-shm-bus-error"

if __name__ == "__main__":
    die_in_worker(signal.SIGBUS)
