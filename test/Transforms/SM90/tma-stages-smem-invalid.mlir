// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma=stages=14 | FileCheck %s --check-prefix=FOURTEEN
// RUN: not fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma=stages=15 2>&1 | FileCheck %s --check-prefix=FIFTEEN
// RUN: not fattn-opt %s --fattn-sm90-pipeline="block-n=128 stages=9223372036854775807" 2>&1 | FileCheck %s --check-prefix=HUGE
// RUN: not fattn-opt %s --fattn-tile="block-m=128 block-n=4611686018427387904" --fattn-sm90-tma 2>&1 | FileCheck %s --check-prefix=WIDE

// The TMA ring's K tiles alone must fit in shared memory: 14 stages of
// 128x64 bf16 (16 KiB each) do, 15 do not. A stage count or tile whose byte
// count overflows 64 bits fails the same way, before the kernel's
// shared-memory sum is formed.
// FOURTEEN: fattn.sm90.tma = #fattn.sm90_tma_plan<stages = 14, swizzle = 128, box_cols = 64, store = registers>
// FIFTEEN: error: 'fattn.tiled_attention' op needs 15 TMA stages of 128x64 K tiles, more than the 232448 bytes of shared memory an sm_90a CTA can have: lower stages
// HUGE: error: 'fattn.tiled_attention' op needs 9223372036854775807 TMA stages of 128x64 K tiles, more than the 232448 bytes of shared memory an sm_90a CTA can have: lower stages
// WIDE: error: 'fattn.tiled_attention' op needs 2 TMA stages of 4611686018427387904x64 K tiles, more than the 232448 bytes of shared memory an sm_90a CTA can have: lower stages

func.func @ring(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>) outs(%o : memref<?x?x?x64xbf16>)
  return
}
