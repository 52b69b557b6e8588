"""A TCPStore master waits for two clients that never come."""

from __future__ import annotations

from datetime import timedelta

import torch.distributed as dist
from _launch import free_port

EXPECT = "tcpstore-timeout"

if __name__ == "__main__":
    dist.TCPStore("127.0.0.1", free_port(), world_size=3, is_master=True, timeout=timedelta(seconds=2))
