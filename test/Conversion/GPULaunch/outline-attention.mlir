// RUN: fattn-opt %s -split-input-file -verify-diagnostics --fattn-outline-attention | FileCheck %s

// The op moves into a private function of its own, taking its operands in
// the kernel ABI's order; a call carrying their ABI names takes its place.
// CHECK-LABEL: func.func private @f_attention(
// CHECK-SAME: %[[Q:.*]]: memref<2x4x100x64xbf16>, %[[K:.*]]: memref<2x2x70x64xbf16>, %[[V:.*]]: memref<2x2x70x64xbf16>, %[[O:.*]]: memref<2x4x100x64xbf16>, %[[L:.*]]: memref<2x4x100xf32>)
// CHECK-NEXT: fattn.attention ins(%[[Q]], %[[K]], %[[V]] : {{.*}}) outs(%[[O]] : {{.*}}) lse(%[[L]] : {{.*}}) {causal = true}
// CHECK-NEXT: return
// CHECK-LABEL: func.func @f(
// CHECK-SAME: %[[A0:.*]]: memref<2x4x100x64xbf16>, %[[A1:.*]]: memref<2x2x70x64xbf16>, %[[A2:.*]]: memref<2x2x70x64xbf16>, %[[A3:.*]]: memref<2x4x100x64xbf16>, %[[A4:.*]]: memref<2x4x100xf32>)
// CHECK-NEXT: call @f_attention(%[[A0]], %[[A1]], %[[A2]], %[[A3]], %[[A4]]) {fattn.launch_tensors = ["q", "k", "v", "o", "lse"]}
// CHECK-NEXT: return
func.func @f(%q: memref<2x4x100x64xbf16>, %k: memref<2x2x70x64xbf16>, %v: memref<2x2x70x64xbf16>,
             %o: memref<2x4x100x64xbf16>, %lse: memref<2x4x100xf32>) {
  fattn.attention ins(%q, %k, %v : memref<2x4x100x64xbf16>, memref<2x2x70x64xbf16>, memref<2x2x70x64xbf16>)
                  outs(%o : memref<2x4x100x64xbf16>) lse(%lse : memref<2x4x100xf32>) {causal = true}
  return
}

// -----

// Among other code, on views: each op gets its own function (names made
// unique), the views stay with the caller.
// CHECK: func.func private @g_attention(%[[GQ:.*]]: memref<1x2x8x16xf16, strided<[256, 16, 32, 1]>>, %[[GK:.*]]: memref<1x2x8x16xf16>, %[[GV:.*]]: memref<1x2x8x16xf16>,
// CHECK-NEXT: fattn.attention ins(%[[GQ]], %[[GK]], %[[GV]] :
// CHECK-LABEL: func.func private @g_attention_0(
// CHECK-LABEL: func.func @g(
// CHECK: %[[T:.*]] = memref.transpose
// CHECK: call @g_attention(%[[T]], {{.*}}) {fattn.launch_tensors = ["q", "k", "v", "o"]}
// CHECK: memref.copy
// CHECK: call @g_attention_0({{.*}}) {fattn.launch_tensors = ["q", "k", "v", "o"]}
func.func @g(%q: memref<1x8x2x16xf16>, %k: memref<1x2x8x16xf16>, %o: memref<1x2x8x16xf16>, %o2: memref<1x2x8x16xf16>) {
  %qt = memref.transpose %q (b, s, h, d) -> (b, h, s, d) : memref<1x8x2x16xf16> to memref<1x2x8x16xf16, strided<[256, 16, 32, 1]>>
  fattn.attention ins(%qt, %k, %k : memref<1x2x8x16xf16, strided<[256, 16, 32, 1]>>, memref<1x2x8x16xf16>, memref<1x2x8x16xf16>)
                  outs(%o : memref<1x2x8x16xf16>)
  memref.copy %o, %o2 : memref<1x2x8x16xf16> to memref<1x2x8x16xf16>
  fattn.attention ins(%o2, %k, %k : memref<1x2x8x16xf16>, memref<1x2x8x16xf16>, memref<1x2x8x16xf16>)
                  outs(%o : memref<1x2x8x16xf16>) {causal = true}
  return
}

// -----

func.func @tensors(%q: tensor<1x2x8x16xf16>, %o: tensor<1x2x8x16xf16>) -> tensor<1x2x8x16xf16> {
  // expected-error @+1 {{outlining needs the memref form: bufferize the tensor form first (--one-shot-bufferize)}}
  %r = fattn.attention ins(%q, %q, %q : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>)
                       outs(%o : tensor<1x2x8x16xf16>) -> tensor<1x2x8x16xf16>
  return %r : tensor<1x2x8x16xf16>
}
