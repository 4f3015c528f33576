"""Confidence intervals for evaluation tables (normal approximation; Wilson for win rates)."""

from __future__ import annotations

import math

import numpy as np

__all__ = ["mean_ci", "wilson_ci"]

Z95 = 1.959963984540054


def mean_ci(samples: np.ndarray) -> tuple[float, float]:
    """Mean and 95% half-width of the mean."""
    samples = np.asarray(samples, dtype=np.float64)
    if samples.size == 0:
        raise ValueError("mean_ci needs at least one sample")
    if samples.size == 1:
        return float(samples[0]), math.inf
    return float(samples.mean()), float(Z95 * samples.std(ddof=1) / math.sqrt(samples.size))


def wilson_ci(successes: float, n: int) -> tuple[float, float, float]:
    """Rate with its 95% Wilson interval (low, high); sound near 0 and 1 where the normal one is not."""
    if n <= 0:
        raise ValueError("wilson_ci needs n >= 1")
    p = successes / n
    denom = 1 + Z95**2 / n
    centre = (p + Z95**2 / (2 * n)) / denom
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / denom
    return p, centre - half, centre + half
