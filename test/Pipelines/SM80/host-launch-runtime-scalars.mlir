// RUN: fattn-opt %s --fattn-sm80-pipeline="host-launch=true" | FileCheck %s

// The host launch passes the op's runtime scale and softcap (the outlined
// function's f32 operands "scale" and "softcap") as the kernel's last
// parameters, not the description's default.
// CHECK-LABEL: func.func @attention(
// CHECK-SAME: %[[S:[^:]*]]: f32, %[[C:[^:]*]]: f32)
// CHECK: gpu.launch_func @fattn_kernels::@attention_attention {{.*}} args({{.*}}, %[[S]] : f32, %[[C]] : f32)
func.func @attention(
    %q: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>,
    %k: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>,
    %v: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>,
    %o: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>,
    %lse: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>, %s: f32, %c: f32) attributes {llvm.emit_c_interface} {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>,
                                   memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>,
                                   memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>)
                  outs(%o : memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>)
                  lse(%lse : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>)
                  scale(%s : f32) softcap(%c : f32) {causal = true}
  return
}
