// RUN: fattn-opt %s -split-input-file --fattn-tile-grad="block-m=64 block-n=128" --convert-fattn-grad-to-nvvm-sm80="keep-target-ops=true" | FileCheck %s --check-prefix=L3
// The L3 kernels are valid IR that prints and parses back.
// RUN: fattn-opt %s -split-input-file --fattn-tile-grad="block-m=64 block-n=128" --convert-fattn-grad-to-nvvm-sm80="keep-target-ops=true" | fattn-opt -split-input-file | FileCheck %s --check-prefix=L3
// RUN: fattn-opt %s -split-input-file --fattn-sm80-grad-pipeline | FileCheck %s --check-prefix=L4

// Causal GQA (4 query heads per 2 KV heads), bf16, head dim 16: the three
// kernels of FlashAttention-2's backward in the gpu.module, with one
// parameter list (11 pointers, 5 sizes, 26 strides); the function is gone.
// L3-LABEL: gpu.module @fattn_kernels [#nvvm.target<O = 3, chip = "sm_80">]
// Preprocess: D = rowsum(dO * O), two threads per row; zeros into dq_accum.
// L3: gpu.func @bwd_preprocess(%{{.*}}: !llvm.ptr<1>, {{.*}}, %{{.*}}: i32, {{.*}}, %{{.*}}: i64) kernel attributes {fattn.grad_kernel = {block_m = 64 : i64, block_n = 128 : i64, dtype = "bf16", dynamic_smem_bytes = 0 : i64, head_dim = 16 : i64, role = "preprocess", scale = 2.500000e-01 : f64, softcap = 0.000000e+00 : f64, threads = 128 : i64, window_left = -1 : i64, window_right = 0 : i64}, known_block_size = array<i32: 128, 1, 1>}
// L3: vector.load %{{.*}}[%{{.*}}] {alignment = 16 : i64} : memref<?xbf16, #gpu.address_space<global>>, vector<8xbf16>
// L3: math.fma %{{.*}}, %{{.*}}, %{{.*}} : vector<8xf32>
// L3: vector.reduction <add>
// L3: gpu.shuffle  xor %{{.*}}, %c1_i32, %c32_i32 : f32
// L3: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<?xf32, #gpu.address_space<global>>
// L3: vector.store %{{.*}}, %{{.*}}[%{{.*}}] {alignment = 16 : i64} : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
// Main: 8 warps on a KV tile of 128 keys. K and V by cp.async (zero fill
// past seq_k) into views of the dynamic shared memory, Q and dO into two
// buffers (one view of 2 x 64 rows each), the body's Q tile range, one loop
// over the items (query head of the group, Q tile).
// L3: gpu.func @bwd_main(
// L3-SAME: block_n = 128 : i64, dtype = "bf16", dynamic_smem_bytes = 43520 : i64, head_dim = 16 : i64, role = "main"
// L3-SAME: threads = 256 : i64
// L3-SAME: known_block_size = array<i32: 256, 1, 1>
// L3: %[[SMEM:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// L3: %[[K:.*]] = memref.view %[[SMEM]][%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<128x24xbf16, #gpu.address_space<workgroup>>
// L3: %[[V:.*]] = memref.view %[[SMEM]][%c6144][] : {{.*}} to memref<128x24xbf16, #gpu.address_space<workgroup>>
// L3: %[[Q:.*]] = memref.view %[[SMEM]][%c12288][] : {{.*}} to memref<128x24xbf16, #gpu.address_space<workgroup>>
// L3: %[[DO:.*]] = memref.view %[[SMEM]][%c18432][] : {{.*}} to memref<128x24xbf16, #gpu.address_space<workgroup>>
// L3: %[[DST:.*]] = memref.view %[[SMEM]][%c24576][] : {{.*}} to memref<128x72xbf16, #gpu.address_space<workgroup>>
// L3: %[[LSE:.*]] = memref.view %[[SMEM]][%c43008][] : {{.*}} to memref<64xf32, #gpu.address_space<workgroup>>
// L3: %[[D:.*]] = memref.view %[[SMEM]][%c43264][] : {{.*}} to memref<64xf32, #gpu.address_space<workgroup>>
// L3: %[[LO:.*]], %[[FLO:.*]], %[[FHI:.*]], %[[HI:.*]] = fattn.q_tile_range %block_id_x, %{{.*}}, %{{.*}} {block_m = 64 : i64, block_n = 128 : i64, window_left = -1 : i64, window_right = 0 : i64}
// L3: arith.subi %[[HI]], %[[LO]] : index
// L3: nvgpu.device_async_copy %{{.*}}[%{{.*}}], %[[K]][%{{.*}}, %{{.*}}], 8, %{{.*}} {bypassL1} : memref<?xbf16, #gpu.address_space<global>> to memref<128x24xbf16, #gpu.address_space<workgroup>>
// L3: nvgpu.device_async_copy %{{.*}}[%{{.*}}], %[[V]][%{{.*}}, %{{.*}}], 8, %{{.*}} {bypassL1}
// At head dim 16 a Q tile is 128 chunks of 16 bytes: the other 128 threads
// write zeros into the rows' padding (column 16).
// L3: %[[INSIDE:.*]] = arith.cmpi slt, %{{.*}}, %c128{{.*}} : index
// L3: %[[PADCOL:.*]] = arith.select %[[INSIDE]], %{{.*}}, %c16{{.*}} : index
// L3: nvgpu.device_async_copy %{{.*}}[%{{.*}}], %[[Q]][%{{.*}}, %[[PADCOL]]], 8, %{{.*}} {bypassL1}
// L3: nvgpu.device_async_copy %{{.*}}[%{{.*}}], %[[DO]][%{{.*}}, %{{.*}}], 8, %{{.*}} {bypassL1}
// L3: %[[FIRST:.*]] = nvgpu.device_async_create_group %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}
// The first item's LSE·log2(e) and D into registers.
// L3: memref.load %{{.*}}[%{{.*}}] : memref<?xf32, #gpu.address_space<global>>
// L3: memref.load %{{.*}}[%{{.*}}] : memref<?xf32, #gpu.address_space<global>>
// L3: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args({{.*}}, %[[LSEI:.*]] = %{{.*}}, %[[DI:.*]] = %{{.*}}) -> (vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, f32, f32)
// The lane's indices are derived from a shuffle of the thread index in each
// item; the item's LSE and D into shared memory; the next item's Q and dO
// into the other buffer while this one's copies are waited for.
// L3: gpu.barrier
// L3: gpu.shuffle  idx %{{.*}}, %{{.*}}, %c32_i32 : i32
// L3: memref.store %[[LSEI]], %[[LSE]][%{{.*}}]
// L3: memref.store %[[DI]], %[[D]][%{{.*}}]
// L3: nvgpu.device_async_copy %{{.*}}, %[[Q]][
// L3: nvgpu.device_async_copy %{{.*}}, %[[DO]][
// L3: %[[NEXT:.*]] = nvgpu.device_async_create_group
// L3: nvgpu.device_async_wait %[[NEXT]] {numGroups = 1 : i32}
// L3: gpu.barrier
// The item's Q tile and buffer. Two parts of 32 query rows: S^T = K Q^T
// per warp (16 keys x 32 rows), masked outside [full_lo, full_hi).
// L3: %[[POS:.*]] = arith.remui %[[I]], %{{.*}} : index
// L3: %[[M:.*]] = arith.addi %[[LO]], %[[POS]] : index
// L3: %[[BELOW:.*]] = arith.cmpi slt, %[[M]], %[[FLO]] : index
// L3: %[[ABOVE:.*]] = arith.cmpi sge, %[[M]], %[[FHI]] : index
// L3: %[[MASKED:.*]] = arith.ori %[[BELOW]], %[[ABOVE]] : i1
// L3: nvgpu.ldmatrix %[[K]][%{{.*}}, %{{.*}}] {numTiles = 4 : i32, transpose = false} : memref<128x24xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// L3: nvgpu.ldmatrix %[[Q]][%{{.*}}, %{{.*}}] {numTiles = 2 : i32, transpose = false} : memref<128x24xbf16, #gpu.address_space<workgroup>> -> vector<2x2xbf16>
// L3: nvgpu.mma.sync(%{{.*}}, %{{.*}}, %{{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
// L3: scf.if %[[MASKED]] -> (vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>)
// L3: arith.cmpi sle
// L3: arith.select %{{.*}}, %{{.*}}, %cst{{.*}} : f32
// P^T = exp2(S^T scale log2(e) - LSE log2(e)); dV += P^T dO.
// L3: %[[LSE2:.*]] = vector.load %[[LSE]][%{{.*}}] : memref<64xf32, #gpu.address_space<workgroup>>, vector<2xf32>
// L3: vector.broadcast %[[LSE2]] : vector<2xf32> to vector<2x2xf32>
// L3: math.exp2 %{{.*}} : vector<2x2xf32>
// L3: %[[PA:.*]] = vector.shuffle %{{.*}}, %{{.*}} [0, 1, 2, 3] : vector<2x2xbf16>, vector<2x2xbf16>
// L3: %[[DOB:.*]] = nvgpu.ldmatrix %[[DO]][%{{.*}}, %c0{{.*}}] {numTiles = 2 : i32, transpose = true}
// L3: nvgpu.mma.sync(%[[PA]], %[[DOB]], %{{.*}})
// dP^T = V dO^T; dS^T = P^T (dP^T - D); dK += dS^T Q.
// L3: nvgpu.ldmatrix %[[V]][%{{.*}}, %{{.*}}] {numTiles = 4 : i32, transpose = false}
// L3: nvgpu.ldmatrix %[[DO]][%{{.*}}, %{{.*}}] {numTiles = 2 : i32, transpose = false}
// L3: vector.load %[[D]][%{{.*}}] : memref<64xf32, #gpu.address_space<workgroup>>, vector<2xf32>
// L3: arith.subf
// L3: arith.mulf
// L3: %[[SA:.*]] = vector.shuffle %{{.*}}, %{{.*}} [0, 1, 2, 3] : vector<2x2xbf16>, vector<2x2xbf16>
// L3: %[[QB:.*]] = nvgpu.ldmatrix %[[Q]][%{{.*}}, %c0{{.*}}] {numTiles = 2 : i32, transpose = true}
// L3: nvgpu.mma.sync(%[[SA]], %[[QB]], %{{.*}})
// dS^T through shared memory; the next item's LSE and D into registers;
// dQ = dS K over the 128 keys (warp w: rows 16 (w mod 4).., columns
// 8 (w / 4)..) into dq_accum with f32 atomics.
// L3: vector.store %{{.*}}, %[[DST]][%{{.*}}, %{{.*}}] : memref<128x72xbf16, #gpu.address_space<workgroup>>, vector<2xbf16>
// The second part.
// L3: scf.if %[[MASKED]] -> (vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>)
// L3: gpu.barrier
// L3: memref.load %{{.*}}[%{{.*}}] : memref<?xf32, #gpu.address_space<global>>
// L3: memref.load %{{.*}}[%{{.*}}] : memref<?xf32, #gpu.address_space<global>>
// L3: arith.remui %{{.*}}, %c4{{.*}} : index
// L3: %[[HALF:.*]] = arith.divui %{{.*}}, %c4{{.*}} : index
// L3: arith.muli %[[HALF]], %c8{{.*}} : index
// L3: nvgpu.ldmatrix %[[DST]][%{{.*}}, %{{.*}}] {numTiles = 4 : i32, transpose = true} : memref<128x72xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// L3: nvgpu.ldmatrix %[[K]][%{{.*}}, %{{.*}}] {numTiles = 2 : i32, transpose = true}
// L3: memref.atomic_rmw addf %{{.*}}, %{{.*}}[%{{.*}}] : (f32, memref<?xf32, #gpu.address_space<global>>) -> f32
// L3: scf.yield {{.*}} : vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, f32, f32
// The last item's zero fill waited for.
// L3: nvgpu.device_async_wait %[[FIRST]] {numGroups = 0 : i32}
// dK times the scale and dV, for the keys inside seq_k.
// L3: arith.mulf %{{.*}}, %cst{{.*}} : vector<2xf32>
// L3: vector.store %{{.*}}, %{{.*}}[%{{.*}}] {alignment = 4 : i64} : memref<?xbf16, #gpu.address_space<global>>, vector<2xbf16>
// Postprocess: dQ = scale * dq_accum.
// L3: gpu.func @bwd_postprocess(
// L3: %[[ACC:.*]] = vector.load %{{.*}}[%{{.*}}] {alignment = 16 : i64} : memref<?xf32, #gpu.address_space<global>>, vector<8xf32>
// L3: %[[SCALED:.*]] = arith.mulf %[[ACC]], %{{.*}} : vector<8xf32>
// L3: %[[DQ:.*]] = arith.truncf %[[SCALED]] : vector<8xf32> to vector<8xbf16>
// L3: vector.store %[[DQ]], %{{.*}}[%{{.*}}] {alignment = 16 : i64} : memref<?xbf16, #gpu.address_space<global>>, vector<8xbf16>
// L3-NOT: func.func

// L4 (NVVM/LLVM): the same three kernels; bf16 mma.sync through
// nvvm.mma.sync, exp2 as ex2.approx.ftz, the dQ atomics as atomicrmw fadd.
// L4-LABEL: gpu.module @fattn_kernels
// L4: llvm.func @bwd_preprocess(
// L4-SAME: nvvm.kernel
// L4: nvvm.shfl.sync  bfly
// L4: llvm.func @bwd_main(
// L4-SAME: nvvm.kernel, nvvm.maxntid = array<i32: 256, 1, 1>}
// L4: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache =  cg, %{{.*}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// L4: nvvm.cp.async.commit.group
// L4: nvvm.cp.async.wait.group 1
// L4: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32
// L4: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
// L4: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// L4: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, num = 2 : i32
// L4: nvvm.barrier0
// L4: llvm.atomicrmw fadd %{{.*}}, %{{.*}} acq_rel : !llvm.ptr<1>, f32
// L4: llvm.func @bwd_postprocess(
// L4-NOT: nvgpu.
// L4-NOT: scf.
// L4-NOT: vector.
// L4-NOT: gpu.func
func.func @bwd(%q: memref<?x4x?x16xbf16>, %k: memref<?x2x?x16xbf16>, %v: memref<?x2x?x16xbf16>,
               %o: memref<?x4x?x16xbf16>, %do: memref<?x4x?x16xbf16>, %lse: memref<?x4x?xf32>,
               %dq: memref<?x4x?x16xbf16>, %dk: memref<?x2x?x16xbf16>, %dv: memref<?x2x?x16xbf16>) {
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<?x4x?x16xbf16>, memref<?x2x?x16xbf16>, memref<?x2x?x16xbf16>, memref<?x4x?x16xbf16>, memref<?x4x?x16xbf16>, memref<?x4x?xf32>)
                       outs(%dq, %dk, %dv : memref<?x4x?x16xbf16>, memref<?x2x?x16xbf16>, memref<?x2x?x16xbf16>)
                       {causal = true}
  return
}

// -----

// f16 with a local window (left and right edges) and strided tensors: the
// mask tests both edges; upstream's pattern lowers the f16 mma.sync.
// L3-LABEL: gpu.module @fattn_kernels
// L3: gpu.func @window_main(
// L3-SAME: dtype = "f16"
// L3-SAME: window_left = 8 : i64, window_right = 4 : i64
// L3: fattn.q_tile_range {{.*}} {block_m = 64 : i64, block_n = 128 : i64, window_left = 8 : i64, window_right = 4 : i64}
// L3: scf.if
// L3: arith.cmpi sge
// L3: arith.cmpi sle
// L3: nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// L4-LABEL: gpu.module @fattn_kernels
// L4: llvm.func @window_main(
// L4: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
func.func @window(%q: memref<2x4x100x32xf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<2x4x90x32xf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<2x4x90x32xf16, strided<[?, ?, ?, 1], offset: ?>>,
                  %o: memref<2x4x100x32xf16>, %do: memref<2x4x100x32xf16>, %lse: memref<2x4x100xf32>,
                  %dq: memref<2x4x100x32xf16>, %dk: memref<2x4x90x32xf16>, %dv: memref<2x4x90x32xf16>) {
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<2x4x100x32xf16, strided<[?, ?, ?, 1], offset: ?>>, memref<2x4x90x32xf16, strided<[?, ?, ?, 1], offset: ?>>, memref<2x4x90x32xf16, strided<[?, ?, ?, 1], offset: ?>>, memref<2x4x100x32xf16>, memref<2x4x100x32xf16>, memref<2x4x100xf32>)
                       outs(%dq, %dk, %dv : memref<2x4x100x32xf16>, memref<2x4x90x32xf16>, memref<2x4x90x32xf16>)
                       {window_left = 8 : i64, window_right = 4 : i64}
  return
}

// -----

// A softcap: S = softcap * tanh(scale * Q K^T / softcap) (math.tanh, as
// tanh.approx.f32 inline PTX at L4), P from the capped scores (scale 1 in
// the exponent), dS times the derivative 1 - tanh^2.
// L3-LABEL: gpu.module @fattn_kernels
// L3: gpu.func @softcap_main(
// L3-SAME: softcap = 3.000000e+01 : f64
// L3: %[[S:.*]] = nvgpu.mma.sync
// L3: %[[INNER:.*]] = arith.constant dense<0.00589255663> : vector<2x2xf32>
// L3: %[[OUTER:.*]] = arith.constant dense<3.000000e+01> : vector<2x2xf32>
// L3: %[[X:.*]] = arith.mulf %{{.*}}, %[[INNER]] : vector<2x2xf32>
// L3: %[[T:.*]] = math.tanh %[[X]] : vector<2x2xf32>
// L3: arith.mulf %[[T]], %[[OUTER]] : vector<2x2xf32>
// L3: arith.constant dense<1.44269502> : vector<2x2xf32>
// L3: math.exp2
// L3: %[[T2:.*]] = arith.mulf %[[T]], %[[T]] : vector<2x2xf32>
// L3: %[[DERIV:.*]] = arith.subf %{{.*}}, %[[T2]] : vector<2x2xf32>
// L3: arith.mulf %{{.*}}, %[[DERIV]] : vector<2x2xf32>
// L4-LABEL: gpu.module @fattn_kernels
// L4: llvm.func @softcap_main(
// L4: llvm.inline_asm "tanh.approx.f32 $0, $1;", "=f,f" %{{.*}} : (f32) -> f32
func.func @softcap(%q: memref<?x2x?x32xbf16>, %k: memref<?x2x?x32xbf16>, %v: memref<?x2x?x32xbf16>,
                   %o: memref<?x2x?x32xbf16>, %do: memref<?x2x?x32xbf16>, %lse: memref<?x2x?xf32>,
                   %dq: memref<?x2x?x32xbf16>, %dk: memref<?x2x?x32xbf16>, %dv: memref<?x2x?x32xbf16>) {
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<?x2x?x32xbf16>, memref<?x2x?x32xbf16>, memref<?x2x?x32xbf16>, memref<?x2x?x32xbf16>, memref<?x2x?x32xbf16>, memref<?x2x?xf32>)
                       outs(%dq, %dk, %dv : memref<?x2x?x32xbf16>, memref<?x2x?x32xbf16>, memref<?x2x?x32xbf16>)
                       {softcap = 30.0 : f32}
  return
}
