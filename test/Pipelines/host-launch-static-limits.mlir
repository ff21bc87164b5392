// RUN: fattn-opt %s -split-input-file -verify-diagnostics --fattn-sm80-pipeline="host-launch=true" -o /dev/null
// RUN: fattn-opt %s -split-input-file -verify-diagnostics --fattn-sm90-pipeline="host-launch=true" -o /dev/null

// Static sizes that fattn's runtime would refuse to launch are refused at
// compile time, where the host launch would otherwise assert at run time:
// sizes of 2^31 or more (the kernels' sizes are 32-bit) and grids outside
// CUDA's limits (heads along y and batch along z, 65535 at most).

func.func @seq_2_31(%q: memref<1x2x2147483648x64xbf16>, %o: memref<1x2x2147483648x64xbf16>) {
  // expected-error-re @+1 {{cannot launch @{{[a-z0-9_]+}} from the host: tensor 'q' has 2147483648 in dim 2, the kernels take sizes below 2^31}}
  fattn.attention ins(%q, %q, %q : memref<1x2x2147483648x64xbf16>, memref<1x2x2147483648x64xbf16>, memref<1x2x2147483648x64xbf16>) outs(%o : memref<1x2x2147483648x64xbf16>)
  return
}

// -----

func.func @heads_70000(%q: memref<1x70000x100x64xbf16>, %o: memref<1x70000x100x64xbf16>) {
  // expected-error-re @+1 {{cannot launch @{{[a-z0-9_]+}} from the host: grid dim y = ceildiv(heads_q = 70000, 1) = 70000 is out of range [1, 65535]}}
  fattn.attention ins(%q, %q, %q : memref<1x70000x100x64xbf16>, memref<1x70000x100x64xbf16>, memref<1x70000x100x64xbf16>) outs(%o : memref<1x70000x100x64xbf16>)
  return
}

// -----

func.func @batch_70000(%q: memref<70000x2x100x64xbf16>, %o: memref<70000x2x100x64xbf16>) {
  // expected-error-re @+1 {{cannot launch @{{[a-z0-9_]+}} from the host: grid dim z = ceildiv(batch = 70000, 1) = 70000 is out of range [1, 65535]}}
  fattn.attention ins(%q, %q, %q : memref<70000x2x100x64xbf16>, memref<70000x2x100x64xbf16>, memref<70000x2x100x64xbf16>) outs(%o : memref<70000x2x100x64xbf16>)
  return
}

// -----

// The largest sizes pass, and so does a launch that static sizes leave
// without work (it is skipped at run time).
func.func @largest(%q: memref<1x2x2147483647x64xbf16>, %o: memref<1x2x2147483647x64xbf16>,
                   %h: memref<1x65535x100x64xbf16>, %e: memref<0x70000x100x64xbf16>) {
  fattn.attention ins(%q, %q, %q : memref<1x2x2147483647x64xbf16>, memref<1x2x2147483647x64xbf16>, memref<1x2x2147483647x64xbf16>) outs(%o : memref<1x2x2147483647x64xbf16>)
  fattn.attention ins(%h, %h, %h : memref<1x65535x100x64xbf16>, memref<1x65535x100x64xbf16>, memref<1x65535x100x64xbf16>) outs(%h : memref<1x65535x100x64xbf16>)
  fattn.attention ins(%e, %e, %e : memref<0x70000x100x64xbf16>, memref<0x70000x100x64xbf16>, memref<0x70000x100x64xbf16>) outs(%e : memref<0x70000x100x64xbf16>)
  return
}

