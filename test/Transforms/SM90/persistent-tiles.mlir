// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-persistent-tiles | FileCheck %s
// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=192 block-n=128" --fattn-sm90-tma=stages=3 --fattn-warp-specialize="consumers=3 producer-registers=32 consumer-registers=160" --fattn-persistent-tiles | FileCheck %s --check-prefix=THREE

// The pass only adds the attribute: with it removed, the output is the
// schedule without the pass, op for op.
// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap -o %t.before.mlir
// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-persistent-tiles -o %t.after.mlir
// RUN: not diff -q %t.before.mlir %t.after.mlir
// RUN: sed -e 's/fattn.sm90.persistent_tiles, //' %t.after.mlir | diff %t.before.mlir -
// The FP8 layout pass, which the pipeline runs after the mark, keeps it.
// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-persistent-tiles --fattn-fp8-layout | FileCheck %s --check-prefix=FP8
// Marking twice changes nothing.
// RUN: fattn-opt %t.after.mlir -split-input-file --fattn-persistent-tiles | diff %t.after.mlir -

// Every tiled op is marked, and keeps its TMA plan and its warpgroups.
// CHECK-LABEL: func.func @causal
// CHECK: fattn.tiled_attention ins({{.*}}) attributes {block_m = 128 : i64, block_n = 128 : i64, fattn.sm90.persistent_tiles, fattn.sm90.tma = #fattn.sm90_tma_plan<stages = 2, swizzle = 128, box_cols = 64, store = registers>, {{.*}}window_right = 0 : i64} {
// CHECK: fattn.ring_create : <2, tensor<128x128xbf16>, tensor<128x128xbf16>>
// CHECK: fattn.warp_specialize attributes {consumer_registers = 240 : i64, consumers = 2 : i64, producer_registers = 24 : i64} producer {
// CHECK: } consumer {
// CHECK: fattn.store_tile
// THREE-LABEL: func.func @causal
// THREE: fattn.tiled_attention {{.*}}attributes {block_m = 192 : i64, {{.*}}fattn.sm90.persistent_tiles, fattn.sm90.tma = #fattn.sm90_tma_plan<stages = 3,
// THREE: fattn.warp_specialize attributes {consumer_registers = 160 : i64, consumers = 3 : i64, producer_registers = 32 : i64}
func.func @causal(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>) {causal = true}
  return
}

// -----

// Two ops in one function: both marked.
// CHECK-LABEL: func.func @two_ops
// CHECK: fattn.tiled_attention {{.*}}fattn.sm90.persistent_tiles
// CHECK: fattn.warp_specialize
// CHECK: fattn.tiled_attention {{.*}}fattn.sm90.persistent_tiles
// CHECK: fattn.warp_specialize
// THREE-LABEL: func.func @two_ops
// THREE-COUNT-2: fattn.sm90.persistent_tiles
func.func @two_ops(%q: memref<?x?x?x64xf16>, %k: memref<?x?x?x64xf16>, %v: memref<?x?x?x64xf16>, %o: memref<?x?x?x64xf16>, %o2: memref<?x?x?x64xf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xf16>, memref<?x?x?x64xf16>, memref<?x?x?x64xf16>) outs(%o : memref<?x?x?x64xf16>)
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xf16>, memref<?x?x?x64xf16>, memref<?x?x?x64xf16>) outs(%o2 : memref<?x?x?x64xf16>) {window_left = 100 : i64, window_right = 20 : i64}
  return
}

// -----

// CHECK-LABEL: func.func @fp8
// CHECK: fattn.tiled_attention {{.*}}f8E4M3FN{{.*}}fattn.sm90.persistent_tiles
// FP8-LABEL: func.func @fp8
// FP8: fattn.tiled_attention {{.*}}f8E4M3FN{{.*}}fattn.sm90.persistent_tiles
// FP8: fattn.transpose_tile
// FP8: fattn.permute_keys
// THREE-LABEL: func.func @fp8
// THREE: fattn.sm90.persistent_tiles
func.func @fp8(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x?x128xf8E4M3FN>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>) {causal = true}
  return
}
