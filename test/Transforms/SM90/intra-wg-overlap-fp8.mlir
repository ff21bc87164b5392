// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-intra-wg-overlap | FileCheck %s

// FP8 with per-block descales: V's descale of tile j is loaded in the softmax
// half and read by the P V of tile j in the next iteration, so it crosses
// iterations beside P and alpha (a zero placeholder when there is no tile).
// CHECK-LABEL: func.func @fp8_block_descales
// CHECK: %[[PRO:.*]]:5 = scf.if
// CHECK: %[[DV0:.*]] = fattn.load_descale %arg6
// CHECK-NEXT: scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[DV0]] : tensor<128xf32>, tensor<128xf32>, tensor<128x128xf8E4M3FN>, tensor<128xf32>, tensor<128xf32>
// CHECK: } else {
// CHECK: arith.constant dense<0.000000e+00> : tensor<128xf32>
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<128xf32>
// CHECK-NEXT: scf.yield {{.*}}, %[[ZERO]] : {{.*}}, tensor<128xf32>{{$}}
// CHECK: %[[R:.*]]:6 = scf.for {{.*}} iter_args({{.*}}, %[[PP:.*]] = %[[PRO]]#2, %[[AP:.*]] = %[[PRO]]#3, %[[DVP:.*]] = %[[PRO]]#4)
// CHECK: fattn.mma %[[PP]], %{{.*}} acc(%{{.*}}) rhs_scale(%[[DVP]] : tensor<128xf32>)
// CHECK: %[[DV:.*]] = fattn.load_descale %arg6
// CHECK-NEXT: scf.yield {{.*}}, %[[DV]] :
// CHECK: scf.if
// CHECK: fattn.mma %[[R]]#3, %{{.*}} acc(%{{.*}}) rhs_scale(%[[R]]#5 : tensor<128xf32>)
func.func @fp8_block_descales(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x?x128xf8E4M3FN>, %o: memref<?x?x?x128xbf16>, %dq: memref<?x?x?xf32>, %dk: memref<?x?x?xf32>, %dv: memref<?x?x?xf32>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>)
                  descale(%dq, %dk, %dv : memref<?x?x?xf32>, memref<?x?x?xf32>, memref<?x?x?xf32>) {descale_block_q = 64 : i64, descale_block_kv = 128 : i64}
  return
}
