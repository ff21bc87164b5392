// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=64" --fattn-sm80-async-copy --fattn-sm80-mma --fattn-sm90-row-sum-mma --convert-fattn-to-nvvm=chip=sm_80 -verify-diagnostics
// RUN: not fattn-opt %s --fattn-tile="block-m=128 block-n=64" --fattn-sm90-tma --fattn-sm80-async-copy --fattn-sm80-mma --convert-fattn-to-nvvm=chip=sm_80 2>&1 | FileCheck %s --check-prefix=TMA

// The sm_80 kernel refuses an op that carries a plan of the sm_90a kernel
// (a lowering choice of --fattn-sm90-*, the TMA plan) instead of building
// the kernel without it.

func.func @row_sums(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  // expected-error @below {{sm_80 kernel: fattn.sm90.consumers is a plan of the sm_90a kernel, which the sm_80 kernel does not follow; drop its pass or lower for sm_90a}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>)
  return
}

// TMA: error: 'fattn.tiled_attention' op sm_80 kernel: fattn.sm90.tma is a plan of the sm_90a kernel
