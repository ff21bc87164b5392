// RUN: fattn-opt %s -split-input-file --fattn-sm90-pipeline="persistent=true block-n=64 work-order-tail=true" | FileCheck %s
// RUN: fattn-opt %s -split-input-file --fattn-sm90-pipeline="persistent=true block-n=64" | FileCheck %s --check-prefix=OFF

// The work order's tail (WorkOrder.h): the launcher passes `tail_pairs`
// (after seq_k) and the description says how the kernel orders its items
// ("work_order"), so that the runtime can choose it.
// CHECK-LABEL: llvm.func @fattn_fwd_sm90_d128_bf16_m128n64s2_causal_persistent(
// CHECK-SAME: %arg8: i32, %arg9: i32, %arg10: i64,
// CHECK-SAME: {\22name\22:\22seq_k\22,\22type\22:\22u32\22},{\22name\22:\22tail_pairs\22,\22type\22:\22u32\22},{\22name\22:\22q_stride_b\22
// CHECK-SAME: \22work_order\22:{\22ctas_per_pair\22:3,\22reverse_q_tiles\22:true}}"
// Once per launch: T = pairs when they are few (pairs * 3 <= grid), else
// tail_pairs clamped to [1, pairs].
// CHECK: %[[PAIRS:[0-9]+]] = llvm.mul %arg5, %arg4 : i32
// CHECK-NEXT: %[[GRID:[0-9]+]] = nvvm.read.ptx.sreg.nctaid.x : i32
// CHECK-NEXT: %[[THREE:[0-9]+]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-NEXT: %[[NEED:[0-9]+]] = llvm.mul %[[PAIRS]], %[[THREE]] : i32
// CHECK-NEXT: %[[FEW:[0-9]+]] = llvm.icmp "ule" %[[NEED]], %[[GRID]] : i32
// CHECK-NEXT: %[[ONE:[0-9]+]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[LT:[0-9]+]] = llvm.icmp "slt" %arg9, %[[PAIRS]] : i32
// CHECK-NEXT: %[[MIN:[0-9]+]] = llvm.select %[[LT]], %arg9, %[[PAIRS]] : i1, i32
// CHECK-NEXT: %[[GT:[0-9]+]] = llvm.icmp "sgt" %[[MIN]], %[[ONE]] : i32
// CHECK-NEXT: %[[MAX:[0-9]+]] = llvm.select %[[GT]], %[[MIN]], %[[ONE]] : i1, i32
// CHECK-NEXT: %[[T:[0-9]+]] = llvm.select %[[FEW]], %[[PAIRS]], %[[MAX]] : i1, i32
// The producer decodes with plain divisions by T.
// CHECK: nvvm.setmaxregister  decrease 24
// CHECK: %[[FIRST:[0-9]+]] = llvm.sub %[[PAIRS]], %[[T]] : i32
// CHECK: llvm.udiv %{{[0-9]+}}, %[[T]] : i32
// CHECK: llvm.urem %{{[0-9]+}}, %[[T]] : i32
// The consumers divide by T with div.u32 too (its multiplier and shift
// measured slower), the other divisors through multipliers and shifts: an
// item at or past (pairs - T) * tiles is the tail's, rank (item - head) / T
// of pair pairs - T + (item - head) mod T.
// CHECK: nvvm.setmaxregister  increase 240
// CHECK-COUNT-3: "llvm.intr.ctlz"
// CHECK-NOT: "llvm.intr.ctlz"
// CHECK: %[[CFIRST:[0-9]+]] = llvm.sub %[[PAIRS]], %[[T]] : i32
// CHECK-NEXT: %[[HEAD:[0-9]+]] = llvm.mul %[[CFIRST]], %[[TILES:[0-9]+]] : i32
// CHECK-NEXT: %[[IN:[0-9]+]] = llvm.icmp "ule" %[[HEAD]], %[[ITEM:[0-9]+]] : i32
// CHECK-NEXT: %[[DELTA:[0-9]+]] = llvm.sub %[[ITEM]], %[[HEAD]] : i32
// CHECK: %[[RANK:[0-9]+]] = llvm.udiv %[[DELTA]], %[[T]] : i32
// CHECK-NEXT: llvm.select %[[IN]], %[[RANK]], %{{[0-9]+}} : i1, i32
// CHECK: %[[R:[0-9]+]] = llvm.urem %[[DELTA]], %[[T]] : i32
// CHECK-NEXT: %[[PAIR:[0-9]+]] = llvm.add %[[CFIRST]], %[[R]] : i32
// CHECK: llvm.select %[[IN]], %[[PAIR]], %{{[0-9]+}} : i1, i32
// CHECK: llvm.return

// Without the option: no parameter, no key, the fixed order.
// OFF-LABEL: llvm.func @fattn_fwd_sm90_d128_bf16_m128n64s2_causal_persistent(
// OFF-SAME: %arg8: i32, %arg9: i64,
// OFF-NOT: tail_pairs
// OFF-NOT: work_order
// OFF: llvm.return
func.func @causal(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>) {causal = true}
  return
}

// -----

// A sliding window's items differ in length too (at the sequence's start).
// CHECK-LABEL: llvm.func @fattn_fwd_sm90_d64_bf16_m128n64s2_win100_20_persistent(
// CHECK-SAME: \22work_order\22:{\22ctas_per_pair\22:1,\22reverse_q_tiles\22:true}}"
// OFF-LABEL: llvm.func @fattn_fwd_sm90_d64_bf16_m128n64s2_win100_20_persistent(
// OFF-NOT: work_order
func.func @window(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>) outs(%o : memref<?x?x?x64xbf16>) {window_left = 100 : i64, window_right = 20 : i64}
  return
}
