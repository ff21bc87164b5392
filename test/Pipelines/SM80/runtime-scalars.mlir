// REQUIRES: ptxas
// RUN: rm -rf %t && fattn-compile %s --arch sm_80 --emit json -o %t
// RUN: FileCheck %s --check-prefix=PTX < %t/d128_scale_softcap.ptx
// RUN: FileCheck %s --check-prefix=PTX-SCALE < %t/d64_scale_lse.ptx
// RUN: FileCheck %s --check-prefix=JSON < %t/d128_scale_softcap.json
// RUN: FileCheck %s --check-prefix=JSON-SCALE < %t/d64_scale_lse.json
// RUN: %ptxas -arch=sm_80 -v %t/d128_scale_softcap.ptx -o %t/a.cubin 2>&1 | FileCheck %s --check-prefix=SPILLS
// RUN: %ptxas -arch=sm_80 -v %t/d64_scale_lse.ptx -o %t/b.cubin 2>&1 | FileCheck %s --check-prefix=SPILLS

// The scale and the softcap as operands: the sm_80 kernel takes them as its
// last parameters (f32) and folds no scale in: 1/sqrt(128) is 0f3DB504F3,
// 1/sqrt(64)·log2(e) 0f3E38AA3B. With a softcap it derives scale / softcap
// once per thread, before the loops. Without one it takes scale·log2(e)
// itself (`scale_log2`, which the launch computes) and multiplies by it as it
// comes (ptxas reads it from the constant bank; log2(e) = 0f3FB8AA3B is not
// in the kernel); the LSE is (scale_log2·max + log2 l)·ln 2 (0f3F317218).
// PTX-LABEL: .entry d128_scale_softcap(
// PTX: .param .u64 d128_scale_softcap_param_23,
// PTX-NEXT: .param .f32 d128_scale_softcap_param_24,
// PTX-NEXT: .param .f32 d128_scale_softcap_param_25
// PTX-NEXT: )
// PTX-DAG: ld.param.b32 %[[CAP:r[0-9]+]], [d128_scale_softcap_param_25];
// PTX-DAG: ld.param.b32 %[[S:r[0-9]+]], [d128_scale_softcap_param_24];
// PTX: div.rn.f32 %{{r[0-9]+}}, %[[S]], %[[CAP]];
// PTX-NOT: div.rn.f32
// PTX: tanh.approx.f32
// PTX: mul.rn.f32 %{{r[0-9]+}}, %[[CAP]],
// PTX-NOT: 0f3DB504F3

// PTX-SCALE-LABEL: .entry d64_scale_lse(
// PTX-SCALE: .param .f32 d64_scale_lse_param_24
// PTX-SCALE-NEXT: )
// PTX-SCALE: ld.param.b32 %[[S:r[0-9]+]], [d64_scale_lse_param_24];
// PTX-SCALE-NOT: 0f3FB8AA3B
// PTX-SCALE-NOT: 0f3E38AA3B
// PTX-SCALE: fma.rn.f32 %{{r[0-9]+}}, %{{r[0-9]+}}, %[[S]], %{{r[0-9]+}};
// PTX-SCALE-NOT: 0f3FB8AA3B
// PTX-SCALE-NOT: 0f3E38AA3B
// PTX-SCALE: lg2.approx.f32 %[[LG:r[0-9]+]],
// PTX-SCALE-NEXT: fma.rn.f32 %[[L:r[0-9]+]], %{{r[0-9]+}}, %[[S]], %[[LG]];
// PTX-SCALE-NEXT: mul.rn.f32 %{{r[0-9]+}}, %[[L]], 0f3F317218;
// PTX-SCALE-NOT: 0f3FB8AA3B
// PTX-SCALE-NOT: tanh

// The description lists the parameters and says which scalars the caller
// passes; "scale" is the default, 1/sqrt(head_dim_qk).
// JSON: "name": "lse_stride_h",
// JSON: "name": "scale",
// JSON-NEXT: "type": "f32"
// JSON: "name": "softcap",
// JSON-NEXT: "type": "f32"
// JSON: "runtime_scalars": [
// JSON-NEXT: "scale",
// JSON-NEXT: "softcap"
// JSON-NEXT: ],
// JSON-NEXT: "scale": 0.088388347648318433,
// JSON-NEXT: "softcap": 0,
// JSON-SCALE: "name": "scale_log2",
// JSON-SCALE-NEXT: "type": "f32"
// JSON-SCALE-NEXT: }
// JSON-SCALE-NEXT: ],
// JSON-SCALE: "runtime_scalars": [
// JSON-SCALE-NEXT: "scale"
// JSON-SCALE-NEXT: ],
// JSON-SCALE-NEXT: "scale": 0.125,

// SPILLS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
func.func @d128_scale_softcap(%q: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>, %s: f32, %c: f32) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%o : memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>) lse(%lse : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) scale(%s : f32) softcap(%c : f32) {causal = true}
  return
}
func.func @d64_scale_lse(%q: memref<?x?x?x64xf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x64xf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x64xf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x64xf16, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>, %s: f32) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%o : memref<?x?x?x64xf16, strided<[?, ?, ?, 1], offset: ?>>) lse(%lse : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) scale(%s : f32)
  return
}
