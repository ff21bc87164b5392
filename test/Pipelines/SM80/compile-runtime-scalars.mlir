// RUN: rm -rf %t && fattn-compile %s --arch sm_80 --emit ptx --runtime-scalars -o %t
// RUN: FileCheck %s --check-prefix=CAP < %t/with_softcap.ptx
// RUN: FileCheck %s --check-prefix=NOCAP < %t/without_softcap.ptx

// fattn-compile --runtime-scalars: the scale (given or the default), and the
// softcap of an op that has one, become f32 parameters of the kernel, last.
// CAP-LABEL: .entry with_softcap(
// CAP: .param .u64 with_softcap_param_20,
// CAP-NEXT: .param .f32 with_softcap_param_21,
// CAP-NEXT: .param .f32 with_softcap_param_22
// CAP-NEXT: )
// CAP-NOT: 0f3DB504F3
// NOCAP-LABEL: .entry without_softcap(
// NOCAP: .param .u64 without_softcap_param_20,
// NOCAP-NEXT: .param .f32 without_softcap_param_21
// NOCAP-NEXT: )
func.func @with_softcap(%q: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%o : memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>) {causal = true, softcap = 30.0 : f32}
  return
}
func.func @without_softcap(%q: memref<?x?x?x64xf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x64xf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x64xf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x64xf16, strided<[?, ?, ?, 1], offset: ?>>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%o : memref<?x?x?x64xf16, strided<[?, ?, ?, 1], offset: ?>>) {scale = 0.1 : f32}
  return
}
