// RUN: not fattn-compile %s --arch sm_90a --emit ptx -o %t.bad --pipeline-options="no-such-option=1" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not fattn-compile %s --arch sm_90a --emit ptx -o %t.value --pipeline-options="stages=two" 2>&1 | FileCheck %s --check-prefix=VALUE
// RUN: not fattn-compile %s --arch sm_90a --emit ptx -o %t.lowering --pipeline-options="tma-store=true q-buffers=1 split-tail=false" 2>&1 | FileCheck %s --check-prefix=LOWERING
// RUN: not fattn-compile %s --arch sm_80 --emit ptx -o %t.sm80 --pipeline-options="tma-store=true" 2>&1 | FileCheck %s --check-prefix=SM80

// fattn-compile --pipeline-options: the target pipeline's own options, as
// fattn-opt --help lists them. What the parser refuses is reported on the
// attention op with the parser's reason; what the lowering refuses, with
// the lowering's diagnostic.
// UNKNOWN: error: --pipeline-options 'no-such-option=1' is not valid: <Pass-Options-Parser>: no such option no-such-option
// VALUE: for the --stages option: 'two' value invalid
// VALUE: error: --pipeline-options 'stages=two' is not valid
// LOWERING: error: 'fattn.tiled_attention' op tma-store needs q-buffers=2 for 16-bit element types
// The sm_80 pipeline has other options.
// SM80: error: --pipeline-options 'tma-store=true' is not valid: <Pass-Options-Parser>: no such option tma-store
func.func @attn(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>, %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>) outs(%o : memref<?x?x?x128xbf16>)
  return
}
