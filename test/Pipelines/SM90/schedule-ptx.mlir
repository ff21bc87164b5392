// RUN: fattn-opt %s --fattn-sm90-pipeline="kernel-name=k intra-wg-overlap=true pingpong=true" -o %t.ovpp.mlir
// RUN: mlir-opt %t.ovpp.mlir --convert-nvvm-to-llvm --reconcile-unrealized-casts --gpu-module-to-binary=format=isa -o %t.ovpp.isa.mlir
// RUN: %python %fattn_src_root/bench/sm90/extract_ptx.py %t.ovpp.isa.mlir %t.ovpp.ptx
// RUN: FileCheck %s --check-prefix=OVPP < %t.ovpp.ptx
// Pingpong on barriers 5 and 6 instead of 1 and 2:
// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap --fattn-pingpong="barrier-base=5" --convert-fattn-to-nvvm-sm90 -o %t.base5.mlir
// RUN: mlir-opt %t.base5.mlir --convert-nvvm-to-llvm --reconcile-unrealized-casts --gpu-module-to-binary=format=isa -o %t.base5.isa.mlir
// RUN: %python %fattn_src_root/bench/sm90/extract_ptx.py %t.base5.isa.mlir %t.base5.ptx
// RUN: FileCheck %s --check-prefix=BASE5 --implicit-check-not="bar.sync 1," < %t.base5.ptx
// RUN: fattn-opt %s --fattn-sm90-pipeline="kernel-name=k intra-wg-overlap=false" -o %t.seq.mlir
// RUN: mlir-opt %t.seq.mlir --convert-nvvm-to-llvm --reconcile-unrealized-casts --gpu-module-to-binary=format=isa -o %t.seq.isa.mlir
// RUN: %python %fattn_src_root/bench/sm90/extract_ptx.py %t.seq.isa.mlir %t.seq.ptx
// RUN: FileCheck %s --check-prefix=SEQ < %t.seq.ptx
// RUN: fattn-opt %s --fattn-sm90-pipeline="kernel-name=k warp-specialize=false" -o %t.nows.mlir
// RUN: mlir-opt %t.nows.mlir --convert-nvvm-to-llvm --reconcile-unrealized-casts --gpu-module-to-binary=format=isa -o %t.nows.isa.mlir
// RUN: %python %fattn_src_root/bench/sm90/extract_ptx.py %t.nows.isa.mlir %t.nows.ptx
// RUN: FileCheck %s --check-prefix=NOWS < %t.nows.ptx
// RUN: fattn-opt %s --fattn-sm90-pipeline="kernel-name=k consumers=3 block-m=192" -o %t.c3.mlir
// RUN: mlir-opt %t.c3.mlir --convert-nvvm-to-llvm --reconcile-unrealized-casts --gpu-module-to-binary=format=isa -o %t.c3.isa.mlir
// RUN: %python %fattn_src_root/bench/sm90/extract_ptx.py %t.c3.isa.mlir %t.c3.ptx
// RUN: FileCheck %s --check-prefix=C3 < %t.c3.ptx

// The schedule switches of fattn-sm90-pipeline, as PTX.
//
// Intra-warpgroup overlap + pingpong: the last consumer warpgroup lets the
// first one go (bar.arrive on barrier 1), each warpgroup waits on its named
// barrier (a register id, 256 threads) before its GEMMs and arrives on the
// next one's after issuing them; the loop issues Q K^T (SS) and P V (RS)
// back to back and waits for the first group only (wait_group 1) before the
// softmax, then for the P V (wait_group 0) before the rescale.
// OVPP: .maxntid 384, 1, 1
// OVPP: setmaxnreg.dec.sync.aligned.u32 24;
// OVPP: setmaxnreg.inc.sync.aligned.u32 240;
// OVPP: bar.arrive 1, 256;
// Prologue: Q K^T of the first tile in one slot.
// OVPP: bar.sync {{%r[0-9]+}}, 256;
// OVPP: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 0;
// OVPP: bar.arrive {{%r[0-9]+}}, 256;
// OVPP: wgmma.wait_group.sync.aligned 0;
// OVPP: ex2.approx.ftz.f32
// The loop (its softmax block, which ends waiting for P V, is laid out
// first): Q K^T and P V in one slot, then wait for Q K^T only.
// OVPP: wgmma.wait_group.sync.aligned 0;
// OVPP: bar.sync {{%r[0-9]+}}, 256;
// OVPP: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 0;
// OVPP: wgmma.commit_group.sync.aligned;
// OVPP: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, {%r{{[0-9]+}},%r{{[0-9]+}},%r{{[0-9]+}},%r{{[0-9]+}}}, %rd{{[0-9]+}}, 1, 1, 1, 1;
// OVPP: wgmma.commit_group.sync.aligned;
// OVPP: bar.arrive {{%r[0-9]+}}, 256;
// OVPP: wgmma.wait_group.sync.aligned 1;
// Epilogue: the last P V in its own slot; the first warpgroup takes the
// last pending arrival.
// OVPP: bar.sync {{%r[0-9]+}}, 256;
// OVPP: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, {%r{{[0-9]+}},%r{{[0-9]+}},%r{{[0-9]+}},%r{{[0-9]+}}}, %rd{{[0-9]+}}, 1, 1, 1, 1;
// OVPP: bar.arrive {{%r[0-9]+}}, 256;
// OVPP: wgmma.wait_group.sync.aligned 0;
// OVPP: bar.sync 1, 256;
//
// With barrier-base=5 the second consumer warpgroup's first arrival, and
// the first one's final wait for the second one's last arrival, use
// barrier 5 (a constant id; the others are 5 + warpgroup).
// BASE5: bar.arrive 5, 256;
// BASE5: bar.sync 5, 256;
//
// Sequential schedule: every wgmma group is waited for at once, no named
// barriers.
// SEQ: .maxntid 384, 1, 1
// SEQ-NOT: wgmma.wait_group.sync.aligned 1;
// SEQ-NOT: bar.arrive
// SEQ: wgmma.wait_group.sync.aligned 0;
// SEQ-NOT: wgmma.wait_group.sync.aligned 1;
// SEQ-NOT: bar.arrive
//
// Without warp specialization: two warpgroups, no register reallocation,
// thread 0 issues the copies (Q and the first stages, then one tile per
// stage handed back, after waiting on its empty barrier); the overlap pass
// needs the consumer region, so the loop is sequential.
// NOWS: .maxntid 256, 1, 1
// NOWS-NOT: setmaxnreg
// NOWS: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// NOWS-NOT: wgmma.wait_group.sync.aligned 1;
// NOWS: mbarrier.try_wait.parity.shared.b64
// NOWS: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// NOWS-NOT: setmaxnreg
//
// Three consumer warpgroups (block_m 192): 512 threads, FA3's 32/160 split.
// C3: .maxntid 512, 1, 1
// C3: setmaxnreg.dec.sync.aligned.u32 32;
// C3: setmaxnreg.inc.sync.aligned.u32 160;
func.func @attn(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>) outs(%o : memref<?x?x?x64xbf16>) {causal = true}
  return
}
