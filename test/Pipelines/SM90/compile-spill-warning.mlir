// REQUIRES: ptxas
// fattn-compile reads ptxas's report and warns when a kernel spills: here
// 80-key tiles (the default without softcap) at head dim 256 with softcap,
// causal and an LSE. Its own choice for the case (64-key tiles) does not.
// RUN: rm -rf %t && fattn-compile %s --arch sm_90a --emit json --block-n 80 -o %t 2>&1 | FileCheck %s --check-prefix=SPILL
// RUN: test -s %t/softcap_causal_lse.cubin
// RUN: rm -rf %t && fattn-compile %s --arch sm_90a --emit json -o %t 2>&1 | FileCheck %s --allow-empty --implicit-check-not=warning
// RUN: fattn-compile %s --arch sm_90a --emit json -v -o %t.v 2>&1 | FileCheck %s --check-prefix=REPORT

// SPILL: fattn-compile: warning: {{.*}}softcap_causal_lse.ptx: ptxas spills {{[1-9][0-9]*}} bytes of registers
// REPORT: Function properties for softcap_causal_lse
// REPORT-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
func.func @softcap_causal_lse(%q: memref<?x?x?x256xbf16>, %k: memref<?x?x?x256xbf16>, %v: memref<?x?x?x256xbf16>, %o: memref<?x?x?x256xbf16>, %lse: memref<?x?x?xf32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>) outs(%o : memref<?x?x?x256xbf16>) lse(%lse : memref<?x?x?xf32>) {causal = true, softcap = 30.0 : f32}
  return
}
