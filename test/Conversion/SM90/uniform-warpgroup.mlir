// RUN: fattn-opt %s -split-input-file --fattn-sm90-pipeline="block-n=64" | FileCheck %s

// A consumer's warpgroup index (its thread index over 128, after the
// producer's 128 threads) is broadcast from lane 0 with shfl.sync idx, so that
// ptxas knows it to be warp-uniform and keeps Q's wgmma descriptors, which
// step by the warpgroup's 64 rows of 128-byte lines, in uniform registers.
// Head dims above 128 keep the plain quotient (with the broadcast ptxas
// spilled there).

// CHECK-LABEL: llvm.func @fattn_fwd_sm90_d128_bf16_m128n64s2(
// CHECK: nvvm.setmaxregister increase 240
// CHECK-NEXT: %[[C128:[0-9]+]] = llvm.mlir.constant(128 : i32)
// CHECK-NEXT: %[[CTID:[0-9]+]] = llvm.sub %{{[0-9]+}}, %[[C128]] : i32
// CHECK-NEXT: %[[D:[0-9]+]] = llvm.mlir.constant(128 : i32)
// CHECK-NEXT: %[[RAW:[0-9]+]] = llvm.udiv %[[CTID]], %[[D]] : i32
// CHECK-DAG: %[[ALL:[0-9]+]] = llvm.mlir.constant(-1 : i32)
// CHECK-DAG: %[[CLAMP:[0-9]+]] = llvm.mlir.constant(31 : i32)
// CHECK-DAG: %[[LANE0:[0-9]+]] = llvm.mlir.constant(0 : i32)
// CHECK-NEXT: %[[WG:[0-9]+]] = nvvm.shfl.sync idx %[[ALL]], %[[RAW]], %[[LANE0]], %[[CLAMP]] : i32 -> i32
// The first row of the warpgroup's 64, and Q's descriptor base (64 rows of
// 128 bytes), both from the broadcast index.
// CHECK: llvm.mul %[[WG]], %{{[0-9]+}} : i32
// CHECK: %[[Q:[0-9]+]] = llvm.mlir.constant(8192 : i32)
// CHECK-NEXT: llvm.mul %[[WG]], %[[Q]] : i32
func.func @d128(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>)
  return
}

// -----

// CHECK-LABEL: llvm.func @fattn_fwd_sm90_d256_bf16_m128n64s2(
// CHECK: nvvm.setmaxregister increase 240
// CHECK-NEXT: %[[C128:[0-9]+]] = llvm.mlir.constant(128 : i32)
// CHECK-NEXT: %[[CTID:[0-9]+]] = llvm.sub %{{[0-9]+}}, %[[C128]] : i32
// CHECK-NEXT: %[[D:[0-9]+]] = llvm.mlir.constant(128 : i32)
// CHECK-NEXT: %[[WG:[0-9]+]] = llvm.udiv %[[CTID]], %[[D]] : i32
// CHECK-NOT: nvvm.shfl.sync idx
// CHECK: llvm.mul %[[WG]], %{{[0-9]+}} : i32
// CHECK-NOT: nvvm.shfl.sync idx
func.func @d256(%q: memref<?x?x?x256xbf16>, %k: memref<?x?x?x256xbf16>, %v: memref<?x?x?x256xbf16>, %o: memref<?x?x?x256xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>) outs(%o : memref<?x?x?x256xbf16>)
  return
}
