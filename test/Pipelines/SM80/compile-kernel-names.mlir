// REQUIRES: ptxas
// RUN: not fattn-compile %s --arch sm_80 --emit ptx -o %t.ptx 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not fattn-compile %s --arch sm_90a --emit ptx -o %t.ptx 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: sed -e 's/@"a-b"/@"a$b"/' %s > %t.dollar.mlir
// RUN: fattn-compile %t.dollar.mlir --arch sm_80 --emit cubin -o %t.sm80.cubin
// RUN: fattn-compile %t.dollar.mlir --arch sm_90a --emit cubin -o %t.sm90.cubin
// RUN: sed -e 's/@"a-b"/@_1/' %s > %t.underscore.mlir
// RUN: fattn-compile %t.underscore.mlir --arch sm_80 --emit ptx -o - | FileCheck %s --check-prefix=ENTRY
// RUN: fattn-compile %t.underscore.mlir --arch sm_90a --emit ptx -o - | FileCheck %s --check-prefix=ENTRY

// fattn-compile names each kernel, and its files, after its function: a name
// PTX cannot take is refused up front, on the function; '$' and a leading
// '_' are PTX's and ptxas takes them.
// BAD: error: 'func.func' op kernel name 'a-b' has '-' at position 1: expected a letter or '_', then letters, digits, '_' or '$' (a PTX identifier), other than '_' and 'fattn_smem'
// ENTRY: .entry _1(
func.func @"a-b"(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>) outs(%o : memref<?x?x?x64xbf16>)
  return
}
