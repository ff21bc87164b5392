"""bench/interleaved.py, the benchmark's timer: each call's events time its GPU
work, not the host time of its launch, while the GPU is busy with earlier calls."""
import sys
import time
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from interleaved import median_ms_interleaved  # noqa: E402

pytestmark = pytest.mark.gpu


def test_interleaved_times_gpu_work_not_host_time():
    # A GPU wait of about 2 ms (at 1-2 GHz) behind 1 ms of host time per call.
    cycles = 4_000_000

    def gpu_only():
        torch.cuda._sleep(cycles)

    def slow_host():
        time.sleep(0.001)
        torch.cuda._sleep(cycles)

    gpu_only()
    torch.cuda.synchronize()
    ms = median_ms_interleaved({"gpu": gpu_only, "host": slow_host}, 3, 20)
    # The same GPU work, so the same time: the host's 1 ms is hidden behind
    # the earlier calls, not timed (it would add 1 ms to every other call).
    assert ms["gpu"] > 1.0, ms
    assert abs(ms["host"] - ms["gpu"]) < 0.15 * ms["gpu"], ms
