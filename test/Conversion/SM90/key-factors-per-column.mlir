// RUN: fattn-opt %s --fattn-sm90-pipeline="block-n=128" | FileCheck %s
// RUN: fattn-opt %s --fattn-sm90-pipeline="block-n=128" | FileCheck %s --check-prefix=ONCE

// K descales in blocks smaller than a KV tile (here one factor per key) scale
// S column by column. Each consumer thread loads one key's factor from global
// memory at the iteration's start (key j * 128 + its index in the
// warpgroup, clamped to seq_k - 1); after S's wait the warpgroup stages the
// 128 factors in its slot of shared memory between two syncs of its own
// barrier (12 + warpgroup, 128 threads), and each thread reads its 32
// columns back as 16 pairs (columns 2 quad + 8 i + {0, 1}) and multiplies
// each of its 64 scores by its column's factor before the row max. Q's
// factor stays per row; V's (per head) scales O once.

// CHECK-LABEL: llvm.func @fattn_fwd_sm90_d128_e4m3_m128n128s2_dsq3b1k3b1v2(
// The thread's index in its warpgroup, once in the consumers' setup; then
// its key of the tile (seq_k is %arg8, k_descale %arg22 with its block
// stride %arg29), clamped to seq_k - 1, and its factor, after the consumers'
// constants (-inf).
// CHECK: nvvm.setmaxregister increase
// CHECK: %[[WG:[0-9]+]] = llvm.udiv %[[CTID:[0-9]+]], %{{[0-9]+}} : i32
// CHECK-NEXT: %[[C128:[0-9]+]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT: %[[LANE:[0-9]+]] = llvm.urem %[[CTID]], %[[C128]] : i32
// CHECK: llvm.mlir.constant(0xFF800000 : f32) : f32
// CHECK: %[[LAST:[0-9]+]] = llvm.sub %arg8, %{{[0-9]+}} : i32
// CHECK-NEXT: %[[ZERO:[0-9]+]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[OFF:[0-9]+]] = llvm.add %[[LANE]], %[[ZERO]] : i32
// CHECK-NEXT: %[[K:[0-9]+]] = llvm.add %{{[0-9]+}}, %[[OFF]] : i32
// CHECK-NEXT: %[[LT:[0-9]+]] = llvm.icmp "slt" %[[K]], %[[LAST]] : i32
// CHECK-NEXT: %[[KEY:[0-9]+]] = llvm.select %[[LT]], %[[K]], %[[LAST]] : i1, i32
// CHECK-NEXT: %[[ONE:[0-9]+]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[BLK:[0-9]+]] = llvm.udiv %[[KEY]], %[[ONE]] : i32
// CHECK-NEXT: llvm.addrspacecast %arg22
// CHECK: %[[BLK64:[0-9]+]] = llvm.zext %[[BLK]] : i32 to i64
// CHECK-NEXT: llvm.mul %[[BLK64]], %arg29 : i64
// CHECK: %[[FACTOR:[0-9]+]] = llvm.load %{{[0-9]+}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: %[[TWELVE:[0-9]+]] = llvm.mlir.constant(12 : i32) : i32
// CHECK: %[[BAR:[0-9]+]] = llvm.add %[[TWELVE]], %{{[0-9]+}} : i32
// CHECK: nvvm.barrier id = %[[BAR]] number_of_threads = %{{[0-9]+}}
// CHECK: llvm.store %[[FACTOR]], %{{[0-9]+}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier id = %[[BAR]] number_of_threads = %{{[0-9]+}}
// CHECK: %[[PAIR:[0-9]+]] = llvm.load %{{[0-9]+}} {alignment = 8 : i64} : !llvm.ptr<3> -> vector<2xf32>
// CHECK: %[[F0:[0-9]+]] = llvm.extractelement %[[PAIR]][%{{[0-9]+}} : i32] : vector<2xf32>
// CHECK-COUNT-15: llvm.load %{{[0-9]+}} {alignment = 8 : i64} : !llvm.ptr<3> -> vector<2xf32>
// Score 0 (column 2 quad, row r) and score 2 (the same column, row r + 8).
// CHECK: llvm.fmul %{{[0-9]+}}, %[[F0]] : f32
// CHECK: llvm.fmul %{{[0-9]+}}, %{{[0-9]+}} : f32
// CHECK: llvm.fmul %{{[0-9]+}}, %[[F0]] : f32
// CHECK-COUNT-61: llvm.fmul %{{[0-9]+}}, %{{[0-9]+}} : f32
// CHECK: llvm.intr.maxnum

// The per-tile form folds K's factor into the row's: no shared-memory slot,
// and no barrier in the loop but the epilogue's.
// ONCE-LABEL: llvm.func @fattn_fwd_sm90_d128_e4m3_m128n128s2_dsq3b1k3b128v2(
// ONCE-NOT: !llvm.ptr<3> -> vector<2xf32>
// ONCE: llvm.return
func.func @fp8_key_rows(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x?x128xf8E4M3FN>, %o: memref<?x?x?x128xbf16>, %dq: memref<?x?x?xf32>, %dk: memref<?x?x?xf32>, %dv: memref<?x?xf32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>) descale(%dq, %dk, %dv : memref<?x?x?xf32>, memref<?x?x?xf32>, memref<?x?xf32>) {descale_block_q = 1 : i64, descale_block_kv = 1 : i64}
  return
}

func.func @fp8_key_tiles(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x?x128xf8E4M3FN>, %o: memref<?x?x?x128xbf16>, %dq: memref<?x?x?xf32>, %dk: memref<?x?x?xf32>, %dv: memref<?x?xf32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>) descale(%dq, %dk, %dv : memref<?x?x?xf32>, memref<?x?x?xf32>, memref<?x?xf32>) {descale_block_q = 1 : i64, descale_block_kv = 128 : i64}
  return
}
