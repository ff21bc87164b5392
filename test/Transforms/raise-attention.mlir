// RUN: fattn-opt %s -split-input-file --fattn-raise-attention | FileCheck %s

// Attention as frontends write it in linalg, raised to fattn.attention on
// tensors; and near-misses that must stay as they are.

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// torch-mlir's decomposition of scaled_dot_product_attention: [B*H, S, D]
// batch matmuls, K^T by linalg.transpose, the scale after Q K^T,
// linalg.softmax. Rank 3 becomes heads of a batch of 1.
// CHECK-LABEL: func.func @torch_sdpa(
// CHECK-SAME: %[[Q:.*]]: tensor<4x8x16xf32>, %[[K:.*]]: tensor<4x8x16xf32>, %[[V:.*]]: tensor<4x8x16xf32>)
// CHECK: %[[Q4:.*]] = tensor.expand_shape %[[Q]] {{\[}}[0, 1], [2], [3]] output_shape [1, 4, 8, 16]
// CHECK: %[[K4:.*]] = tensor.expand_shape %[[K]] {{\[}}[0, 1], [2], [3]]
// CHECK: %[[V4:.*]] = tensor.expand_shape %[[V]] {{\[}}[0, 1], [2], [3]]
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<1x4x8x16xf32>
// CHECK: %[[R:.*]] = fattn.attention ins(%[[Q4]], %[[K4]], %[[V4]] : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>) outs(%[[INIT]] : tensor<1x4x8x16xf32>) {scale = 2.500000e-01 : f32} -> tensor<1x4x8x16xf32>
// CHECK: %[[O:.*]] = tensor.collapse_shape %[[R]] {{\[}}[0, 1], [2], [3]] : tensor<1x4x8x16xf32> into tensor<4x8x16xf32>
// CHECK-NOT: linalg.batch_matmul
// CHECK: return %[[O]]
func.func @torch_sdpa(%q: tensor<4x8x16xf32>, %k: tensor<4x8x16xf32>, %v: tensor<4x8x16xf32>) -> tensor<4x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.25 : f32
  %kt0 = tensor.empty() : tensor<4x16x8xf32>
  %kt = linalg.transpose ins(%k : tensor<4x8x16xf32>) outs(%kt0 : tensor<4x16x8xf32>) permutation = [0, 2, 1]
  %s0 = tensor.empty() : tensor<4x8x8xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%s0 : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<4x8x16xf32>, tensor<4x16x8xf32>) outs(%sz : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %ss = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s : tensor<4x8x8xf32>) outs(%s0 : tensor<4x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %scale : f32
    linalg.yield %m : f32
  } -> tensor<4x8x8xf32>
  %p = linalg.softmax dimension(2) ins(%ss : tensor<4x8x8xf32>) outs(%s0 : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %o0 = tensor.empty() : tensor<4x8x16xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<4x8x8xf32>, tensor<4x8x16xf32>) outs(%oz : tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  return %o : tensor<4x8x16xf32>
}

// -----

#qk_q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#qk_k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#qk_s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#pv_p = affine_map<(b, h, i, d, j) -> (b, h, i, j)>
#pv_v = affine_map<(b, h, i, d, j) -> (b, h, j, d)>
#pv_o = affine_map<(b, h, i, d, j) -> (b, h, i, d)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#qk2 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

// StableHLO lowered to linalg: 4-D dot_general generics (K read transposed
// by the indexing map), Q divided by sqrt(head_dim) before the product, a
// causal mask from iota, compare and select (-inf), and the softmax
// decomposed: max, exp(x - max) in one generic, sum, divide.
// CHECK-LABEL: func.func @stablehlo_causal(
// CHECK-SAME: %[[Q:.*]]: tensor<1x2x8x16xf32>, %[[K:.*]]: tensor<1x2x8x16xf32>, %[[V:.*]]: tensor<1x2x8x16xf32>)
// CHECK: %[[R:.*]] = fattn.attention ins(%[[Q]], %[[K]], %[[V]] : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%{{.*}} : tensor<1x2x8x16xf32>) {causal = true, scale = 2.500000e-01 : f32} -> tensor<1x2x8x16xf32>
// CHECK: return %[[R]]
func.func @stablehlo_causal(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %four = arith.constant 4.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %q0 = tensor.empty() : tensor<1x2x8x16xf32>
  %qs = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%q : tensor<1x2x8x16xf32>) outs(%q0 : tensor<1x2x8x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %d = arith.divf %in, %four : f32
    linalg.yield %d : f32
  } -> tensor<1x2x8x16xf32>
  %s0 = tensor.empty() : tensor<1x2x8x8xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%s0 : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %s = linalg.generic {indexing_maps = [#qk_q, #qk_k, #qk_s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%qs, %k : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%sz : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %i0 = tensor.empty() : tensor<8x8xi64>
  %iq = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%i0 : tensor<8x8xi64>) {
  ^bb0(%out: i64):
    %i = linalg.index 0 : index
    %c = arith.index_cast %i : index to i64
    linalg.yield %c : i64
  } -> tensor<8x8xi64>
  %ik = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%i0 : tensor<8x8xi64>) {
  ^bb0(%out: i64):
    %j = linalg.index 1 : index
    %c = arith.index_cast %j : index to i64
    linalg.yield %c : i64
  } -> tensor<8x8xi64>
  %b0 = tensor.empty() : tensor<8x8xi1>
  %keep = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%iq, %ik : tensor<8x8xi64>, tensor<8x8xi64>) outs(%b0 : tensor<8x8xi1>) {
  ^bb0(%a: i64, %b: i64, %out: i1):
    %c = arith.cmpi sge, %a, %b : i64
    linalg.yield %c : i1
  } -> tensor<8x8xi1>
  %masked = linalg.generic {indexing_maps = [#qk2, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%keep, %s : tensor<8x8xi1>, tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%c: i1, %x: f32, %out: f32):
    %r = arith.select %c, %x, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %m0 = tensor.empty() : tensor<1x2x8xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%m0 : tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %max = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked : tensor<1x2x8x8xf32>) outs(%mi : tensor<1x2x8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.maximumf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8xf32>
  %e = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked, %max : tensor<1x2x8x8xf32>, tensor<1x2x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %mx: f32, %out: f32):
    %d = arith.subf %x, %mx : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %zi = linalg.fill ins(%zero : f32) outs(%m0 : tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %sum = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%e : tensor<1x2x8x8xf32>) outs(%zi : tensor<1x2x8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8xf32>
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%e, %sum : tensor<1x2x8x8xf32>, tensor<1x2x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %l: f32, %out: f32):
    %r = arith.divf %x, %l : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%q0 : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  %o = linalg.generic {indexing_maps = [#pv_p, #pv_v, #pv_o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) outs(%oz : tensor<1x2x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}



// -----

#qk_q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#qk_k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#qk_s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#pv_p = affine_map<(b, h, i, d, j) -> (b, h, i, j)>
#pv_v = affine_map<(b, h, i, d, j) -> (b, h, j, d)>
#pv_o = affine_map<(b, h, i, d, j) -> (b, h, i, d)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#qk2 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

// torch-mlir: attn_bias = 0 where j <= i, -inf elsewhere (masked_fill of
// the triangle), added to the scaled scores; the softmax as separate
// max, subtract, exp, sum and divide generics.
// CHECK-LABEL: func.func @torch_causal_bias(
// CHECK: fattn.attention {{.*}} {causal = true, scale = 1.250000e-01 : f32}
// CHECK-NOT: linalg.generic
func.func @torch_causal_bias(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %qkinit = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %s0 = tensor.empty() : tensor<1x2x8x8xf32>
  %sz = linalg.fill ins(%qkinit : f32) outs(%s0 : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %s = linalg.generic {indexing_maps = [#qk_q, #qk_k, #qk_s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%sz : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %c = arith.constant 8.0 : f32
  %scaled = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s : tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %out: f32):
    %y = arith.divf %x, %c : f32
    linalg.yield %y : f32
  } -> tensor<1x2x8x8xf32>
  %bias0 = tensor.empty() : tensor<8x8xf32>
  %bias = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%bias0 : tensor<8x8xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %hide = arith.cmpi ugt, %j, %i : index
    %b = arith.select %hide, %ninf, %zero : f32
    linalg.yield %b : f32
  } -> tensor<8x8xf32>
  %masked = linalg.generic {indexing_maps = [#id4, #qk2, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%scaled, %bias : tensor<1x2x8x8xf32>, tensor<8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %b: f32, %out: f32):
    %r = arith.addf %x, %b : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %m0 = tensor.empty() : tensor<1x2x8xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%m0 : tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %max = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked : tensor<1x2x8x8xf32>) outs(%mi : tensor<1x2x8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.maximumf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8xf32>
  %sub = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked, %max : tensor<1x2x8x8xf32>, tensor<1x2x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %mx: f32, %out: f32):
    %r = arith.subf %x, %mx : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %e = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sub : tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %out: f32):
    %r = math.exp %x : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %zi = linalg.fill ins(%zero : f32) outs(%m0 : tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %sum = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%e : tensor<1x2x8x8xf32>) outs(%zi : tensor<1x2x8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %acc, %x : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8xf32>
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%e, %sum : tensor<1x2x8x8xf32>, tensor<1x2x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %l: f32, %out: f32):
    %r = arith.divf %x, %l : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %o0 = tensor.empty() : tensor<1x2x8x16xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  %o = linalg.generic {indexing_maps = [#pv_p, #pv_v, #pv_o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) outs(%oz : tensor<1x2x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

#qk_q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#qk_k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#qk_s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#pv_p = affine_map<(b, h, i, d, j) -> (b, h, i, j)>
#pv_v = affine_map<(b, h, i, d, j) -> (b, h, j, d)>
#pv_o = affine_map<(b, h, i, d, j) -> (b, h, i, d)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#qk2 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

// A band: keys i - 3 .. i (select with an `and` of two comparisons,
// -1e9 as the masked score), the scale after the mask, linalg.softmax.
// CHECK-LABEL: func.func @sliding_window(
// CHECK: fattn.attention {{.*}} {causal = true, scale = 5.000000e-01 : f32, window_left = 3 : i64}
func.func @sliding_window(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %qkinit = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %s0 = tensor.empty() : tensor<1x2x8x8xf32>
  %sz = linalg.fill ins(%qkinit : f32) outs(%s0 : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %s = linalg.generic {indexing_maps = [#qk_q, #qk_k, #qk_s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%sz : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %c = arith.constant 0.5 : f32
  %scaled = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s : tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %out: f32):
    %y = arith.mulf %x, %c : f32
    linalg.yield %y : f32
  } -> tensor<1x2x8x8xf32>
  %masked = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%scaled : tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %out: f32):
    %big = arith.constant -1.0e9 : f32
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %c3 = arith.constant 3 : index
    %lo = arith.addi %j, %c3 : index
    %a = arith.cmpi sle, %j, %i : index
    %b = arith.cmpi sge, %lo, %i : index
    %keep = arith.andi %a, %b : i1
    %r = arith.select %keep, %x, %big : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %p = linalg.softmax dimension(3) ins(%masked : tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %o0 = tensor.empty() : tensor<1x2x8x16xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  %o = linalg.generic {indexing_maps = [#pv_p, #pv_v, #pv_o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) outs(%oz : tensor<1x2x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

#qk_q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#qk_k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#qk_s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#pv_p = affine_map<(b, h, i, d, j) -> (b, h, i, j)>
#pv_v = affine_map<(b, h, i, d, j) -> (b, h, j, d)>
#pv_o = affine_map<(b, h, i, d, j) -> (b, h, i, d)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#qk2 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

// Top-left causal with more queries than keys (j <= i, written as
// select(i < j, -inf, s)): bottom-right aligned, the window reaches
// Sq - Sk = 4 keys to the right.
// CHECK-LABEL: func.func @causal_top_left(
// CHECK: fattn.attention {{.*}} {scale = 2.500000e-01 : f32, window_right = 4 : i64}
func.func @causal_top_left(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x4x16xf32>, %v: tensor<1x2x4x16xf32>) -> tensor<1x2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %qkinit = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %s0 = tensor.empty() : tensor<1x2x8x4xf32>
  %sz = linalg.fill ins(%qkinit : f32) outs(%s0 : tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32>
  %s = linalg.generic {indexing_maps = [#qk_q, #qk_k, #qk_s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x2x8x16xf32>, tensor<1x2x4x16xf32>) outs(%sz : tensor<1x2x8x4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x4xf32>
  %c = arith.constant 0.25 : f32
  %scaled = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s : tensor<1x2x8x4xf32>) outs(%s0 : tensor<1x2x8x4xf32>) {
  ^bb0(%x: f32, %out: f32):
    %y = arith.mulf %x, %c : f32
    linalg.yield %y : f32
  } -> tensor<1x2x8x4xf32>
  %masked = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%scaled : tensor<1x2x8x4xf32>) outs(%s0 : tensor<1x2x8x4xf32>) {
  ^bb0(%x: f32, %out: f32):
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %keep = arith.cmpi ult, %i, %j : index
    %r = arith.select %keep, %ninf, %x : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x4xf32>
  %m0 = tensor.empty() : tensor<1x2x8xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%m0 : tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %max = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked : tensor<1x2x8x4xf32>) outs(%mi : tensor<1x2x8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.maximumf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8xf32>
  %sub = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked, %max : tensor<1x2x8x4xf32>, tensor<1x2x8xf32>) outs(%s0 : tensor<1x2x8x4xf32>) {
  ^bb0(%x: f32, %mx: f32, %out: f32):
    %r = arith.subf %x, %mx : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x4xf32>
  %e = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sub : tensor<1x2x8x4xf32>) outs(%s0 : tensor<1x2x8x4xf32>) {
  ^bb0(%x: f32, %out: f32):
    %r = math.exp %x : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x4xf32>
  %zi = linalg.fill ins(%zero : f32) outs(%m0 : tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %sum = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%e : tensor<1x2x8x4xf32>) outs(%zi : tensor<1x2x8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %acc, %x : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8xf32>
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%e, %sum : tensor<1x2x8x4xf32>, tensor<1x2x8xf32>) outs(%s0 : tensor<1x2x8x4xf32>) {
  ^bb0(%x: f32, %l: f32, %out: f32):
    %r = arith.divf %x, %l : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x4xf32>
  %o0 = tensor.empty() : tensor<1x2x8x16xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  %o = linalg.generic {indexing_maps = [#pv_p, #pv_v, #pv_o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x2x8x4xf32>, tensor<1x2x4x16xf32>) outs(%oz : tensor<1x2x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

#qk_q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#qk_k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#qk_s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#pv_p = affine_map<(b, h, i, d, j) -> (b, h, i, j)>
#pv_v = affine_map<(b, h, i, d, j) -> (b, h, j, d)>
#pv_o = affine_map<(b, h, i, d, j) -> (b, h, i, d)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#qk2 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

// Near-miss: the mask is a function argument, which the pass cannot read.
// CHECK-LABEL: func.func @unknown_mask(
// CHECK-NOT: fattn.attention
func.func @unknown_mask(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %keepmask: tensor<8x8xi1>) -> tensor<1x2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %qkinit = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %s0 = tensor.empty() : tensor<1x2x8x8xf32>
  %sz = linalg.fill ins(%qkinit : f32) outs(%s0 : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %s = linalg.generic {indexing_maps = [#qk_q, #qk_k, #qk_s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%sz : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %c = arith.constant 0.25 : f32
  %scaled = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s : tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %out: f32):
    %y = arith.mulf %x, %c : f32
    linalg.yield %y : f32
  } -> tensor<1x2x8x8xf32>
  %masked = linalg.generic {indexing_maps = [#qk2, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%keepmask, %scaled : tensor<8x8xi1>, tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%kept: i1, %x: f32, %out: f32):
    %r = arith.select %kept, %x, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %m0 = tensor.empty() : tensor<1x2x8xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%m0 : tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %max = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked : tensor<1x2x8x8xf32>) outs(%mi : tensor<1x2x8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.maximumf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8xf32>
  %sub = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked, %max : tensor<1x2x8x8xf32>, tensor<1x2x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %mx: f32, %out: f32):
    %r = arith.subf %x, %mx : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %e = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sub : tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %out: f32):
    %r = math.exp %x : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %zi = linalg.fill ins(%zero : f32) outs(%m0 : tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %sum = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%e : tensor<1x2x8x8xf32>) outs(%zi : tensor<1x2x8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %acc, %x : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8xf32>
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%e, %sum : tensor<1x2x8x8xf32>, tensor<1x2x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %l: f32, %out: f32):
    %r = arith.divf %x, %l : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %o0 = tensor.empty() : tensor<1x2x8x16xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  %o = linalg.generic {indexing_maps = [#pv_p, #pv_v, #pv_o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) outs(%oz : tensor<1x2x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

#qk_q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#qk_k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#qk_s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#pv_p = affine_map<(b, h, i, d, j) -> (b, h, i, j)>
#pv_v = affine_map<(b, h, i, d, j) -> (b, h, j, d)>
#pv_o = affine_map<(b, h, i, d, j) -> (b, h, i, d)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#qk2 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

// Near-miss: the softmax normalizes over the queries (dim 2).
// CHECK-LABEL: func.func @softmax_wrong_dim(
// CHECK-NOT: fattn.attention
func.func @softmax_wrong_dim(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %qkinit = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %s0 = tensor.empty() : tensor<1x2x8x8xf32>
  %sz = linalg.fill ins(%qkinit : f32) outs(%s0 : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %s = linalg.generic {indexing_maps = [#qk_q, #qk_k, #qk_s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%sz : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %c = arith.constant 0.25 : f32
  %scaled = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s : tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %out: f32):
    %y = arith.mulf %x, %c : f32
    linalg.yield %y : f32
  } -> tensor<1x2x8x8xf32>
  %p = linalg.softmax dimension(2) ins(%scaled : tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %o0 = tensor.empty() : tensor<1x2x8x16xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  %o = linalg.generic {indexing_maps = [#pv_p, #pv_v, #pv_o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) outs(%oz : tensor<1x2x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

#qk_q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#qk_k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#qk_s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#pv_p = affine_map<(b, h, i, d, j) -> (b, h, i, j)>
#pv_v = affine_map<(b, h, i, d, j) -> (b, h, j, d)>
#pv_o = affine_map<(b, h, i, d, j) -> (b, h, i, d)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#qk2 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

// Near-miss: the scale is a tensor of factors, not one constant.
// CHECK-LABEL: func.func @non_uniform_scale(
// CHECK-NOT: fattn.attention
func.func @non_uniform_scale(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %factors: tensor<8x8xf32>) -> tensor<1x2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %qkinit = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %s0 = tensor.empty() : tensor<1x2x8x8xf32>
  %sz = linalg.fill ins(%qkinit : f32) outs(%s0 : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %s = linalg.generic {indexing_maps = [#qk_q, #qk_k, #qk_s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%sz : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %scaled = linalg.generic {indexing_maps = [#id4, #qk2, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s, %factors : tensor<1x2x8x8xf32>, tensor<8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %f: f32, %out: f32):
    %y = arith.mulf %x, %f : f32
    linalg.yield %y : f32
  } -> tensor<1x2x8x8xf32>
  %m0 = tensor.empty() : tensor<1x2x8xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%m0 : tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %max = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%scaled : tensor<1x2x8x8xf32>) outs(%mi : tensor<1x2x8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.maximumf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8xf32>
  %sub = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%scaled, %max : tensor<1x2x8x8xf32>, tensor<1x2x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %mx: f32, %out: f32):
    %r = arith.subf %x, %mx : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %e = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sub : tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %out: f32):
    %r = math.exp %x : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %zi = linalg.fill ins(%zero : f32) outs(%m0 : tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %sum = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%e : tensor<1x2x8x8xf32>) outs(%zi : tensor<1x2x8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %acc, %x : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8xf32>
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%e, %sum : tensor<1x2x8x8xf32>, tensor<1x2x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %l: f32, %out: f32):
    %r = arith.divf %x, %l : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %o0 = tensor.empty() : tensor<1x2x8x16xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  %o = linalg.generic {indexing_maps = [#pv_p, #pv_v, #pv_o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) outs(%oz : tensor<1x2x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

#qk_q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#qk_k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#qk_s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#pv_p = affine_map<(b, h, i, d, j) -> (b, h, i, j)>
#pv_v = affine_map<(b, h, i, d, j) -> (b, h, j, d)>
#pv_o = affine_map<(b, h, i, d, j) -> (b, h, i, d)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#qk2 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

// Near-miss: Q K^T accumulates onto 1, not 0.
// CHECK-LABEL: func.func @nonzero_accumulator(
// CHECK-NOT: fattn.attention
func.func @nonzero_accumulator(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %qkinit = arith.constant 1.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %s0 = tensor.empty() : tensor<1x2x8x8xf32>
  %sz = linalg.fill ins(%qkinit : f32) outs(%s0 : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %s = linalg.generic {indexing_maps = [#qk_q, #qk_k, #qk_s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%sz : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %c = arith.constant 0.25 : f32
  %scaled = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s : tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %out: f32):
    %y = arith.mulf %x, %c : f32
    linalg.yield %y : f32
  } -> tensor<1x2x8x8xf32>
  %m0 = tensor.empty() : tensor<1x2x8xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%m0 : tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %max = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%scaled : tensor<1x2x8x8xf32>) outs(%mi : tensor<1x2x8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.maximumf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8xf32>
  %sub = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%scaled, %max : tensor<1x2x8x8xf32>, tensor<1x2x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %mx: f32, %out: f32):
    %r = arith.subf %x, %mx : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %e = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sub : tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %out: f32):
    %r = math.exp %x : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %zi = linalg.fill ins(%zero : f32) outs(%m0 : tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %sum = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%e : tensor<1x2x8x8xf32>) outs(%zi : tensor<1x2x8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %acc, %x : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8xf32>
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%e, %sum : tensor<1x2x8x8xf32>, tensor<1x2x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %l: f32, %out: f32):
    %r = arith.divf %x, %l : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %o0 = tensor.empty() : tensor<1x2x8x16xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  %o = linalg.generic {indexing_maps = [#pv_p, #pv_v, #pv_o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) outs(%oz : tensor<1x2x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

#qk_q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#qk_k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#qk_s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#pv_p = affine_map<(b, h, i, d, j) -> (b, h, i, j)>
#pv_v = affine_map<(b, h, i, d, j) -> (b, h, j, d)>
#pv_o = affine_map<(b, h, i, d, j) -> (b, h, i, d)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#qk2 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

// Near-miss: j < i hides every key of row 0 (the softmax gives NaN there,
// fattn 0).
// CHECK-LABEL: func.func @empty_row(
// CHECK-NOT: fattn.attention
func.func @empty_row(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %qkinit = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %s0 = tensor.empty() : tensor<1x2x8x8xf32>
  %sz = linalg.fill ins(%qkinit : f32) outs(%s0 : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %s = linalg.generic {indexing_maps = [#qk_q, #qk_k, #qk_s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%sz : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %c = arith.constant 0.25 : f32
  %scaled = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s : tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %out: f32):
    %y = arith.mulf %x, %c : f32
    linalg.yield %y : f32
  } -> tensor<1x2x8x8xf32>
  %masked = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%scaled : tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %out: f32):
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %keep = arith.cmpi slt, %j, %i : index
    %r = arith.select %keep, %x, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %m0 = tensor.empty() : tensor<1x2x8xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%m0 : tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %max = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked : tensor<1x2x8x8xf32>) outs(%mi : tensor<1x2x8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.maximumf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8xf32>
  %sub = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked, %max : tensor<1x2x8x8xf32>, tensor<1x2x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %mx: f32, %out: f32):
    %r = arith.subf %x, %mx : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %e = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sub : tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %out: f32):
    %r = math.exp %x : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %zi = linalg.fill ins(%zero : f32) outs(%m0 : tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %sum = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%e : tensor<1x2x8x8xf32>) outs(%zi : tensor<1x2x8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %acc, %x : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8xf32>
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%e, %sum : tensor<1x2x8x8xf32>, tensor<1x2x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %l: f32, %out: f32):
    %r = arith.divf %x, %l : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %o0 = tensor.empty() : tensor<1x2x8x16xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  %o = linalg.generic {indexing_maps = [#pv_p, #pv_v, #pv_o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) outs(%oz : tensor<1x2x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

#qk_q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#qk_k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#qk_s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#pv_p = affine_map<(b, h, i, d, j) -> (b, h, i, j)>
#pv_v = affine_map<(b, h, i, d, j) -> (b, h, j, d)>
#pv_o = affine_map<(b, h, i, d, j) -> (b, h, i, d)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#qk2 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

// Near-miss: -100 is not a masked score (exp(-100 - max) need not be 0).
// CHECK-LABEL: func.func @small_mask_value(
// CHECK-NOT: fattn.attention
func.func @small_mask_value(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %qkinit = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %s0 = tensor.empty() : tensor<1x2x8x8xf32>
  %sz = linalg.fill ins(%qkinit : f32) outs(%s0 : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %s = linalg.generic {indexing_maps = [#qk_q, #qk_k, #qk_s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%sz : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %c = arith.constant 0.25 : f32
  %scaled = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s : tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %out: f32):
    %y = arith.mulf %x, %c : f32
    linalg.yield %y : f32
  } -> tensor<1x2x8x8xf32>
  %masked = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%scaled : tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %out: f32):
    %small = arith.constant -100.0 : f32
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %keep = arith.cmpi sle, %j, %i : index
    %r = arith.select %keep, %x, %small : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %m0 = tensor.empty() : tensor<1x2x8xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%m0 : tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %max = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked : tensor<1x2x8x8xf32>) outs(%mi : tensor<1x2x8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.maximumf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8xf32>
  %sub = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked, %max : tensor<1x2x8x8xf32>, tensor<1x2x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %mx: f32, %out: f32):
    %r = arith.subf %x, %mx : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %e = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sub : tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %out: f32):
    %r = math.exp %x : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %zi = linalg.fill ins(%zero : f32) outs(%m0 : tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %sum = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%e : tensor<1x2x8x8xf32>) outs(%zi : tensor<1x2x8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %acc, %x : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8xf32>
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%e, %sum : tensor<1x2x8x8xf32>, tensor<1x2x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %l: f32, %out: f32):
    %r = arith.divf %x, %l : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %o0 = tensor.empty() : tensor<1x2x8x16xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  %o = linalg.generic {indexing_maps = [#pv_p, #pv_v, #pv_o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) outs(%oz : tensor<1x2x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

#qk_q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#qk_k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#qk_s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#pv_p = affine_map<(b, h, i, d, j) -> (b, h, i, j)>
#pv_v = affine_map<(b, h, i, d, j) -> (b, h, j, d)>
#pv_o = affine_map<(b, h, i, d, j) -> (b, h, i, d)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#qk2 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

// Near-miss: a negative scale (fattn.attention takes positive ones).
// CHECK-LABEL: func.func @negative_scale(
// CHECK-NOT: fattn.attention
func.func @negative_scale(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %qkinit = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %s0 = tensor.empty() : tensor<1x2x8x8xf32>
  %sz = linalg.fill ins(%qkinit : f32) outs(%s0 : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %s = linalg.generic {indexing_maps = [#qk_q, #qk_k, #qk_s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%sz : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %c = arith.constant -0.25 : f32
  %scaled = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s : tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %out: f32):
    %y = arith.mulf %x, %c : f32
    linalg.yield %y : f32
  } -> tensor<1x2x8x8xf32>
  %m0 = tensor.empty() : tensor<1x2x8xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%m0 : tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %max = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%scaled : tensor<1x2x8x8xf32>) outs(%mi : tensor<1x2x8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.maximumf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8xf32>
  %sub = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%scaled, %max : tensor<1x2x8x8xf32>, tensor<1x2x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %mx: f32, %out: f32):
    %r = arith.subf %x, %mx : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %e = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sub : tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %out: f32):
    %r = math.exp %x : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %zi = linalg.fill ins(%zero : f32) outs(%m0 : tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %sum = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%e : tensor<1x2x8x8xf32>) outs(%zi : tensor<1x2x8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %acc, %x : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8xf32>
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%e, %sum : tensor<1x2x8x8xf32>, tensor<1x2x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %l: f32, %out: f32):
    %r = arith.divf %x, %l : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %o0 = tensor.empty() : tensor<1x2x8x16xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  %o = linalg.generic {indexing_maps = [#pv_p, #pv_v, #pv_o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) outs(%oz : tensor<1x2x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// torch-mlir's form with GQA: BHSD inputs, K and V repeated per query-head
// group (linalg.broadcast of a new dim after the KV heads, collapsed into
// the heads), K^T transposed in 4-D, [B*H, S, D] batch matmuls.
// CHECK-LABEL: func.func @torch_sdpa_gqa(
// CHECK-SAME: %[[Q:.*]]: tensor<2x8x16x32xf32>, %[[K:.*]]: tensor<2x2x16x32xf32>, %[[V:.*]]: tensor<2x2x16x32xf32>)
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<2x8x16x32xf32>
// CHECK: %[[R:.*]] = fattn.attention ins(%[[Q]], %[[K]], %[[V]] : tensor<2x8x16x32xf32>, tensor<2x2x16x32xf32>, tensor<2x2x16x32xf32>) outs(%[[INIT]] : tensor<2x8x16x32xf32>) {scale = 0.176776{{[0-9]*}} : f32} -> tensor<2x8x16x32xf32>
// CHECK: %[[O:.*]] = tensor.collapse_shape %[[R]] {{\[}}[0, 1], [2], [3]] : tensor<2x8x16x32xf32> into tensor<16x16x32xf32>
// CHECK: %[[O4:.*]] = tensor.expand_shape %[[O]] {{\[}}[0, 1], [2], [3]] output_shape [2, 8, 16, 32]
// CHECK-NOT: linalg.
// CHECK: return %[[O4]]
func.func @torch_sdpa_gqa(%q: tensor<2x8x16x32xf32>, %k: tensor<2x2x16x32xf32>, %v: tensor<2x2x16x32xf32>) -> tensor<2x8x16x32xf32> {
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.1767766952966369 : f32
  %kb0 = tensor.empty() : tensor<2x2x4x16x32xf32>
  %kb = linalg.broadcast ins(%k : tensor<2x2x16x32xf32>) outs(%kb0 : tensor<2x2x4x16x32xf32>) dimensions = [2]
  %kr = tensor.collapse_shape %kb [[0], [1, 2], [3], [4]] : tensor<2x2x4x16x32xf32> into tensor<2x8x16x32xf32>
  %vb = linalg.broadcast ins(%v : tensor<2x2x16x32xf32>) outs(%kb0 : tensor<2x2x4x16x32xf32>) dimensions = [2]
  %vr = tensor.collapse_shape %vb [[0], [1, 2], [3], [4]] : tensor<2x2x4x16x32xf32> into tensor<2x8x16x32xf32>
  %kt0 = tensor.empty() : tensor<2x8x32x16xf32>
  %kt = linalg.transpose ins(%kr : tensor<2x8x16x32xf32>) outs(%kt0 : tensor<2x8x32x16xf32>) permutation = [0, 1, 3, 2]
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x8x16x32xf32> into tensor<16x16x32xf32>
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x8x32x16xf32> into tensor<16x32x16xf32>
  %v3 = tensor.collapse_shape %vr [[0, 1], [2], [3]] : tensor<2x8x16x32xf32> into tensor<16x16x32xf32>
  %s0 = tensor.empty() : tensor<16x16x16xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%s0 : tensor<16x16x16xf32>) -> tensor<16x16x16xf32>
  %s = linalg.batch_matmul ins(%q3, %kt3 : tensor<16x16x32xf32>, tensor<16x32x16xf32>) outs(%sz : tensor<16x16x16xf32>) -> tensor<16x16x16xf32>
  %ss = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s : tensor<16x16x16xf32>) outs(%s0 : tensor<16x16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %scale, %in : f32
    linalg.yield %m : f32
  } -> tensor<16x16x16xf32>
  %p = linalg.softmax dimension(2) ins(%ss : tensor<16x16x16xf32>) outs(%s0 : tensor<16x16x16xf32>) -> tensor<16x16x16xf32>
  %o0 = tensor.empty() : tensor<16x16x32xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<16x16x32xf32>) -> tensor<16x16x32xf32>
  %o = linalg.batch_matmul ins(%p, %v3 : tensor<16x16x16xf32>, tensor<16x16x32xf32>) outs(%oz : tensor<16x16x32xf32>) -> tensor<16x16x32xf32>
  %o4 = tensor.expand_shape %o [[0, 1], [2], [3]] output_shape [2, 8, 16, 32] : tensor<16x16x32xf32> into tensor<2x8x16x32xf32>
  return %o4 : tensor<2x8x16x32xf32>
}

// -----

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// A broadcast outside the KV heads ([group, kv heads] collapsed: query head
// n reads KV head n mod 2) is not GQA's order: it stays, and fattn reads all
// 8 heads of its result.
// CHECK-LABEL: func.func @group_outside_heads(
// CHECK: %[[KB:.*]] = linalg.broadcast
// CHECK: %[[KR:.*]] = tensor.collapse_shape %[[KB]] {{\[}}[0, 1], [2], [3]] : tensor<4x2x16x32xf32> into tensor<8x16x32xf32>
// CHECK: %[[K4:.*]] = tensor.expand_shape %[[KR]]
// CHECK: fattn.attention ins(%{{.*}}, %[[K4]], %{{.*}} : tensor<1x8x16x32xf32>, tensor<1x8x16x32xf32>, tensor<1x8x16x32xf32>)
func.func @group_outside_heads(%q: tensor<8x16x32xf32>, %k: tensor<2x16x32xf32>, %v: tensor<8x16x32xf32>) -> tensor<8x16x32xf32> {
  %zero = arith.constant 0.0 : f32
  %kb0 = tensor.empty() : tensor<4x2x16x32xf32>
  %kb = linalg.broadcast ins(%k : tensor<2x16x32xf32>) outs(%kb0 : tensor<4x2x16x32xf32>) dimensions = [0]
  %kr = tensor.collapse_shape %kb [[0, 1], [2], [3]] : tensor<4x2x16x32xf32> into tensor<8x16x32xf32>
  %kt0 = tensor.empty() : tensor<8x32x16xf32>
  %kt = linalg.transpose ins(%kr : tensor<8x16x32xf32>) outs(%kt0 : tensor<8x32x16xf32>) permutation = [0, 2, 1]
  %s0 = tensor.empty() : tensor<8x16x16xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%s0 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<8x16x32xf32>, tensor<8x32x16xf32>) outs(%sz : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %p = linalg.softmax dimension(2) ins(%s : tensor<8x16x16xf32>) outs(%s0 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %o0 = tensor.empty() : tensor<8x16x32xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<8x16x32xf32>) -> tensor<8x16x32xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<8x16x16xf32>, tensor<8x16x32xf32>) outs(%oz : tensor<8x16x32xf32>) -> tensor<8x16x32xf32>
  return %o : tensor<8x16x32xf32>
}


// -----

#qk_q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#qk_k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#qk_s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#pv_p = affine_map<(b, h, i, d, j) -> (b, h, i, j)>
#pv_v = affine_map<(b, h, i, d, j) -> (b, h, j, d)>
#pv_o = affine_map<(b, h, i, d, j) -> (b, h, i, d)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#qk2 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

// Near-miss: hide keys with j - 2 >= i, compared unsigned: j - 2 wraps for
// j < 2, so keys 0 and 1 are hidden too, which no window expresses.
// CHECK-LABEL: func.func @unsigned_wrap(
// CHECK-NOT: fattn.attention
func.func @unsigned_wrap(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %qkinit = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %s0 = tensor.empty() : tensor<1x2x8x8xf32>
  %sz = linalg.fill ins(%qkinit : f32) outs(%s0 : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %s = linalg.generic {indexing_maps = [#qk_q, #qk_k, #qk_s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%sz : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %c = arith.constant 0.25 : f32
  %scaled = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s : tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %out: f32):
    %y = arith.mulf %x, %c : f32
    linalg.yield %y : f32
  } -> tensor<1x2x8x8xf32>
  %masked = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%scaled : tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %out: f32):
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %c2 = arith.constant 2 : index
    %jm2 = arith.subi %j, %c2 : index
    %keep = arith.cmpi uge, %jm2, %i : index
    %r = arith.select %keep, %ninf, %x : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %m0 = tensor.empty() : tensor<1x2x8xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%m0 : tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %max = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked : tensor<1x2x8x8xf32>) outs(%mi : tensor<1x2x8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.maximumf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8xf32>
  %sub = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked, %max : tensor<1x2x8x8xf32>, tensor<1x2x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %mx: f32, %out: f32):
    %r = arith.subf %x, %mx : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %e = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sub : tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %out: f32):
    %r = math.exp %x : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %zi = linalg.fill ins(%zero : f32) outs(%m0 : tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %sum = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%e : tensor<1x2x8x8xf32>) outs(%zi : tensor<1x2x8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %acc, %x : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8xf32>
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%e, %sum : tensor<1x2x8x8xf32>, tensor<1x2x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %l: f32, %out: f32):
    %r = arith.divf %x, %l : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %o0 = tensor.empty() : tensor<1x2x8x16xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  %o = linalg.generic {indexing_maps = [#pv_p, #pv_v, #pv_o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) outs(%oz : tensor<1x2x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}


// -----

#qk_q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#qk_k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#qk_s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#pv_p = affine_map<(b, h, i, d, j) -> (b, h, i, j)>
#pv_v = affine_map<(b, h, i, d, j) -> (b, h, j, d)>
#pv_o = affine_map<(b, h, i, d, j) -> (b, h, i, d)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#qk2 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

// Near-miss: the masked score -1e9 is scaled by 1e-3 after the mask, to
// -1e6, which is no longer a masked score (at most -1e9 after later scales).
// CHECK-LABEL: func.func @mask_scaled_away(
// CHECK-NOT: fattn.attention
func.func @mask_scaled_away(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %qkinit = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %s0 = tensor.empty() : tensor<1x2x8x8xf32>
  %sz = linalg.fill ins(%qkinit : f32) outs(%s0 : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %s = linalg.generic {indexing_maps = [#qk_q, #qk_k, #qk_s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%sz : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %masked = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s : tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %out: f32):
    %big = arith.constant -1.0e9 : f32
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %keep = arith.cmpi sle, %j, %i : index
    %r = arith.select %keep, %x, %big : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %c = arith.constant 1.0e-3 : f32
  %scaled = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked : tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %out: f32):
    %y = arith.mulf %x, %c : f32
    linalg.yield %y : f32
  } -> tensor<1x2x8x8xf32>
  %m0 = tensor.empty() : tensor<1x2x8xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%m0 : tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %max = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%scaled : tensor<1x2x8x8xf32>) outs(%mi : tensor<1x2x8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.maximumf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8xf32>
  %sub = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%scaled, %max : tensor<1x2x8x8xf32>, tensor<1x2x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %mx: f32, %out: f32):
    %r = arith.subf %x, %mx : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %e = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sub : tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %out: f32):
    %r = math.exp %x : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %zi = linalg.fill ins(%zero : f32) outs(%m0 : tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %sum = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%e : tensor<1x2x8x8xf32>) outs(%zi : tensor<1x2x8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %acc, %x : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8xf32>
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%e, %sum : tensor<1x2x8x8xf32>, tensor<1x2x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %l: f32, %out: f32):
    %r = arith.divf %x, %l : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %o0 = tensor.empty() : tensor<1x2x8x16xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  %o = linalg.generic {indexing_maps = [#pv_p, #pv_v, #pv_o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) outs(%oz : tensor<1x2x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#kept3 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>

// torch-mlir's decomposed softmax keeps the reduced dim (keepdim=True): the
// row max reduced straight into [B*H, S, 1] through a constant-0 map, the
// row sum reduced into [B*H, S] and expanded to [B*H, S, 1]; both read back
// through (d0, d1, 0).
// CHECK-LABEL: func.func @torch_softmax_keepdim(
// CHECK-SAME: %[[Q:.*]]: tensor<2x8x16xf32>, %[[K:.*]]: tensor<2x8x16xf32>, %[[V:.*]]: tensor<2x8x16xf32>)
// CHECK: %[[Q4:.*]] = tensor.expand_shape %[[Q]] {{\[}}[0, 1], [2], [3]] output_shape [1, 2, 8, 16]
// CHECK: %[[K4:.*]] = tensor.expand_shape %[[K]] {{\[}}[0, 1], [2], [3]]
// CHECK: %[[V4:.*]] = tensor.expand_shape %[[V]] {{\[}}[0, 1], [2], [3]]
// CHECK: %[[R:.*]] = fattn.attention ins(%[[Q4]], %[[K4]], %[[V4]] : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%{{.*}} : tensor<1x2x8x16xf32>) {scale = 2.500000e-01 : f32} -> tensor<1x2x8x16xf32>
// CHECK: %[[O:.*]] = tensor.collapse_shape %[[R]] {{\[}}[0, 1], [2], [3]] : tensor<1x2x8x16xf32> into tensor<2x8x16xf32>
// CHECK-NOT: linalg.
// CHECK: return %[[O]]
func.func @torch_softmax_keepdim(%q: tensor<2x8x16xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.25 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %kt0 = tensor.empty() : tensor<2x16x8xf32>
  %kt = linalg.transpose ins(%k : tensor<2x8x16xf32>) outs(%kt0 : tensor<2x16x8xf32>) permutation = [0, 2, 1]
  %s0 = tensor.empty() : tensor<2x8x8xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%s0 : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x8x16xf32>, tensor<2x16x8xf32>) outs(%sz : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %ss = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s : tensor<2x8x8xf32>) outs(%s0 : tensor<2x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %scale : f32
    linalg.yield %m : f32
  } -> tensor<2x8x8xf32>
  %k0 = tensor.empty() : tensor<2x8x1xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%k0 : tensor<2x8x1xf32>) -> tensor<2x8x1xf32>
  %max = linalg.generic {indexing_maps = [#id3, #kept3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%ss : tensor<2x8x8xf32>) outs(%mi : tensor<2x8x1xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.maximumf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x8x1xf32>
  %sub = linalg.generic {indexing_maps = [#id3, #kept3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ss, %max : tensor<2x8x8xf32>, tensor<2x8x1xf32>) outs(%s0 : tensor<2x8x8xf32>) {
  ^bb0(%x: f32, %mx: f32, %out: f32):
    %r = arith.subf %x, %mx : f32
    linalg.yield %r : f32
  } -> tensor<2x8x8xf32>
  %e = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%sub : tensor<2x8x8xf32>) outs(%s0 : tensor<2x8x8xf32>) {
  ^bb0(%x: f32, %out: f32):
    %r = math.exp %x : f32
    linalg.yield %r : f32
  } -> tensor<2x8x8xf32>
  %r0 = tensor.empty() : tensor<2x8xf32>
  %zi = linalg.fill ins(%zero : f32) outs(%r0 : tensor<2x8xf32>) -> tensor<2x8xf32>
  %sum = linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%e : tensor<2x8x8xf32>) outs(%zi : tensor<2x8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x8xf32>
  %sumk = tensor.expand_shape %sum [[0], [1, 2]] output_shape [2, 8, 1] : tensor<2x8xf32> into tensor<2x8x1xf32>
  %p = linalg.generic {indexing_maps = [#id3, #kept3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%e, %sumk : tensor<2x8x8xf32>, tensor<2x8x1xf32>) outs(%s0 : tensor<2x8x8xf32>) {
  ^bb0(%x: f32, %l: f32, %out: f32):
    %r = arith.divf %x, %l : f32
    linalg.yield %r : f32
  } -> tensor<2x8x8xf32>
  %o0 = tensor.empty() : tensor<2x8x16xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x8x8xf32>, tensor<2x8x16xf32>) outs(%oz : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  return %o : tensor<2x8x16xf32>
}

// -----

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#kept3 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>

// TOSA's softmax lowered to linalg: reduce_max and reduce_sum keep the dim
// ([B*H, S, 1] expanded from the reductions), the sum's reciprocal (1 / s,
// a generic of its own) multiplies e, the reciprocal first.
// CHECK-LABEL: func.func @tosa_softmax_reciprocal(
// CHECK: fattn.attention {{.*}} {scale = 2.500000e-01 : f32}
// CHECK-NOT: linalg.
func.func @tosa_softmax_reciprocal(%q: tensor<2x8x16xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %scale = arith.constant 0.25 : f32
  %lowest = arith.constant -3.40282347E+38 : f32
  %kt0 = tensor.empty() : tensor<2x16x8xf32>
  %kt = linalg.transpose ins(%k : tensor<2x8x16xf32>) outs(%kt0 : tensor<2x16x8xf32>) permutation = [0, 2, 1]
  %s0 = tensor.empty() : tensor<2x8x8xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%s0 : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x8x16xf32>, tensor<2x16x8xf32>) outs(%sz : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %ss = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s : tensor<2x8x8xf32>) outs(%s0 : tensor<2x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %scale : f32
    linalg.yield %m : f32
  } -> tensor<2x8x8xf32>
  %r0 = tensor.empty() : tensor<2x8xf32>
  %mi = linalg.fill ins(%lowest : f32) outs(%r0 : tensor<2x8xf32>) -> tensor<2x8xf32>
  %max = linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%ss : tensor<2x8x8xf32>) outs(%mi : tensor<2x8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.maximumf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x8xf32>
  %maxk = tensor.expand_shape %max [[0], [1, 2]] output_shape [2, 8, 1] : tensor<2x8xf32> into tensor<2x8x1xf32>
  %sub = linalg.generic {indexing_maps = [#id3, #kept3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ss, %maxk : tensor<2x8x8xf32>, tensor<2x8x1xf32>) outs(%s0 : tensor<2x8x8xf32>) {
  ^bb0(%x: f32, %mx: f32, %out: f32):
    %r = arith.subf %x, %mx : f32
    linalg.yield %r : f32
  } -> tensor<2x8x8xf32>
  %e = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%sub : tensor<2x8x8xf32>) outs(%s0 : tensor<2x8x8xf32>) {
  ^bb0(%x: f32, %out: f32):
    %r = math.exp %x : f32
    linalg.yield %r : f32
  } -> tensor<2x8x8xf32>
  %zi = linalg.fill ins(%zero : f32) outs(%r0 : tensor<2x8xf32>) -> tensor<2x8xf32>
  %sum = linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%e : tensor<2x8x8xf32>) outs(%zi : tensor<2x8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x8xf32>
  %sumk = tensor.expand_shape %sum [[0], [1, 2]] output_shape [2, 8, 1] : tensor<2x8xf32> into tensor<2x8x1xf32>
  %k1 = tensor.empty() : tensor<2x8x1xf32>
  %rec = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%sumk : tensor<2x8x1xf32>) outs(%k1 : tensor<2x8x1xf32>) {
  ^bb0(%l: f32, %out: f32):
    %r = arith.divf %one, %l : f32
    linalg.yield %r : f32
  } -> tensor<2x8x1xf32>
  %p = linalg.generic {indexing_maps = [#kept3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%rec, %e : tensor<2x8x1xf32>, tensor<2x8x8xf32>) outs(%s0 : tensor<2x8x8xf32>) {
  ^bb0(%rl: f32, %x: f32, %out: f32):
    %r = arith.mulf %rl, %x : f32
    linalg.yield %r : f32
  } -> tensor<2x8x8xf32>
  %o0 = tensor.empty() : tensor<2x8x16xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x8x8xf32>, tensor<2x8x16xf32>) outs(%oz : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  return %o : tensor<2x8x16xf32>
}

// -----

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#over_queries = affine_map<(d0, d1, d2) -> (d0, 0, d2)>
#keys_first = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
#sum_out = affine_map<(d0, d1, d2) -> (d0, 0, d1)>

// Near-miss: the sum kept as [B*H, 1, S] is over the queries (a reduction
// whose last loop walks them), read back through (d0, 0, d2): a softmax
// over the wrong dim.
// CHECK-LABEL: func.func @keepdim_over_queries(
// CHECK-NOT: fattn.attention
// CHECK: return
func.func @keepdim_over_queries(%q: tensor<2x8x16xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %kt0 = tensor.empty() : tensor<2x16x8xf32>
  %kt = linalg.transpose ins(%k : tensor<2x8x16xf32>) outs(%kt0 : tensor<2x16x8xf32>) permutation = [0, 2, 1]
  %s0 = tensor.empty() : tensor<2x8x8xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%s0 : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x8x16xf32>, tensor<2x16x8xf32>) outs(%sz : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %r0 = tensor.empty() : tensor<2x8xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%r0 : tensor<2x8xf32>) -> tensor<2x8xf32>
  %max = linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%s : tensor<2x8x8xf32>) outs(%mi : tensor<2x8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.maximumf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x8xf32>
  %e = linalg.generic {indexing_maps = [#id3, #row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s, %max : tensor<2x8x8xf32>, tensor<2x8xf32>) outs(%s0 : tensor<2x8x8xf32>) {
  ^bb0(%x: f32, %mx: f32, %out: f32):
    %d = arith.subf %x, %mx : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<2x8x8xf32>
  %k0 = tensor.empty() : tensor<2x1x8xf32>
  %zi = linalg.fill ins(%zero : f32) outs(%k0 : tensor<2x1x8xf32>) -> tensor<2x1x8xf32>
  %sum = linalg.generic {indexing_maps = [#keys_first, #sum_out], iterator_types = ["parallel", "parallel", "reduction"]} ins(%e : tensor<2x8x8xf32>) outs(%zi : tensor<2x1x8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x1x8xf32>
  %p = linalg.generic {indexing_maps = [#id3, #over_queries, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%e, %sum : tensor<2x8x8xf32>, tensor<2x1x8xf32>) outs(%s0 : tensor<2x8x8xf32>) {
  ^bb0(%x: f32, %l: f32, %out: f32):
    %r = arith.divf %x, %l : f32
    linalg.yield %r : f32
  } -> tensor<2x8x8xf32>
  %o0 = tensor.empty() : tensor<2x8x16xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x8x8xf32>, tensor<2x8x16xf32>) outs(%oz : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  return %o : tensor<2x8x16xf32>
}

// -----

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row3 = affine_map<(d0, d1, d2) -> (d0, d1)>

// Near-miss: e * (2 / sum(e)) makes rows that sum to 2, not a softmax.
// CHECK-LABEL: func.func @reciprocal_not_one(
// CHECK-NOT: fattn.attention
// CHECK: return
func.func @reciprocal_not_one(%q: tensor<2x8x16xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %kt0 = tensor.empty() : tensor<2x16x8xf32>
  %kt = linalg.transpose ins(%k : tensor<2x8x16xf32>) outs(%kt0 : tensor<2x16x8xf32>) permutation = [0, 2, 1]
  %s0 = tensor.empty() : tensor<2x8x8xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%s0 : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x8x16xf32>, tensor<2x16x8xf32>) outs(%sz : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %r0 = tensor.empty() : tensor<2x8xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%r0 : tensor<2x8xf32>) -> tensor<2x8xf32>
  %max = linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%s : tensor<2x8x8xf32>) outs(%mi : tensor<2x8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.maximumf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x8xf32>
  %e = linalg.generic {indexing_maps = [#id3, #row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s, %max : tensor<2x8x8xf32>, tensor<2x8xf32>) outs(%s0 : tensor<2x8x8xf32>) {
  ^bb0(%x: f32, %mx: f32, %out: f32):
    %d = arith.subf %x, %mx : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<2x8x8xf32>
  %zi = linalg.fill ins(%zero : f32) outs(%r0 : tensor<2x8xf32>) -> tensor<2x8xf32>
  %sum = linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%e : tensor<2x8x8xf32>) outs(%zi : tensor<2x8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x8xf32>
  %p = linalg.generic {indexing_maps = [#id3, #row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%e, %sum : tensor<2x8x8xf32>, tensor<2x8xf32>) outs(%s0 : tensor<2x8x8xf32>) {
  ^bb0(%x: f32, %l: f32, %out: f32):
    %rl = arith.divf %two, %l : f32
    %r = arith.mulf %x, %rl : f32
    linalg.yield %r : f32
  } -> tensor<2x8x8xf32>
  %o0 = tensor.empty() : tensor<2x8x16xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x8x8xf32>, tensor<2x8x16xf32>) outs(%oz : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  return %o : tensor<2x8x16xf32>
}

// -----

#qk_q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#qk_k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#qk_s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#pv_p = affine_map<(b, h, i, d, j) -> (b, h, i, j)>
#pv_v = affine_map<(b, h, i, d, j) -> (b, h, j, d)>
#pv_o = affine_map<(b, h, i, d, j) -> (b, h, i, d)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>

// StableHLO's softmax lowered to linalg as written: the reduced max and sum
// broadcast back to [B, H, S, S] by broadcast_in_dim (a copying generic, or
// linalg.broadcast), then subtract and divide elementwise.
// CHECK-LABEL: func.func @stablehlo_broadcast_rows(
// CHECK-SAME: %[[Q:.*]]: tensor<1x2x8x16xf32>, %[[K:.*]]: tensor<1x2x8x16xf32>, %[[V:.*]]: tensor<1x2x8x16xf32>)
// CHECK: %[[R:.*]] = fattn.attention ins(%[[Q]], %[[K]], %[[V]] : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%{{.*}} : tensor<1x2x8x16xf32>) {scale = 2.500000e-01 : f32} -> tensor<1x2x8x16xf32>
// CHECK-NOT: linalg.
// CHECK: return %[[R]]
func.func @stablehlo_broadcast_rows(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %four = arith.constant 4.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %s0 = tensor.empty() : tensor<1x2x8x8xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%s0 : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %s = linalg.generic {indexing_maps = [#qk_q, #qk_k, #qk_s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%sz : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %ss = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s : tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %out: f32):
    %y = arith.divf %x, %four : f32
    linalg.yield %y : f32
  } -> tensor<1x2x8x8xf32>
  %m0 = tensor.empty() : tensor<1x2x8xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%m0 : tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %max = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ss : tensor<1x2x8x8xf32>) outs(%mi : tensor<1x2x8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.maximumf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8xf32>
  %maxb = linalg.generic {indexing_maps = [#row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%max : tensor<1x2x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %out: f32):
    linalg.yield %x : f32
  } -> tensor<1x2x8x8xf32>
  %sub = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ss, %maxb : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %mx: f32, %out: f32):
    %r = arith.subf %x, %mx : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %e = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sub : tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %out: f32):
    %r = math.exp %x : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %zi = linalg.fill ins(%zero : f32) outs(%m0 : tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %sum = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%e : tensor<1x2x8x8xf32>) outs(%zi : tensor<1x2x8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8xf32>
  %sumb = linalg.broadcast ins(%sum : tensor<1x2x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) dimensions = [3]
  %p = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%e, %sumb : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %l: f32, %out: f32):
    %r = arith.divf %x, %l : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %q0 = tensor.empty() : tensor<1x2x8x16xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%q0 : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  %o = linalg.generic {indexing_maps = [#pv_p, #pv_v, #pv_o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) outs(%oz : tensor<1x2x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

#qk_q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#qk_k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#qk_s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#pv_p = affine_map<(b, h, i, d, j) -> (b, h, i, j)>
#pv_v = affine_map<(b, h, i, d, j) -> (b, h, j, d)>
#pv_o = affine_map<(b, h, i, d, j) -> (b, h, i, d)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>

// Near-miss: the row sums broadcast along the queries (dimensions = [2]),
// so key j's column is divided by the sum of row j, not of its own row.
// CHECK-LABEL: func.func @sum_broadcast_along_queries(
// CHECK-NOT: fattn.attention
// CHECK: return
func.func @sum_broadcast_along_queries(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %s0 = tensor.empty() : tensor<1x2x8x8xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%s0 : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %s = linalg.generic {indexing_maps = [#qk_q, #qk_k, #qk_s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%sz : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %m0 = tensor.empty() : tensor<1x2x8xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%m0 : tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %max = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%s : tensor<1x2x8x8xf32>) outs(%mi : tensor<1x2x8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.maximumf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8xf32>
  %e = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s, %max : tensor<1x2x8x8xf32>, tensor<1x2x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %mx: f32, %out: f32):
    %d = arith.subf %x, %mx : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %zi = linalg.fill ins(%zero : f32) outs(%m0 : tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %sum = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%e : tensor<1x2x8x8xf32>) outs(%zi : tensor<1x2x8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8xf32>
  %sumb = linalg.broadcast ins(%sum : tensor<1x2x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) dimensions = [2]
  %p = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%e, %sumb : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %l: f32, %out: f32):
    %r = arith.divf %x, %l : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %q0 = tensor.empty() : tensor<1x2x8x16xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%q0 : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  %o = linalg.generic {indexing_maps = [#pv_p, #pv_v, #pv_o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) outs(%oz : tensor<1x2x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}
