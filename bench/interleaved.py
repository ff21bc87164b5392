"""Timing several GPU functions against each other under a drifting clock.

The H200's clock moves by up to 10% from one second to the next under load, so
timing each function in its own block of calls favours whichever ran in a faster
second. Launching them one call at a time in rotated order, many times over, lets
neighbouring calls see the same clock; the median of each function's calls then
compares them fairly (two builds of the same kernel agree within about 1%).

The rounds are queued without waiting for the GPU in between: each call is
enqueued while the calls before it still run, so its events time its GPU work,
as in a program that launches ahead of the GPU, and not the host time of the
launch (tens of microseconds in flash_attn_func or SDPA) that an idle GPU would
wait for. Calls whose host time exceeds the GPU time before them still show it.
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
    events = []
    for i in range(iters):
        for n in names[i % len(names):] + names[:i % len(names)]:
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fns[n]()
            end.record()
            events.append((n, start, end))
    torch.cuda.synchronize()
    times = {n: [] for n in names}
    for n, start, end in events:
        times[n].append(start.elapsed_time(end))
    return {n: statistics.median(t) for n, t in times.items()}
