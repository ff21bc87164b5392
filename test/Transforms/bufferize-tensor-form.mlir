// RUN: fattn-opt %s -split-input-file --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" | FileCheck %s

// One-shot bufferization turns the tensor form of fattn.attention,
// fattn.quantize and fattn.hadamard_rotate into their memref form.

// CHECK-LABEL: func.func @attention(
// CHECK-SAME: %[[Q:.*]]: memref<1x2x8x16xf32>, %[[K:.*]]: memref<1x1x8x16xf32>, %[[V:.*]]: memref<1x1x8x16xf32>) -> (memref<1x2x8x16xf32>, memref<1x2x8xf32>)
// CHECK: %[[O:.*]] = memref.alloc() {{.*}} : memref<1x2x8x16xf32>
// CHECK: %[[L:.*]] = memref.alloc() {{.*}} : memref<1x2x8xf32>
// CHECK: fattn.attention ins(%[[Q]], %[[K]], %[[V]] : memref<1x2x8x16xf32>, memref<1x1x8x16xf32>, memref<1x1x8x16xf32>) outs(%[[O]] : memref<1x2x8x16xf32>) lse(%[[L]] : memref<1x2x8xf32>) {causal = true, scale = 2.500000e-01 : f32}{{$}}
// CHECK: return %[[O]], %[[L]]
func.func @attention(%q: tensor<1x2x8x16xf32>, %k: tensor<1x1x8x16xf32>, %v: tensor<1x1x8x16xf32>) -> (tensor<1x2x8x16xf32>, tensor<1x2x8xf32>) {
  %o = tensor.empty() : tensor<1x2x8x16xf32>
  %l = tensor.empty() : tensor<1x2x8xf32>
  %r:2 = fattn.attention ins(%q, %k, %v : tensor<1x2x8x16xf32>, tensor<1x1x8x16xf32>, tensor<1x1x8x16xf32>) outs(%o : tensor<1x2x8x16xf32>) lse(%l : tensor<1x2x8xf32>) {scale = 0.25 : f32, causal = true} -> tensor<1x2x8x16xf32>, tensor<1x2x8xf32>
  return %r#0, %r#1 : tensor<1x2x8x16xf32>, tensor<1x2x8xf32>
}

// -----

// An init that is a function argument is written in place.
// CHECK-LABEL: func.func @in_place(
// CHECK-SAME: %[[Q:.*]]: memref<1x2x8x16xf32>, %[[O:.*]]: memref<1x2x8x16xf32>)
// CHECK-NOT: memref.alloc
// CHECK: fattn.attention ins(%[[Q]], %[[Q]], %[[Q]] : {{.*}}) outs(%[[O]] : memref<1x2x8x16xf32>)
// CHECK: return %[[O]]
func.func @in_place(%q: tensor<1x2x8x16xf32>, %o: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %r = fattn.attention ins(%q, %q, %q : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%o : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %r : tensor<1x2x8x16xf32>
}

// -----

// The init is still read after the op, so the op writes a new buffer; the
// op does not read its init, so the new buffer is not a copy of it.
// CHECK-LABEL: func.func @out_of_place(
// CHECK-SAME: %[[Q:.*]]: memref<1x2x8x16xf32>, %[[O:.*]]: memref<1x2x8x16xf32>)
// CHECK: %[[NEW:.*]] = memref.alloc()
// CHECK-NOT: memref.copy
// CHECK: fattn.attention ins(%[[Q]], %[[Q]], %[[Q]] : {{.*}}) outs(%[[NEW]] : memref<1x2x8x16xf32>)
// CHECK: return %[[NEW]], %[[O]]
func.func @out_of_place(%q: tensor<1x2x8x16xf32>, %o: tensor<1x2x8x16xf32>) -> (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) {
  %r = fattn.attention ins(%q, %q, %q : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%o : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %r, %o : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
}

// -----

// CHECK-LABEL: func.func @quantize(
// CHECK-SAME: %[[X:.*]]: memref<1x4x16x64xbf16>, %[[S:.*]]: memref<64xf32>)
// CHECK: %[[Y:.*]] = memref.alloc() {{.*}} : memref<1x4x16x64xf8E4M3FN>
// CHECK: %[[D:.*]] = memref.alloc() {{.*}} : memref<1x4xf32>
// CHECK: fattn.quantize ins(%[[X]] : memref<1x4x16x64xbf16>) signs(%[[S]] : memref<64xf32>) outs(%[[Y]] : memref<1x4x16x64xf8E4M3FN>) descale(%[[D]] : memref<1x4xf32>){{$}}
// CHECK: return %[[Y]], %[[D]]
func.func @quantize(%x: tensor<1x4x16x64xbf16>, %s: tensor<64xf32>) -> (tensor<1x4x16x64xf8E4M3FN>, tensor<1x4xf32>) {
  %y = tensor.empty() : tensor<1x4x16x64xf8E4M3FN>
  %d = tensor.empty() : tensor<1x4xf32>
  %r:2 = fattn.quantize ins(%x : tensor<1x4x16x64xbf16>) signs(%s : tensor<64xf32>) outs(%y : tensor<1x4x16x64xf8E4M3FN>) descale(%d : tensor<1x4xf32>) -> tensor<1x4x16x64xf8E4M3FN>, tensor<1x4xf32>
  return %r#0, %r#1 : tensor<1x4x16x64xf8E4M3FN>, tensor<1x4xf32>
}

// -----

// CHECK-LABEL: func.func @hadamard(
// CHECK-SAME: %[[X:.*]]: memref<4x8xf32>, %[[S:.*]]: memref<8xf32>)
// CHECK: %[[Y:.*]] = memref.alloc() {{.*}} : memref<4x8xf32>
// CHECK: fattn.hadamard_rotate ins(%[[X]] : memref<4x8xf32>) signs(%[[S]] : memref<8xf32>) outs(%[[Y]] : memref<4x8xf32>){{$}}
// CHECK: return %[[Y]]
func.func @hadamard(%x: tensor<4x8xf32>, %s: tensor<8xf32>) -> tensor<4x8xf32> {
  %y = tensor.empty() : tensor<4x8xf32>
  %r = fattn.hadamard_rotate ins(%x : tensor<4x8xf32>) signs(%s : tensor<8xf32>) outs(%y : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// The memref form is left as it is.
// CHECK-LABEL: func.func @memref_form(
// CHECK-SAME: %[[Q:.*]]: memref<1x2x8x16xf32>, %[[O:.*]]: memref<1x2x8x16xf32>)
// CHECK-NEXT: fattn.attention ins(%[[Q]], %[[Q]], %[[Q]] : {{.*}}) outs(%[[O]] : memref<1x2x8x16xf32>)
// CHECK-NEXT: return
func.func @memref_form(%q: memref<1x2x8x16xf32>, %o: memref<1x2x8x16xf32>) {
  fattn.attention ins(%q, %q, %q : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>) outs(%o : memref<1x2x8x16xf32>)
  return
}

// -----

// The runtime scale and softcap stay the op's operands.
// CHECK-LABEL: func.func @attention_runtime_scalars(
// CHECK-SAME: %[[S:[^:]*]]: f32, %[[C:[^:]*]]: f32)
// CHECK: fattn.attention ins({{.*}}) outs(%{{.*}} : memref<1x2x8x16xf32>) scale(%[[S]] : f32) softcap(%[[C]] : f32){{$}}
func.func @attention_runtime_scalars(%q: tensor<1x2x8x16xf32>, %k: tensor<1x1x8x16xf32>, %v: tensor<1x1x8x16xf32>, %s: f32, %c: f32) -> tensor<1x2x8x16xf32> {
  %o = tensor.empty() : tensor<1x2x8x16xf32>
  %r = fattn.attention ins(%q, %k, %v : tensor<1x2x8x16xf32>, tensor<1x1x8x16xf32>, tensor<1x1x8x16xf32>) outs(%o : tensor<1x2x8x16xf32>) scale(%s : f32) softcap(%c : f32) -> tensor<1x2x8x16xf32>
  return %r : tensor<1x2x8x16xf32>
}
