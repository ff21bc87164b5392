// RUN: fattn-opt %s -split-input-file | FileCheck %s
// Round trip: the printed form parses back to the same IR.
// RUN: fattn-opt %s -split-input-file | fattn-opt -split-input-file | FileCheck %s
// RUN: fattn-opt %s -split-input-file -mlir-print-op-generic | fattn-opt -split-input-file | FileCheck %s
// The tensor form bufferizes to the memref form, without copying the outs.
// RUN: fattn-opt %s -split-input-file -one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" | FileCheck %s --check-prefix=BUF

// fattn.attention_grad: every attribute, GQA (8 query heads, 2 KV heads),
// Sq != Sk, V's head dim != Q's.
// CHECK-LABEL: func.func @grad_all_attrs
// CHECK: fattn.attention_grad ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : memref<2x8x100x64xbf16>, memref<2x2x90x64xbf16>, memref<2x2x90x32xbf16>, memref<2x8x100x32xbf16>, memref<2x8x100x32xbf16>, memref<2x8x100xf32>) outs(%{{.*}}, %{{.*}}, %{{.*}} : memref<2x8x100x64xbf16>, memref<2x2x90x64xbf16>, memref<2x2x90x32xbf16>) {causal = true, deterministic, scale = 1.250000e-01 : f32, softcap = 3.000000e+01 : f32, window_left = 16 : i64, window_right = 0 : i64}
func.func @grad_all_attrs(%q: memref<2x8x100x64xbf16>, %k: memref<2x2x90x64xbf16>, %v: memref<2x2x90x32xbf16>,
                          %o: memref<2x8x100x32xbf16>, %do: memref<2x8x100x32xbf16>, %lse: memref<2x8x100xf32>,
                          %dq: memref<2x8x100x64xbf16>, %dk: memref<2x2x90x64xbf16>, %dv: memref<2x2x90x32xbf16>) {
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<2x8x100x64xbf16>, memref<2x2x90x64xbf16>, memref<2x2x90x32xbf16>, memref<2x8x100x32xbf16>, memref<2x8x100x32xbf16>, memref<2x8x100xf32>)
                       outs(%dq, %dk, %dv : memref<2x8x100x64xbf16>, memref<2x2x90x64xbf16>, memref<2x2x90x32xbf16>)
                       {scale = 0.125 : f32, causal = true, window_left = 16 : i64, window_right = 0 : i64, softcap = 30.0 : f32, deterministic}
  return
}

// -----

// No attributes; dynamic batch, heads and seqs; strided (BSHD) views.
// CHECK-LABEL: func.func @grad_dynamic_strided
// CHECK: fattn.attention_grad ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : memref<?x?x?x16xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x16xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x16xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x16xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x16xf32>, memref<?x?x?xf32>) outs(%{{.*}}, %{{.*}}, %{{.*}} : memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>){{$}}
#s = strided<[?, ?, ?, 1], offset: ?>
func.func @grad_dynamic_strided(%q: memref<?x?x?x16xf32, #s>, %k: memref<?x?x?x16xf32, #s>, %v: memref<?x?x?x16xf32, #s>,
                                %o: memref<?x?x?x16xf32, #s>, %do: memref<?x?x?x16xf32>, %lse: memref<?x?x?xf32>,
                                %dq: memref<?x?x?x16xf32>, %dk: memref<?x?x?x16xf32>, %dv: memref<?x?x?x16xf32>) {
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<?x?x?x16xf32, #s>, memref<?x?x?x16xf32, #s>, memref<?x?x?x16xf32, #s>, memref<?x?x?x16xf32, #s>, memref<?x?x?x16xf32>, memref<?x?x?xf32>)
                       outs(%dq, %dk, %dv : memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>)
  return
}

// -----

// Dynamic head dims with an explicit scale.
// CHECK-LABEL: func.func @grad_dynamic_head_dims
// CHECK: fattn.attention_grad {{.*}} {scale = 2.500000e-01 : f32}
func.func @grad_dynamic_head_dims(%q: memref<1x2x8x?xf16>, %k: memref<1x2x8x?xf16>, %v: memref<1x2x8x?xf16>,
                                  %o: memref<1x2x8x?xf16>, %do: memref<1x2x8x?xf16>, %lse: memref<1x2x8xf32>,
                                  %dq: memref<1x2x8x?xf16>, %dk: memref<1x2x8x?xf16>, %dv: memref<1x2x8x?xf16>) {
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<1x2x8x?xf16>, memref<1x2x8x?xf16>, memref<1x2x8x?xf16>, memref<1x2x8x?xf16>, memref<1x2x8x?xf16>, memref<1x2x8xf32>)
                       outs(%dq, %dk, %dv : memref<1x2x8x?xf16>, memref<1x2x8x?xf16>, memref<1x2x8x?xf16>) {scale = 0.25 : f32}
  return
}

// -----

// The tensor form returns dQ, dK, dV; bufferized, it writes the buffers of
// the outs in place (no copy of their old contents).
// CHECK-LABEL: func.func @grad_tensors
// CHECK: %{{.*}}:3 = fattn.attention_grad ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<1x4x33x16xf32>, tensor<1x1x40x16xf32>, tensor<1x1x40x8xf32>, tensor<1x4x33x8xf32>, tensor<1x4x33x8xf32>, tensor<1x4x33xf32>) outs(%{{.*}}, %{{.*}}, %{{.*}} : tensor<1x4x33x16xf32>, tensor<1x1x40x16xf32>, tensor<1x1x40x8xf32>) {window_left = 3 : i64} -> tensor<1x4x33x16xf32>, tensor<1x1x40x16xf32>, tensor<1x1x40x8xf32>
// BUF-LABEL: func.func @grad_tensors
// BUF-SAME: (%{{.*}}: memref<1x4x33x16xf32>, %{{.*}}: memref<1x1x40x16xf32>, %{{.*}}: memref<1x1x40x8xf32>, %{{.*}}: memref<1x4x33x8xf32>, %{{.*}}: memref<1x4x33x8xf32>, %{{.*}}: memref<1x4x33xf32>, %[[DQ:.*]]: memref<1x4x33x16xf32>, %[[DK:.*]]: memref<1x1x40x16xf32>, %[[DV:.*]]: memref<1x1x40x8xf32>)
// BUF-NOT: memref.copy
// BUF: fattn.attention_grad ins({{.*}}) outs(%[[DQ]], %[[DK]], %[[DV]] : memref<1x4x33x16xf32>, memref<1x1x40x16xf32>, memref<1x1x40x8xf32>) {window_left = 3 : i64}{{$}}
// BUF-NOT: memref.copy
// BUF: return %[[DQ]], %[[DK]], %[[DV]]
func.func @grad_tensors(%q: tensor<1x4x33x16xf32>, %k: tensor<1x1x40x16xf32>, %v: tensor<1x1x40x8xf32>,
                        %o: tensor<1x4x33x8xf32>, %do: tensor<1x4x33x8xf32>, %lse: tensor<1x4x33xf32>,
                        %dq: tensor<1x4x33x16xf32>, %dk: tensor<1x1x40x16xf32>, %dv: tensor<1x1x40x8xf32>)
    -> (tensor<1x4x33x16xf32>, tensor<1x1x40x16xf32>, tensor<1x1x40x8xf32>) {
  %r:3 = fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : tensor<1x4x33x16xf32>, tensor<1x1x40x16xf32>, tensor<1x1x40x8xf32>, tensor<1x4x33x8xf32>, tensor<1x4x33x8xf32>, tensor<1x4x33xf32>)
                              outs(%dq, %dk, %dv : tensor<1x4x33x16xf32>, tensor<1x1x40x16xf32>, tensor<1x1x40x8xf32>)
                              {window_left = 3 : i64} -> tensor<1x4x33x16xf32>, tensor<1x1x40x16xf32>, tensor<1x1x40x8xf32>
  return %r#0, %r#1, %r#2 : tensor<1x4x33x16xf32>, tensor<1x1x40x16xf32>, tensor<1x1x40x8xf32>
}
