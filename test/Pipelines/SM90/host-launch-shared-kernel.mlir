// RUN: fattn-opt %s --fattn-sm90-pipeline="host-launch=true" | FileCheck %s

// sm_90a kernels are named after their configuration: two attention ops of
// one configuration launch one kernel, another configuration gets its own.
// CHECK-LABEL: func.func @two_layers(
// CHECK: gpu.launch_func @fattn_sm90::@fattn_fwd_sm90_d128_bf16_m128n128s2_causal blocks
// CHECK: gpu.launch_func @fattn_sm90::@fattn_fwd_sm90_d128_bf16_m128n128s2_causal blocks
// CHECK: gpu.launch_func @fattn_sm90::@fattn_fwd_sm90_d128_bf16_m128n128s2 blocks
// CHECK-NOT: func.func private
// CHECK: gpu.module @fattn_sm90
// CHECK-COUNT-2: llvm.func @fattn_fwd_sm90_d128_bf16_m128n128s2
// CHECK-NOT: llvm.func @fattn_fwd_sm90
func.func @two_layers(%q: memref<1x4x256x128xbf16>, %k: memref<1x4x256x128xbf16>,
                      %o1: memref<1x4x256x128xbf16>, %o2: memref<1x4x256x128xbf16>,
                      %o3: memref<1x4x256x128xbf16>) {
  fattn.attention ins(%q, %k, %k : memref<1x4x256x128xbf16>, memref<1x4x256x128xbf16>, memref<1x4x256x128xbf16>)
                  outs(%o1 : memref<1x4x256x128xbf16>) {causal = true}
  fattn.attention ins(%o1, %k, %k : memref<1x4x256x128xbf16>, memref<1x4x256x128xbf16>, memref<1x4x256x128xbf16>)
                  outs(%o2 : memref<1x4x256x128xbf16>) {causal = true}
  fattn.attention ins(%o2, %k, %k : memref<1x4x256x128xbf16>, memref<1x4x256x128xbf16>, memref<1x4x256x128xbf16>)
                  outs(%o3 : memref<1x4x256x128xbf16>)
  return
}

