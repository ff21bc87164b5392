// RUN: fattn-opt %s -split-input-file --fattn-lower-tiled-grad-to-linalg -verify-diagnostics | FileCheck %s

// The tiled backward executed on the CPU: the three grids become three loop
// nests, in order, in an outlined kernel (values used from above, here the
// sequence lengths, become arguments); the backward's tile ops become
// linalg.generic ops on tensors, the forward's (load_tile, mma, softcap,
// mask, store_tile) are lowered as --fattn-lower-tiled-to-linalg lowers them.

// CHECK-DAG: #[[$TILE:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:map[0-9]*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[$KM:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[$KN:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[$MN:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1)>

// CHECK-LABEL: func.func private @fattn_cpu_grad_kernel
// CHECK-SAME: (%[[Q:[^:]*]]: memref<?x?x?x16xbf16>, %[[K:[^:]*]]: memref<?x?x?x16xbf16>, %{{[^:]*}}: memref<?x?x?x8xbf16>, %{{[^:]*}}: memref<?x?x?x8xbf16>, %{{[^:]*}}: memref<?x?x?x8xbf16>, %{{[^:]*}}: memref<?x?x?xf32>, %[[DQ:[^:]*]]: memref<?x?x?x16xbf16>, %{{[^:]*}}: memref<?x?x?x16xbf16>, %{{[^:]*}}: memref<?x?x?x8xbf16>, %[[DELTA:[^:]*]]: memref<?x?x?xf32>, %[[ACC:[^:]*]]: memref<?x?x?x16xf32>, %{{[^:]*}}: index, %[[SK:[^:]*]]: index) attributes {fattn.cpu_kernel}
// CHECK-DAG: %[[LOG2E:.*]] = arith.constant 1.44269502 : f32
// CHECK-DAG: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[INVCAP:.*]] = arith.constant 2.000000e-01 : f32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[SCALE:.*]] = arith.constant 2.500000e-01 : f32
// The grids: (batch, heads of Q, Q tiles), (batch, heads of K, KV tiles),
// (batch, heads of Q, Q tiles).
// CHECK: %[[MTILES:.*]] = arith.ceildivui %{{.*}}, %c16
// CHECK: %[[KVHEADS:.*]] = memref.dim %[[K]], %c1
// CHECK: %[[NTILES:.*]] = arith.ceildivui %{{.*}}, %c8
// CHECK: %[[MTILES2:.*]] = arith.ceildivui %{{.*}}, %c16
// The preprocess: D = rowsum(dO * O) in f32, stored; zeros into the
// accumulator.
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for %{{.*}} = %c0 to %[[MTILES]] step
// CHECK: linalg.generic {indexing_maps = [#[[$TILE]], #[[$TILE]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<16x8xbf16>, tensor<16x8xbf16>) outs(%{{.*}} : tensor<16xf32>)
// CHECK: arith.extf
// CHECK: arith.extf
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: %[[DVIEW:.*]] = memref.subview %[[DELTA]]
// CHECK: bufferization.materialize_in_destination %{{.*}} in restrict writable %[[DVIEW]]
// CHECK: %[[AVIEW:.*]] = memref.subview %[[ACC]]
// CHECK: bufferization.materialize_in_destination %{{.*}} in restrict writable %[[AVIEW]]
// The body.
// CHECK: scf.for
// CHECK: scf.for %{{.*}} = %c0 to %[[KVHEADS]] step
// CHECK: scf.for %[[N:.*]] = %c0 to %[[NTILES]] step
// The Q tile range; a KV tile that crosses seq_k has no unmasked Q tile.
// CHECK: arith.floordivsi
// CHECK: arith.ceildivsi
// CHECK: %[[NEXT:.*]] = arith.addi %[[N]], %c1
// CHECK: %[[END:.*]] = arith.muli %[[NEXT]], %c8
// CHECK: arith.cmpi sgt, %[[END]], %[[SK]]
// S, capped (tanh) and masked.
// CHECK: math.tanh
// CHECK: linalg.index 0
// P = exp2((S - LSE) log2(e)), 0 where LSE = -inf.
// CHECK: %[[P:.*]] = linalg.generic {indexing_maps = [#[[$TILE]], #[[$ROW]], #[[$TILE]]], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT: ^bb0(%[[S:.*]]: f32, %[[L:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[DIFF:.*]] = arith.subf %[[S]], %[[L]] : f32
// CHECK-NEXT: %[[X:.*]] = arith.mulf %[[DIFF]], %[[LOG2E]] : f32
// CHECK-NEXT: %[[E:.*]] = math.exp2 %[[X]] : f32
// CHECK-NEXT: %[[SEEN:.*]] = arith.cmpf ogt, %[[L]], %[[NEGINF]] : f32
// CHECK-NEXT: arith.select %[[SEEN]], %[[E]], %{{.*}} : f32
// dV += P^T dO, P rounded to bf16 first.
// CHECK: linalg.generic {indexing_maps = [#[[$KM]], #[[$KN]], #[[$MN]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[P]], %{{.*}} : tensor<16x8xf32>, tensor<16x8xbf16>) outs(%{{.*}} : tensor<8x8xf32>)
// CHECK-NEXT: ^bb0(%[[PV:.*]]: f32, %{{.*}}: bf16, %{{.*}}: f32):
// CHECK-NEXT: %[[PR:.*]] = arith.truncf %[[PV]] : f32 to bf16
// CHECK-NEXT: arith.extf %[[PR]] : bf16 to f32
// dS = P (dP - D) (1 - (capped / 5)^2), rounded to bf16.
// CHECK: %[[DS:.*]] = linalg.generic {indexing_maps = [#[[$TILE]], #[[$TILE]], #[[$ROW]], #[[$TILE]], #[[$TILE]]], iterator_types = ["parallel", "parallel"]} ins(%[[P]], %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16xf32>, tensor<16x8xf32>) outs(%{{.*}} : tensor<16x8xbf16>)
// CHECK-NEXT: ^bb0(%[[P1:.*]]: f32, %[[DP:.*]]: f32, %[[D:.*]]: f32, %[[C:.*]]: f32, %{{.*}}: bf16):
// CHECK-NEXT: %[[SUB:.*]] = arith.subf %[[DP]], %[[D]] : f32
// CHECK-NEXT: %[[PDS:.*]] = arith.mulf %[[P1]], %[[SUB]] : f32
// CHECK-NEXT: %[[T:.*]] = arith.mulf %[[C]], %[[INVCAP]] : f32
// CHECK-NEXT: %[[T2:.*]] = arith.mulf %[[T]], %[[T]] : f32
// CHECK-NEXT: %[[SLOPE:.*]] = arith.subf %[[ONE]], %[[T2]] : f32
// CHECK-NEXT: %[[G:.*]] = arith.mulf %[[PDS]], %[[SLOPE]] : f32
// CHECK-NEXT: arith.truncf %[[G]] : f32 to bf16
// dK += dS^T Q.
// CHECK: linalg.generic {indexing_maps = [#[[$KM]], #[[$KN]], #[[$MN]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[DS]], %{{.*}} : tensor<16x8xbf16>, tensor<16x16xbf16>) outs(%{{.*}} : tensor<8x16xf32>)
// dQ = dS K, added into the accumulator's rows inside the sequence.
// CHECK: %[[DQT:.*]] = linalg.generic {{.*}} ins(%[[DS]], %{{.*}} : tensor<16x8xbf16>, tensor<8x16xbf16>) outs(%{{.*}} : tensor<16x16xf32>)
// CHECK: %[[ROWS:.*]] = arith.maxsi
// CHECK: %[[RVIEW:.*]] = memref.subview %[[ACC]][%{{.*}}, %{{.*}}, %{{.*}}, 0] [1, 1, %[[ROWS]], 16] [1, 1, 1, 1]
// CHECK: %[[OLD:.*]] = bufferization.to_tensor %[[RVIEW]] restrict
// CHECK: %[[NEW:.*]] = tensor.extract_slice %[[DQT]][0, 0] [%[[ROWS]], 16] [1, 1]
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[OLD]], %[[NEW]] : tensor<?x16xf32>, tensor<?x16xf32>)
// CHECK: arith.addf
// CHECK: bufferization.materialize_in_destination %[[SUM]] in restrict writable %[[RVIEW]]
// dK = 0.25 dK_acc and dV, rounded.
// CHECK: arith.mulf %{{.*}}, %[[SCALE]] : f32
// CHECK: arith.truncf
// The postprocess: dQ = 0.25 * the accumulator.
// CHECK: scf.for %{{.*}} = %c0 to %[[MTILES2]] step
// CHECK: memref.subview %[[ACC]]
// CHECK: arith.mulf %{{.*}}, %[[SCALE]] : f32
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: memref.subview %[[DQ]]
// CHECK: bufferization.materialize_in_destination
// CHECK: return

// CHECK-LABEL: func.func @tiled_grad
// CHECK-SAME: (%[[A0:[^:]*]]: memref<?x?x?x16xbf16>
// CHECK: call @fattn_cpu_grad_kernel(%[[A0]], %{{.*}}) : (memref<?x?x?x16xbf16>, memref<?x?x?x16xbf16>, memref<?x?x?x8xbf16>, memref<?x?x?x8xbf16>, memref<?x?x?x8xbf16>, memref<?x?x?xf32>, memref<?x?x?x16xbf16>, memref<?x?x?x16xbf16>, memref<?x?x?x8xbf16>, memref<?x?x?xf32>, memref<?x?x?x16xf32>, index, index) -> ()
// CHECK-NOT: fattn.
func.func @tiled_grad(%Q: memref<?x?x?x16xbf16>, %K: memref<?x?x?x16xbf16>, %V: memref<?x?x?x8xbf16>,
                      %O: memref<?x?x?x8xbf16>, %dO: memref<?x?x?x8xbf16>, %LSE: memref<?x?x?xf32>,
                      %dQ: memref<?x?x?x16xbf16>, %dK: memref<?x?x?x16xbf16>, %dV: memref<?x?x?x8xbf16>,
                      %Delta: memref<?x?x?xf32>, %dQacc: memref<?x?x?x16xf32>, %sq: index, %sk: index) {
  fattn.tiled_attention_grad ins(%Q, %K, %V, %O, %dO, %LSE : memref<?x?x?x16xbf16>, memref<?x?x?x16xbf16>, memref<?x?x?x8xbf16>, memref<?x?x?x8xbf16>, memref<?x?x?x8xbf16>, memref<?x?x?xf32>)
      outs(%dQ, %dK, %dV : memref<?x?x?x16xbf16>, memref<?x?x?x16xbf16>, memref<?x?x?x8xbf16>)
      workspace(%Delta, %dQacc : memref<?x?x?xf32>, memref<?x?x?x16xf32>)
      attributes {block_m = 16 : i64, block_n = 8 : i64, scale = 0.25 : f32, softcap = 5.0 : f32, window_left = -1 : i64, window_right = 0 : i64, deterministic}
  preprocess {
  ^bb0(%b: index, %h: index, %m: index):
    %c16 = arith.constant 16 : index
    %row = arith.muli %m, %c16 : index
    %o = fattn.load_tile %O[%b, %h, %row] : memref<?x?x?x8xbf16> -> tensor<16x8xbf16>
    %do = fattn.load_tile %dO[%b, %h, %row] : memref<?x?x?x8xbf16> -> tensor<16x8xbf16>
    %d = fattn.row_dot %do, %o : tensor<16x8xbf16> -> tensor<16xf32>
    fattn.store_tile %d, %Delta[%b, %h, %row] : tensor<16xf32>, memref<?x?x?xf32>
    %zero = arith.constant dense<0.0> : tensor<16x16xf32>
    fattn.store_tile %zero, %dQacc[%b, %h, %row] : tensor<16x16xf32>, memref<?x?x?x16xf32>
  } body {
  ^bb0(%b: index, %kvh: index, %n: index):
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %col = arith.muli %n, %c8 : index
    %k = fattn.load_tile %K[%b, %kvh, %col] : memref<?x?x?x16xbf16> -> tensor<8x16xbf16>
    %v = fattn.load_tile %V[%b, %kvh, %col] : memref<?x?x?x8xbf16> -> tensor<8x8xbf16>
    %lo, %flo, %fhi, %hi = fattn.q_tile_range %n, %sq, %sk {block_m = 16 : i64, block_n = 8 : i64, window_left = -1 : i64, window_right = 0 : i64}
    %row = arith.muli %fhi, %c16 : index
    %q = fattn.load_tile %Q[%b, %kvh, %row] : memref<?x?x?x16xbf16> -> tensor<16x16xbf16>
    %do = fattn.load_tile %dO[%b, %kvh, %row] : memref<?x?x?x8xbf16> -> tensor<16x8xbf16>
    %lse = fattn.load_tile %LSE[%b, %kvh, %row] : memref<?x?x?xf32> -> tensor<16xf32>
    %d = fattn.load_tile %Delta[%b, %kvh, %row] : memref<?x?x?xf32> -> tensor<16xf32>
    %s = fattn.mma %q, %k {transpose_rhs} : tensor<16x16xbf16>, tensor<8x16xbf16> -> tensor<16x8xf32>
    %c = fattn.softcap %s {scale = 0.25 : f32, softcap = 5.0 : f32} : tensor<16x8xf32>
    %ms = fattn.mask %c at [%row, %col] seq_lens(%sq, %sk) {window_left = -1 : i64, window_right = 0 : i64} : tensor<16x8xf32>
    %p = fattn.grad_probs %ms, %lse {scale = 1.0 : f32} : tensor<16x8xf32>, tensor<16xf32>
    %dv0 = arith.constant dense<0.0> : tensor<8x8xf32>
    %dv = fattn.mma_transpose_lhs %p, %do acc(%dv0) : tensor<16x8xf32>, tensor<16x8xbf16> -> tensor<8x8xf32>
    %dp = fattn.mma %do, %v {transpose_rhs} : tensor<16x8xbf16>, tensor<8x8xbf16> -> tensor<16x8xf32>
    %ds = fattn.grad_scores %p, %dp, %d capped(%c : tensor<16x8xf32>) {softcap = 5.0 : f32} : tensor<16x8xf32>, tensor<16xf32> -> tensor<16x8xbf16>
    %dk0 = arith.constant dense<0.0> : tensor<8x16xf32>
    %dk = fattn.mma_transpose_lhs %ds, %q acc(%dk0) : tensor<16x8xbf16>, tensor<16x16xbf16> -> tensor<8x16xf32>
    %dq = fattn.mma %ds, %k : tensor<16x8xbf16>, tensor<8x16xbf16> -> tensor<16x16xf32>
    fattn.accumulate_tile %dq, %dQacc[%b, %kvh, %row] {deterministic} : tensor<16x16xf32>, memref<?x?x?x16xf32>
    %dk_out = fattn.scale_tile %dk {scale = 0.25 : f32} : tensor<8x16xf32> -> tensor<8x16xbf16>
    fattn.store_tile %dk_out, %dK[%b, %kvh, %col] : tensor<8x16xbf16>, memref<?x?x?x16xbf16>
    %dv_out = fattn.scale_tile %dv {scale = 1.0 : f32} : tensor<8x8xf32> -> tensor<8x8xbf16>
    fattn.store_tile %dv_out, %dV[%b, %kvh, %col] : tensor<8x8xbf16>, memref<?x?x?x8xbf16>
  } postprocess {
  ^bb0(%b: index, %h: index, %m: index):
    %c16 = arith.constant 16 : index
    %row = arith.muli %m, %c16 : index
    %acc = fattn.load_tile %dQacc[%b, %h, %row] : memref<?x?x?x16xf32> -> tensor<16x16xf32>
    %dq = fattn.scale_tile %acc {scale = 0.25 : f32} : tensor<16x16xf32> -> tensor<16x16xbf16>
    fattn.store_tile %dq, %dQ[%b, %h, %row] : tensor<16x16xbf16>, memref<?x?x?x16xbf16>
  }
  return
}

// -----

%m = memref.alloc() : memref<1x1x8x8xf32>
%l = memref.alloc() : memref<1x1x8xf32>
// expected-error @+1 {{'fattn.tiled_attention_grad' op must be inside a func.func to be lowered}}
fattn.tiled_attention_grad ins(%m, %m, %m, %m, %m, %l : memref<1x1x8x8xf32>, memref<1x1x8x8xf32>, memref<1x1x8x8xf32>, memref<1x1x8x8xf32>, memref<1x1x8x8xf32>, memref<1x1x8xf32>) outs(%m, %m, %m : memref<1x1x8x8xf32>, memref<1x1x8x8xf32>, memref<1x1x8x8xf32>) workspace(%l, %m : memref<1x1x8xf32>, memref<1x1x8x8xf32>) attributes {block_m = 8 : i64, block_n = 8 : i64, scale = 1.0 : f32, softcap = 0.0 : f32, window_left = -1 : i64, window_right = -1 : i64} preprocess {
^bb0(%b: index, %h: index, %t: index):
} body {
^bb0(%b: index, %h: index, %t: index):
} postprocess {
^bb0(%b: index, %h: index, %t: index):
}
