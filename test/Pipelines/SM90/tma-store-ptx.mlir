// RUN: fattn-opt %s --fattn-sm90-pipeline="kernel-name=k persistent=true q-buffers=2 tma-store=true" -o %t.mlir
// RUN: FileCheck %s --check-prefix=DESC < %t.mlir
// RUN: mlir-opt %t.mlir --convert-nvvm-to-llvm --reconcile-unrealized-casts --gpu-module-to-binary=format=isa -o %t.isa.mlir
// RUN: %python %fattn_src_root/bench/sm90/extract_ptx.py %t.isa.mlir %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: FileCheck %s --check-prefix=NOSTG < %t.ptx
// RUN: fattn-opt %s --fattn-sm90-pipeline="kernel-name=k persistent=true q-buffers=2" | FileCheck %s --check-prefix=DIRECT

// O by TMA stores (tma-store=true), head dim 96 in two 64-column atoms: each
// consumer warpgroup writes its 64 rows of O / l into the work item's Q
// buffer, fences them for the async proxy, meets on its epilogue barrier,
// and its first thread issues one TMA store per atom (the tensor map clips
// rows past seq_q and columns past 96). The kernel takes O's tensor map as a
// fourth one, 64 rows of one atom per box; shared memory does not grow.
// DESC: \22dynamic_smem_bytes\22:197728
// DESC: {\22box\22:[1,1,64,64],\22element_strides\22:[1,1,1,1],\22element_type\22:\22bf16\22,\22name\22:\22o_map\22,\22swizzle\22:\22128B\22,\22tensor\22:\22o\22,\22type\22:\22tensormap\22}
// DIRECT-NOT: o_map
// DIRECT: \22dynamic_smem_bytes\22:197728

// CHECK: .param .align 64 .b8 k_param_24[128]
// The consumers: the previous item's buffer goes back to the producer, from
// its store issuer, once the stores have read it (in the next item, after
// the first softmax).
// CHECK: setmaxnreg.inc.sync.aligned.u32 240;
// CHECK: cp.async.bulk.wait_group.read 0;
// CHECK-NEXT: mbarrier.arrive.shared.b64
// The epilogue: O / l into the buffer (two atoms of 64 rows x 128 bytes,
// 16384 bytes apart), the fence, the warpgroup's barrier, the stores.
// CHECK: st.shared.b32 [{{%rd[0-9]+}}+16384]
// CHECK: fence.proxy.async.shared::cta;
// CHECK-NEXT: bar.sync {{%r[0-9]+}}, 128;
// CHECK: cp.async.bulk.tensor.4d.global.shared::cta.tile.bulk_group [[[MAP:%rd[0-9]+]], {{{%r[0-9]+}}, [[ROW:%r[0-9]+]], {{%r[0-9]+}}, {{%r[0-9]+}}}], [{{%rd[0-9]+}}];
// CHECK: cp.async.bulk.tensor.4d.global.shared::cta.tile.bulk_group [[[MAP]], {{{%r[0-9]+}}, [[ROW]], {{%r[0-9]+}}, {{%r[0-9]+}}}], [{{%rd[0-9]+}}+16384];
// CHECK-NEXT: cp.async.bulk.commit_group;
// Shared memory outlives the last stores' reads.
// CHECK: cp.async.bulk.wait_group.read 0;
// CHECK-NEXT: ret;
// No O leaves by st.global (the kernel has no LSE).
// NOSTG-NOT: st.global
func.func @attn(%q: memref<?x?x?x96xbf16>, %k: memref<?x?x?x96xbf16>, %v: memref<?x?x?x96xbf16>, %o: memref<?x?x?x96xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x96xbf16>, memref<?x?x?x96xbf16>, memref<?x?x?x96xbf16>) outs(%o : memref<?x?x?x96xbf16>)
  return
}
