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
// Causal: later Q tiles see more keys, so they run first (reversed blockIdx.x).
// CHECK: %[[CTAID:.*]] = nvvm.read.ptx.sreg.ctaid.x
// CHECK: %[[NCTAID:.*]] = nvvm.read.ptx.sreg.nctaid.x
// CHECK: %[[LAST:.*]] = arith.subi %[[NCTAID]]
// CHECK: arith.subi %[[LAST]], %[[CTAID]]
// Prologue: Q with zero-filling 16-byte copies; rows past seq_q read row
// first_row instead of an address past the tensor.
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : !llvm.ptr<1>
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg, %{{.*}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK: nvvm.cp.async.commit.group
// The first KV tile: plain copies unless it is tile hi - 1, which may end
// past seq_k and takes the guarded ones.
// CHECK: scf.if
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
// CHECK: } else {
// CHECK: scf.if
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : !llvm.ptr<1>
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg, %{{.*}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK: nvvm.cp.async.commit.group
// Q in registers (head dim 64), once.
// CHECK: nvvm.cp.async.wait.group 1
// CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32
// The loop over the tiles every row sees whole: wait for tile j, prefetch
// tile j + 1, and no mask compares. Head dim 64 keeps the prologue's
// per-thread indices and addresses across the loop (no fresh reads).
// CHECK: scf.for
// CHECK-NOT: llvm.inline_asm has_side_effects "mov.u32 $0, %tid.x;"
// CHECK-NOT: llvm.inline_asm has_side_effects "mov.b64 $0, $1;"
// CHECK: nvvm.cp.async.wait.group 0
// CHECK: nvvm.barrier0
// CHECK: scf.if
// CHECK: nvvm.cp.async.shared.global
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
// CHECK-NOT: arith.cmpi sle
// The scheduling fence: every score through a select on tile < hi, which
// LLVM cannot fold.
// CHECK: %[[HI:.*]] = llvm.inline_asm has_side_effects "mov.b32 $0, $1;", "=r,r"
// CHECK: %[[IN:.*]] = arith.cmpi slt, %{{.*}}, %[[HI]] : i32
// CHECK: arith.select %[[IN]], %{{.*}}, %{{.*}} : f32
// CHECK-NOT: arith.cmpi sle
// Row max over the 4 lanes of a row; exp2 with the scale folded in.
// CHECK: nvvm.shfl.sync bfly %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : f32 -> f32
// CHECK-NOT: arith.cmpi sle
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// P to bf16 pairs in registers; V by ldmatrix.trans.
// CHECK: llvm.fptrunc %{{.*}} : vector<2xf32> to vector<2xbf16>
// CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, num = 4 : i32
// CHECK: nvvm.mma.sync
// CHECK-NOT: arith.cmpi sle
// CHECK: scf.yield
// The diagonal tiles: the same body with the mask (-inf where a key is not
// visible, one compare per element against the row's bound).
// CHECK: scf.for
// CHECK: nvvm.mma.sync
// CHECK: arith.cmpi sle, %{{.*}}, %{{.*}} : i32
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK: scf.yield
// Epilogue: all copies done and a CTA barrier (other threads copied this
// warp's Q rows; without KV tiles no barrier followed); indices read anew;
// O / l into the warp's rows of the Q tile, LSE from the lead lane of each
// row, then 16-byte chunks to global memory.
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: nvvm.barrier0
// CHECK: llvm.inline_asm has_side_effects "mov.u32 $0, %ctaid.y;", "=r"
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr<3>
// CHECK: llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<1>
// CHECK: nvvm.bar.warp.sync
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
// CHECK-NOT: func.func @causal_lse
func.func @causal_lse(%q: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%o : memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>) lse(%lse : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) {causal = true}
  return
}

// -----

// Without LSE: 4 pointers, 5 sizes, 12 strides; f16 operands are vector<2xf16>.
// Head dim 128: each tile derives its per-thread indices and addresses anew
// from fresh reads (hoisted across the loop, they would spill).
// CHECK-LABEL: llvm.func @f16_no_lse(
// CHECK-SAME: {{(%arg[0-9]+: !llvm.ptr<1>, ){4}(%arg[0-9]+: i32, ){5}(%arg[0-9]+: i64, ){11}%arg20: i64\)}}
// CHECK: scf.for
// CHECK: llvm.inline_asm has_side_effects "mov.u32 $0, %tid.x;", "=r"
// CHECK: llvm.inline_asm has_side_effects "mov.b64 $0, $1;", "=l,l"
// CHECK: nvvm.cp.async.wait.group 0
// CHECK: nvvm.mma.sync {{.*}} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
func.func @f16_no_lse(%q: memref<?x?x?x128xf16>, %k: memref<?x?x?x128xf16>, %v: memref<?x?x?x128xf16>, %o: memref<?x?x?x128xf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf16>, memref<?x?x?x128xf16>, memref<?x?x?x128xf16>) outs(%o : memref<?x?x?x128xf16>)
  return
}

// -----

// A left window adds a masked loop before the unmasked one; both bounds are
// compared. Tiles do not run reversed (every Q tile sees as many keys). Head
// dim 96 has 12 chunks per row: 96 threads copy 8 rows per step.
// CHECK-LABEL: llvm.func @window_d96(
// CHECK-NOT: nvvm.read.ptx.sreg.nctaid.x
// CHECK: arith.cmpi ult, %{{.*}}, %{{.*}} : i32
// CHECK: scf.for
// CHECK: arith.cmpi sle
// CHECK: arith.cmpi sge
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK: scf.yield
// CHECK: scf.for
// CHECK-NOT: arith.cmpi sge
// CHECK: scf.yield
// CHECK: scf.for
// CHECK: arith.cmpi sge
// CHECK: scf.yield
func.func @window_d96(%q: memref<?x?x?x96xbf16>, %k: memref<?x?x?x96xbf16>, %v: memref<?x?x?x96xbf16>, %o: memref<?x?x?x96xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x96xbf16>, memref<?x?x?x96xbf16>, memref<?x?x?x96xbf16>) outs(%o : memref<?x?x?x96xbf16>) {window_left = 64 : i64, window_right = 32 : i64}
  return
}
