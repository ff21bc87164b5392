// RUN: fattn-opt %s -split-input-file | FileCheck %s
// Round trip: the printed form parses back to the same IR.
// RUN: fattn-opt %s -split-input-file | fattn-opt -split-input-file | FileCheck %s
// RUN: fattn-opt %s -split-input-file -mlir-print-op-generic | fattn-opt -split-input-file | FileCheck %s

// The tensor form of the destination-style ops: every operand a tensor, the
// new values of the inits as results.

// CHECK-LABEL: func.func @attention_tensors
// CHECK: %{{.*}}:2 = fattn.attention ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<2x8x100x64xf32>, tensor<2x2x90x64xf32>, tensor<2x2x90x32xf32>) outs(%{{.*}} : tensor<2x8x100x32xf32>) lse(%{{.*}} : tensor<2x8x100xf32>) {causal = true, scale = 1.250000e-01 : f32} -> tensor<2x8x100x32xf32>, tensor<2x8x100xf32>
func.func @attention_tensors(%q: tensor<2x8x100x64xf32>, %k: tensor<2x2x90x64xf32>, %v: tensor<2x2x90x32xf32>, %o: tensor<2x8x100x32xf32>, %lse: tensor<2x8x100xf32>) -> (tensor<2x8x100x32xf32>, tensor<2x8x100xf32>) {
  %r:2 = fattn.attention ins(%q, %k, %v : tensor<2x8x100x64xf32>, tensor<2x2x90x64xf32>, tensor<2x2x90x32xf32>)
                         outs(%o : tensor<2x8x100x32xf32>) lse(%lse : tensor<2x8x100xf32>)
                         {scale = 0.125 : f32, causal = true} -> tensor<2x8x100x32xf32>, tensor<2x8x100xf32>
  return %r#0, %r#1 : tensor<2x8x100x32xf32>, tensor<2x8x100xf32>
}

// -----

// Dynamic sizes, no LSE, FP8 with descales.
// CHECK-LABEL: func.func @attention_tensors_fp8
// CHECK: %{{.*}} = fattn.attention ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<?x?x?x128xf8E4M3FN>, tensor<?x?x?x128xf8E4M3FN>, tensor<?x?x?x128xf8E4M3FN>) outs(%{{.*}} : tensor<?x?x?x128xbf16>) descale(%{{.*}}, %{{.*}}, %{{.*}} : tensor<f32>, tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?x?x128xbf16>
func.func @attention_tensors_fp8(%q: tensor<?x?x?x128xf8E4M3FN>, %k: tensor<?x?x?x128xf8E4M3FN>, %v: tensor<?x?x?x128xf8E4M3FN>, %o: tensor<?x?x?x128xbf16>, %dq: tensor<f32>, %dk: tensor<?x?xf32>, %dv: tensor<?x?xf32>) -> tensor<?x?x?x128xbf16> {
  %r = fattn.attention ins(%q, %k, %v : tensor<?x?x?x128xf8E4M3FN>, tensor<?x?x?x128xf8E4M3FN>, tensor<?x?x?x128xf8E4M3FN>)
                       outs(%o : tensor<?x?x?x128xbf16>)
                       descale(%dq, %dk, %dv : tensor<f32>, tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?x?x128xbf16>
  return %r : tensor<?x?x?x128xbf16>
}

// -----

// CHECK-LABEL: func.func @quantize_tensors
// CHECK: %{{.*}}:2 = fattn.quantize ins(%{{.*}} : tensor<1x4x256x128xbf16>) signs(%{{.*}} : tensor<128xf32>) outs(%{{.*}} : tensor<1x4x256x128xf8E4M3FN>) descale(%{{.*}} : tensor<1x4x2xf32>) {block = 128 : i64} -> tensor<1x4x256x128xf8E4M3FN>, tensor<1x4x2xf32>
func.func @quantize_tensors(%x: tensor<1x4x256x128xbf16>, %s: tensor<128xf32>, %y: tensor<1x4x256x128xf8E4M3FN>, %d: tensor<1x4x2xf32>) -> (tensor<1x4x256x128xf8E4M3FN>, tensor<1x4x2xf32>) {
  %r:2 = fattn.quantize ins(%x : tensor<1x4x256x128xbf16>) signs(%s : tensor<128xf32>)
                        outs(%y : tensor<1x4x256x128xf8E4M3FN>) descale(%d : tensor<1x4x2xf32>) {block = 128 : i64}
                        -> tensor<1x4x256x128xf8E4M3FN>, tensor<1x4x2xf32>
  return %r#0, %r#1 : tensor<1x4x256x128xf8E4M3FN>, tensor<1x4x2xf32>
}

// -----

// CHECK-LABEL: func.func @hadamard_tensors
// CHECK: %{{.*}} = fattn.hadamard_rotate ins(%{{.*}} : tensor<?x64xbf16>) signs(%{{.*}} : tensor<64xf32>) outs(%{{.*}} : tensor<?x64xf32>) -> tensor<?x64xf32>
func.func @hadamard_tensors(%x: tensor<?x64xbf16>, %s: tensor<64xf32>, %y: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %r = fattn.hadamard_rotate ins(%x : tensor<?x64xbf16>) signs(%s : tensor<64xf32>) outs(%y : tensor<?x64xf32>) -> tensor<?x64xf32>
  return %r : tensor<?x64xf32>
}

// -----

// The tensor form has no memory effects: an unused one is dead code.
// RUN: fattn-opt %s -split-input-file -canonicalize | FileCheck %s --check-prefix=DCE
// DCE-LABEL: func.func @unused_tensor_form
// DCE-NOT: fattn.attention
// DCE: return
func.func @unused_tensor_form(%q: tensor<1x1x8x16xf32>, %o: tensor<1x1x8x16xf32>) {
  %r = fattn.attention ins(%q, %q, %q : tensor<1x1x8x16xf32>, tensor<1x1x8x16xf32>, tensor<1x1x8x16xf32>) outs(%o : tensor<1x1x8x16xf32>) -> tensor<1x1x8x16xf32>
  return
}

// -----

// The memref form writes its output: it stays.
// DCE-LABEL: func.func @memref_form_stays
// DCE: fattn.attention
func.func @memref_form_stays(%q: memref<1x1x8x16xf32>, %o: memref<1x1x8x16xf32>) {
  fattn.attention ins(%q, %q, %q : memref<1x1x8x16xf32>, memref<1x1x8x16xf32>, memref<1x1x8x16xf32>) outs(%o : memref<1x1x8x16xf32>)
  return
}
