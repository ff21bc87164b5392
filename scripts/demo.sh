#!/usr/bin/env bash
# The main job: set up, build, then compile examples/attention.mlir — show the
# tiled online-softmax form, run it on the CPU with mlir-runner — and, when
# the GPU compiler is built, emit the sm_80 PTX for the same op.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh

bin=build/bin
llvm_bin=$(llvm-config-22 --bindir)
llvm_lib=$(llvm-config-22 --libdir)

echo "== examples/attention.mlir, tiled (fattn-opt --fattn-tile) =="
"$bin/fattn-opt" examples/attention.mlir --fattn-tile | sed -n '/fattn.tiled_attention/,/fattn.store_tile/p' | head -60

echo "== run on the CPU (fattn-opt --fattn-cpu-pipeline | mlir-runner) =="
"$bin/fattn-opt" examples/attention.mlir --fattn-cpu-pipeline \
  | "$llvm_bin/mlir-runner" -e main -entry-point-result=void \
      -shared-libs="$llvm_lib/libmlir_c_runner_utils.so,$llvm_lib/libmlir_runner_utils.so"

if [ -x "$bin/fattn-compile" ]; then
  echo "== sm_80 PTX (fattn-compile --arch sm_80 --emit ptx) =="
  out=$(mktemp -d)
  "$bin/fattn-compile" examples/gpu-attention.mlir --arch sm_80 --emit ptx -o "$out/kernel.ptx"
  grep -cE 'cp\.async|ldmatrix|mma\.sync' "$out/kernel.ptx" | sed 's/^/cp.async\/ldmatrix\/mma.sync instructions: /'
fi
