// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-persistent-tiles | FileCheck %s
// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=192 block-n=128" --fattn-sm90-tma=stages=3 --fattn-warp-specialize="consumers=3 producer-registers=32 consumer-registers=160" --fattn-persistent-tiles | FileCheck %s --check-prefix=THREE

// The IR before the pass: the per-tile body in the tiled op, no work loop.
// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap | FileCheck %s --check-prefix=BEFORE
// The pass only wraps the body: every op of it stays, in its order.
// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap -o %t.before.mlir
// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-persistent-tiles -o %t.after.mlir
// RUN: grep -o 'fattn\.[a-z_]*' %t.before.mlir | grep -v 'fattn.ring_create' > %t.before.ops
// RUN: grep -o 'fattn\.[a-z_]*' %t.after.mlir | grep -v 'fattn.ring_create\|fattn.work_loop' > %t.after.ops
// RUN: diff %t.before.ops %t.after.ops
// The FP8 layout pass, which the pipeline runs after the loop, keeps it.
// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-persistent-tiles --fattn-fp8-layout | FileCheck %s --check-prefix=FP8
// Running it twice changes nothing.
// RUN: fattn-opt %t.after.mlir -split-input-file --fattn-persistent-tiles | diff %t.after.mlir -
// The overlap and pingpong passes find the warpgroups inside the loop.
// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-persistent-tiles --fattn-intra-wg-overlap --fattn-pingpong | FileCheck %s --check-prefix=ORDER

// Every tiled op gets a loop around its body: the ring is created before it
// (its stages and phases run on across work items), and the loop's
// arguments replace the tiled op's grid coordinates in the loads, the tile
// ranges and the stores. The op keeps its TMA plan and its warpgroups.
// BEFORE-LABEL: func.func @causal
// BEFORE: ^bb0(%[[B:.*]]: index, %[[H:.*]]: index, %[[M:.*]]: index):
// BEFORE-NOT: fattn.work_loop
// BEFORE: fattn.load_tile %{{.*}}[%[[B]], %[[H]], %{{.*}}]
// BEFORE: fattn.kv_tile_range %[[M]],
// BEFORE: fattn.ring_create
// BEFORE: fattn.warp_specialize
// CHECK-LABEL: func.func @causal
// CHECK: fattn.tiled_attention ins({{.*}}) attributes {block_m = 128 : i64, block_n = 128 : i64, fattn.sm90.tma = #fattn.sm90_tma_plan<stages = 2, swizzle = 128, box_cols = 64, store = registers>, {{.*}}window_right = 0 : i64} {
// CHECK-NEXT: ^bb0(%{{.*}}: index, %{{.*}}: index, %{{.*}}: index):
// CHECK-NEXT: %[[RING:.*]] = fattn.ring_create : <2, tensor<128x128xbf16>, tensor<128x128xbf16>>
// CHECK-NEXT: fattn.work_loop {
// CHECK-NEXT: ^bb0(%[[B:.*]]: index, %[[H:.*]]: index, %[[M:.*]]: index):
// CHECK: fattn.load_tile %{{.*}}[%[[B]], %[[H]], %{{.*}}]
// CHECK: fattn.kv_tile_range %[[M]],
// CHECK: fattn.warp_specialize attributes {consumer_registers = 240 : i64, consumer_rows = 64 : i64, consumers = 2 : i64, producer_registers = 24 : i64} producer {
// CHECK: fattn.ring_acquire %[[RING]][0]
// CHECK: } consumer {
// CHECK: fattn.ring_wait %[[RING]][0]
// CHECK: fattn.store_tile %{{.*}}, %{{.*}}[%[[B]], %[[H]], %{{.*}}]
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: return
// THREE-LABEL: func.func @causal
// THREE: fattn.tiled_attention {{.*}}attributes {block_m = 192 : i64, {{.*}}fattn.sm90.tma = #fattn.sm90_tma_plan<stages = 3,
// THREE: fattn.ring_create : <3,
// THREE-NEXT: fattn.work_loop {
// THREE: fattn.warp_specialize attributes {consumer_registers = 160 : i64, consumer_rows = 64 : i64, consumers = 3 : i64, producer_registers = 32 : i64}
// ORDER-LABEL: func.func @causal
// ORDER: fattn.work_loop {
// ORDER: fattn.warp_specialize
// ORDER: fattn.named_barrier_sync
func.func @causal(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>) {causal = true}
  return
}

// -----

// Two ops in one function: each gets its loop.
// CHECK-LABEL: func.func @two_ops
// CHECK: fattn.tiled_attention
// CHECK: fattn.work_loop {
// CHECK: fattn.warp_specialize
// CHECK: fattn.tiled_attention
// CHECK: fattn.work_loop {
// CHECK: fattn.warp_specialize
// THREE-LABEL: func.func @two_ops
// THREE-COUNT-2: fattn.work_loop {
func.func @two_ops(%q: memref<?x?x?x64xf16>, %k: memref<?x?x?x64xf16>, %v: memref<?x?x?x64xf16>, %o: memref<?x?x?x64xf16>, %o2: memref<?x?x?x64xf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xf16>, memref<?x?x?x64xf16>, memref<?x?x?x64xf16>) outs(%o : memref<?x?x?x64xf16>)
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xf16>, memref<?x?x?x64xf16>, memref<?x?x?x64xf16>) outs(%o2 : memref<?x?x?x64xf16>) {window_left = 100 : i64, window_right = 20 : i64}
  return
}

// -----

// CHECK-LABEL: func.func @fp8
// CHECK: fattn.tiled_attention {{.*}}f8E4M3FN
// CHECK: fattn.work_loop {
// FP8-LABEL: func.func @fp8
// FP8: fattn.tiled_attention {{.*}}f8E4M3FN
// FP8: fattn.work_loop {
// FP8: fattn.transpose_tile
// FP8: fattn.permute_keys
// THREE-LABEL: func.func @fp8
// THREE: fattn.work_loop {
func.func @fp8(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x?x128xf8E4M3FN>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>) {causal = true}
  return
}
