// RUN: fattn-opt %s -split-input-file --fattn-tile --convert-fattn-to-nvvm="chip=sm_80" -verify-diagnostics
func.func @not_annotated(%q: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>) {
  // expected-error @+1 {{'fattn.tiled_attention' op sm_80 kernel: missing fattn.sm80.smem; run --fattn-sm80-async-copy and --fattn-sm80-mma first}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%o : memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>)
  return
}

// -----

// One attention per function: the kernel takes its name and parameters
// from it (the host-launch pipelines outline each op first).
func.func @two(%q: memref<1x2x64x64xbf16>, %o: memref<1x2x64x64xbf16>, %o2: memref<1x2x64x64xbf16>) {
  fattn.attention ins(%q, %q, %q : memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>) outs(%o : memref<1x2x64x64xbf16>)
  // expected-error @+1 {{'fattn.tiled_attention' op is not lowered by --convert-fattn-to-nvvm: it lowers a function that holds one fattn.tiled_attention, @two holds 2}}
  fattn.attention ins(%q, %q, %q : memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>) outs(%o2 : memref<1x2x64x64xbf16>)
  return
}
