#!/usr/bin/env bash
# Builds what python/tests/test_gpu_host_pipeline.py runs on a GPU machine that
# has no MLIR: examples/host-launch/attention.mlir through fattn-sm90-pipeline
# and fattn-sm80-pipeline with host-launch=true (and attention-fp8.mlir through
# the first), then upstream MLIR's
# gpu-module-to-binary (ptxas) and gpu-to-llvm, mlir-translate and
# llc, into shared libraries of x86-64 host code with the kernels embedded,
# beside libfattn_mlir_cuda_runtime.so (the mgpu* entry points they call) and
# a manifest.json naming each library's functions.
#
#   scripts/build_host_e2e.sh [--build DIR] [--out DIR] [--cuda DIR]
#
# Defaults: --build build (fattn-opt and the runtime built there), --out
# build-gpu/host-e2e (git-ignored), --cuda $CUDA_HOME or /usr/local/cuda.
# Then, on the GPU machine, with the folder carried over:
#   FATTN_HOST_E2E_DIR=build-gpu/host-e2e python3 -m pytest python/tests/test_gpu_host_pipeline.py
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="$ROOT/build"
OUT="$ROOT/build-gpu/host-e2e"
CUDA="${CUDA_HOME:-/usr/local/cuda}"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build) BUILD="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --cuda) CUDA="$2"; shift 2 ;;
    *) echo "usage: $0 [--build DIR] [--out DIR] [--cuda DIR]" >&2; exit 2 ;;
  esac
done

LLVM_BIN="$(llvm-config-22 --bindir 2>/dev/null || echo /usr/lib/llvm-22/bin)"
FATTN_OPT="$BUILD/bin/fattn-opt"
RUNTIME="$BUILD/lib/libfattn_mlir_cuda_runtime.so"
INPUT="$ROOT/examples/host-launch/attention.mlir"
INPUT_FP8="$ROOT/examples/host-launch/attention-fp8.mlir"
for f in "$FATTN_OPT" "$RUNTIME" "$CUDA/bin/ptxas" "$LLVM_BIN/mlir-opt"; do
  [[ -e "$f" ]] || { echo "build_host_e2e: missing $f" >&2; exit 1; }
done
CC="${CC:-cc}"

mkdir -p "$OUT"
cp "$RUNTIME" "$OUT/"

# Upstream's lowering of the host code (docs/EMBEDDING.md): the kernels
# embedded as `format` (bin: a cubin by ptxas; isa: PTX that the driver
# compiles when the library loads, which an sm_80 kernel needs to run on newer
# GPUs), the launches as mgpu* calls.
lower() {
  local name="$1" format="$2"
  "$LLVM_BIN/mlir-opt" "$OUT/$name.mlir" \
    --gpu-module-to-binary="format=$format toolkit=$CUDA" \
    --convert-scf-to-cf --convert-cf-to-llvm --convert-arith-to-llvm \
    --convert-index-to-llvm --finalize-memref-to-llvm --convert-func-to-llvm \
    --gpu-to-llvm --reconcile-unrealized-casts -o "$OUT/$name.llvm.mlir"
  "$LLVM_BIN/mlir-translate" --mlir-to-llvmir "$OUT/$name.llvm.mlir" -o "$OUT/$name.ll"
  "$LLVM_BIN/llc" -O2 -filetype=obj -relocation-model=pic "$OUT/$name.ll" -o "$OUT/$name.o"
  "$CC" -shared "$OUT/$name.o" -o "$OUT/lib$name.so" \
    -L"$OUT" -lfattn_mlir_cuda_runtime -Wl,-rpath,'$ORIGIN'
}

"$FATTN_OPT" "$INPUT" --fattn-sm90-pipeline="host-launch=true" -o "$OUT/attention_sm90a.mlir"
lower attention_sm90a bin
"$FATTN_OPT" "$INPUT_FP8" --fattn-sm90-pipeline="host-launch=true" -o "$OUT/attention_fp8_sm90a.mlir"
lower attention_fp8_sm90a bin
"$FATTN_OPT" "$INPUT" --fattn-sm80-pipeline="host-launch=true" -o "$OUT/attention_sm80.mlir"
lower attention_sm80 isa

cat > "$OUT/manifest.json" <<EOF
{
  "runtime": "libfattn_mlir_cuda_runtime.so",
  "functions": [
    {"library": "libattention_sm90a.so", "arch": "sm_90a", "function": "attention_full", "dtype": "bf16", "head_dim": 128, "causal": false, "lse": true},
    {"library": "libattention_sm90a.so", "arch": "sm_90a", "function": "attention_causal", "dtype": "bf16", "head_dim": 128, "causal": true, "lse": true},
    {"library": "libattention_fp8_sm90a.so", "arch": "sm_90a", "function": "attention_fp8", "dtype": "e4m3", "head_dim": 128, "causal": false, "lse": false, "descale_block": 128},
    {"library": "libattention_sm80.so", "arch": "sm_80", "function": "attention_full", "dtype": "bf16", "head_dim": 128, "causal": false, "lse": true},
    {"library": "libattention_sm80.so", "arch": "sm_80", "function": "attention_causal", "dtype": "bf16", "head_dim": 128, "causal": true, "lse": true}
  ]
}
EOF
echo "build_host_e2e: wrote $OUT"
ls -l "$OUT"/*.so
