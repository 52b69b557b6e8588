"""A DataLoader worker dies of SIGKILL, as from the kernel OOM killer's SIGKILL."""

from __future__ import annotations

import signal

from _launch import die_in_worker

EXPECT = "host-oom-kill"

if __name__ == "__main__":
    die_in_worker(signal.SIGKILL)
