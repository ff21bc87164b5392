// RUN: fattn-opt %s --fattn-sm90-pipeline="block-n=224 row-sum-mma=true linear-exp2=true" | FileCheck %s
// RUN: fattn-opt %s --fattn-sm90-pipeline="block-n=224 row-sum-mma=true linear-exp2=true" | grep -c ex2.approx | FileCheck %s --check-prefix=FEW
// RUN: fattn-opt %s --fattn-sm90-pipeline="block-n=224 row-sum-mma=true" | grep -c ex2.approx | FileCheck %s --check-prefix=MANY
// RUN: fattn-opt %s --fattn-sm90-pipeline="block-n=224 row-sum-mma=true linear-exp2=true keep-target-ops=true" | FileCheck %s --check-prefix=L3 --implicit-check-not=fma.rn.f16x2
// RUN: fattn-opt %s --fattn-sm90-pipeline="block-n=224 row-sum-mma=true linear-exp2=true keep-target-ops=true" --convert-fattn-sm90-target-to-nvvm -o %t.split.mlir
// RUN: fattn-opt %s --fattn-sm90-pipeline="block-n=224 row-sum-mma=true linear-exp2=true" -o %t.whole.mlir
// RUN: diff %t.split.mlir %t.whole.mlir

// linear-exp2 (LinearExp2.h): P's e4m3 bytes without exp2. Per score one
// saturating FMA to u = byte / 256 (slope 1/32, intercept (56 - 0.45) / 256
// = 0.216992185 in f32, taken into the row's own coefficient and bias),
// per two scores a cvt to f16x2 and an f16x2 FMA (256 u + 1536: 0x5c005c00 =
// 1543527424 and 0x66006600 = 1711302144), per four a prmt of the halves' low
// bytes (0x6420 = 25632) into P's A-operand register.
// CHECK-LABEL: llvm.func @fattn_fwd_sm90_d128_e4m3_m128n224s2_vt(
// CHECK-DAG: llvm.mlir.constant(3.125000e-02 : f32)
// CHECK-DAG: llvm.mlir.constant(0.216992185 : f32)
// CHECK: "fma.rn.sat.f32 $0, $1, $2, $3;", "=f,f,f,f"
// CHECK: "cvt.rn.f16x2.f32 $0, $1, $2;", "=r,f,f"
// CHECK: %[[SCALE:.+]] = llvm.mlir.constant(1543527424 : i32) : i32
// CHECK: %[[MAGIC:.+]] = llvm.mlir.constant(1711302144 : i32) : i32
// CHECK: "fma.rn.f16x2 $0, $1, $2, $3;", "=r,r,r,r" %{{.+}}, %[[SCALE]], %[[MAGIC]]
// CHECK: %[[SEL:.+]] = llvm.mlir.constant(25632 : i32) : i32
// CHECK: llvm.call_intrinsic "llvm.nvvm.prmt"(%{{.+}}, %{{.+}}, %[[SEL]])
// CHECK: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// At L3, each of P's registers is one fattn.sm90.pack_bytes of four u (a
// 224-key tile: 7 steps of 32 keys, 4 registers each), lowered in place to
// the kernel of one step.
// L3-LABEL: llvm.func @fattn_fwd_sm90_d128_e4m3_m128n224s2_vt(
// L3-COUNT-28: fattn.sm90.pack_bytes %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}
// L3: fattn.sm90.wgmma_rs
// The exp2s left are the rows' rescale factors, two per softmax (the
// prologue's and the loop's), against 112 per softmax without the option.
// FEW: {{^[0-9]$}}
// MANY: {{^[0-9]{3,}$}}
func.func @fp8_vt(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x128x?xf8E4M3FN>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x128x?xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>) {value_layout = "transposed_wgmma_e4m3_k32"}
  return
}
