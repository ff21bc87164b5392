// RUN: fattn-opt %s --fattn-sm90-pipeline="kernel-name=k narrow-tail=32" | FileCheck %s
// RUN: fattn-opt %s --fattn-sm90-pipeline="kernel-name=k" | FileCheck %s --check-prefix=OFF

// narrow-tail=32: when a work item's last KV tile is the sequence's partial
// one with at most 32 keys (and not the item's first), the overlapped loop
// stops a tile early and a copy of its body computes that tile on 32
// columns: S = Q K^T as m64n32 wgmmas over the head dim (8 k steps of 16),
// the softmax on 32 columns, and its P V in two k steps. The description
// says so in its meta.
// CHECK: \22narrow_tail\22:32
// CHECK-COUNT-8: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 32, k = 16>
// CHECK-NOT: <m = 64, n = 32, k = 16>
// OFF-NOT: narrow_tail
// OFF-NOT: n = 32,
func.func @plain(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>)
  return
}
