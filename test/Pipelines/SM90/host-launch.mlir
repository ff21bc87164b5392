// RUN: fattn-opt %s --fattn-sm90-pipeline="host-launch=true" -o %t.mlir
// RUN: FileCheck %s --check-prefix=HOST < %t.mlir
// RUN: mlir-opt %t.mlir --gpu-module-to-binary=format=isa --convert-scf-to-cf --convert-cf-to-llvm --convert-arith-to-llvm --convert-index-to-llvm --finalize-memref-to-llvm --convert-func-to-llvm --gpu-to-llvm --reconcile-unrealized-casts -o %t.llvm.mlir
// RUN: mlir-translate --mlir-to-llvmir %t.llvm.mlir | FileCheck %s --check-prefix=LLVM

// host-launch=true: the function that held fattn.attention launches the
// sm_90a kernel itself (no kernel description, no fattn runtime): the grid
// from the sequence length, heads and batch; 384 threads; the kernel's
// dynamic shared memory; its 24 scalar parameters and the tensor maps of Q,
// K and V, encoded on the host and passed by value.
// HOST: module attributes {gpu.container_module}
// HOST: llvm.func @mgpuTensorMapEncodeTiled(
// HOST-NOT: func.func private @attention_attention
// HOST-LABEL: func.func @attention(
// HOST: %[[GX:.*]] = arith.ceildivui %{{.*}}#2, %c128 : index
// HOST: scf.if
// HOST-COUNT-3: llvm.call @mgpuTensorMapEncodeTiled(%{{.*}}, %c9_i32, %c4_i32,
// HOST: gpu.launch_func @fattn_sm90::@fattn_fwd_sm90_d128_bf16_m128n128s2_causal_lse blocks in (%[[GX]], %{{.*}}#1, %{{.*}}#0) threads in (%c384, %c1, %c1) dynamic_shared_memory_size %c{{[0-9]+}}_i32
// HOST-SAME: : !llvm.array<128 x i8>, %{{.*}} : !llvm.array<128 x i8>, %{{.*}} : !llvm.array<128 x i8>)
// HOST: gpu.module @fattn_sm90
// HOST: llvm.func @fattn_fwd_sm90_d128_bf16_m128n128s2_causal_lse(

// Upstream's gpu-module-to-binary and gpu-to-llvm finish it: the kernel
// embedded and loaded at start-up, the launch through mgpu* entry points.
// LLVM: @fattn_sm90_binary = internal constant
// LLVM: define void @attention(
// LLVM: call void @mgpuTensorMapEncodeTiled(
// LLVM: call void @mgpuLaunchKernel(ptr %{{.*}}, i64 %{{.*}}, i64 %{{.*}}, i64 %{{.*}}, i64 384, i64 1, i64 1, i32 {{[0-9]+}}, ptr %{{.*}}, ptr %{{.*}}, ptr null, i64 27)
// LLVM: call void @mgpuStreamSynchronize(
// LLVM: define void @_mlir_ciface_attention(
// LLVM: call ptr @mgpuModuleLoadJIT(ptr @fattn_sm90_binary
func.func @attention(
    %q: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>,
    %k: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>,
    %v: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>,
    %o: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>,
    %lse: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) attributes {llvm.emit_c_interface} {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>,
                                   memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>,
                                   memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>)
                  outs(%o : memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>)
                  lse(%lse : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>)
                  {causal = true}
  return
}
