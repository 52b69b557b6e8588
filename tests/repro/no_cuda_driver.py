"""A CUDA build of torch asked for a GPU on a machine without an NVIDIA driver."""

from __future__ import annotations

import sys

import torch

EXPECT = "no-cuda-gpus-available"

if __name__ == "__main__":
    if torch.version.cuda is None:
        sys.exit("skip: this torch is a CPU build, which says 'Torch not compiled with CUDA enabled' instead")
    torch.zeros(1, device="cuda")
