// RUN: not fattn-opt %s --fattn-sm90-pipeline="kernel-name=2k" 2>&1 | FileCheck %s --check-prefix=DIGIT
// RUN: not fattn-opt %s --fattn-sm90-pipeline="kernel-name=_" 2>&1 | FileCheck %s --check-prefix=UNDERSCORE
// RUN: not fattn-opt %s --fattn-sm90-pipeline="kernel-name=fattn_smem" 2>&1 | FileCheck %s --check-prefix=RESERVED
// RUN: not fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --convert-fattn-to-nvvm-sm90="kernel-name=a.b" 2>&1 | FileCheck %s --check-prefix=DOT
// RUN: not fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --convert-fattn-to-nvvm-sm90="module-name=a-b" 2>&1 | FileCheck %s --check-prefix=MODULE

// The kernel-name and module-name options are checked as function names are
// (kernel-symbol-invalid.mlir), before they reach the kernel's text.
// DIGIT: error: 'fattn.tiled_attention' op kernel name '2k' starts with '2': expected a letter or '_', then letters, digits, '_' or '$' (a PTX identifier), other than '_' and 'fattn_smem'
// UNDERSCORE: error: 'fattn.tiled_attention' op kernel name '_' is '_' alone, which PTX does not accept
// RESERVED: error: 'fattn.tiled_attention' op kernel name 'fattn_smem' is the kernels' shared-memory global
// DOT: error: 'fattn.tiled_attention' op kernel name 'a.b' has '.' at position 1
// MODULE: error: 'fattn.tiled_attention' op module name 'a-b' has '-' at position 1
func.func @attn(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>) outs(%o : memref<?x?x?x64xbf16>)
  return
}
