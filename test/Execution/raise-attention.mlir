// Attention written as linalg ops (torch-mlir's form: Q K^T, a scale, an
// additive causal bias, the softmax decomposed, P V) computes the same on the
// CPU raised to fattn.attention as it does as written.
// RUN: fattn-opt %s --fattn-raise-attention | FileCheck %s --check-prefix=RAISED
// RUN: fattn-opt %s --fattn-raise-attention \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
// RUN:   | fattn-opt --fattn-cpu-pipeline="block-m=2 block-n=2" \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | FileCheck %s
// RUN: fattn-opt %s \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
// RUN:   | fattn-opt --fattn-cpu-pipeline \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | FileCheck %s

// RAISED-LABEL: func.func @attend
// RAISED: fattn.attention {{.*}} {causal = true, scale = 1.250000e-01 : f32}
// RAISED-LABEL: func.func @attend_gqa
// RAISED: fattn.attention ins({{.*}} : tensor<1x4x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>)
// RAISED-LABEL: func.func @attend_keepdim
// RAISED: fattn.attention ins({{.*}} : tensor<1x2x2x2xf32>, tensor<1x2x4x2xf32>, tensor<1x2x4x2xf32>)
// RAISED-LABEL: func.func @attend_primitive
// RAISED: fattn.attention {{.*}} {causal = true, scale = 5.000000e-01 : f32}
// RAISED-NOT: linalg.

// Q = 0 gives every visible key the same weight, and V[j] = (j, 10 j), so
// causal row i of both heads gets the mean of keys 0..i, (i / 2, 5 i).
// CHECK: data =
// CHECK-NEXT: [0,   0]
// CHECK-NEXT: [0.5,   5]
// CHECK-NEXT: [1,   10]
// CHECK-NEXT: [1.5,   15]
// CHECK-NEXT: [0,   0]
// CHECK-NEXT: [0.5,   5]
// CHECK-NEXT: [1,   10]
// CHECK-NEXT: [1.5,   15]

// GQA (torch-mlir's repeat of K and V per group, [B*H, S, D] batch matmuls,
// no mask, the softmax decomposed): query heads 0 and 1 read KV head 0, V = ((0, 0), (2, 20)), and
// heads 2 and 3 KV head 1, V = ((100, 0), (102, 20)); Q = 0 averages the keys.
// CHECK: data =
// CHECK-NEXT: [1,   10],
// CHECK-NEXT: [1,   10]
// CHECK-NEXT: [1,   10],
// CHECK-NEXT: [1,   10]
// CHECK-NEXT: [101,   10],
// CHECK-NEXT: [101,   10]
// CHECK-NEXT: [101,   10],
// CHECK-NEXT: [101,   10]

// torch-mlir's keepdim softmax ([B*H, S, 1] row max and sum, the sum
// expanded from [B*H, S]) normalized by e * (1 / sum), Sq = 2 and Sk = 4:
// Q = 0 averages the four keys of each head, V = (j, 10 j) and
// (100 + 2 j, 20 - j).
// CHECK: data =
// CHECK-NEXT: [1.5,   15],
// CHECK-NEXT: [1.5,   15]
// CHECK-NEXT: [103,   18.5],
// CHECK-NEXT: [103,   18.5]

// StableHLO's primitive-op form (linalg.reduce, linalg.broadcast, linalg.map)
// with a causal iota mask, scale 0.5 and Q != 0: the float64 softmax gives
// (0, 0), (0.182426, 1.82426), (0.650293, 6.50293), (2.55530, 25.5530) and
// (0, 0), (0.622459, 6.22459), (0.909020, 9.09020), (2.71358, 27.1358);
// four digits are checked, the last printed one differs by rounding.
// CHECK: data =
// CHECK-NEXT: [0,   0],
// CHECK-NEXT: [0.1824{{[0-9]*}},   1.824{{[0-9]*}}],
// CHECK-NEXT: [0.6502{{[0-9]*}},   6.502{{[0-9]*}}],
// CHECK-NEXT: [2.555{{[0-9]*}},   25.55{{[0-9]*}}]],
// CHECK-NEXT: [0,   0],
// CHECK-NEXT: [0.6224{{[0-9]*}},   6.224{{[0-9]*}}],
// CHECK-NEXT: [0.9090{{[0-9]*}},   9.090{{[0-9]*}}],
// CHECK-NEXT: [2.713{{[0-9]*}},   27.13{{[0-9]*}}]]]]

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

func.func private @printMemrefF32(memref<*xf32>)

func.func @attend(%q: tensor<1x2x4x2xf32>, %k: tensor<1x2x4x2xf32>, %v: tensor<1x2x4x2xf32>) -> tensor<1x2x4x2xf32> {
  %zero = arith.constant 0.0 : f32
  %qkinit = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %s0 = tensor.empty() : tensor<1x2x4x4xf32>
  %sz = linalg.fill ins(%qkinit : f32) outs(%s0 : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %s = linalg.generic {indexing_maps = [#qk_q, #qk_k, #qk_s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x2x4x2xf32>, tensor<1x2x4x2xf32>) outs(%sz : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x4x4xf32>
  %c = arith.constant 8.0 : f32
  %scaled = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s : tensor<1x2x4x4xf32>) outs(%s0 : tensor<1x2x4x4xf32>) {
  ^bb0(%x: f32, %out: f32):
    %y = arith.divf %x, %c : f32
    linalg.yield %y : f32
  } -> tensor<1x2x4x4xf32>
  %bias0 = tensor.empty() : tensor<4x4xf32>
  %bias = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%bias0 : tensor<4x4xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %hide = arith.cmpi ugt, %j, %i : index
    %b = arith.select %hide, %ninf, %zero : f32
    linalg.yield %b : f32
  } -> tensor<4x4xf32>
  %masked = linalg.generic {indexing_maps = [#id4, #qk2, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%scaled, %bias : tensor<1x2x4x4xf32>, tensor<4x4xf32>) outs(%s0 : tensor<1x2x4x4xf32>) {
  ^bb0(%x: f32, %b: f32, %out: f32):
    %r = arith.addf %x, %b : f32
    linalg.yield %r : f32
  } -> tensor<1x2x4x4xf32>
  %m0 = tensor.empty() : tensor<1x2x4xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%m0 : tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %max = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked : tensor<1x2x4x4xf32>) outs(%mi : tensor<1x2x4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.maximumf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<1x2x4xf32>
  %sub = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked, %max : tensor<1x2x4x4xf32>, tensor<1x2x4xf32>) outs(%s0 : tensor<1x2x4x4xf32>) {
  ^bb0(%x: f32, %mx: f32, %out: f32):
    %r = arith.subf %x, %mx : f32
    linalg.yield %r : f32
  } -> tensor<1x2x4x4xf32>
  %e = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sub : tensor<1x2x4x4xf32>) outs(%s0 : tensor<1x2x4x4xf32>) {
  ^bb0(%x: f32, %out: f32):
    %r = math.exp %x : f32
    linalg.yield %r : f32
  } -> tensor<1x2x4x4xf32>
  %zi = linalg.fill ins(%zero : f32) outs(%m0 : tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %sum = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%e : tensor<1x2x4x4xf32>) outs(%zi : tensor<1x2x4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %acc, %x : f32
    linalg.yield %r : f32
  } -> tensor<1x2x4xf32>
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%e, %sum : tensor<1x2x4x4xf32>, tensor<1x2x4xf32>) outs(%s0 : tensor<1x2x4x4xf32>) {
  ^bb0(%x: f32, %l: f32, %out: f32):
    %r = arith.divf %x, %l : f32
    linalg.yield %r : f32
  } -> tensor<1x2x4x4xf32>
  %o0 = tensor.empty() : tensor<1x2x4x2xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<1x2x4x2xf32>) -> tensor<1x2x4x2xf32>
  %o = linalg.generic {indexing_maps = [#pv_p, #pv_v, #pv_o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x2x4x4xf32>, tensor<1x2x4x2xf32>) outs(%oz : tensor<1x2x4x2xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x4x2xf32>
  return %o : tensor<1x2x4x2xf32>
}

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row3 = affine_map<(d0, d1, d2) -> (d0, d1)>

func.func @attend_gqa(%q: tensor<1x4x2x2xf32>, %k: tensor<1x2x2x2xf32>, %v: tensor<1x2x2x2xf32>) -> tensor<1x4x2x2xf32> {
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.7071067811865476 : f32
  %kb0 = tensor.empty() : tensor<1x2x2x2x2xf32>
  %kb = linalg.broadcast ins(%k : tensor<1x2x2x2xf32>) outs(%kb0 : tensor<1x2x2x2x2xf32>) dimensions = [2]
  %kr = tensor.collapse_shape %kb [[0], [1, 2], [3], [4]] : tensor<1x2x2x2x2xf32> into tensor<1x4x2x2xf32>
  %vb = linalg.broadcast ins(%v : tensor<1x2x2x2xf32>) outs(%kb0 : tensor<1x2x2x2x2xf32>) dimensions = [2]
  %vr = tensor.collapse_shape %vb [[0], [1, 2], [3], [4]] : tensor<1x2x2x2x2xf32> into tensor<1x4x2x2xf32>
  %kt0 = tensor.empty() : tensor<1x4x2x2xf32>
  %kt = linalg.transpose ins(%kr : tensor<1x4x2x2xf32>) outs(%kt0 : tensor<1x4x2x2xf32>) permutation = [0, 1, 3, 2]
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<1x4x2x2xf32> into tensor<4x2x2xf32>
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<1x4x2x2xf32> into tensor<4x2x2xf32>
  %v3 = tensor.collapse_shape %vr [[0, 1], [2], [3]] : tensor<1x4x2x2xf32> into tensor<4x2x2xf32>
  %s0 = tensor.empty() : tensor<4x2x2xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%s0 : tensor<4x2x2xf32>) -> tensor<4x2x2xf32>
  %s = linalg.batch_matmul ins(%q3, %kt3 : tensor<4x2x2xf32>, tensor<4x2x2xf32>) outs(%sz : tensor<4x2x2xf32>) -> tensor<4x2x2xf32>
  %ss = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s : tensor<4x2x2xf32>) outs(%s0 : tensor<4x2x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %scale : f32
    linalg.yield %m : f32
  } -> tensor<4x2x2xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %r0 = tensor.empty() : tensor<4x2xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%r0 : tensor<4x2xf32>) -> tensor<4x2xf32>
  %max = linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%ss : tensor<4x2x2xf32>) outs(%mi : tensor<4x2xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.maximumf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<4x2xf32>
  %e = linalg.generic {indexing_maps = [#id3, #row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ss, %max : tensor<4x2x2xf32>, tensor<4x2xf32>) outs(%s0 : tensor<4x2x2xf32>) {
  ^bb0(%x: f32, %mx: f32, %out: f32):
    %d = arith.subf %x, %mx : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<4x2x2xf32>
  %zi = linalg.fill ins(%zero : f32) outs(%r0 : tensor<4x2xf32>) -> tensor<4x2xf32>
  %sum = linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%e : tensor<4x2x2xf32>) outs(%zi : tensor<4x2xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<4x2xf32>
  %p = linalg.generic {indexing_maps = [#id3, #row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%e, %sum : tensor<4x2x2xf32>, tensor<4x2xf32>) outs(%s0 : tensor<4x2x2xf32>) {
  ^bb0(%x: f32, %l: f32, %out: f32):
    %r = arith.divf %x, %l : f32
    linalg.yield %r : f32
  } -> tensor<4x2x2xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%s0 : tensor<4x2x2xf32>) -> tensor<4x2x2xf32>
  %o = linalg.batch_matmul ins(%p, %v3 : tensor<4x2x2xf32>, tensor<4x2x2xf32>) outs(%oz : tensor<4x2x2xf32>) -> tensor<4x2x2xf32>
  %o4 = tensor.expand_shape %o [[0, 1], [2], [3]] output_shape [1, 4, 2, 2] : tensor<4x2x2xf32> into tensor<1x4x2x2xf32>
  return %o4 : tensor<1x4x2x2xf32>
}

#kept3 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>

func.func @attend_keepdim(%q: tensor<2x2x2xf32>, %k: tensor<2x4x2xf32>, %v: tensor<2x4x2xf32>) -> tensor<2x2x2xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %scale = arith.constant 0.7071067811865476 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %kt0 = tensor.empty() : tensor<2x2x4xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x2xf32>) outs(%kt0 : tensor<2x2x4xf32>) permutation = [0, 2, 1]
  %s0 = tensor.empty() : tensor<2x2x4xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%s0 : tensor<2x2x4xf32>) -> tensor<2x2x4xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x2x2xf32>, tensor<2x2x4xf32>) outs(%sz : tensor<2x2x4xf32>) -> tensor<2x2x4xf32>
  %ss = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s : tensor<2x2x4xf32>) outs(%s0 : tensor<2x2x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %scale : f32
    linalg.yield %m : f32
  } -> tensor<2x2x4xf32>
  %k0 = tensor.empty() : tensor<2x2x1xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%k0 : tensor<2x2x1xf32>) -> tensor<2x2x1xf32>
  %max = linalg.generic {indexing_maps = [#id3, #kept3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%ss : tensor<2x2x4xf32>) outs(%mi : tensor<2x2x1xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.maximumf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x2x1xf32>
  %e = linalg.generic {indexing_maps = [#id3, #kept3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ss, %max : tensor<2x2x4xf32>, tensor<2x2x1xf32>) outs(%s0 : tensor<2x2x4xf32>) {
  ^bb0(%x: f32, %mx: f32, %out: f32):
    %d = arith.subf %x, %mx : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<2x2x4xf32>
  %r0 = tensor.empty() : tensor<2x2xf32>
  %zi = linalg.fill ins(%zero : f32) outs(%r0 : tensor<2x2xf32>) -> tensor<2x2xf32>
  %sum = linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%e : tensor<2x2x4xf32>) outs(%zi : tensor<2x2xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x2xf32>
  %sumk = tensor.expand_shape %sum [[0], [1, 2]] output_shape [2, 2, 1] : tensor<2x2xf32> into tensor<2x2x1xf32>
  %p = linalg.generic {indexing_maps = [#id3, #kept3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%e, %sumk : tensor<2x2x4xf32>, tensor<2x2x1xf32>) outs(%s0 : tensor<2x2x4xf32>) {
  ^bb0(%x: f32, %l: f32, %out: f32):
    %rl = arith.divf %one, %l : f32
    %r = arith.mulf %x, %rl : f32
    linalg.yield %r : f32
  } -> tensor<2x2x4xf32>
  %o0 = tensor.empty() : tensor<2x2x2xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<2x2x2xf32>) -> tensor<2x2x2xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x2x4xf32>, tensor<2x4x2xf32>) outs(%oz : tensor<2x2x2xf32>) -> tensor<2x2x2xf32>
  return %o : tensor<2x2x2xf32>
}

// StableHLO's primitive-op form (jax's dot_product_attention with is_causal):
// linalg.map scale, an iota mask selected by linalg.map, the softmax as
// linalg.reduce, linalg.broadcast and linalg.map. Q is not 0 here, so the
// scale, the mask and the max all change the values.
func.func @attend_primitive(%q: tensor<1x2x4x2xf32>, %k: tensor<1x2x4x2xf32>, %v: tensor<1x2x4x2xf32>) -> tensor<1x2x4x2xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %s0 = tensor.empty() : tensor<1x2x4x4xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%s0 : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %s = linalg.generic {indexing_maps = [#qk_q, #qk_k, #qk_s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x2x4x2xf32>, tensor<1x2x4x2xf32>) outs(%sz : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x4x4xf32>
  %scale = arith.constant dense<0.5> : tensor<1x2x4x4xf32>
  %ss = linalg.map { arith.mulf } ins(%s, %scale : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) outs(%s0 : tensor<1x2x4x4xf32>)
  %i0 = tensor.empty() : tensor<4x4xi64>
  %rows = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%i0 : tensor<4x4xi64>) {
  ^bb0(%out: i64):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i64
    linalg.yield %ii : i64
  } -> tensor<4x4xi64>
  %cols = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%i0 : tensor<4x4xi64>) {
  ^bb0(%out: i64):
    %j = linalg.index 1 : index
    %jj = arith.index_cast %j : index to i64
    linalg.yield %jj : i64
  } -> tensor<4x4xi64>
  %b0 = tensor.empty() : tensor<4x4xi1>
  %tril = linalg.map ins(%rows, %cols : tensor<4x4xi64>, tensor<4x4xi64>) outs(%b0 : tensor<4x4xi1>)
    (%r: i64, %c: i64, %out: i1) {
      %ge = arith.cmpi sge, %r, %c : i64
      linalg.yield %ge : i1
    }
  %mask0 = tensor.empty() : tensor<1x2x4x4xi1>
  %mask = linalg.broadcast ins(%tril : tensor<4x4xi1>) outs(%mask0 : tensor<1x2x4x4xi1>) dimensions = [0, 1]
  %neg = arith.constant dense<-2.38197633E+38> : tensor<1x2x4x4xf32>
  %sm = linalg.map { arith.select } ins(%mask, %ss, %neg : tensor<1x2x4x4xi1>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) outs(%s0 : tensor<1x2x4x4xf32>)
  %r0 = tensor.empty() : tensor<1x2x4xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%r0 : tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %max = linalg.reduce ins(%sm : tensor<1x2x4x4xf32>) outs(%mi : tensor<1x2x4xf32>) dimensions = [3]
    (%in: f32, %init: f32) {
      %x = arith.maximumf %in, %init : f32
      linalg.yield %x : f32
    }
  %maxb = linalg.broadcast ins(%max : tensor<1x2x4xf32>) outs(%s0 : tensor<1x2x4x4xf32>) dimensions = [3]
  %sub = linalg.map { arith.subf } ins(%sm, %maxb : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) outs(%s0 : tensor<1x2x4x4xf32>)
  %e = linalg.map { math.exp } ins(%sub : tensor<1x2x4x4xf32>) outs(%s0 : tensor<1x2x4x4xf32>)
  %zi = linalg.fill ins(%zero : f32) outs(%r0 : tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %sum = linalg.reduce ins(%e : tensor<1x2x4x4xf32>) outs(%zi : tensor<1x2x4xf32>) dimensions = [3]
    (%in: f32, %init: f32) {
      %x = arith.addf %in, %init : f32
      linalg.yield %x : f32
    }
  %sumb = linalg.broadcast ins(%sum : tensor<1x2x4xf32>) outs(%s0 : tensor<1x2x4x4xf32>) dimensions = [3]
  %p = linalg.map { arith.divf } ins(%e, %sumb : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) outs(%s0 : tensor<1x2x4x4xf32>)
  %o0 = tensor.empty() : tensor<1x2x4x2xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<1x2x4x2xf32>) -> tensor<1x2x4x2xf32>
  %o = linalg.generic {indexing_maps = [#pv_p, #pv_v, #pv_o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x2x4x4xf32>, tensor<1x2x4x2xf32>) outs(%oz : tensor<1x2x4x2xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x4x2xf32>
  return %o : tensor<1x2x4x2xf32>
}

func.func @main() {
  %q = arith.constant dense<0.0> : tensor<1x2x4x2xf32>
  %k = arith.constant dense<[[[[1.0, 2.0], [3.0, -1.0], [0.5, 0.25], [-2.0, 4.0]], [[0.0, 1.0], [2.0, 2.0], [-1.0, 0.5], [4.0, 1.0]]]]> : tensor<1x2x4x2xf32>
  %v = arith.constant dense<[[[[0.0, 0.0], [1.0, 10.0], [2.0, 20.0], [3.0, 30.0]], [[0.0, 0.0], [1.0, 10.0], [2.0, 20.0], [3.0, 30.0]]]]> : tensor<1x2x4x2xf32>
  %o = call @attend(%q, %k, %v) : (tensor<1x2x4x2xf32>, tensor<1x2x4x2xf32>, tensor<1x2x4x2xf32>) -> tensor<1x2x4x2xf32>
  %ob = bufferization.to_buffer %o : tensor<1x2x4x2xf32> to memref<1x2x4x2xf32>
  %ou = memref.cast %ob : memref<1x2x4x2xf32> to memref<*xf32>
  call @printMemrefF32(%ou) : (memref<*xf32>) -> ()

  %gq = arith.constant dense<0.0> : tensor<1x4x2x2xf32>
  %gk = arith.constant dense<[[[[1.0, 2.0], [3.0, -1.0]], [[0.5, 0.25], [-2.0, 4.0]]]]> : tensor<1x2x2x2xf32>
  %gv = arith.constant dense<[[[[0.0, 0.0], [2.0, 20.0]], [[100.0, 0.0], [102.0, 20.0]]]]> : tensor<1x2x2x2xf32>
  %go = call @attend_gqa(%gq, %gk, %gv) : (tensor<1x4x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x4x2x2xf32>
  %gob = bufferization.to_buffer %go : tensor<1x4x2x2xf32> to memref<1x4x2x2xf32>
  %gou = memref.cast %gob : memref<1x4x2x2xf32> to memref<*xf32>
  call @printMemrefF32(%gou) : (memref<*xf32>) -> ()

  %kq = arith.constant dense<0.0> : tensor<2x2x2xf32>
  %kk = arith.constant dense<[[[1.0, 2.0], [3.0, -1.0], [0.5, 0.25], [-2.0, 4.0]], [[0.0, 1.0], [2.0, 2.0], [-1.0, 0.5], [4.0, 1.0]]]> : tensor<2x4x2xf32>
  %kv = arith.constant dense<[[[0.0, 0.0], [1.0, 10.0], [2.0, 20.0], [3.0, 30.0]], [[100.0, 20.0], [102.0, 19.0], [104.0, 18.0], [106.0, 17.0]]]> : tensor<2x4x2xf32>
  %ko = call @attend_keepdim(%kq, %kk, %kv) : (tensor<2x2x2xf32>, tensor<2x4x2xf32>, tensor<2x4x2xf32>) -> tensor<2x2x2xf32>
  %kob = bufferization.to_buffer %ko : tensor<2x2x2xf32> to memref<2x2x2xf32>
  %kou = memref.cast %kob : memref<2x2x2xf32> to memref<*xf32>
  call @printMemrefF32(%kou) : (memref<*xf32>) -> ()

  %pq = arith.constant dense<[[[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.5]], [[0.5, 0.5], [1.0, -1.0], [0.0, 2.0], [2.0, 0.0]]]]> : tensor<1x2x4x2xf32>
  %po = call @attend_primitive(%pq, %k, %v) : (tensor<1x2x4x2xf32>, tensor<1x2x4x2xf32>, tensor<1x2x4x2xf32>) -> tensor<1x2x4x2xf32>
  %pob = bufferization.to_buffer %po : tensor<1x2x4x2xf32> to memref<1x2x4x2xf32>
  %pou = memref.cast %pob : memref<1x2x4x2xf32> to memref<*xf32>
  call @printMemrefF32(%pou) : (memref<*xf32>) -> ()
  return
}
