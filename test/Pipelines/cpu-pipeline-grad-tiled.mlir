// RUN: fattn-opt %s --fattn-cpu-pipeline="grad-tiled=true" | FileCheck %s
// RUN: fattn-opt %s --fattn-cpu-pipeline | FileCheck %s --check-prefix=UNTILED

// grad-tiled=true runs fattn.attention_grad through its tiled form: the
// workspaces are allocated and freed around an outlined kernel (which frees
// its own temporaries); an op with dynamic head dims, which the tiled form
// cannot express, goes through --fattn-lower-attention-grad as without the
// option. Everything reaches the LLVM dialect.
// CHECK-NOT: fattn.
// CHECK-NOT: linalg.
// CHECK-NOT: scf.
// CHECK-NOT: bufferization.
// CHECK-LABEL: llvm.func @fattn_cpu_grad_kernel(
// CHECK: llvm.call @malloc
// CHECK: llvm.intr.tanh
// CHECK: llvm.intr.exp2
// CHECK: llvm.call @free
// CHECK-LABEL: llvm.func @static_head_dims(
// CHECK: llvm.call @malloc
// CHECK: llvm.call @malloc
// CHECK: llvm.call @fattn_cpu_grad_kernel(
// CHECK: llvm.call @free
// CHECK: llvm.call @free
// CHECK-LABEL: llvm.func @dynamic_head_dims(
// CHECK-NOT: llvm.call @fattn_cpu_grad_kernel
// CHECK: llvm.intr.exp2
// CHECK: llvm.return
// UNTILED-NOT: @fattn_cpu_grad_kernel
func.func @static_head_dims(%q: memref<1x4x33x16xbf16>, %k: memref<1x2x40x16xbf16>, %v: memref<1x2x40x8xbf16>,
                      %o: memref<1x4x33x8xbf16>, %do: memref<1x4x33x8xbf16>, %lse: memref<1x4x33xf32>,
                      %dq: memref<1x4x33x16xbf16>, %dk: memref<1x2x40x16xbf16>, %dv: memref<1x2x40x8xbf16>) {
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<1x4x33x16xbf16>, memref<1x2x40x16xbf16>, memref<1x2x40x8xbf16>, memref<1x4x33x8xbf16>, memref<1x4x33x8xbf16>, memref<1x4x33xf32>)
                       outs(%dq, %dk, %dv : memref<1x4x33x16xbf16>, memref<1x2x40x16xbf16>, memref<1x2x40x8xbf16>)
                       {causal = true, softcap = 5.0 : f32}
  return
}
func.func @dynamic_head_dims(%x: memref<1x2x8x?xf32>, %lse: memref<1x2x8xf32>) {
  fattn.attention_grad ins(%x, %x, %x, %x, %x, %lse : memref<1x2x8x?xf32>, memref<1x2x8x?xf32>, memref<1x2x8x?xf32>, memref<1x2x8x?xf32>, memref<1x2x8x?xf32>, memref<1x2x8xf32>)
                       outs(%x, %x, %x : memref<1x2x8x?xf32>, memref<1x2x8x?xf32>, memref<1x2x8x?xf32>) {scale = 0.25 : f32}
  return
}
