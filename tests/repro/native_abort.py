"""Native code calls std::terminate (as when a C++ exception escapes a thread): the process aborts."""

from __future__ import annotations

import ctypes
import faulthandler

import torch

EXPECT = "native-abort"

if __name__ == "__main__":
    faulthandler.enable()
    torch.ones(1)
    ctypes.CDLL("libstdc++.so.6")._ZSt9terminatev()
