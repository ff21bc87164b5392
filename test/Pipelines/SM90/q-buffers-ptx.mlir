// RUN: fattn-opt %s --fattn-sm90-pipeline="kernel-name=k persistent=true q-buffers=2" -o %t.mlir
// RUN: FileCheck %s --check-prefix=DESC < %t.mlir
// RUN: mlir-opt %t.mlir --convert-nvvm-to-llvm --reconcile-unrealized-casts --gpu-module-to-binary=format=isa -o %t.isa.mlir
// RUN: %python %fattn_src_root/bench/sm90/extract_ptx.py %t.isa.mlir %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: FileCheck %s --check-prefix=QDESC < %t.ptx
// RUN: fattn-opt %s --fattn-sm90-pipeline="kernel-name=k persistent=true" | FileCheck %s --check-prefix=ONE

// Two Q buffers (q-buffers=2) in a persistent kernel, head dim 96 (two
// 128-byte atoms of Q: 32768 bytes per buffer): the producer copies a work
// item's Q into buffer (item & 1) as soon as the consumers have handed back
// the item two before, rather than after the previous item's last S.
// Shared memory grows by one Q buffer and two barriers (32784 bytes).
// DESC: \22dynamic_smem_bytes\22:197728
// ONE: \22dynamic_smem_bytes\22:164944

// Q's full and empty barriers (at 196608 and 196680, around the ring's
// eight), the second buffer's (196688, 196696, after them), then the ring's.
// CHECK: mbarrier.init.shared.b64 [{{.*}}], 1;
// CHECK: mbarrier.init.shared.b64 [{{.*}}], 256;
// CHECK: mbarrier.init.shared.b64 [{{.*}}], 1;
// CHECK: mbarrier.init.shared.b64 [{{.*}}], 256;
// CHECK-COUNT-8: mbarrier.init.shared.b64
// CHECK-NOT: mbarrier.init
// The producer: the empty barrier of the item's buffer, its full barrier,
// and the copy into that buffer.
// CHECK: selp.b64 {{%rd[0-9]+}}, 196680, 196696, [[P:%p[0-9]+]];
// CHECK: mbarrier.try_wait.parity
// CHECK: selp.b64 [[FULL:%rd[0-9]+]], 196608, 196688, [[P]];
// CHECK: mbarrier.arrive.expect_tx
// CHECK: mul.wide.u32 {{%rd[0-9]+}}, {{%r[0-9]+}}, 32768;
// CHECK: cp.async.bulk.tensor.4d
// The consumers wait on the item's full barrier and hand its buffer back.
// CHECK: setmaxnreg.inc.sync.aligned.u32 240;
// CHECK: selp.b64 {{%rd[0-9]+}}, 196608, 196688, [[C:%p[0-9]+]];
// CHECK: mbarrier.try_wait.parity
// CHECK: selp.b64 {{%rd[0-9]+}}, 196680, 196696, [[C]];
// CHECK: mbarrier.arrive.shared.b64
// Their Q descriptor moves by a buffer (32768 bytes: 2048 units of 16).
// QDESC: mul.wide.u32 {{%rd[0-9]+}}, {{%r[0-9]+}}, 2048;
func.func @attn(%q: memref<?x?x?x96xbf16>, %k: memref<?x?x?x96xbf16>, %v: memref<?x?x?x96xbf16>, %o: memref<?x?x?x96xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x96xbf16>, memref<?x?x?x96xbf16>, memref<?x?x?x96xbf16>) outs(%o : memref<?x?x?x96xbf16>)
  return
}
