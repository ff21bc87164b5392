// RUN: fattn-opt %fattn_src_root/examples/host-launch/attention-fp8.mlir --fattn-sm90-pipeline="host-launch=true" | FileCheck %s

// FP8 with per-block descales: the host code checks the factors' shapes
// against the sizes, passes their pointers and strides after the data
// tensors' strides, and encodes e4m3 tensor maps as bytes (type 0, a box of
// 128 one-byte columns).
// CHECK-LABEL: func.func @attention_fp8(
// CHECK-SAME: %[[Q:[a-z0-9]+]]: memref<?x?x?x128xf8E4M3FN
// CHECK-SAME: %[[DQ:[a-z0-9]+]]: memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, %[[DK:[a-z0-9]+]]: memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, %[[DV:[a-z0-9]+]]: memref<?x?x?xf32
// CHECK: %{{.*}}, %{{.*}}, %[[DQS:[a-z0-9_]+]]:3, %[[DQST:[a-z0-9_]+]]:3 = memref.extract_strided_metadata %[[DQ]]
// CHECK: %[[QBLOCKS:.*]] = arith.ceildivui %{{.*}}#2, %c128 : index
// CHECK: arith.cmpi eq, %[[DQS]]#2, %[[QBLOCKS]] : index
// CHECK: cf.assert %{{.*}}, "fattn launch of @fattn_fwd_sm90_d128_e4m3_m128n128s2_dsq3b128k3b128v3b128: tensor 'q_descale' must be [batch, heads, ceildiv(seq, 128)] of q"
// CHECK: cf.assert %{{.*}}, "{{.*}}tensor 'k_descale' must be [batch, heads, ceildiv(seq, 128)] of k"
// CHECK: cf.assert %{{.*}}, "{{.*}}tensor 'v_descale' must be [batch, heads, ceildiv(seq, 128)] of k"
// CHECK: scf.if
// CHECK: %[[DQSB:.*]] = arith.index_cast %[[DQST]]#0 : index to i64
// CHECK-COUNT-3: llvm.call @mgpuTensorMapEncodeTiled(%{{.*}}, %c0_i32, %c4_i32,
// CHECK: gpu.launch_func @fattn_sm90::@fattn_fwd_sm90_d128_e4m3_m128n128s2_dsq3b128k3b128v3b128
// CHECK-SAME: : i64, %{{.*}} : !llvm.ptr, %{{.*}} : !llvm.ptr, %{{.*}} : !llvm.ptr, %[[DQSB]] : i64,
// CHECK-SAME: : !llvm.array<128 x i8>, %{{.*}} : !llvm.array<128 x i8>, %{{.*}} : !llvm.array<128 x i8>)
