"""Timing several GPU functions against each other under a drifting clock.

The H200's clock moves by up to 10% from one second to the next under load, so
timing each function in its own block of calls favours whichever ran in a faster
second. Launching them one call at a time in rotated order, many times over, lets
neighbouring calls see the same clock; the median of each function's calls then
compares them fairly (two builds of the same kernel agree within about 1%).
"""
from __future__ import annotations

import statistics
from typing import Callable, Dict

import torch


def median_ms_interleaved(fns: Dict[str, Callable[[], object]], warmup: int,
                          iters: int) -> Dict[str, float]:
    """Median milliseconds of one call of each function: `warmup` untimed rounds,
    then `iters` rounds of one call each, the order rotated every round."""
    names = list(fns)
    for _ in range(warmup):
        for n in names:
            fns[n]()
    times = {n: [] for n in names}
    for i in range(iters):
        events = []
        for n in names[i % len(names):] + names[:i % len(names)]:
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fns[n]()
            end.record()
            events.append((n, start, end))
        torch.cuda.synchronize()
        for n, start, end in events:
            times[n].append(start.elapsed_time(end))
    return {n: statistics.median(t) for n, t in times.items()}
