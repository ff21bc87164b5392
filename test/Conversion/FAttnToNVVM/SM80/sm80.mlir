// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=64" --fattn-sm80-async-copy --fattn-sm80-mma --convert-fattn-to-nvvm="chip=sm_80" | FileCheck %s

// The function becomes a kernel with the parameters of docs/KERNEL-ABI.md:
// q, k, v, o, lse; batch, heads_q, heads_kv, seq_q, seq_k; 3 strides for each
// of q, k, v, o; 2 for lse.
// CHECK: module attributes {gpu.container_module}
// CHECK: gpu.module @fattn_kernels [#nvvm.target<O = 3, chip = "sm_80">]
// CHECK: llvm.mlir.global external @fattn_smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK-LABEL: llvm.func @causal_lse(
// CHECK-SAME: {{(%arg[0-9]+: !llvm.ptr<1>, ){5}(%arg[0-9]+: i32, ){5}(%arg[0-9]+: i64, ){13}%arg23: i64\)}}
// CHECK-SAME: fattn.kernel = {block_m = 128 : i64, block_n = 64 : i64, dtype = "bf16", dynamic_smem_bytes = 55296 : i64, has_lse = true, head_dim = 64 : i64
// CHECK-SAME: threads = 128 : i64, window_left = -1 : i64, window_right = 0 : i64}
// CHECK-SAME: nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>
// Prologue: Q and the first KV tile with zero-filling 16-byte copies.
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg, %{{.*}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK: nvvm.cp.async.commit.group
// Q in registers (head dim 64), once.
// CHECK: nvvm.cp.async.wait.group 1
// CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32
// The KV loop: wait for tile j, prefetch tile j + 1.
// CHECK: scf.for
// CHECK: nvvm.cp.async.wait.group 0
// CHECK: nvvm.barrier0
// CHECK: scf.if
// CHECK: nvvm.cp.async.shared.global
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
// The mask only on tiles that cross an edge.
// CHECK: scf.if %{{.*}} -> (f32,
// Row max over the 4 lanes of a row; exp2 with the scale folded in.
// CHECK: nvvm.shfl.sync bfly %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : f32 -> f32
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// P to bf16 pairs in registers; V by ldmatrix.trans.
// CHECK: llvm.fptrunc %{{.*}} : vector<2xf32> to vector<2xbf16>
// CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, num = 4 : i32
// CHECK: nvvm.mma.sync
// CHECK: scf.yield
// Epilogue: O and LSE straight from registers.
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr<1>
// CHECK: llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<1>
// CHECK-NOT: func.func @causal_lse
func.func @causal_lse(%q: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%o : memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>) lse(%lse : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) {causal = true}
  return
}

// -----

// Without LSE: 4 pointers, 5 sizes, 12 strides; f16 operands are vector<2xf16>.
// CHECK-LABEL: llvm.func @f16_no_lse(
// CHECK-SAME: {{(%arg[0-9]+: !llvm.ptr<1>, ){4}(%arg[0-9]+: i32, ){5}(%arg[0-9]+: i64, ){11}%arg20: i64\)}}
// CHECK: nvvm.mma.sync {{.*}} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
func.func @f16_no_lse(%q: memref<?x?x?x128xf16>, %k: memref<?x?x?x128xf16>, %v: memref<?x?x?x128xf16>, %o: memref<?x?x?x128xf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf16>, memref<?x?x?x128xf16>, memref<?x?x?x128xf16>) outs(%o : memref<?x?x?x128xf16>)
  return
}
