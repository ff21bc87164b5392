// RUN: fattn-opt %s --fattn-sm80-pipeline="host-launch=true" -o %t.mlir
// RUN: FileCheck %s --check-prefix=HOST < %t.mlir
// RUN: mlir-opt %t.mlir --gpu-module-to-binary=format=isa --convert-scf-to-cf --convert-cf-to-llvm --convert-arith-to-llvm --convert-index-to-llvm --finalize-memref-to-llvm --convert-func-to-llvm --gpu-to-llvm --reconcile-unrealized-casts -o %t.llvm.mlir
// RUN: mlir-translate --mlir-to-llvmir %t.llvm.mlir | FileCheck %s --check-prefix=LLVM

// host-launch=true: the function that held fattn.attention launches the
// sm_80 kernel (named after the outlined function) itself: the grid from the
// sequence length, heads and batch; 128 threads; the kernel's dynamic shared
// memory; global pointers, sizes and strides. No tensor maps on sm_80.
// HOST: module attributes {gpu.container_module}
// HOST-NOT: mgpuTensorMapEncodeTiled
// HOST-NOT: func.func private @attention_attention
// HOST-LABEL: func.func @attention(
// HOST: %[[GX:.*]] = arith.ceildivui %{{.*}}#2, %c128 : index
// HOST: scf.if
// HOST: gpu.launch_func @fattn_kernels::@attention_attention blocks in (%[[GX]], %{{.*}}#1, %{{.*}}#0) threads in (%c128, %c1, %c1) dynamic_shared_memory_size %c{{[0-9]+}}_i32
// HOST-SAME: args(%{{.*}} : !llvm.ptr<1>, %{{.*}} : !llvm.ptr<1>, %{{.*}} : !llvm.ptr<1>, %{{.*}} : !llvm.ptr<1>, %{{.*}} : !llvm.ptr<1>, %{{.*}} : i32,
// HOST: gpu.module @fattn_kernels
// HOST: llvm.func @attention_attention(

// Upstream's gpu-module-to-binary and gpu-to-llvm finish it.
// LLVM: @fattn_kernels_binary = internal constant
// LLVM: define void @attention(
// LLVM: call void @mgpuLaunchKernel(ptr %{{.*}}, i64 %{{.*}}, i64 %{{.*}}, i64 %{{.*}}, i64 128, i64 1, i64 1, i32 {{[0-9]+}}, ptr %{{.*}}, ptr %{{.*}}, ptr null, i64 24)
// LLVM: call void @mgpuStreamSynchronize(
// LLVM: define void @_mlir_ciface_attention(
// LLVM: call ptr @mgpuModuleLoadJIT(ptr @fattn_kernels_binary
func.func @attention(
    %q: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>,
    %k: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>,
    %v: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>,
    %o: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>,
    %lse: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) attributes {llvm.emit_c_interface} {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>,
                                   memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>,
                                   memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>)
                  outs(%o : memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>)
                  lse(%lse : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>)
                  {causal = true}
  return
}
