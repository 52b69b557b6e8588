"""A two-node torchrun job where the second node never joins the rendezvous."""

from __future__ import annotations

import sys

from _launch import free_port, torchrun_self, under_torchrun

EXPECT = "rendezvous-timeout"

if __name__ == "__main__":
    if under_torchrun():
        sys.exit("reproduction: the rendezvous should not have completed")
    endpoint = f"127.0.0.1:{free_port()}"
    rdzv = ["--nnodes=2", "--nproc_per_node=1", "--rdzv_backend=c10d", f"--rdzv_endpoint={endpoint}"]
    sys.exit(torchrun_self(__file__, *rdzv, "--rdzv_id=repro", "--rdzv_conf=join_timeout=5"))
