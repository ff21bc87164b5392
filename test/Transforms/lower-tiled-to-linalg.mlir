// RUN: fattn-opt %s -split-input-file -fattn-lower-tiled-to-linalg | FileCheck %s

// The grid becomes a private kernel function (the operands, then any value
// the body uses from above, as arguments) holding a loop nest over
// (batch, heads, ceildiv(seq_q, block_m)); the op becomes a call.
// CHECK-LABEL: func.func private @fattn_cpu_kernel
// CHECK-SAME: (%[[Q:.*]]: memref<?x?x?x16xf32>, %{{.*}}: memref<?x?x?x16xf32>, %{{.*}}: memref<?x?x?x16xf32>, %[[O:.*]]: memref<?x?x?x16xf32>, %[[X:.*]]: index)
// CHECK-SAME: attributes {fattn.cpu_kernel}
// CHECK-DAG: %[[B:.*]] = memref.dim %[[Q]], %c0
// CHECK-DAG: %[[H:.*]] = memref.dim %[[Q]], %c1
// CHECK-DAG: %[[S:.*]] = memref.dim %[[Q]], %c2
// CHECK: %[[T:.*]] = arith.ceildivui %[[S]], %c16
// CHECK: scf.for %[[IB:.*]] = %c0 to %[[B]] step %c1
// CHECK:   scf.for %[[IH:.*]] = %c0 to %[[H]] step %c1
// CHECK:     scf.for %[[IM:.*]] = %c0 to %[[T]] step %c1
// CHECK:       func.call @use(%[[IB]], %[[IH]], %[[IM]], %[[X]])
// CHECK-LABEL: func.func @grid
// CHECK-SAME: (%[[GQ:.*]]: memref<?x?x?x16xf32>, %[[GO:.*]]: memref<?x?x?x16xf32>, %[[GX:.*]]: index)
// CHECK-NEXT: call @fattn_cpu_kernel(%[[GQ]], %[[GQ]], %[[GQ]], %[[GO]], %[[GX]])
// CHECK-NEXT: return
func.func private @use(index, index, index, index)
func.func @grid(%Q: memref<?x?x?x16xf32>, %O: memref<?x?x?x16xf32>, %x: index) {
  fattn.tiled_attention ins(%Q, %Q, %Q : memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>) outs(%O : memref<?x?x?x16xf32>) attributes {block_m = 16 : i64, block_n = 8 : i64, scale = 0.25 : f32, softcap = 0.0 : f32, window_left = -1 : i64, window_right = -1 : i64} {
  ^bb0(%b: index, %h: index, %m: index):
    func.call @use(%b, %h, %m, %x) : (index, index, index, index) -> ()
  }
  return
}

// -----

// A load clips the rows to the sequence and zero-pads the rest of the tile.
// CHECK-LABEL: func.func @load
// CHECK-SAME: (%[[M:.*]]: memref<?x?x?x16xbf16, strided<[?, ?, ?, 1], offset: ?>>, %[[B:.*]]: index, %[[H:.*]]: index, %[[R:.*]]: index)
// CHECK: %[[SEQ:.*]] = memref.dim %[[M]], %c2
// CHECK: %[[LEFT:.*]] = arith.subi %[[SEQ]], %[[R]]
// CHECK: %[[ROWS0:.*]] = arith.minsi %[[LEFT]], %c32
// CHECK: %[[ROWS:.*]] = arith.maxsi %[[ROWS0]], %c0
// CHECK: %[[VIEW:.*]] = memref.subview %[[M]][%[[B]], %[[H]], %[[R]], 0] [1, 1, %[[ROWS]], 16] [1, 1, 1, 1] : {{.*}} to memref<?x16xbf16, strided<[?, 1], offset: ?>>
// CHECK: %[[PART:.*]] = bufferization.to_tensor %[[VIEW]] restrict : memref<?x16xbf16, strided<[?, 1], offset: ?>> to tensor<?x16xbf16>
// CHECK: %[[ZERO:.*]] = linalg.fill ins(%{{.*}} : bf16) outs(%{{.*}} : tensor<32x16xbf16>)
// CHECK: tensor.insert_slice %[[PART]] into %[[ZERO]][0, 0] [%[[ROWS]], 16] [1, 1] : tensor<?x16xbf16> into tensor<32x16xbf16>
func.func @load(%m: memref<?x?x?x16xbf16, strided<[?, ?, ?, 1], offset: ?>>, %b: index, %h: index, %r: index) -> tensor<32x16xbf16> {
  %t = fattn.load_tile %m[%b, %h, %r] : memref<?x?x?x16xbf16, strided<[?, ?, ?, 1], offset: ?>> -> tensor<32x16xbf16>
  return %t : tensor<32x16xbf16>
}

// -----

// A store writes only the rows inside the sequence (here an LSE row vector).
// CHECK-LABEL: func.func @store_rows
// CHECK: %[[ROWS:.*]] = arith.maxsi
// CHECK: %[[VIEW:.*]] = memref.subview %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] [1, 1, %[[ROWS]]] [1, 1, 1] : memref<2x4x100xf32> to memref<?xf32, strided<[1], offset: ?>>
// CHECK: %[[PART:.*]] = tensor.extract_slice %{{.*}}[0] [%[[ROWS]]] [1] : tensor<64xf32> to tensor<?xf32>
// CHECK: bufferization.materialize_in_destination %[[PART]] in restrict writable %[[VIEW]]
func.func @store_rows(%t: tensor<64xf32>, %m: memref<2x4x100xf32>, %b: index, %h: index, %r: index) {
  fattn.store_tile %t, %m[%b, %h, %r] : tensor<64xf32>, memref<2x4x100xf32>
  return
}

// -----

// The KV tile range is plain index arithmetic (see KVTileRange.h).
// CHECK-LABEL: func.func @kv_range
// CHECK-NOT: fattn.kv_tile_range
// CHECK: arith.floordivsi
// CHECK: arith.ceildivsi
// CHECK: return
func.func @kv_range(%m: index, %sq: index, %sk: index) -> (index, index, index, index) {
  %a, %b, %c, %d = fattn.kv_tile_range %m, %sq, %sk {block_m = 64 : i64, block_n = 32 : i64, window_left = 10 : i64, window_right = 0 : i64}
  return %a, %b, %c, %d : index, index, index, index
}

// -----

// S = Q K^T: a contraction over the head dim, extended to f32.
// CHECK-DAG: #[[$MA:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$MB:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[$MC:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @mma_transposed
// CHECK: linalg.generic {indexing_maps = [#[[$MA]], #[[$MB]], #[[$MC]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK:   arith.extf %{{.*}} : f16 to f32
// CHECK:   arith.extf %{{.*}} : f16 to f32
// CHECK:   arith.mulf
// CHECK:   arith.addf
func.func @mma_transposed(%q: tensor<16x32xf16>, %k: tensor<8x32xf16>) -> tensor<16x8xf32> {
  %s = fattn.mma %q, %k {transpose_rhs} : tensor<16x32xf16>, tensor<8x32xf16> -> tensor<16x8xf32>
  return %s : tensor<16x8xf32>
}

// -----

// O += P V accumulates into the given tile.
// CHECK-DAG: #[[$MBN:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-LABEL: func.func @mma_acc
// CHECK-SAME: %[[ACC:[a-z0-9]+]]: tensor<16x32xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[$MBN]], #{{.*}}], {{.*}} outs(%[[ACC]] : tensor<16x32xf32>)
func.func @mma_acc(%p: tensor<16x8xf32>, %v: tensor<8x32xf32>, %acc: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %o = fattn.mma %p, %v acc(%acc : tensor<16x32xf32>) : tensor<16x8xf32>, tensor<8x32xf32> -> tensor<16x32xf32>
  return %o : tensor<16x32xf32>
}

// -----

// The mask keeps key j for query i iff j < seq_k and
// i + off - window_left <= j <= i + off + window_right.
// CHECK-LABEL: func.func @mask
// CHECK-SAME: (%[[S:.*]]: tensor<4x8xf32>, %[[R:.*]]: index, %[[C:.*]]: index, %[[SQ:.*]]: index, %[[SK:.*]]: index)
// CHECK-DAG: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[OFF:.*]] = arith.subi %[[SK]], %[[SQ]]
// CHECK: linalg.generic
// CHECK:   %[[I:.*]] = linalg.index 0
// CHECK:   %[[QI:.*]] = arith.addi %[[R]], %[[I]]
// CHECK:   %[[J:.*]] = linalg.index 1
// CHECK:   %[[KJ:.*]] = arith.addi %[[C]], %[[J]]
// CHECK:   %[[INB:.*]] = arith.cmpi slt, %[[KJ]], %[[SK]]
// CHECK:   %[[DIAG:.*]] = arith.addi %[[QI]], %[[OFF]]
// CHECK:   %[[FIRST:.*]] = arith.subi %[[DIAG]], %c3
// CHECK:   %[[GE:.*]] = arith.cmpi sge, %[[KJ]], %[[FIRST]]
// CHECK:   %[[A:.*]] = arith.andi %[[INB]], %[[GE]]
// CHECK:   %[[LE:.*]] = arith.cmpi sle, %[[KJ]], %[[DIAG]]
// CHECK:   %[[VIS:.*]] = arith.andi %[[A]], %[[LE]]
// CHECK:   arith.select %[[VIS]], %{{.*}}, %[[NEGINF]]
func.func @mask(%s: tensor<4x8xf32>, %r: index, %c: index, %sq: index, %sk: index) -> tensor<4x8xf32> {
  %0 = fattn.mask %s at [%r, %c] seq_lens(%sq, %sk) {window_left = 3 : i64, window_right = 0 : i64} : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @softcap
// CHECK-DAG: %[[INNER:.*]] = arith.constant 2.500000e-02 : f32
// CHECK-DAG: %[[CAP:.*]] = arith.constant 2.000000e+01 : f32
// CHECK: linalg.generic
// CHECK:   %[[X:.*]] = arith.mulf %{{.*}}, %[[INNER]]
// CHECK:   %[[T:.*]] = math.tanh %[[X]]
// CHECK:   arith.mulf %[[T]], %[[CAP]]
func.func @softcap(%s: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = fattn.softcap %s {scale = 0.5 : f32, softcap = 20.0 : f32} : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @init
// CHECK-DAG: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.*}} : tensor<4xf32>)
// CHECK: linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<4xf32>)
// CHECK: linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<4x16xf32>)
func.func @init() -> (tensor<4xf32>, tensor<4xf32>, tensor<4x16xf32>) {
  %m, %l, %a = fattn.softmax_init : tensor<4xf32>, tensor<4xf32>, tensor<4x16xf32>
  return %m, %l, %a : tensor<4xf32>, tensor<4xf32>, tensor<4x16xf32>
}

// -----

// new_max = max(m, rowmax(s)); p = exp2(scale*log2(e) * (s - new_max)) with
// new_max = -inf taken as 0; rowsum over f32 p; alpha and new_sum; then p
// is converted to bf16.
// CHECK-LABEL: func.func @update
// CHECK-SAME: (%[[S:.*]]: tensor<4x8xf32>, %[[M:.*]]: tensor<4xf32>, %[[L:.*]]: tensor<4xf32>)
// CHECK-DAG: %[[C:.*]] = arith.constant 0.72134751 : f32
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[S]] : tensor<4x8xf32>) outs(%[[M]] : tensor<4xf32>)
// CHECK:   arith.maxnumf
// CHECK: %[[P:.*]] = linalg.generic {{.*}} ins(%[[S]], %[[MAX]] : tensor<4x8xf32>, tensor<4xf32>)
// CHECK:   arith.cmpf oeq
// CHECK:   arith.select
// CHECK:   arith.subf
// CHECK:   arith.mulf %{{.*}}, %[[C]]
// CHECK:   math.exp2
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[P]] : tensor<4x8xf32>)
// CHECK: %[[ROW:.*]]:2 = linalg.generic {{.*}} ins(%[[M]], %[[MAX]], %[[L]], %[[SUM]] : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK:   math.exp2
// CHECK:   arith.mulf
// CHECK:   arith.addf
// CHECK: %[[PB:.*]] = linalg.generic {{.*}} ins(%[[P]] : tensor<4x8xf32>) outs(%{{.*}} : tensor<4x8xbf16>)
// CHECK:   arith.truncf %{{.*}} : f32 to bf16
// CHECK: return %[[PB]], %[[MAX]], %[[ROW]]#1, %[[ROW]]#0
func.func @update(%s: tensor<4x8xf32>, %m: tensor<4xf32>, %l: tensor<4xf32>) -> (tensor<4x8xbf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %p, %m1, %l1, %alpha = fattn.softmax_update %s, %m, %l {scale = 0.5 : f32} : tensor<4x8xf32>, tensor<4xf32> -> tensor<4x8xbf16>
  return %p, %m1, %l1, %alpha : tensor<4x8xbf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @rescale
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%{{.*}}, %{{.*}} : tensor<4x16xf32>, tensor<4xf32>)
// CHECK:   arith.mulf
func.func @rescale(%acc: tensor<4x16xf32>, %alpha: tensor<4xf32>) -> tensor<4x16xf32> {
  %0 = fattn.rescale %acc, %alpha : tensor<4x16xf32>, tensor<4xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// O = acc / l (0 where l = 0), converted to f16; LSE = scale*m + log(l) or -inf.
// CHECK-LABEL: func.func @finalize
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<4x16xf16>)
// CHECK:   arith.divf
// CHECK:   arith.cmpf ogt
// CHECK:   arith.select
// CHECK:   arith.truncf %{{.*}} : f32 to f16
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<4xf32>)
// CHECK:   arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK:   math.log
// CHECK:   arith.addf
// CHECK:   arith.cmpf ogt
// CHECK:   arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
func.func @finalize(%acc: tensor<4x16xf32>, %m: tensor<4xf32>, %l: tensor<4xf32>) -> (tensor<4x16xf16>, tensor<4xf32>) {
  %o, %lse = fattn.finalize %acc, %m, %l {scale = 0.5 : f32} : tensor<4x16xf32>, tensor<4xf32> -> tensor<4x16xf16>
  return %o, %lse : tensor<4x16xf16>, tensor<4xf32>
}

// -----

// Per-block descales: one load per row, at its (clamped) block.
// CHECK-LABEL: func.func @load_descale_block
// CHECK-SAME: (%[[D:.*]]: memref<2x3x?xf32>, %[[B:.*]]: index, %[[H:.*]]: index, %[[R:.*]]: index)
// CHECK: tensor.generate
// CHECK: ^bb0(%[[I:.*]]: index):
// CHECK:   %[[ROW:.*]] = arith.addi %[[R]], %[[I]]
// CHECK:   %[[BLK:.*]] = arith.divui %[[ROW]], %c16
// CHECK:   %[[LAST:.*]] = arith.subi %{{.*}}, %c1
// CHECK:   %[[IDX:.*]] = arith.minui %[[BLK]], %[[LAST]]
// CHECK:   %[[X:.*]] = memref.load %[[D]][%[[B]], %[[H]], %[[IDX]]]
// CHECK:   tensor.yield %[[X]]
func.func @load_descale_block(%d: memref<2x3x?xf32>, %b: index, %h: index, %r: index) -> tensor<32xf32> {
  %s = fattn.load_descale %d[%b, %h, %r] {block = 16 : i64} : memref<2x3x?xf32> -> tensor<32xf32>
  return %s : tensor<32xf32>
}

// -----

// Scaled FP8 products: e4m3 decoded with integer ops (LLVM has no 8-bit
// floats), then multiplied by the row scales of both operands.
// CHECK-DAG: #[[$LS:.*]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-DAG: #[[$RS:.*]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func @mma_fp8_scaled
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #[[$LS]], #[[$RS]], #{{.*}}]
// CHECK: ^bb0(%[[A:.*]]: f8E4M3FN, %[[BB:.*]]: f8E4M3FN, %[[SA:.*]]: f32, %[[SB:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK:   arith.bitcast %[[A]] : f8E4M3FN to i8
// CHECK-NOT: arith.extf
// CHECK:   arith.bitcast %[[BB]] : f8E4M3FN to i8
// CHECK:   %[[P1:.*]] = arith.mulf %{{.*}}, %[[SA]]
// CHECK:   %[[P2:.*]] = arith.mulf %[[P1]], %[[SB]]
// CHECK:   arith.addf %[[ACC]], %[[P2]]
func.func @mma_fp8_scaled(%q: tensor<16x32xf8E4M3FN>, %k: tensor<8x32xf8E4M3FN>, %qs: tensor<16xf32>, %ks: tensor<8xf32>) -> tensor<16x8xf32> {
  %s = fattn.mma %q, %k lhs_scale(%qs : tensor<16xf32>) rhs_scale(%ks : tensor<8xf32>) {transpose_rhs} : tensor<16x32xf8E4M3FN>, tensor<8x32xf8E4M3FN> -> tensor<16x8xf32>
  return %s : tensor<16x8xf32>
}

// -----

// Runtime scalars: scale / softcap and scale * log2(e) are computed once,
// before the tile's generics, which read them.
// CHECK-LABEL: func.func @softcap_runtime
// CHECK-SAME: (%{{.*}}: tensor<4x8xf32>, %[[SC:.*]]: f32, %[[CAP:.*]]: f32)
// CHECK: %[[INNER:.*]] = arith.divf %[[SC]], %[[CAP]] : f32
// CHECK: linalg.generic
// CHECK:   %[[X:.*]] = arith.mulf %{{.*}}, %[[INNER]]
// CHECK:   %[[T:.*]] = math.tanh %[[X]]
// CHECK:   arith.mulf %[[T]], %[[CAP]]
func.func @softcap_runtime(%s: tensor<4x8xf32>, %sc: f32, %cap: f32) -> tensor<4x8xf32> {
  %0 = fattn.softcap %s scale(%sc : f32) softcap(%cap : f32) : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @update_runtime
// CHECK-SAME: %[[SC:[^:]*]]: f32)
// CHECK: %[[LOG2E:.*]] = arith.constant 1.44269502 : f32
// CHECK: %[[C:.*]] = arith.mulf %[[SC]], %[[LOG2E]] : f32
// CHECK: linalg.generic
// CHECK: linalg.generic
// CHECK:   arith.mulf %{{.*}}, %[[C]]
// CHECK:   math.exp2
// CHECK: linalg.generic
// CHECK: linalg.generic
// CHECK:   arith.mulf %{{.*}}, %[[C]]
func.func @update_runtime(%s: tensor<4x8xf32>, %m: tensor<4xf32>, %l: tensor<4xf32>, %sc: f32) -> (tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %p, %m1, %l1, %alpha = fattn.softmax_update %s, %m, %l scale(%sc : f32) : tensor<4x8xf32>, tensor<4xf32> -> tensor<4x8xf32>
  return %p, %m1, %l1, %alpha : tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @finalize_runtime
// CHECK-SAME: %[[SC:[^:]*]]: f32)
// CHECK: linalg.generic
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<4xf32>)
// CHECK:   arith.mulf %{{.*}}, %[[SC]] : f32
// CHECK:   math.log
func.func @finalize_runtime(%acc: tensor<4x16xf32>, %m: tensor<4xf32>, %l: tensor<4xf32>, %sc: f32) -> (tensor<4x16xf16>, tensor<4xf32>) {
  %o, %lse = fattn.finalize %acc, %m, %l scale(%sc : f32) : tensor<4x16xf32>, tensor<4xf32> -> tensor<4x16xf16>
  return %o, %lse : tensor<4x16xf16>, tensor<4xf32>
}
