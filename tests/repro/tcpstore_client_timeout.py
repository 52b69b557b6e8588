"""A TCPStore client connects to a port where no store listens."""

from __future__ import annotations

from datetime import timedelta

import torch.distributed as dist
from _launch import free_port

EXPECT = "tcpstore-timeout"

if __name__ == "__main__":
    dist.TCPStore("127.0.0.1", free_port(), world_size=2, is_master=False, timeout=timedelta(seconds=2))
