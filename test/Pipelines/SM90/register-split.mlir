// RUN: fattn-opt %s --fattn-sm90-pipeline="block-n=224 producer-registers=32 consumer-registers=232" | FileCheck %s
// RUN: fattn-opt %s --fattn-sm90-pipeline="block-n=224" | FileCheck %s --check-prefix=DEFAULT
// RUN: not fattn-opt %s --fattn-sm90-pipeline="block-n=224 producer-registers=40 consumer-registers=240" 2>&1 | FileCheck %s --check-prefix=TOO-MANY

// fattn-sm90-pipeline's register split (setmaxnreg): FA3's 24 / 240 by
// default, or what producer-registers / consumer-registers say (fattn-compile
// takes 32 / 232 for FP8 head dim 128 with 224-key tiles), within the
// 64,512 registers that a CTA of 384 threads starts with.
// CHECK-DAG: nvvm.setmaxregister decrease 32
// CHECK-DAG: nvvm.setmaxregister increase 232
// DEFAULT-DAG: nvvm.setmaxregister decrease 24
// DEFAULT-DAG: nvvm.setmaxregister increase 240
// TOO-MANY: error: 'fattn.warp_specialize' op needs 66560 registers for one producer and 2 consumer warpgroups, more than the 64512 that a CTA of 384 threads starts with
func.func @fp8_d128(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x?x128xf8E4M3FN>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>)
  return
}
