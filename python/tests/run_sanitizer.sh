#!/usr/bin/env bash
# Runs the small GPU cases (test_sanitizer_subset, test_fp8_sanitizer_subset) and
# the runtime tests under compute-sanitizer. TOOL=memcheck (default), racecheck,
# synccheck or initcheck.
# Usage, from the repo root on the GPU machine:  bash python/tests/run_sanitizer.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
SANITIZER=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}
TOOL=${TOOL:-memcheck}
# Without the caching allocator every tensor is its own allocation, so an
# out-of-bounds access lands outside any allocation and memcheck sees it.
export PYTORCH_NO_CUDA_MEMORY_CACHING=1
# Only fattn's kernels are checked (their names start with fattn_): torch's
# own kernels of the test setup are not ours to judge (racecheck reports
# hazards inside torch's reduce_kernel, the amax of quantize_fp8).
exec "$SANITIZER" --tool "$TOOL" --error-exitcode 99 --target-processes all \
  --kernel-name kns=fattn \
  python3 -m pytest -q -p no:cacheprovider python/tests/test_gpu_attention.py \
  python/tests/test_gpu_runtime.py python/tests/test_gpu_fp8.py -k "sanitizer_subset or test_launch_direct or tensormap" "$@"
