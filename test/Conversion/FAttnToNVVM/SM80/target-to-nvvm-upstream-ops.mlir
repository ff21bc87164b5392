// RUN: fattn-opt %s --convert-fattn-sm80-target-to-nvvm | FileCheck %s
// RUN: sed -n '/^\/\/ GRAD: /s,^// GRAD: ,,p' %s | fattn-opt --fattn-sm80-grad-pipeline=keep-target-ops=true \
// RUN:   | not fattn-opt --convert-fattn-sm80-target-to-nvvm 2>&1 | FileCheck %s --check-prefix=GRAD-L3
// RUN: sed -n '/^\/\/ IN64: /s,^// IN64: ,,p' %s | fattn-opt --convert-fattn-sm80-target-to-nvvm | FileCheck %s --check-prefix=F64

// The GPU patterns of --convert-fattn-sm80-target-to-nvvm lower a kernel's
// dynamic shared memory with the GPU address spaces that upstream's
// --convert-gpu-to-nvvm maps (workgroup: 3); without them the conversion
// aborted.
// CHECK: llvm.mlir.global internal @__dynamic_shmem__{{.*}} : !llvm.array<0 x i8>
// CHECK-LABEL: llvm.func @dynamic_shared
// CHECK: llvm.mlir.addressof @__dynamic_shmem__{{.*}} : !llvm.ptr<3>
// CHECK-NOT: gpu.dynamic_shared_memory
gpu.module @kernels {
  gpu.func @dynamic_shared() kernel {
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// The backward's L3 (nvgpu ops on memrefs, bf16 nvgpu.mma.sync) is lowered
// by --convert-fattn-grad-to-nvvm-sm80 alone: here an nvgpu op that the
// NVGPU patterns cannot lower is a failure to legalize, not a success with
// the op left in place.
// GRAD-L3-NOT: Stack dump
// GRAD-L3: error: failed to legalize operation 'nvgpu.
// GRAD: func.func @grad(%q: memref<?x2x?x64xbf16>, %k: memref<?x2x?x64xbf16>, %v: memref<?x2x?x64xbf16>, %o: memref<?x2x?x64xbf16>, %do: memref<?x2x?x64xbf16>, %lse: memref<?x2x?xf32>, %dq: memref<?x2x?x64xbf16>, %dk: memref<?x2x?x64xbf16>, %dv: memref<?x2x?x64xbf16>) {
// GRAD:   fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<?x2x?x64xbf16>, memref<?x2x?x64xbf16>, memref<?x2x?x64xbf16>, memref<?x2x?x64xbf16>, memref<?x2x?x64xbf16>, memref<?x2x?xf32>) outs(%dq, %dk, %dv : memref<?x2x?x64xbf16>, memref<?x2x?x64xbf16>, memref<?x2x?x64xbf16>)
// GRAD:   return
// GRAD: }

// The kernel's patterns take f32 math only (as the approximate
// instructions); other math goes to upstream's GPU patterns, which call
// libdevice.
// F64: llvm.func @__nv_exp2(f64) -> f64
// F64-LABEL: llvm.func @f64
// F64: llvm.call @__nv_exp2(%{{.*}}) : (f64) -> f64
// IN64: llvm.func @f64(%x: f64) -> f64 {
// IN64:   %e = math.exp2 %x : f64
// IN64:   llvm.return %e : f64
// IN64: }
