// RUN: fattn-opt %s -split-input-file --fattn-sm80-pipeline -verify-diagnostics
// RUN: fattn-opt %s -split-input-file --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --convert-fattn-to-nvvm=chip=sm_90a -verify-diagnostics

// A function's name becomes its kernel's symbol on both chips: names PTX
// cannot take, and the kernels' own shared-memory global, are refused.

func.func @"a-b"(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  // expected-error @below {{'fattn.tiled_attention' op kernel name 'a-b' has '-' at position 1: expected a letter or '_', then letters, digits, '_' or '$' (a PTX identifier), other than '_' and 'fattn_smem'}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>) outs(%o : memref<?x?x?x64xbf16>)
  return
}

// -----

func.func @"1k"(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  // expected-error @below {{'fattn.tiled_attention' op kernel name '1k' starts with '1': expected a letter or '_', then letters, digits, '_' or '$' (a PTX identifier), other than '_' and 'fattn_smem'}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>) outs(%o : memref<?x?x?x64xbf16>)
  return
}

// -----

func.func @_(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  // expected-error @below {{'fattn.tiled_attention' op kernel name '_' is '_' alone, which PTX does not accept: expected a letter or '_', then letters, digits, '_' or '$' (a PTX identifier), other than '_' and 'fattn_smem'}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>) outs(%o : memref<?x?x?x64xbf16>)
  return
}

// -----

func.func @fattn_smem(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  // expected-error @below {{'fattn.tiled_attention' op kernel name 'fattn_smem' is the kernels' shared-memory global: expected a letter or '_', then letters, digits, '_' or '$' (a PTX identifier), other than '_' and 'fattn_smem'}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>) outs(%o : memref<?x?x?x64xbf16>)
  return
}

// -----

func.func @"$k"(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  // expected-error @below {{'fattn.tiled_attention' op kernel name '$k' starts with '$': expected a letter or '_', then letters, digits, '_' or '$' (a PTX identifier), other than '_' and 'fattn_smem'}}
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>) outs(%o : memref<?x?x?x64xbf16>)
  return
}
