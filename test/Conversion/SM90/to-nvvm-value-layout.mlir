// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=224" --fattn-sm90-tma --fattn-warp-specialize --fattn-fp8-layout --convert-fattn-to-nvvm-sm90 | FileCheck %s

// The sm_90a lowering of an FP8 V stored as V^T (value_layout): the producer
// copies V^T atoms (head dim rows x 128 keys) by TMA straight into the V
// ring, one box per atom of the stage at keys (first key of the tile +
// 128 a, head-dim row 0): 224-key tiles take two boxes, the second reading
// 32 keys of the next tile that no wgmma uses. Nobody transposes V: no
// ldmatrix / stmatrix, no V^T barriers. The kernel name says _vt and the
// description carries "value_layout" and V's box [1, 1, head_dim, 128].
// CHECK-LABEL: llvm.func @fattn_fwd_sm90_d128_e4m3_m128n224s2_dsq0k0v0_vt(
// CHECK-SAME: %[[VMAP:arg35]]: !llvm.ptr {{{.*}}nvvm.grid_constant}) attributes {fattn.kernel_description = "{{.*}}{\22box\22:[1,1,128,128],\22element_strides\22:[1,1,1,1],\22element_type\22:\22e4m3\22,{{[^}]*}}\22name\22:\22v_map\22
// CHECK-SAME: \22value_layout\22:\22transposed_wgmma_e4m3_k32\22
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg34, %{{.*}}, box[%{{.*}}, %[[ROW:[0-9]+]], %[[KVH:[0-9]+]], %[[B:[0-9]+]]]
// V's full barrier expects both boxes: 2 x 128 keys x 128 bytes (a K stage
// is 224 x 128 bytes); the boxes land 16384 bytes apart.
// CHECK: %[[VTX:.*]] = llvm.mlir.constant(32768 : i32) : i32
// CHECK-NEXT: nvvm.mbarrier.arrive.expect_tx %[[BAR:[0-9]+]], %[[VTX]] : !llvm.ptr<3>, i32
// CHECK: %[[STAGE:.*]] = llvm.mul %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: %[[OFF0:.*]] = llvm.mlir.constant([[#ATOM0:]] : i32) : i32
// CHECK: %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[C0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[KEY0:.*]] = llvm.add %[[ROW]], %[[C0]] : i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[VMAP]], %[[BAR]], box[%[[KEY0]], %[[ZERO]], %[[KVH]], %[[B]]]
// CHECK-NEXT: %{{.*}} = llvm.mlir.constant([[#ATOM0 + 16384]] : i32) : i32
// CHECK: %[[ZERO1:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[C128:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT: %[[KEY1:.*]] = llvm.add %[[ROW]], %[[C128]] : i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[VMAP]], %[[BAR]], box[%[[KEY1]], %[[ZERO1]], %[[KVH]], %[[B]]]
// CHECK-NOT: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[VMAP]]
// CHECK-NOT: ldmatrix
// CHECK-NOT: stmatrix
// CHECK: llvm.return
func.func @vt(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x128x?xf8E4M3FN>, %o: memref<?x?x?x128xbf16>, %dq: memref<f32>, %dk: memref<f32>, %dv: memref<f32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x128x?xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>) descale(%dq, %dk, %dv : memref<f32>, memref<f32>, memref<f32>) {value_layout = "transposed_wgmma_e4m3_k32"}
  return
}

// -----

// The same op with V by rows: the producer transposes each V tile with
// ldmatrix / stmatrix.trans, V's box is its block rows, no "value_layout".
// CHECK-LABEL: llvm.func @fattn_fwd_sm90_d128_e4m3_m128n224s2_dsq0k0v0(
// CHECK-SAME: fattn.kernel_description = "{{.*}}{\22box\22:[1,1,224,128],\22element_strides\22:[1,1,1,1],\22element_type\22:\22e4m3\22,{{[^}]*}}\22name\22:\22v_map\22
// CHECK-NOT: value_layout
// CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK: stmatrix.sync.aligned.m8n8.x4.trans.shared.b16
func.func @rows(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x?x128xf8E4M3FN>, %o: memref<?x?x?x128xbf16>, %dq: memref<f32>, %dk: memref<f32>, %dv: memref<f32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>) descale(%dq, %dk, %dv : memref<f32>, memref<f32>, memref<f32>)
  return
}
