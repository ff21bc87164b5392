// RUN: fattn-opt %s -split-input-file --fattn-sm90-pipeline="persistent=true block-n=64" | FileCheck %s

// A persistent kernel's consumers decode each work item with divisions by
// launch-time values: the Q tiles per (batch, head), the query heads and the
// query heads per KV head. Before their work loop they compute each
// divisor's multiplier m = ceil(2^(31 + l) / d) and shift l = 32 - clz(d -
// 1) (FastDivision.h), and every quotient is then mulhi(2 n, m) >> l. The
// producer, which decodes ahead of them with 24 registers, keeps the plain
// divisions; so do a mask's windows (by their size and by a window's pairs
// per rank, which change from window to window).

// CHECK-LABEL: llvm.func @fattn_fwd_sm90_d128_bf16_m128n64s2_causal_persistent(
// CHECK: nvvm.setmaxregister  decrease 24
// CHECK: llvm.udiv %{{[0-9]+}}, %arg5 : i32
// CHECK: nvvm.setmaxregister  increase 240
// The first divisor, with 0 (no work items) taken as 1.
// CHECK: %[[ISZERO:[0-9]+]] = llvm.icmp "eq" %[[TILES:[0-9]+]], %{{[0-9]+}} : i32
// CHECK-NEXT: %[[D:[0-9]+]] = llvm.select %[[ISZERO]], %{{[0-9]+}}, %[[TILES]] : i1, i32
// CHECK-NEXT: %[[ONE:[0-9]+]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[DM1:[0-9]+]] = llvm.sub %[[D]], %[[ONE]] : i32
// CHECK-NEXT: %[[CLZ:[0-9]+]] = "llvm.intr.ctlz"(%[[DM1]]) <{is_zero_poison = false}> : (i32) -> i32
// CHECK-NEXT: %[[C32:[0-9]+]] = llvm.mlir.constant(32 : i32) : i32
// CHECK-NEXT: %[[L:[0-9]+]] = llvm.sub %[[C32]], %[[CLZ]] : i32
// CHECK-NEXT: %[[C31:[0-9]+]] = llvm.mlir.constant(31 : i32) : i32
// CHECK-NEXT: %[[EXP:[0-9]+]] = llvm.add %[[L]], %[[C31]] : i32
// CHECK-NEXT: %[[EXP64:[0-9]+]] = llvm.zext %[[EXP]] : i32 to i64
// CHECK-NEXT: %[[ONE64:[0-9]+]] = llvm.mlir.constant(1 : i64) : i64
// CHECK-NEXT: %[[POW:[0-9]+]] = llvm.shl %[[ONE64]], %[[EXP64]] : i64
// CHECK-NEXT: %[[D64:[0-9]+]] = llvm.zext %[[D]] : i32 to i64
// CHECK-NEXT: %[[ONE64B:[0-9]+]] = llvm.mlir.constant(1 : i64) : i64
// CHECK-NEXT: %[[DM164:[0-9]+]] = llvm.sub %[[D64]], %[[ONE64B]] : i64
// CHECK-NEXT: %[[NUM:[0-9]+]] = llvm.add %[[POW]], %[[DM164]] : i64
// CHECK-NEXT: %[[M64:[0-9]+]] = llvm.udiv %[[NUM]], %[[D64]] : i64
// CHECK-NEXT: %[[M:[0-9]+]] = llvm.trunc %[[M64]] : i64 to i32
// Two more: the heads, the query heads per KV head.
// CHECK-COUNT-2: "llvm.intr.ctlz"
// The work item's window (its size from an opaque copy of the pairs), from
// its first item n: n / tiles and n - (n / tiles) tiles, the quotients from
// m and l.
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "mov.b32 $0, $1;", "=r,r"
// CHECK: %[[HI:[0-9]+]] = llvm.call_intrinsic "llvm.nvvm.mulhi.ui"(%{{[0-9]+}}, %[[M]]) : (i32, i32) -> i32
// CHECK-NEXT: llvm.lshr %[[HI]], %[[L]] : i32
// CHECK: %[[N2:[0-9]+]] = llvm.add %[[N:[0-9]+]], %[[N]] : i32
// CHECK-NEXT: %[[HI2:[0-9]+]] = llvm.call_intrinsic "llvm.nvvm.mulhi.ui"(%[[N2]], %[[M]]) : (i32, i32) -> i32
// CHECK-NEXT: %[[Q:[0-9]+]] = llvm.lshr %[[HI2]], %[[L]] : i32
// CHECK-NEXT: %[[QD:[0-9]+]] = llvm.mul %[[Q]], %[[TILES]] : i32
// CHECK-NEXT: llvm.sub %[[N]], %[[QD]] : i32
// No division by a launch argument is left in the consumers' decode.
// CHECK-NOT: llvm.udiv %{{[0-9]+}}, %arg5 : i32
// CHECK-NOT: "llvm.intr.ctlz"
// CHECK: llvm.return
func.func @causal(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>) {causal = true}
  return
}

// -----

// Without a mask the same three divisors.
// CHECK-LABEL: llvm.func @fattn_fwd_sm90_d128_bf16_m128n64s2_persistent(
// CHECK: nvvm.setmaxregister  increase 240
// CHECK-COUNT-3: "llvm.intr.ctlz"
// CHECK-NOT: "llvm.intr.ctlz"
// CHECK: llvm.call_intrinsic "llvm.nvvm.mulhi.ui"
// CHECK: llvm.return
func.func @full(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>)
  return
}

// -----

// FP8 kernels keep the plain divisions: with the multipliers they measured
// 1-2% slower (docs/PERF.md, 2026-12-01).
// CHECK-LABEL: llvm.func @fattn_fwd_sm90_d128_e4m3_m128n64s2_persistent(
// CHECK-NOT: "llvm.intr.ctlz"
// CHECK-NOT: llvm.nvvm.mulhi.ui
// CHECK: llvm.return
func.func @fp8(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x?x128xf8E4M3FN>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>)
  return
}
