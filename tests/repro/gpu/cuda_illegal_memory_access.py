"""A CUDA kernel (built with load_inline, needs nvcc) writes through a bad pointer."""

from __future__ import annotations

import os
import tempfile

import torch
from torch.utils.cpp_extension import load_inline

EXPECT = "cuda-illegal-memory-access"

CUDA = """
__global__ void poke(float* p) { p[threadIdx.x] = 1.0f; }
void wild_write() { poke<<<1, 32>>>(reinterpret_cast<float*>(0x10)); }
"""

if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["TORCH_EXTENSIONS_DIR"] = tmp
        ext = load_inline("repro_wild", cpp_sources="void wild_write();", cuda_sources=CUDA, functions=["wild_write"])
        ext.wild_write()
        torch.cuda.synchronize()
