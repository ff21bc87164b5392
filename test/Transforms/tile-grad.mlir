// RUN: fattn-opt %s -split-input-file --fattn-tile-grad="block-m=32 block-n=16" | FileCheck %s
// The tiled form is valid IR that prints and parses back.
// RUN: fattn-opt %s -split-input-file --fattn-tile-grad="block-m=32 block-n=16" | fattn-opt -split-input-file | FileCheck %s

// Causal GQA (4 query heads per 2 KV heads), Sq != Sk, bf16, deterministic:
// the f32 workspaces (D of LSE's shape, the dQ accumulator of Q's) around
// the op; the preprocess (D, zeroed accumulator), the body per KV tile of a
// KV head (K and V loaded once; for each query head of the group the Q
// tiles of q_tile_range in a masked loop at the diagonal, the unmasked
// loop and the masked tail, carrying dK and dV), the postprocess (dQ).
// CHECK-LABEL: func.func @causal_gqa
// CHECK-SAME: (%[[Q:[^:]*]]: memref<1x4x33x16xbf16>, %[[K:[^:]*]]: memref<1x2x40x16xbf16>, %[[V:[^:]*]]: memref<1x2x40x8xbf16>, %[[O:[^:]*]]: memref<1x4x33x8xbf16>, %[[DO:[^:]*]]: memref<1x4x33x8xbf16>, %[[LSE:[^:]*]]: memref<1x4x33xf32>, %[[DQ:[^:]*]]: memref<1x4x33x16xbf16>, %[[DK:[^:]*]]: memref<1x2x40x16xbf16>, %[[DV:[^:]*]]: memref<1x2x40x8xbf16>)
// CHECK: %[[DELTA:.*]] = memref.alloc() : memref<1x4x33xf32>
// CHECK: %[[ACC:.*]] = memref.alloc() : memref<1x4x33x16xf32>
// CHECK: fattn.tiled_attention_grad ins(%[[Q]], %[[K]], %[[V]], %[[O]], %[[DO]], %[[LSE]] : {{.*}}) outs(%[[DQ]], %[[DK]], %[[DV]] : {{.*}}) workspace(%[[DELTA]], %[[ACC]] : memref<1x4x33xf32>, memref<1x4x33x16xf32>) attributes {block_m = 32 : i64, block_n = 16 : i64, deterministic, scale = 2.500000e-01 : f32, softcap = 0.000000e+00 : f32, window_left = -1 : i64, window_right = 0 : i64} preprocess {
// CHECK-NEXT: ^bb0(%[[B:.*]]: index, %[[H:.*]]: index, %[[M:.*]]: index):
// CHECK: %[[ROW:.*]] = arith.muli %[[M]], %c32
// CHECK: %[[OT:.*]] = fattn.load_tile %[[O]][%[[B]], %[[H]], %[[ROW]]] : memref<1x4x33x8xbf16> -> tensor<32x8xbf16>
// CHECK: %[[DOT:.*]] = fattn.load_tile %[[DO]][%[[B]], %[[H]], %[[ROW]]] : memref<1x4x33x8xbf16> -> tensor<32x8xbf16>
// CHECK: %[[D:.*]] = fattn.row_dot %[[DOT]], %[[OT]] : tensor<32x8xbf16> -> tensor<32xf32>
// CHECK: fattn.store_tile %[[D]], %[[DELTA]][%[[B]], %[[H]], %[[ROW]]] : tensor<32xf32>, memref<1x4x33xf32>
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<32x16xf32>
// CHECK: fattn.store_tile %[[ZERO]], %[[ACC]][%[[B]], %[[H]], %[[ROW]]] : tensor<32x16xf32>, memref<1x4x33x16xf32>
// CHECK: } body {
// CHECK-NEXT: ^bb0(%[[B:.*]]: index, %[[KVH:.*]]: index, %[[N:.*]]: index):
// CHECK: %[[SQ:.*]] = memref.dim %[[Q]], %{{.*}} : memref<1x4x33x16xbf16>
// CHECK: %[[SK:.*]] = memref.dim %[[K]], %{{.*}} : memref<1x2x40x16xbf16>
// CHECK: %[[GROUP:.*]] = arith.divui
// CHECK: %[[COL:.*]] = arith.muli %[[N]], %c16
// CHECK: %[[KT:.*]] = fattn.load_tile %[[K]][%[[B]], %[[KVH]], %[[COL]]] : memref<1x2x40x16xbf16> -> tensor<16x16xbf16>
// CHECK: %[[VT:.*]] = fattn.load_tile %[[V]][%[[B]], %[[KVH]], %[[COL]]] : memref<1x2x40x8xbf16> -> tensor<16x8xbf16>
// CHECK: %[[LO:.*]], %[[FLO:.*]], %[[FHI:.*]], %[[HI:.*]] = fattn.q_tile_range %[[N]], %[[SQ]], %[[SK]] {block_m = 32 : i64, block_n = 16 : i64, window_left = -1 : i64, window_right = 0 : i64}
// CHECK: %[[FIRST:.*]] = arith.muli %[[KVH]], %[[GROUP]]
// CHECK: %[[DK0:.*]] = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
// CHECK: %[[DV0:.*]] = arith.constant dense<0.000000e+00> : tensor<16x8xf32>
// CHECK: %[[GRADS:.*]]:2 = scf.for %[[MEMBER:.*]] = %{{.*}} to %[[GROUP]] step %{{.*}} iter_args(%{{.*}} = %[[DK0]], %{{.*}} = %[[DV0]])
// CHECK: %[[HEAD:.*]] = arith.addi %[[FIRST]], %[[MEMBER]]
// The Q tiles at the diagonal, masked.
// CHECK: %[[R0:.*]]:2 = scf.for %[[QT:.*]] = %[[LO]] to %[[FLO]] step %{{.*}} iter_args(%[[GK:.*]] = %{{.*}}, %[[GV:.*]] = %{{.*}})
// CHECK: %[[QROW:.*]] = arith.muli %[[QT]], %c32
// CHECK: %[[QQ:.*]] = fattn.load_tile %[[Q]][%[[B]], %[[HEAD]], %[[QROW]]] : memref<1x4x33x16xbf16> -> tensor<32x16xbf16>
// CHECK: %[[DOQ:.*]] = fattn.load_tile %[[DO]][%[[B]], %[[HEAD]], %[[QROW]]] : memref<1x4x33x8xbf16> -> tensor<32x8xbf16>
// CHECK: %[[LSEQ:.*]] = fattn.load_tile %[[LSE]][%[[B]], %[[HEAD]], %[[QROW]]] : memref<1x4x33xf32> -> tensor<32xf32>
// CHECK: %[[DQ_D:.*]] = fattn.load_tile %[[DELTA]][%[[B]], %[[HEAD]], %[[QROW]]] : memref<1x4x33xf32> -> tensor<32xf32>
// CHECK: %[[S:.*]] = fattn.mma %[[QQ]], %[[KT]] {transpose_rhs} : tensor<32x16xbf16>, tensor<16x16xbf16> -> tensor<32x16xf32>
// CHECK: %[[SM:.*]] = fattn.mask %[[S]] at[%[[QROW]], %[[COL]]] seq_lens(%[[SQ]], %[[SK]]) {window_left = -1 : i64, window_right = 0 : i64} : tensor<32x16xf32>
// CHECK: %[[P:.*]] = fattn.grad_probs %[[SM]], %[[LSEQ]] {scale = 2.500000e-01 : f32} : tensor<32x16xf32>, tensor<32xf32>
// CHECK: %[[GV1:.*]] = fattn.mma_transpose_lhs %[[P]], %[[DOQ]] acc(%[[GV]]) : tensor<32x16xf32>, tensor<32x8xbf16> -> tensor<16x8xf32>
// CHECK: %[[DP:.*]] = fattn.mma %[[DOQ]], %[[VT]] {transpose_rhs} : tensor<32x8xbf16>, tensor<16x8xbf16> -> tensor<32x16xf32>
// CHECK: %[[DS:.*]] = fattn.grad_scores %[[P]], %[[DP]], %[[DQ_D]] {softcap = 0.000000e+00 : f32} : tensor<32x16xf32>, tensor<32xf32> -> tensor<32x16xbf16>
// CHECK: %[[GK1:.*]] = fattn.mma_transpose_lhs %[[DS]], %[[QQ]] acc(%[[GK]]) : tensor<32x16xbf16>, tensor<32x16xbf16> -> tensor<16x16xf32>
// CHECK: %[[GQ:.*]] = fattn.mma %[[DS]], %[[KT]] : tensor<32x16xbf16>, tensor<16x16xbf16> -> tensor<32x16xf32>
// CHECK: fattn.accumulate_tile %[[GQ]], %[[ACC]][%[[B]], %[[HEAD]], %[[QROW]]] {deterministic} : tensor<32x16xf32>, memref<1x4x33x16xf32>
// CHECK: scf.yield %[[GK1]], %[[GV1]]
// The Q tiles below it, unmasked.
// CHECK: %[[R1:.*]]:2 = scf.for %{{.*}} = %[[FLO]] to %[[FHI]] step %{{.*}} iter_args(%{{.*}} = %[[R0]]#0, %{{.*}} = %[[R0]]#1)
// CHECK-NOT: fattn.mask
// CHECK: fattn.accumulate_tile
// The masked tail.
// CHECK: %[[R2:.*]]:2 = scf.for %{{.*}} = %[[FHI]] to %[[HI]] step %{{.*}} iter_args(%{{.*}} = %[[R1]]#0, %{{.*}} = %[[R1]]#1)
// CHECK: fattn.mask
// CHECK: scf.yield %[[R2]]#0, %[[R2]]#1
// dK takes the scale, dV does not.
// CHECK: %[[GKOUT:.*]] = fattn.scale_tile %[[GRADS]]#0 {scale = 2.500000e-01 : f32} : tensor<16x16xf32> -> tensor<16x16xbf16>
// CHECK: fattn.store_tile %[[GKOUT]], %[[DK]][%[[B]], %[[KVH]], %[[COL]]] : tensor<16x16xbf16>, memref<1x2x40x16xbf16>
// CHECK: %[[GVOUT:.*]] = fattn.scale_tile %[[GRADS]]#1 {scale = 1.000000e+00 : f32} : tensor<16x8xf32> -> tensor<16x8xbf16>
// CHECK: fattn.store_tile %[[GVOUT]], %[[DV]][%[[B]], %[[KVH]], %[[COL]]] : tensor<16x8xbf16>, memref<1x2x40x8xbf16>
// CHECK: } postprocess {
// CHECK-NEXT: ^bb0(%[[B:.*]]: index, %[[H:.*]]: index, %[[M:.*]]: index):
// CHECK: %[[ROW:.*]] = arith.muli %[[M]], %c32
// CHECK: %[[AT:.*]] = fattn.load_tile %[[ACC]][%[[B]], %[[H]], %[[ROW]]] : memref<1x4x33x16xf32> -> tensor<32x16xf32>
// CHECK: %[[GQOUT:.*]] = fattn.scale_tile %[[AT]] {scale = 2.500000e-01 : f32} : tensor<32x16xf32> -> tensor<32x16xbf16>
// CHECK: fattn.store_tile %[[GQOUT]], %[[DQ]][%[[B]], %[[H]], %[[ROW]]] : tensor<32x16xbf16>, memref<1x4x33x16xbf16>
// CHECK: }
// CHECK: memref.dealloc %[[DELTA]]
// CHECK: memref.dealloc %[[ACC]]
// CHECK-NOT: fattn.attention_grad
func.func @causal_gqa(%q: memref<1x4x33x16xbf16>, %k: memref<1x2x40x16xbf16>, %v: memref<1x2x40x8xbf16>,
                      %o: memref<1x4x33x8xbf16>, %do: memref<1x4x33x8xbf16>, %lse: memref<1x4x33xf32>,
                      %dq: memref<1x4x33x16xbf16>, %dk: memref<1x2x40x16xbf16>, %dv: memref<1x2x40x8xbf16>) {
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<1x4x33x16xbf16>, memref<1x2x40x16xbf16>, memref<1x2x40x8xbf16>, memref<1x4x33x8xbf16>, memref<1x4x33x8xbf16>, memref<1x4x33xf32>)
                       outs(%dq, %dk, %dv : memref<1x4x33x16xbf16>, memref<1x2x40x16xbf16>, memref<1x2x40x8xbf16>)
                       {causal = true, deterministic}
  return
}

// -----

// A window (left and right edges) and a softcap, f32, Sq < Sk: S is capped
// by the forward's fattn.softcap (which applies the scale, so grad_probs
// takes 1) before the mask, and grad_scores reads the capped scores before
// the mask for the softcap's derivative. Three Q loops: masked, unmasked,
// masked. dS stays f32; no deterministic ordering.
// CHECK-LABEL: func.func @window_softcap
// CHECK: fattn.tiled_attention_grad {{.*}} attributes {block_m = 32 : i64, block_n = 16 : i64, scale = 5.000000e-01 : f32, softcap = 3.000000e+01 : f32, window_left = 16 : i64, window_right = 4 : i64} preprocess {
// CHECK: %[[LO:.*]], %[[FLO:.*]], %[[FHI:.*]], %[[HI:.*]] = fattn.q_tile_range {{.*}} {block_m = 32 : i64, block_n = 16 : i64, window_left = 16 : i64, window_right = 4 : i64}
// CHECK: %[[R0:.*]]:2 = scf.for %{{.*}} = %[[LO]] to %[[FLO]] step
// CHECK: %[[S:.*]] = fattn.mma
// CHECK: %[[C:.*]] = fattn.softcap %[[S]] {scale = 5.000000e-01 : f32, softcap = 3.000000e+01 : f32} : tensor<32x16xf32>
// CHECK: %[[M:.*]] = fattn.mask %[[C]] at[{{.*}}] seq_lens({{.*}}) {window_left = 16 : i64, window_right = 4 : i64} : tensor<32x16xf32>
// CHECK: %[[P:.*]] = fattn.grad_probs %[[M]], %{{.*}} {scale = 1.000000e+00 : f32}
// CHECK: fattn.grad_scores %[[P]], %{{.*}}, %{{.*}} capped(%[[C]] : tensor<32x16xf32>) {softcap = 3.000000e+01 : f32} : tensor<32x16xf32>, tensor<32xf32> -> tensor<32x16xf32>
// CHECK: fattn.accumulate_tile %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] : tensor<32x8xf32>, memref<2x2x50x8xf32>
// CHECK: %[[R1:.*]]:2 = scf.for %{{.*}} = %[[FLO]] to %[[FHI]] step %{{.*}} iter_args(%{{.*}} = %[[R0]]#0, %{{.*}} = %[[R0]]#1)
// CHECK: fattn.softcap
// CHECK-NOT: fattn.mask
// CHECK: fattn.grad_scores
// CHECK: scf.for %{{.*}} = %[[FHI]] to %[[HI]] step %{{.*}} iter_args(%{{.*}} = %[[R1]]#0, %{{.*}} = %[[R1]]#1)
// CHECK: fattn.mask
func.func @window_softcap(%q: memref<2x2x50x8xf32>, %k: memref<2x2x70x8xf32>, %v: memref<2x2x70x8xf32>,
                          %o: memref<2x2x50x8xf32>, %do: memref<2x2x50x8xf32>, %lse: memref<2x2x50xf32>,
                          %dq: memref<2x2x50x8xf32>, %dk: memref<2x2x70x8xf32>, %dv: memref<2x2x70x8xf32>) {
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<2x2x50x8xf32>, memref<2x2x70x8xf32>, memref<2x2x70x8xf32>, memref<2x2x50x8xf32>, memref<2x2x50x8xf32>, memref<2x2x50xf32>)
                       outs(%dq, %dk, %dv : memref<2x2x50x8xf32>, memref<2x2x70x8xf32>, memref<2x2x70x8xf32>)
                       {window_left = 16 : i64, window_right = 4 : i64, softcap = 30.0 : f32, scale = 0.5 : f32}
  return
}

// -----

// MQA (one KV head) with dynamic batch, heads and seqs, f16, no mask: the
// workspaces take their sizes from LSE and Q; no masked loop at the start
// (no right window edge), the unmasked loop, then the masked tail.
// CHECK-LABEL: func.func @mqa_dynamic
// CHECK-SAME: (%[[Q:[^:]*]]: memref<?x?x?x16xf16>, %{{[^:]*}}: memref<?x1x?x16xf16>, %{{[^:]*}}: memref<?x1x?x16xf16>, %{{[^:]*}}: memref<?x?x?x16xf16>, %{{[^:]*}}: memref<?x?x?x16xf16>, %[[LSE:[^:]*]]: memref<?x?x?xf32>
// CHECK: %[[L0:.*]] = memref.dim %[[LSE]], %{{.*}} : memref<?x?x?xf32>
// CHECK: %[[L1:.*]] = memref.dim %[[LSE]], %{{.*}} : memref<?x?x?xf32>
// CHECK: %[[L2:.*]] = memref.dim %[[LSE]], %{{.*}} : memref<?x?x?xf32>
// CHECK: memref.alloc(%[[L0]], %[[L1]], %[[L2]]) : memref<?x?x?xf32>
// CHECK: %[[Q0:.*]] = memref.dim %[[Q]], %{{.*}} : memref<?x?x?x16xf16>
// CHECK: %[[Q1:.*]] = memref.dim %[[Q]], %{{.*}} : memref<?x?x?x16xf16>
// CHECK: %[[Q2:.*]] = memref.dim %[[Q]], %{{.*}} : memref<?x?x?x16xf16>
// CHECK: memref.alloc(%[[Q0]], %[[Q1]], %[[Q2]]) : memref<?x?x?x16xf32>
// CHECK: fattn.tiled_attention_grad {{.*}} attributes {block_m = 32 : i64, block_n = 16 : i64, scale = 2.500000e-01 : f32, softcap = 0.000000e+00 : f32, window_left = -1 : i64, window_right = -1 : i64} preprocess {
// CHECK: } body {
// CHECK: %{{.*}}, %[[FLO:.*]], %[[FHI:.*]], %[[HI:.*]] = fattn.q_tile_range
// CHECK: scf.for
// CHECK: scf.for %{{.*}} = %[[FLO]] to %[[FHI]] step
// CHECK-NOT: fattn.mask
// CHECK: fattn.grad_scores {{.*}} : tensor<32x16xf32>, tensor<32xf32> -> tensor<32x16xf16>
// CHECK: scf.for %{{.*}} = %[[FHI]] to %[[HI]] step
// CHECK: fattn.mask
// CHECK: } postprocess {
func.func @mqa_dynamic(%q: memref<?x?x?x16xf16>, %k: memref<?x1x?x16xf16>, %v: memref<?x1x?x16xf16>,
                       %o: memref<?x?x?x16xf16>, %do: memref<?x?x?x16xf16>, %lse: memref<?x?x?xf32>,
                       %dq: memref<?x?x?x16xf16>, %dk: memref<?x1x?x16xf16>, %dv: memref<?x1x?x16xf16>) {
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<?x?x?x16xf16>, memref<?x1x?x16xf16>, memref<?x1x?x16xf16>, memref<?x?x?x16xf16>, memref<?x?x?x16xf16>, memref<?x?x?xf32>)
                       outs(%dq, %dk, %dv : memref<?x?x?x16xf16>, memref<?x1x?x16xf16>, memref<?x1x?x16xf16>)
  return
}
