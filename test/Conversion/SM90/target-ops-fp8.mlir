// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-persistent-tiles --fattn-fp8-layout --fattn-sm90-row-sum-mma --convert-fattn-to-nvvm-sm90="keep-target-ops=true" | FileCheck %s --enable-var-scope --implicit-check-not=llvm.nvvm.ff.to.e4m3x2 --implicit-check-not=ldmatrix.sync --implicit-check-not=stmatrix.sync --implicit-check-not=prmt.b32 --implicit-check-not=nvvm.shfl.sync
// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-persistent-tiles --fattn-fp8-layout --fattn-sm90-row-sum-mma --convert-fattn-to-nvvm-sm90="keep-target-ops=true" --convert-fattn-sm90-target-to-nvvm -o %t.split.mlir
// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-persistent-tiles --fattn-fp8-layout --fattn-sm90-row-sum-mma --convert-fattn-to-nvvm-sm90 -o %t.whole.mlir
// RUN: diff %t.split.mlir %t.whole.mlir
// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma="tma-store=true" --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-persistent-tiles --fattn-fp8-layout --fattn-sm90-q-buffers --convert-fattn-to-nvvm-sm90="keep-target-ops=true" --convert-fattn-sm90-target-to-nvvm -o %t.store-split.mlir
// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma="tma-store=true" --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-persistent-tiles --fattn-fp8-layout --fattn-sm90-q-buffers --convert-fattn-to-nvvm-sm90 -o %t.store-whole.mlir
// RUN: diff %t.store-split.mlir %t.store-whole.mlir

// The persistent e4m3 kernel at L3, and lowered in two steps to the kernel
// of one step (with the row sums on the tensor cores, and with O's TMA
// stores through a buffer of its own).

func.func @fp8(%q: memref<1x2x512x128xf8E4M3FN>, %k: memref<1x2x512x128xf8E4M3FN>, %v: memref<1x2x512x128xf8E4M3FN>, %o: memref<1x2x512x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<1x2x512x128xf8E4M3FN>, memref<1x2x512x128xf8E4M3FN>, memref<1x2x512x128xf8E4M3FN>) outs(%o : memref<1x2x512x128xbf16>)
  return
}

// CHECK-LABEL: llvm.func @fattn_fwd_sm90_d128_e4m3_m128n128s2_persistent
// The shared memory's regions: V^T's ring after V's (the producer
// transposes each V tile into it), the tile of ones of the row sums' wgmma.
// CHECK: fattn.sm90.smem_region q_buffers, offset = 0, bytes = 16384
// CHECK-NEXT: fattn.sm90.smem_region key_ring, offset = 16384, bytes = 32768
// CHECK-NEXT: %[[V_RING:.*]] = fattn.sm90.smem_region value_ring, offset = 49152, bytes = 32768
// CHECK-NEXT: %[[VT_RING:.*]] = fattn.sm90.smem_region transposed_value_ring, offset = 81920, bytes = 32768
// CHECK-NEXT: %[[ONES:.*]] = fattn.sm90.smem_region ones, offset = 114688, bytes = 1024
// CHECK-NEXT: fattn.sm90.smem_region barriers, offset = 115712, bytes = 112
// V^T's full barriers count the 128 producer threads that write it.
// CHECK: fattn.sm90.mbarrier_init %{{.*}}, count = 128, predicate = %{{.*}}
// Every thread writes its word of the tile of ones.
// CHECK: llvm.add %[[ONES]], %{{.*}} : i32
// The producer's tile: K and V by TMA, 16 KiB each.
// CHECK: fattn.sm90.ring_stage %{{.*}}, stages = 2
// CHECK: fattn.sm90.mbarrier_arrive_expect_tx %{{.*}}, bytes = 16384
// CHECK: fattn.sm90.tma_load %arg22
// CHECK: fattn.sm90.mbarrier_arrive_expect_tx %{{.*}}, bytes = 16384
// CHECK: fattn.sm90.tma_load %arg23
// V^T: the producer warpgroup writes it (per step of 16 keys x 32 columns
// an ldmatrix.x4 of V, the byte permutes by the lane's two selectors and a
// stmatrix.x4.trans; four steps a block, from V's stage to V^T's), fences
// it for wgmma, arrives on its full barrier and meets on its named barrier.
// CHECK: llvm.add %[[V_RING]], %{{.*}} : i32
// CHECK: llvm.add %[[VT_RING]], %{{.*}} : i32
// CHECK: %[[W0:.*]], %[[W1:.*]], %[[W2:.*]], %[[W3:.*]] = fattn.sm90.ldmatrix_x4 %{{.*}}
// CHECK-NEXT: %[[R0:.*]], %[[R1:.*]], %[[R2:.*]], %[[R3:.*]] = fattn.sm90.permute_bytes %[[W0]], %[[W1]], %[[W2]], %[[W3]], selectors = [%[[SEL0:.*]], %[[SEL1:.*]]]
// CHECK: fattn.sm90.stmatrix_x4_trans %{{.*}}, [%[[R0]], %[[R1]], %[[R2]], %[[R3]]]
// CHECK-COUNT-3: fattn.sm90.permute_bytes %{{.*}}, selectors = [%[[SEL0]], %[[SEL1]]]
// CHECK-NOT: fattn.sm90.ldmatrix_x4
// CHECK: fattn.sm90.fence_proxy_async
// CHECK-NEXT: %[[FULL_VT:.*]] = fattn.sm90.ring_barrier %{{.*}}[%{{.*}}], offset = {{[0-9]+}}
// CHECK-NEXT: fattn.sm90.mbarrier_arrive %[[FULL_VT]]
// CHECK: fattn.sm90.named_barrier %{{.*}}, threads = 128
// CHECK: fattn.sm90.warp_uniform
// The consumers: e4m3 wgmma of S (k32) and P V^T (K-major, not
// transposed), P V and the row sums' product with the ones tile.
// CHECK: fattn.sm90.wgmma %{{.*}}, element_type = f8E4M3FN :
// P as e4m3, four probabilities per register, merged in place.
// CHECK-COUNT-16: fattn.sm90.pack_e4m3 %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}{{$}}
// CHECK: fattn.sm90.wgmma_rs [%{{.*}}], %{{.*}}, [%{{.*}}], element_type = f8E4M3FN, accumulate : !llvm.struct<(f32,
// CHECK: fattn.sm90.wgmma_rs [%{{.*}}], %{{.*}}, [%{{.*}}], element_type = f8E4M3FN : !llvm.struct<(f32, f32, f32, f32)>
// O / l from registers (head dim 128 in e4m3: 4-byte stores), each row's
// bf16 pairs where the row is inside the sequence.
// CHECK: fattn.sm90.store_fragment [%{{.*}}] scale %{{.*}}, %{{.*}}[%{{.*}}], element_type = bf16
// CHECK: fattn.sm90.store_fragment [%{{.*}}] scale %{{.*}}, %{{.*}}[%{{.*}}], element_type = bf16
