// REQUIRES: ptxas
// RUN: rm -rf %t && fattn-compile %s --arch sm_90a --emit json -o %t
// RUN: FileCheck %s < %t/d40.json
// RUN: FileCheck %s --check-prefix=PTX < %t/d40.ptx
// RUN: FileCheck %s --check-prefix=D200 < %t/d200_causal.json

// 16-bit head dims need only be multiples of 8: Q, K and V are read in whole
// 64-column atoms whose columns past the head dim TMA fills with zeros, and
// O leaves in 8-column groups, so no column past it is stored.
// CHECK-DAG: "head_dim_qk": 40
// CHECK-DAG: "box": [
// CHECK-DAG: "oob_fill": "zero"

// Head dim 40 padded to 64 columns, without a mask (persistent, O from the
// accumulator registers): 5 of the 8 column groups, rows r and r + 8.
// PTX: .entry d40(
// PTX-COUNT-10: st.global.b32
// PTX-NOT: st.global

// D200-DAG: "head_dim_qk": 200
// D200-DAG: "causal": true

// Head dims that are not multiples of 8: to-nvvm-unsupported.mlir.

func.func @d40(%q: memref<?x?x?x40xbf16>, %k: memref<?x?x?x40xbf16>, %v: memref<?x?x?x40xbf16>, %o: memref<?x?x?x40xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x40xbf16>, memref<?x?x?x40xbf16>, memref<?x?x?x40xbf16>) outs(%o : memref<?x?x?x40xbf16>)
  return
}

func.func @d200_causal(%q: memref<?x?x?x200xf16>, %k: memref<?x?x?x200xf16>, %v: memref<?x?x?x200xf16>, %o: memref<?x?x?x200xf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x200xf16>, memref<?x?x?x200xf16>, memref<?x?x?x200xf16>) outs(%o : memref<?x?x?x200xf16>) {causal = true}
  return
}
