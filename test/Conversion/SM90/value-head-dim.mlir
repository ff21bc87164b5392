// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=64" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --convert-fattn-to-nvvm-sm90="keep-target-ops=true" | FileCheck %s --enable-var-scope
// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=64" --fattn-sm90-tma="tma-store=true" --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-persistent-tiles --fattn-sm90-q-buffers --convert-fattn-to-nvvm-sm90="keep-target-ops=true" | FileCheck %s --check-prefix=STORE

// V's head dim differing from Q's and K's (MLA's 192 and 128) at the target
// level (L3): S = Q K^T steps through Q's and K's 192 columns (three 64-column
// atoms), P V and O span V's 128 (two atoms). Q's buffer and K's ring stages
// hold three atoms of rows, V's stages two; each copy expects the bytes of its
// own atoms.

func.func @mla(%q: memref<?x?x?x192xbf16>, %k: memref<?x?x?x192xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x192xbf16>, memref<?x?x?x192xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>) {causal = true}
  return
}

// CHECK-LABEL: llvm.func @fattn_fwd_sm90_d192v128_bf16_m128n64s2_causal(
// CHECK-SAME: %[[Q_MAP:arg21]]: !llvm.ptr
// CHECK-SAME: %[[K_MAP:arg22]]: !llvm.ptr
// CHECK-SAME: %[[V_MAP:arg23]]: !llvm.ptr
// Q: 128 rows x 3 atoms; K: 2 stages of 64 rows x 3 atoms; V: 2 x 64 x 2.
// CHECK:      fattn.sm90.smem_region q_buffers, offset = 0, bytes = 49152
// CHECK-NEXT: fattn.sm90.smem_region key_ring, offset = 49152, bytes = 49152
// CHECK-NEXT: fattn.sm90.smem_region value_ring, offset = 98304, bytes = 32768
// CHECK:      fattn.sm90.mbarrier_arrive_expect_tx %{{.*}}, bytes = 49152
// CHECK-COUNT-3: fattn.sm90.tma_load %[[Q_MAP]][
// CHECK:      fattn.sm90.mbarrier_arrive_expect_tx %{{.*}}, bytes = 24576
// CHECK-COUNT-3: fattn.sm90.tma_load %[[K_MAP]][
// CHECK:      fattn.sm90.mbarrier_arrive_expect_tx %{{.*}}, bytes = 16384
// CHECK-COUNT-2: fattn.sm90.tma_load %[[V_MAP]][
// CHECK-NOT:  fattn.sm90.tma_load
// S = Q K^T on 64 keys: twelve k16 steps through 192 columns, 32
// accumulators each (m64n64).
// CHECK-COUNT-12: = fattn.sm90.wgmma %{{.*}}, element_type = bf16{{.*}} : !llvm.struct<({{((f32, ){31})}}f32)>
// CHECK-NOT:  fattn.sm90.wgmma
// CHECK:      fattn.sm90.wgmma_commit_group
// O += P V: four k16 steps through the 64 keys, on O's 64 accumulators
// (m64n128, the whole of V's head dim).
// CHECK-COUNT-4: = fattn.sm90.wgmma_rs {{.*}} : !llvm.struct<({{((f32, ){63})}}f32)>
// CHECK-NOT:  fattn.sm90.wgmma
// CHECK:      fattn.sm90.wgmma_commit_group
// O leaves through Q's buffer: 64 rows of 16 units of 16 bytes per
// warpgroup, 8 per thread.
// CHECK-COUNT-8: fattn.sm90.load_swizzled_unit
// CHECK-NOT:  fattn.sm90.load_swizzled_unit
// CHECK:      llvm.return

// -----

// V wider than Q and K: O passes through Q's buffer (one CTA per Q tile, or
// the TMA stores of persistent CTAs with two Q buffers), which holds O's two
// atoms although TMA fills only Q's one; the stores take one box per atom of
// V's head dim.

func.func @wide_value(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>) {causal = true}
  return
}

// CHECK-LABEL: llvm.func @fattn_fwd_sm90_d64v128_bf16_m128n64s2_causal(
// CHECK:      fattn.sm90.smem_region q_buffers, offset = 0, bytes = 32768
// CHECK-NEXT: fattn.sm90.smem_region key_ring, offset = 32768, bytes = 16384
// CHECK-NEXT: fattn.sm90.smem_region value_ring, offset = 49152, bytes = 32768
// CHECK:      fattn.sm90.mbarrier_arrive_expect_tx %{{.*}}, bytes = 16384
// CHECK-COUNT-1: fattn.sm90.tma_load %arg21[
// CHECK:      fattn.sm90.mbarrier_arrive_expect_tx %{{.*}}, bytes = 8192
// CHECK-COUNT-1: fattn.sm90.tma_load %arg22[
// CHECK:      fattn.sm90.mbarrier_arrive_expect_tx %{{.*}}, bytes = 16384
// CHECK-COUNT-2: fattn.sm90.tma_load %arg23[
// CHECK-COUNT-8: fattn.sm90.load_swizzled_unit
// CHECK-NOT:  fattn.sm90.load_swizzled_unit

// STORE-LABEL: llvm.func @fattn_fwd_sm90_d64v128_bf16_m128n64s2_causal_persistent(
// STORE:      fattn.sm90.smem_region q_buffers, offset = 0, bytes = 65536
// STORE-NEXT: fattn.sm90.smem_region key_ring, offset = 65536, bytes = 16384
// STORE:      fattn.sm90.mbarrier_arrive_expect_tx %{{.*}}, bytes = 16384
// STORE-COUNT-2: fattn.sm90.tma_store %arg24[
// STORE-NOT:  fattn.sm90.tma_store
