"""A TCPStore client keeps talking after the process hosting the store has died."""

from __future__ import annotations

import subprocess
import sys
import time
from datetime import timedelta

import torch.distributed as dist
from _launch import free_port

EXPECT = "store-connection-lost"

HOST = "import sys, time, torch.distributed as d; s = d.TCPStore('127.0.0.1', int(sys.argv[1]), is_master=True, "
HOST += "wait_for_workers=False); print('up', flush=True); time.sleep(60)"

if __name__ == "__main__":
    port = free_port()
    host = subprocess.Popen([sys.executable, "-c", HOST, str(port)], stdout=subprocess.PIPE, text=True)
    try:
        assert host.stdout is not None and host.stdout.readline().strip() == "up"
        client = dist.TCPStore("127.0.0.1", port, 2, False, timedelta(seconds=10))
        client.set("step", "1")
        host.kill()
        host.wait()
        time.sleep(0.5)
        client.get("step")
    finally:
        host.kill()
        host.wait()
