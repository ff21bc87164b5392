// RUN: fattn-opt %s -split-input-file --fattn-raise-attention | FileCheck %s

// Attention in the named linalg forms that StableHLO lowered to linalg with
// primitive ops produces (linalg.reduce, linalg.map, linalg.broadcast),
// raised to fattn.attention on tensors; and near-misses in those forms that
// must stay as they are.

// jax's dot_product_attention (xla implementation) through
// stablehlo-legalize-to-linalg with primitive ops: dot_general generics, the
// scale as linalg.map of a splat, and jax.nn.softmax as linalg.reduce (max,
// then sum) over the keys, linalg.broadcast of the row values back to the
// scores' shape, and linalg.map subtract, exp and divide.
// CHECK-LABEL: func.func @jax_dpa(
// CHECK-SAME: %[[Q:.*]]: tensor<1x2x8x16xf32>, %[[K:.*]]: tensor<1x2x8x16xf32>, %[[V:.*]]: tensor<1x2x8x16xf32>)
// CHECK: %[[R:.*]] = fattn.attention ins(%[[Q]], %[[K]], %[[V]] : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%{{.*}} : tensor<1x2x8x16xf32>) {scale = 2.500000e-01 : f32} -> tensor<1x2x8x16xf32>
// CHECK-NOT: linalg.
// CHECK: return %[[R]]
#qk_q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#qk_k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#qk_s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#pv_p = affine_map<(b, h, i, d, j) -> (b, h, i, j)>
#pv_v = affine_map<(b, h, i, d, j) -> (b, h, j, d)>
#pv_o = affine_map<(b, h, i, d, j) -> (b, h, i, d)>

func.func @jax_dpa(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %s0 = tensor.empty() : tensor<1x2x8x8xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%s0 : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %s = linalg.generic {indexing_maps = [#qk_q, #qk_k, #qk_s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%sz : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %ab = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %ab : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %scale = arith.constant dense<2.500000e-01> : tensor<1x2x8x8xf32>
  %ss = linalg.map { arith.mulf } ins(%s, %scale : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>)
  %mc = arith.constant 0xFF800000 : f32
  %m0 = tensor.empty() : tensor<1x2x8xf32>
  %mi = linalg.fill ins(%mc : f32) outs(%m0 : tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %m = linalg.reduce ins(%ss : tensor<1x2x8x8xf32>) outs(%mi : tensor<1x2x8xf32>) dimensions = [3]
    (%in: f32, %init: f32) {
      %x = arith.maximumf %in, %init : f32
      linalg.yield %x : f32
    }
  %mb = linalg.broadcast ins(%m : tensor<1x2x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) dimensions = [3]
  %d = linalg.map { arith.subf } ins(%ss, %mb : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>)
  %e = linalg.map { math.exp } ins(%d : tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>)
  %lc = arith.constant 0.0 : f32
  %l0 = tensor.empty() : tensor<1x2x8xf32>
  %li = linalg.fill ins(%lc : f32) outs(%l0 : tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %l = linalg.reduce ins(%e : tensor<1x2x8x8xf32>) outs(%li : tensor<1x2x8xf32>) dimensions = [3]
    (%in: f32, %init: f32) {
      %x = arith.addf %in, %init : f32
      linalg.yield %x : f32
    }
  %lb = linalg.broadcast ins(%l : tensor<1x2x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) dimensions = [3]
  %p = linalg.map { arith.divf } ins(%e, %lb : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>)
  %o0 = tensor.empty() : tensor<1x2x8x16xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  %o = linalg.generic {indexing_maps = [#pv_p, #pv_v, #pv_o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) outs(%oz : tensor<1x2x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %ab = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %ab : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

// The row max kept as [..., S, 1] (keepdims, a broadcast_in_dim that adds a
// unit dim) and collapsed again to broadcast it to the scores' shape; the
// max as maxnumf from the lowest finite f32; the sum normalized by a
// reciprocal map and a multiply; the scale a rank-0 constant broadcast.
// CHECK-LABEL: func.func @jax_softmax_keepdim(
// CHECK-SAME: %[[Q:.*]]: tensor<1x2x8x16xf32>, %[[K:.*]]: tensor<1x2x8x16xf32>, %[[V:.*]]: tensor<1x2x8x16xf32>)
// CHECK: %[[R:.*]] = fattn.attention ins(%[[Q]], %[[K]], %[[V]] : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%{{.*}} : tensor<1x2x8x16xf32>) {scale = 1.250000e-01 : f32} -> tensor<1x2x8x16xf32>
// CHECK-NOT: linalg.
// CHECK: return %[[R]]
#qk_q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#qk_k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#qk_s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#pv_p = affine_map<(b, h, i, d, j) -> (b, h, i, j)>
#pv_v = affine_map<(b, h, i, d, j) -> (b, h, j, d)>
#pv_o = affine_map<(b, h, i, d, j) -> (b, h, i, d)>

func.func @jax_softmax_keepdim(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %s0 = tensor.empty() : tensor<1x2x8x8xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%s0 : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %s = linalg.generic {indexing_maps = [#qk_q, #qk_k, #qk_s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%sz : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %ab = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %ab : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %c = arith.constant dense<1.250000e-01> : tensor<f32>
  %scale = linalg.broadcast ins(%c : tensor<f32>) outs(%s0 : tensor<1x2x8x8xf32>) dimensions = [0, 1, 2, 3]
  %ss = linalg.map { arith.mulf } ins(%s, %scale : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>)
  %mc = arith.constant -3.40282347E+38 : f32
  %m0 = tensor.empty() : tensor<1x2x8xf32>
  %mi = linalg.fill ins(%mc : f32) outs(%m0 : tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %m = linalg.reduce ins(%ss : tensor<1x2x8x8xf32>) outs(%mi : tensor<1x2x8xf32>) dimensions = [3]
    (%in: f32, %init: f32) {
      %x = arith.maxnumf %in, %init : f32
      linalg.yield %x : f32
    }
  %mk0 = tensor.empty() : tensor<1x2x8x1xf32>
  %mk = linalg.broadcast ins(%m : tensor<1x2x8xf32>) outs(%mk0 : tensor<1x2x8x1xf32>) dimensions = [3]
  %mrow = tensor.collapse_shape %mk [[0], [1], [2, 3]] : tensor<1x2x8x1xf32> into tensor<1x2x8xf32>
  %mb = linalg.broadcast ins(%mrow : tensor<1x2x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) dimensions = [3]
  %d = linalg.map { arith.subf } ins(%ss, %mb : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>)
  %e = linalg.map { math.exp } ins(%d : tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>)
  %lc = arith.constant 0.0 : f32
  %l0 = tensor.empty() : tensor<1x2x8xf32>
  %li = linalg.fill ins(%lc : f32) outs(%l0 : tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %l = linalg.reduce ins(%e : tensor<1x2x8x8xf32>) outs(%li : tensor<1x2x8xf32>) dimensions = [3]
    (%in: f32, %init: f32) {
      %x = arith.addf %in, %init : f32
      linalg.yield %x : f32
    }
  %one = arith.constant dense<1.000000e+00> : tensor<1x2x8xf32>
  %rl = linalg.map { arith.divf } ins(%one, %l : tensor<1x2x8xf32>, tensor<1x2x8xf32>) outs(%l0 : tensor<1x2x8xf32>)
  %rlb = linalg.broadcast ins(%rl : tensor<1x2x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) dimensions = [3]
  %p = linalg.map { arith.mulf } ins(%e, %rlb : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>)
  %o0 = tensor.empty() : tensor<1x2x8x16xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  %o = linalg.generic {indexing_maps = [#pv_p, #pv_v, #pv_o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) outs(%oz : tensor<1x2x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %ab = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %ab : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

// is_causal: jnp.tril's iota generics compared by a linalg.map, broadcast to
// the scores' shape, and a linalg.map select of the scores and jax's large
// negative number (-0.7 * the largest f32).
// CHECK-LABEL: func.func @jax_dpa_causal(
// CHECK-SAME: %[[Q:.*]]: tensor<1x2x8x16xf32>, %[[K:.*]]: tensor<1x2x8x16xf32>, %[[V:.*]]: tensor<1x2x8x16xf32>)
// CHECK: %[[R:.*]] = fattn.attention ins(%[[Q]], %[[K]], %[[V]] : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%{{.*}} : tensor<1x2x8x16xf32>) {causal = true, scale = 2.500000e-01 : f32} -> tensor<1x2x8x16xf32>
// CHECK-NOT: linalg.
// CHECK: return %[[R]]
#qk_q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#qk_k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#qk_s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#pv_p = affine_map<(b, h, i, d, j) -> (b, h, i, j)>
#pv_v = affine_map<(b, h, i, d, j) -> (b, h, j, d)>
#pv_o = affine_map<(b, h, i, d, j) -> (b, h, i, d)>

func.func @jax_dpa_causal(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %s0 = tensor.empty() : tensor<1x2x8x8xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%s0 : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %s = linalg.generic {indexing_maps = [#qk_q, #qk_k, #qk_s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%sz : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %ab = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %ab : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %scale = arith.constant dense<2.500000e-01> : tensor<1x2x8x8xf32>
  %ss = linalg.map { arith.mulf } ins(%s, %scale : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>)
  %i0 = tensor.empty() : tensor<8x8xi64>
  %rows = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%i0 : tensor<8x8xi64>) {
  ^bb0(%out: i64):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i64
    linalg.yield %ii : i64
  } -> tensor<8x8xi64>
  %cols = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%i0 : tensor<8x8xi64>) {
  ^bb0(%out: i64):
    %j = linalg.index 1 : index
    %jj = arith.index_cast %j : index to i64
    linalg.yield %jj : i64
  } -> tensor<8x8xi64>
  %b0 = tensor.empty() : tensor<8x8xi1>
  %tril = linalg.map ins(%rows, %cols : tensor<8x8xi64>, tensor<8x8xi64>) outs(%b0 : tensor<8x8xi1>)
    (%r: i64, %c: i64, %out: i1) {
      %ge = arith.cmpi sge, %r, %c : i64
      linalg.yield %ge : i1
    }
  %mask0 = tensor.empty() : tensor<1x2x8x8xi1>
  %mask = linalg.broadcast ins(%tril : tensor<8x8xi1>) outs(%mask0 : tensor<1x2x8x8xi1>) dimensions = [0, 1]
  %neg = arith.constant dense<-2.38197633E+38> : tensor<1x2x8x8xf32>
  %sm = linalg.map { arith.select } ins(%mask, %ss, %neg : tensor<1x2x8x8xi1>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>)
  %mc = arith.constant 0xFF800000 : f32
  %m0 = tensor.empty() : tensor<1x2x8xf32>
  %mi = linalg.fill ins(%mc : f32) outs(%m0 : tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %m = linalg.reduce ins(%sm : tensor<1x2x8x8xf32>) outs(%mi : tensor<1x2x8xf32>) dimensions = [3]
    (%in: f32, %init: f32) {
      %x = arith.maximumf %in, %init : f32
      linalg.yield %x : f32
    }
  %mb = linalg.broadcast ins(%m : tensor<1x2x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) dimensions = [3]
  %d = linalg.map { arith.subf } ins(%sm, %mb : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>)
  %e = linalg.map { math.exp } ins(%d : tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>)
  %lc = arith.constant 0.0 : f32
  %l0 = tensor.empty() : tensor<1x2x8xf32>
  %li = linalg.fill ins(%lc : f32) outs(%l0 : tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %l = linalg.reduce ins(%e : tensor<1x2x8x8xf32>) outs(%li : tensor<1x2x8xf32>) dimensions = [3]
    (%in: f32, %init: f32) {
      %x = arith.addf %in, %init : f32
      linalg.yield %x : f32
    }
  %lb = linalg.broadcast ins(%l : tensor<1x2x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) dimensions = [3]
  %p = linalg.map { arith.divf } ins(%e, %lb : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>)
  %o0 = tensor.empty() : tensor<1x2x8x16xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  %o = linalg.generic {indexing_maps = [#pv_p, #pv_v, #pv_o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) outs(%oz : tensor<1x2x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %ab = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %ab : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

// Near-miss: the "row max" reduces over the queries (dim 2), not the keys;
// subtracting it does not give the softmax over the keys.
// CHECK-LABEL: func.func @max_over_queries(
// CHECK-NOT: fattn.attention
// CHECK: linalg.reduce {{.*}} dimensions = [2]
// CHECK-NOT: fattn.attention
// CHECK: return
#qk_q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#qk_k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#qk_s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#pv_p = affine_map<(b, h, i, d, j) -> (b, h, i, j)>
#pv_v = affine_map<(b, h, i, d, j) -> (b, h, j, d)>
#pv_o = affine_map<(b, h, i, d, j) -> (b, h, i, d)>

func.func @max_over_queries(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %s0 = tensor.empty() : tensor<1x2x8x8xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%s0 : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %s = linalg.generic {indexing_maps = [#qk_q, #qk_k, #qk_s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%sz : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %ab = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %ab : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %scale = arith.constant dense<2.500000e-01> : tensor<1x2x8x8xf32>
  %ss = linalg.map { arith.mulf } ins(%s, %scale : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>)
  %mc = arith.constant 0xFF800000 : f32
  %m0 = tensor.empty() : tensor<1x2x8xf32>
  %mi = linalg.fill ins(%mc : f32) outs(%m0 : tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %m = linalg.reduce ins(%ss : tensor<1x2x8x8xf32>) outs(%mi : tensor<1x2x8xf32>) dimensions = [2]
    (%in: f32, %init: f32) {
      %x = arith.maximumf %in, %init : f32
      linalg.yield %x : f32
    }
  %mb = linalg.broadcast ins(%m : tensor<1x2x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) dimensions = [3]
  %d = linalg.map { arith.subf } ins(%ss, %mb : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>)
  %e = linalg.map { math.exp } ins(%d : tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>)
  %lc = arith.constant 0.0 : f32
  %l0 = tensor.empty() : tensor<1x2x8xf32>
  %li = linalg.fill ins(%lc : f32) outs(%l0 : tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %l = linalg.reduce ins(%e : tensor<1x2x8x8xf32>) outs(%li : tensor<1x2x8xf32>) dimensions = [3]
    (%in: f32, %init: f32) {
      %x = arith.addf %in, %init : f32
      linalg.yield %x : f32
    }
  %lb = linalg.broadcast ins(%l : tensor<1x2x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) dimensions = [3]
  %p = linalg.map { arith.divf } ins(%e, %lb : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>)
  %o0 = tensor.empty() : tensor<1x2x8x16xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  %o = linalg.generic {indexing_maps = [#pv_p, #pv_v, #pv_o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) outs(%oz : tensor<1x2x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %ab = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %ab : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

// Near-miss: the row max is broadcast along the queries, so each score is
// shifted by another row's max.
// CHECK-LABEL: func.func @max_broadcast_along_queries(
// CHECK-NOT: fattn.attention
// CHECK: linalg.broadcast ins(%{{.*}} : tensor<1x2x8xf32>) outs(%{{.*}} : tensor<1x2x8x8xf32>) dimensions = [2]
// CHECK-NOT: fattn.attention
// CHECK: return
#qk_q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#qk_k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#qk_s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#pv_p = affine_map<(b, h, i, d, j) -> (b, h, i, j)>
#pv_v = affine_map<(b, h, i, d, j) -> (b, h, j, d)>
#pv_o = affine_map<(b, h, i, d, j) -> (b, h, i, d)>

func.func @max_broadcast_along_queries(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %s0 = tensor.empty() : tensor<1x2x8x8xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%s0 : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %s = linalg.generic {indexing_maps = [#qk_q, #qk_k, #qk_s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%sz : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %ab = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %ab : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %scale = arith.constant dense<2.500000e-01> : tensor<1x2x8x8xf32>
  %ss = linalg.map { arith.mulf } ins(%s, %scale : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>)
  %mc = arith.constant 0xFF800000 : f32
  %m0 = tensor.empty() : tensor<1x2x8xf32>
  %mi = linalg.fill ins(%mc : f32) outs(%m0 : tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %m = linalg.reduce ins(%ss : tensor<1x2x8x8xf32>) outs(%mi : tensor<1x2x8xf32>) dimensions = [3]
    (%in: f32, %init: f32) {
      %x = arith.maximumf %in, %init : f32
      linalg.yield %x : f32
    }
  %mb = linalg.broadcast ins(%m : tensor<1x2x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) dimensions = [2]
  %d = linalg.map { arith.subf } ins(%ss, %mb : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>)
  %e = linalg.map { math.exp } ins(%d : tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>)
  %lc = arith.constant 0.0 : f32
  %l0 = tensor.empty() : tensor<1x2x8xf32>
  %li = linalg.fill ins(%lc : f32) outs(%l0 : tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %l = linalg.reduce ins(%e : tensor<1x2x8x8xf32>) outs(%li : tensor<1x2x8xf32>) dimensions = [3]
    (%in: f32, %init: f32) {
      %x = arith.addf %in, %init : f32
      linalg.yield %x : f32
    }
  %lb = linalg.broadcast ins(%l : tensor<1x2x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) dimensions = [3]
  %p = linalg.map { arith.divf } ins(%e, %lb : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>)
  %o0 = tensor.empty() : tensor<1x2x8x16xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  %o = linalg.generic {indexing_maps = [#pv_p, #pv_v, #pv_o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) outs(%oz : tensor<1x2x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %ab = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %ab : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

// Near-miss: the map after the subtract is exp2, not exp.
// CHECK-LABEL: func.func @exp2(
// CHECK-NOT: fattn.attention
// CHECK: linalg.map { math.exp2 }
// CHECK-NOT: fattn.attention
// CHECK: return
#qk_q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#qk_k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#qk_s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#pv_p = affine_map<(b, h, i, d, j) -> (b, h, i, j)>
#pv_v = affine_map<(b, h, i, d, j) -> (b, h, j, d)>
#pv_o = affine_map<(b, h, i, d, j) -> (b, h, i, d)>

func.func @exp2(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %s0 = tensor.empty() : tensor<1x2x8x8xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%s0 : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %s = linalg.generic {indexing_maps = [#qk_q, #qk_k, #qk_s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%sz : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %ab = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %ab : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %scale = arith.constant dense<2.500000e-01> : tensor<1x2x8x8xf32>
  %ss = linalg.map { arith.mulf } ins(%s, %scale : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>)
  %mc = arith.constant 0xFF800000 : f32
  %m0 = tensor.empty() : tensor<1x2x8xf32>
  %mi = linalg.fill ins(%mc : f32) outs(%m0 : tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %m = linalg.reduce ins(%ss : tensor<1x2x8x8xf32>) outs(%mi : tensor<1x2x8xf32>) dimensions = [3]
    (%in: f32, %init: f32) {
      %x = arith.maximumf %in, %init : f32
      linalg.yield %x : f32
    }
  %mb = linalg.broadcast ins(%m : tensor<1x2x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) dimensions = [3]
  %d = linalg.map { arith.subf } ins(%ss, %mb : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>)
  %e = linalg.map { math.exp2 } ins(%d : tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>)
  %lc = arith.constant 0.0 : f32
  %l0 = tensor.empty() : tensor<1x2x8xf32>
  %li = linalg.fill ins(%lc : f32) outs(%l0 : tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %l = linalg.reduce ins(%e : tensor<1x2x8x8xf32>) outs(%li : tensor<1x2x8xf32>) dimensions = [3]
    (%in: f32, %init: f32) {
      %x = arith.addf %in, %init : f32
      linalg.yield %x : f32
    }
  %lb = linalg.broadcast ins(%l : tensor<1x2x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) dimensions = [3]
  %p = linalg.map { arith.divf } ins(%e, %lb : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>)
  %o0 = tensor.empty() : tensor<1x2x8x16xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  %o = linalg.generic {indexing_maps = [#pv_p, #pv_v, #pv_o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) outs(%oz : tensor<1x2x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %ab = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %ab : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

// Near-miss: the sum starts at 1, which is not the row's sum.
// CHECK-LABEL: func.func @sum_from_one(
// CHECK-NOT: fattn.attention
// CHECK: arith.constant 1.000000e+00 : f32
// CHECK-NOT: fattn.attention
// CHECK: return
#qk_q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#qk_k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#qk_s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#pv_p = affine_map<(b, h, i, d, j) -> (b, h, i, j)>
#pv_v = affine_map<(b, h, i, d, j) -> (b, h, j, d)>
#pv_o = affine_map<(b, h, i, d, j) -> (b, h, i, d)>

func.func @sum_from_one(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %s0 = tensor.empty() : tensor<1x2x8x8xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%s0 : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %s = linalg.generic {indexing_maps = [#qk_q, #qk_k, #qk_s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%sz : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %ab = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %ab : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %scale = arith.constant dense<2.500000e-01> : tensor<1x2x8x8xf32>
  %ss = linalg.map { arith.mulf } ins(%s, %scale : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>)
  %mc = arith.constant 0xFF800000 : f32
  %m0 = tensor.empty() : tensor<1x2x8xf32>
  %mi = linalg.fill ins(%mc : f32) outs(%m0 : tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %m = linalg.reduce ins(%ss : tensor<1x2x8x8xf32>) outs(%mi : tensor<1x2x8xf32>) dimensions = [3]
    (%in: f32, %init: f32) {
      %x = arith.maximumf %in, %init : f32
      linalg.yield %x : f32
    }
  %mb = linalg.broadcast ins(%m : tensor<1x2x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) dimensions = [3]
  %d = linalg.map { arith.subf } ins(%ss, %mb : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>)
  %e = linalg.map { math.exp } ins(%d : tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>)
  %lc = arith.constant 1.0 : f32
  %l0 = tensor.empty() : tensor<1x2x8xf32>
  %li = linalg.fill ins(%lc : f32) outs(%l0 : tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %l = linalg.reduce ins(%e : tensor<1x2x8x8xf32>) outs(%li : tensor<1x2x8xf32>) dimensions = [3]
    (%in: f32, %init: f32) {
      %x = arith.addf %in, %init : f32
      linalg.yield %x : f32
    }
  %lb = linalg.broadcast ins(%l : tensor<1x2x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) dimensions = [3]
  %p = linalg.map { arith.divf } ins(%e, %lb : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>)
  %o0 = tensor.empty() : tensor<1x2x8x16xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  %o = linalg.generic {indexing_maps = [#pv_p, #pv_v, #pv_o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) outs(%oz : tensor<1x2x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %ab = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %ab : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

// Near-miss: the max starts at 0. Its row constant still cancels in exact
// arithmetic, but above the row's max it can underflow every exp of the row
// to 0 (0 / 0), so only -inf or the lowest finite value is read as the max.
// CHECK-LABEL: func.func @max_from_zero(
// CHECK-NOT: fattn.attention
// CHECK: linalg.map { arith.mulf }
// CHECK-NEXT: %[[C:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: tensor.empty() : tensor<1x2x8xf32>
// CHECK-NEXT: %[[INIT:.*]] = linalg.fill ins(%[[C]] : f32)
// CHECK-NEXT: linalg.reduce ins(%{{.*}}) outs(%[[INIT]] : tensor<1x2x8xf32>) dimensions = [3]
// CHECK-NEXT: (%in: f32, %init: f32)
// CHECK-NEXT: arith.maximumf
// CHECK-NOT: fattn.attention
// CHECK: return
#qk_q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#qk_k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#qk_s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#pv_p = affine_map<(b, h, i, d, j) -> (b, h, i, j)>
#pv_v = affine_map<(b, h, i, d, j) -> (b, h, j, d)>
#pv_o = affine_map<(b, h, i, d, j) -> (b, h, i, d)>

func.func @max_from_zero(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %s0 = tensor.empty() : tensor<1x2x8x8xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%s0 : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %s = linalg.generic {indexing_maps = [#qk_q, #qk_k, #qk_s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%sz : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %ab = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %ab : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %scale = arith.constant dense<2.500000e-01> : tensor<1x2x8x8xf32>
  %ss = linalg.map { arith.mulf } ins(%s, %scale : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>)
  %mc = arith.constant 0.0 : f32
  %m0 = tensor.empty() : tensor<1x2x8xf32>
  %mi = linalg.fill ins(%mc : f32) outs(%m0 : tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %m = linalg.reduce ins(%ss : tensor<1x2x8x8xf32>) outs(%mi : tensor<1x2x8xf32>) dimensions = [3]
    (%in: f32, %init: f32) {
      %x = arith.maximumf %in, %init : f32
      linalg.yield %x : f32
    }
  %mb = linalg.broadcast ins(%m : tensor<1x2x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) dimensions = [3]
  %d = linalg.map { arith.subf } ins(%ss, %mb : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>)
  %e = linalg.map { math.exp } ins(%d : tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>)
  %lc = arith.constant 0.0 : f32
  %l0 = tensor.empty() : tensor<1x2x8xf32>
  %li = linalg.fill ins(%lc : f32) outs(%l0 : tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %l = linalg.reduce ins(%e : tensor<1x2x8x8xf32>) outs(%li : tensor<1x2x8xf32>) dimensions = [3]
    (%in: f32, %init: f32) {
      %x = arith.addf %in, %init : f32
      linalg.yield %x : f32
    }
  %lb = linalg.broadcast ins(%l : tensor<1x2x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>) dimensions = [3]
  %p = linalg.map { arith.divf } ins(%e, %lb : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) outs(%s0 : tensor<1x2x8x8xf32>)
  %o0 = tensor.empty() : tensor<1x2x8x16xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  %o = linalg.generic {indexing_maps = [#pv_p, #pv_v, #pv_o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) outs(%oz : tensor<1x2x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %ab = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %ab : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}
