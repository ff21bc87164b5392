// RUN: fattn-opt %s -split-input-file --fattn-sm90-pipeline="warpgroup-kv-ranges=true block-n=192" | FileCheck %s
// RUN: fattn-opt %s -split-input-file --fattn-sm90-pipeline="block-n=192" | FileCheck %s --check-prefix=OFF

// Under a causal mask each consumer warpgroup ends its KV range at the tile
// of the last key its own last row sees, (qTileRow + 64 (wg + 1) - 1) +
// (seq_k - seq_q), kept within [lo, hi); a warpgroup whose first row
// qTileRow + 64 wg lies past the sequence has an empty range (it ends at
// lo). The first tile and the loop run up to that end, and after the
// epilogue the warpgroup waits for the item's tiles past it and hands them
// back unread (K's full barrier, K's empty barrier, V's full barrier, V's
// empty barrier), so that the ring's empty barriers still count every
// consumer thread.

// CHECK-LABEL: llvm.func @fattn_fwd_sm90_d128_bf16_m128n192s2_causal(
// CHECK: nvvm.setmaxregister increase
// After the rows' key limits (no left window: -2^30), the warpgroup's first
// row, and one past its last row within the sequence.
// CHECK: llvm.mlir.constant(-1073741824 : i32)
// CHECK: llvm.mlir.constant(-1073741824 : i32)
// CHECK-NEXT: %[[C64:[0-9]+]] = llvm.mlir.constant(64 : i32)
// CHECK-NEXT: %[[WG_ROWS:[0-9]+]] = llvm.mul %[[WG:[0-9]+]], %[[C64]] : i32
// CHECK-NEXT: %[[FIRST:[0-9]+]] = llvm.add %[[Q_ROW:[0-9]+]], %[[WG_ROWS]] : i32
// CHECK-NEXT: %[[ONE:[0-9]+]] = llvm.mlir.constant(1 : i32)
// CHECK-NEXT: %[[C64B:[0-9]+]] = llvm.mlir.constant(64 : i32)
// CHECK-NEXT: %[[PAST:[0-9]+]] = llvm.add %[[FIRST]], %[[C64B]] : i32
// CHECK-NEXT: %[[IN_SEQ:[0-9]+]] = llvm.icmp "slt" %[[PAST]], %arg7 : i32
// CHECK-NEXT: %[[CLIPPED:[0-9]+]] = llvm.select %[[IN_SEQ]], %[[PAST]], %arg7 : i1, i32
// CHECK-NEXT: llvm.sub %[[CLIPPED]], %[[ONE]] : i32
// CHECK: %[[END:[0-9]+]] = llvm.sdiv %{{[0-9]+}}, %{{[0-9]+}} : i32
// CHECK-NEXT: %[[GT:[0-9]+]] = llvm.icmp "sgt" %[[END]], %[[LO:[0-9]+]] : i32
// CHECK-NEXT: %[[NOT_BELOW:[0-9]+]] = llvm.select %[[GT]], %[[END]], %[[LO]] : i1, i32
// CHECK-NEXT: %[[LT:[0-9]+]] = llvm.icmp "slt" %[[HI:[0-9]+]], %[[NOT_BELOW]] : i32
// CHECK-NEXT: %[[END:[0-9]+]] = llvm.select %[[LT]], %[[HI]], %[[NOT_BELOW]] : i1, i32
// CHECK-NEXT: %[[INSIDE:[0-9]+]] = llvm.icmp "slt" %[[FIRST]], %arg7 : i32
// CHECK-NEXT: %[[WG_HI:[0-9]+]] = llvm.select %[[INSIDE]], %[[END]], %[[LO]] : i1, i32
// CHECK: llvm.icmp "slt" %[[LO]], %[[WG_HI]] : i32
// CHECK: llvm.icmp "slt" %{{[0-9]+}}, %[[WG_HI]] : i32
// CHECK: llvm.br ^[[TOP:bb[0-9]+]](%[[WG_HI]] : i32)
// CHECK-NEXT: ^[[TOP]](%[[J:[0-9]+]]: i32):
// CHECK-NEXT: %[[MORE:[0-9]+]] = llvm.icmp "slt" %[[J]], %[[HI]] : i32
// CHECK-NEXT: llvm.cond_br %[[MORE]], ^[[BODY:bb[0-9]+]], ^{{bb[0-9]+}}
// CHECK-NEXT: ^[[BODY]]:
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mbarrier.arrive
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mbarrier.arrive
// CHECK: llvm.br ^[[TOP]](

// Off (the default): the loop runs to the item's end, nothing is skipped.
// OFF-LABEL: llvm.func @fattn_fwd_sm90_d128_bf16_m128n192s2_causal(
// OFF: nvvm.setmaxregister increase
// OFF-NOT: llvm.sdiv
// OFF: llvm.return
func.func @causal(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>) {causal = true}
  return
}

// -----

// Without a mask every warpgroup sees every tile: only one whose rows lie
// past the sequence skips them (all of them).
// CHECK-LABEL: llvm.func @fattn_fwd_sm90_d128_bf16_m128n192s2(
// CHECK: nvvm.setmaxregister increase
// CHECK-NOT: llvm.sdiv
// CHECK: %[[INSIDE:[0-9]+]] = llvm.icmp "slt" %{{[0-9]+}}, %arg7 : i32
// CHECK-NEXT: %[[WG_HI:[0-9]+]] = llvm.select %[[INSIDE]], %[[HI:[0-9]+]], %[[LO:[0-9]+]] : i1, i32
// CHECK: llvm.br ^[[TOP:bb[0-9]+]](%[[WG_HI]] : i32)
// CHECK-NEXT: ^[[TOP]](%[[J:[0-9]+]]: i32):
// CHECK-NEXT: llvm.icmp "slt" %[[J]], %[[HI]] : i32
func.func @plain(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>)
  return
}
