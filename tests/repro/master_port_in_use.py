"""A TCPStore master on a port another socket already listens on."""

from __future__ import annotations

import socket
from datetime import timedelta

import torch.distributed as dist

EXPECT = "master-port-in-use"

if __name__ == "__main__":
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        dist.TCPStore("127.0.0.1", port, world_size=1, is_master=True, timeout=timedelta(seconds=5))
