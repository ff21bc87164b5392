// RUN: fattn-opt %s --fattn-sm90-pipeline | FileCheck %s

// The longest window the kernels take (2^30) still compiles.
// CHECK-LABEL: llvm.func @fattn_fwd_sm90_d64_bf16_m128n128s2_win1073741824_0(
// CHECK: llvm.mlir.constant(1073741824 : i32) : i32
func.func @window_2_30(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>) outs(%o : memref<?x?x?x64xbf16>) {window_left = 1073741824 : i64, window_right = 0 : i64}
  return
}
