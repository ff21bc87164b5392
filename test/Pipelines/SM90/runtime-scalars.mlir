// REQUIRES: ptxas
// RUN: rm -rf %t && fattn-compile %s --arch sm_90a --emit json -o %t
// RUN: FileCheck %s --check-prefix=PTX < %t/sm90_scale_softcap.ptx
// RUN: FileCheck %s --check-prefix=PTX-SCALE < %t/sm90_scale_lse.ptx
// RUN: FileCheck %s --check-prefix=JSON < %t/sm90_scale_softcap.json
// RUN: FileCheck %s --check-prefix=JSON-SCALE < %t/sm90_scale_lse.json
// RUN: FileCheck %s --check-prefix=PTX-MARGIN < %t/sm90_scale_rescale.ptx
// RUN: FileCheck %s --check-prefix=JSON-MARGIN < %t/sm90_scale_rescale.json
// RUN: %ptxas -arch=sm_90a -v %t/sm90_scale_softcap.ptx -o %t/a.cubin 2>&1 | FileCheck %s --check-prefix=SPILLS
// RUN: %ptxas -arch=sm_90a -v %t/sm90_scale_lse.ptx -o %t/b.cubin 2>&1 | FileCheck %s --check-prefix=SPILLS
// RUN: %ptxas -arch=sm_90a -v %t/sm90_scale_rescale.ptx -o %t/c.cubin 2>&1 | FileCheck %s --check-prefix=SPILLS

// The scale and the softcap as operands: the sm_90a kernel takes them as its
// last parameters (f32, after the tensor maps) and folds no scale in
// (1/sqrt(128) is 0f3DB504F3). With a softcap it derives scale / softcap once
// per thread (the softmax's scale is then 1: log2(e) = 0f3FB8AA3B stays a
// constant). Without one it takes scale·log2(e) itself (`scale_log2`, which
// the launch computes) and derives nothing from it but its negation: no
// product of it is held in a register through the loops, and the LSE is
// (scale_log2·max + log2 l)·ln 2 (ln 2 = 0f3F317218). With conditional
// rescaling (head dim 128) it also takes `rescale_margin`, the threshold over
// scale_log2, so that the rescale test max > kept + margin is one add off the
// max's path, as with a constant scale; the first tile's (kept max -inf)
// tests max != -inf.
// PTX-LABEL: .entry sm90_scale_softcap(
// PTX: .param .align 64 .b8 sm90_scale_softcap_param_26[128],
// PTX-NEXT: .param .f32 sm90_scale_softcap_param_27,
// PTX-NEXT: .param .f32 sm90_scale_softcap_param_28
// PTX-NEXT: )
// PTX-DAG: ld.param.b32 %[[CAP:r[0-9]+]], [sm90_scale_softcap_param_28];
// PTX-DAG: ld.param.b32 %[[S:r[0-9]+]], [sm90_scale_softcap_param_27];
// PTX: div.rn.f32 %{{r[0-9]+}}, %[[S]], %[[CAP]];
// PTX-NOT: div.rn.f32
// PTX: tanh.approx.f32
// PTX-NOT: 0f3DB504F3

// PTX-SCALE-LABEL: .entry sm90_scale_lse(
// PTX-SCALE: .param .align 64 .b8 sm90_scale_lse_param_27[128],
// PTX-SCALE-NEXT: .param .f32 sm90_scale_lse_param_28
// PTX-SCALE-NEXT: )
// PTX-SCALE: ld.param.b32 %[[S:r[0-9]+]], [sm90_scale_lse_param_28];
// PTX-SCALE-NOT: mul.rn.f32 %{{r[0-9]+}}, %[[S]], 0f
// PTX-SCALE: neg.f32 %{{r[0-9]+}}, %[[S]];
// PTX-SCALE-NOT: div.rn.f32
// PTX-SCALE: fma.rn.f32 %[[L:r[0-9]+]], %{{r[0-9]+}}, %[[S]], %{{r[0-9]+}};
// PTX-SCALE: mul.rn.f32 %{{r[0-9]+}}, %{{r[0-9]+}}, 0f3F317218;
// PTX-SCALE-NOT: 0f3E38AA3B
// PTX-SCALE-NOT: tanh

// JSON-SCALE: "name": "scale_log2",
// JSON-SCALE-NEXT: "type": "f32"
// JSON-SCALE: "runtime_scalars": [
// JSON-SCALE-NEXT: "scale"
// JSON-SCALE-NEXT: ],

// PTX-MARGIN-LABEL: .entry sm90_scale_rescale(
// PTX-MARGIN: .param .f32 sm90_scale_rescale_param_25,
// PTX-MARGIN-NEXT: .param .f32 sm90_scale_rescale_param_26
// PTX-MARGIN-NEXT: )
// PTX-MARGIN: ld.param.b32 %[[M:r[0-9]+]], [sm90_scale_rescale_param_26];
// PTX-MARGIN-NOT: 0f41000000
// PTX-MARGIN: setp.ne.f32 %{{p[0-9]+}}, %{{r[0-9]+}}, 0fFF800000;
// PTX-MARGIN: add.rn.f32 %[[BOUND:r[0-9]+]], %[[M]], %{{r[0-9]+}};
// PTX-MARGIN-NEXT: setp.gt.f32 %{{p[0-9]+}}, %{{r[0-9]+}}, %[[BOUND]];

// JSON-MARGIN: "rescale_threshold": 8
// JSON-MARGIN: "name": "scale_log2",
// JSON-MARGIN-NEXT: "type": "f32"
// JSON-MARGIN: "name": "rescale_margin",
// JSON-MARGIN-NEXT: "type": "f32"
// JSON-MARGIN: "runtime_scalars": [
// JSON-MARGIN-NEXT: "scale"
// JSON-MARGIN-NEXT: ],

// JSON: "name": "v_map",
// JSON: "name": "scale",
// JSON-NEXT: "type": "f32"
// JSON: "name": "softcap",
// JSON-NEXT: "type": "f32"
// JSON: "runtime_scalars": [
// JSON-NEXT: "scale",
// JSON-NEXT: "softcap"
// JSON-NEXT: ],
// JSON-NEXT: "scale": 0.088388346100000001,
// JSON-NEXT: "softcap": 0,

// SPILLS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
func.func @sm90_scale_softcap(%q: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>, %s: f32, %c: f32) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%o : memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>) lse(%lse : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) scale(%s : f32) softcap(%c : f32) {causal = true}
  return
}
func.func @sm90_scale_lse(%q: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>, %s: f32) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%o : memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>) lse(%lse : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) scale(%s : f32)
  return
}
func.func @sm90_scale_rescale(%q: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %s: f32) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>) outs(%o : memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>) scale(%s : f32)
  return
}
