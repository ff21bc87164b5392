// REQUIRES: ptxas
// RUN: rm -rf %t && fattn-compile %s --arch sm_80 --emit json -o %t
// RUN: FileCheck %s --check-prefix=D48 < %t/fattn_fwd_d48_bf16.json
// RUN: FileCheck %s --check-prefix=D112 < %t/fattn_fwd_d112_bf16.json
// RUN: FileCheck %s --check-prefix=D144 < %t/fattn_fwd_d144_bf16.json
// RUN: FileCheck %s --check-prefix=D192 < %t/fattn_fwd_d192_bf16.json

// sm_80 compiles every multiple of 8 up to 256, with tiles that keep each
// free of spills (test/Pipelines/SM80/ptxas-no-spills.mlir,
// head-dims-multiple-of-8.mlir): 128 query rows up to head dim 128 but from
// 104 to 120 (112's 128 rows spill); above 128, 32 keys at multiples of 32
// (and at 248, whose 64-key ring does not fit), else 64.
// D48-DAG: "head_dim_qk": 48
// D48-DAG: "block_m": 128
// D48-DAG: "block_n": 64
// D112-DAG: "head_dim_qk": 112
// D112-DAG: "block_m": 64
// D112-DAG: "block_n": 64
// D144-DAG: "head_dim_qk": 144
// D144-DAG: "block_m": 64
// D144-DAG: "block_n": 64
// D192-DAG: "head_dim_qk": 192
// D192-DAG: "block_m": 64
// D192-DAG: "block_n": 32
func.func @fattn_fwd_d48_bf16(%q: memref<?x?x?x48xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x48xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x48xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x48xbf16, strided<[?, ?, ?, 1], offset: ?>>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x48xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x48xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x48xbf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%o : memref<?x?x?x48xbf16, strided<[?, ?, ?, 1], offset: ?>>)
  return
}
func.func @fattn_fwd_d112_bf16(%q: memref<?x?x?x112xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x112xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x112xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x112xbf16, strided<[?, ?, ?, 1], offset: ?>>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x112xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x112xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x112xbf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%o : memref<?x?x?x112xbf16, strided<[?, ?, ?, 1], offset: ?>>)
  return
}
func.func @fattn_fwd_d144_bf16(%q: memref<?x?x?x144xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x144xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x144xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x144xbf16, strided<[?, ?, ?, 1], offset: ?>>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x144xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x144xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x144xbf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%o : memref<?x?x?x144xbf16, strided<[?, ?, ?, 1], offset: ?>>)
  return
}
func.func @fattn_fwd_d192_bf16(%q: memref<?x?x?x192xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x192xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x192xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x192xbf16, strided<[?, ?, ?, 1], offset: ?>>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x192xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x192xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x192xbf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%o : memref<?x?x?x192xbf16, strided<[?, ?, ?, 1], offset: ?>>)
  return
}
