"""Anomaly detection catches a backward function that returns NaN (sqrt of a negative number)."""

from __future__ import annotations

import torch

EXPECT = "autograd-anomaly-nan"

if __name__ == "__main__":
    x = torch.tensor([-1.0, 4.0], requires_grad=True)
    with torch.autograd.detect_anomaly():
        x.sqrt().sum().backward()
