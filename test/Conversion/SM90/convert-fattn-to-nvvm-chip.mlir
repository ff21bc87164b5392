// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --convert-fattn-to-nvvm=chip=sm_90a | FileCheck %s --implicit-check-not='fattn.kernel ='

// The generic conversion dispatches chip=sm_90a to the sm_90a builder: the
// function becomes a kernel of that name in @fattn_kernels, with the
// description that fattn-compile and the host launch read (and no other
// dictionary of the same facts).
// CHECK: gpu.module @fattn_kernels [#nvvm.target<O = 3, chip = "sm_90a">]
// CHECK: llvm.mlir.global external @fattn_smem()
// CHECK-LABEL: llvm.func @fattn_fwd_sm90_test(
// CHECK-SAME: nvvm.grid_constant
// CHECK-SAME: fattn.kernel_description = "{{{.*}}\22dtype\22:\22bf16\22
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.wgmma.mma_async
// CHECK-NOT: func.func
func.func @fattn_fwd_sm90_test(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>) outs(%o : memref<?x?x?x64xbf16>) {causal = true}
  return
}
