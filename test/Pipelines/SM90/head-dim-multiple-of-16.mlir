// REQUIRES: ptxas
// RUN: rm -rf %t && fattn-compile %s --arch sm_90a --emit json -o %t
// RUN: FileCheck %s < %t/d48.json
// RUN: FileCheck %s --check-prefix=PTX < %t/d48.ptx
// RUN: FileCheck %s --check-prefix=D208 < %t/d208_causal.json

// 16-bit head dims off the 64-column atom: Q, K and V are read in whole
// 64-column atoms whose columns past the head dim TMA fills with zeros, and
// O leaves in 8-column groups, so no column past it is stored.
// CHECK-DAG: "head_dim_qk": 48
// CHECK-DAG: "box": [
// CHECK-DAG: "oob_fill": "zero"

// Head dim 48 padded to 64 columns, without a mask (persistent, O from the
// accumulator registers): 6 of the 8 column groups, rows r and r + 8.
// PTX: .entry d48(
// PTX-COUNT-12: st.global.b32
// PTX-NOT: st.global

// D208-DAG: "head_dim_qk": 208
// D208-DAG: "causal": true

// Head dims that are not multiples of 16: to-nvvm-unsupported.mlir.

func.func @d48(%q: memref<?x?x?x48xbf16>, %k: memref<?x?x?x48xbf16>, %v: memref<?x?x?x48xbf16>, %o: memref<?x?x?x48xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x48xbf16>, memref<?x?x?x48xbf16>, memref<?x?x?x48xbf16>) outs(%o : memref<?x?x?x48xbf16>)
  return
}

func.func @d208_causal(%q: memref<?x?x?x208xf16>, %k: memref<?x?x?x208xf16>, %v: memref<?x?x?x208xf16>, %o: memref<?x?x?x208xf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x208xf16>, memref<?x?x?x208xf16>, memref<?x?x?x208xf16>) outs(%o : memref<?x?x?x208xf16>) {causal = true}
  return
}
