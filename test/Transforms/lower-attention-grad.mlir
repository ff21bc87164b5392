// RUN: fattn-opt %s -split-input-file --fattn-lower-attention-grad="block-m=16 block-n=32" | FileCheck %s
// RUN: fattn-opt %s -split-input-file --fattn-lower-attention-grad="block-m=16 block-n=32" --canonicalize | FileCheck %s --check-prefix=CANON
// The CPU pipeline takes every case to the LLVM dialect.
// RUN: fattn-opt %s -split-input-file --fattn-cpu-pipeline | FileCheck %s --check-prefix=LLVM

// Causal GQA (4 query heads per 2 KV heads) with a softcap: per (batch, KV
// head) D = rowsum(dO * O) over the group's 2 query heads and a zeroed f32 dQ
// accumulator; KV tiles of 32 keys outside with zeroed dK, dV accumulators;
// the Q tiles that see the KV tile inside (kv_tile_range with queries and
// keys exchanged): a masked loop below the diagonal's edge, the unmasked
// tiles, the masked tail. No buffer is N x N.

// The products: A B^T (i, j, k), A^T B and A B.
// CHECK-DAG: #[[$MAP_IK:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$MAP_JK:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[$MAP_IJ:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[$MAP_KI:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[$MAP_KJ:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d2, d1)>

// CHECK-LABEL: func.func @causal_softcap_gqa
// CHECK-SAME: (%[[Q:[^:]*]]: memref<1x4x33x16xf32>, %[[K:[^:]*]]: memref<1x2x40x16xf32>, %[[V:[^:]*]]: memref<1x2x40x8xf32>, %[[O:[^:]*]]: memref<1x4x33x8xf32>, %[[DO:[^:]*]]: memref<1x4x33x8xf32>, %[[LSE:[^:]*]]: memref<1x4x33xf32>, %[[DQ:[^:]*]]: memref<1x4x33x16xf32>, %[[DK:[^:]*]]: memref<1x2x40x16xf32>, %[[DV:[^:]*]]: memref<1x2x40x8xf32>)
// CHECK: %[[GROUP:.*]] = arith.divui
// CHECK: %[[S:.*]] = memref.alloc() : memref<16x32xf32>
// CHECK: %[[P:.*]] = memref.alloc() : memref<16x32xf32>
// CHECK: %[[DS:.*]] = memref.alloc() : memref<16x32xf32>
// CHECK: %[[DELTA:.*]] = memref.alloc(%[[GROUP]]) : memref<?x33xf32>
// CHECK: %[[DQACC:.*]] = memref.alloc(%[[GROUP]]) : memref<?x33x16xf32>
// CHECK: %[[DKACC:.*]] = memref.alloc() : memref<32x16xf32>
// CHECK: %[[DVACC:.*]] = memref.alloc() : memref<32x8xf32>
// CHECK: %[[KVTILES:.*]] = arith.ceildivui
// CHECK: scf.for %[[B:.*]] = %{{.*}} to %{{.*}} step
// CHECK: scf.for %[[KVH:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[FIRSTHEAD:.*]] = arith.muli %[[KVH]], %[[GROUP]]
// CHECK: linalg.fill {{.*}} outs(%[[DELTA]]
// CHECK: %[[DOG:.*]] = memref.subview %[[DO]][%[[B]], %[[FIRSTHEAD]], 0, 0] [1, %[[GROUP]], 33, 8]
// CHECK: %[[OG:.*]] = memref.subview %[[O]][%[[B]], %[[FIRSTHEAD]], 0, 0] [1, %[[GROUP]], 33, 8]
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[DOG]], %[[OG]] : {{.*}}) outs(%[[DELTA]]
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: linalg.fill {{.*}} outs(%[[DQACC]]
// CHECK: scf.for %[[KVT:.*]] = %{{.*}} to %[[KVTILES]] step
// CHECK: %[[FIRSTKEY:.*]] = arith.muli %[[KVT]]
// CHECK: %[[KT:.*]] = memref.subview %[[K]][%[[B]], %[[KVH]], %[[FIRSTKEY]], 0]
// CHECK: %[[VT:.*]] = memref.subview %[[V]][%[[B]], %[[KVH]], %[[FIRSTKEY]], 0]
// CHECK: %[[DKT:.*]] = memref.subview %[[DKACC]][0, 0]
// CHECK: %[[DVT:.*]] = memref.subview %[[DVACC]][0, 0]
// CHECK: linalg.fill {{.*}} outs(%[[DKT]]
// CHECK: linalg.fill {{.*}} outs(%[[DVT]]
// The Q tile range: the forward's formula on (KV tile, seq_k, seq_q).
// CHECK: arith.floordivsi
// CHECK: arith.ceildivsi
// CHECK: scf.for %[[MEMBER:.*]] = %{{.*}} to %[[GROUP]] step
// CHECK: %[[HEAD:.*]] = arith.addi %{{.*}}, %[[MEMBER]]
// Masked tiles on the diagonal's lower edge.
// CHECK: scf.for %[[QT:.*]] = %[[LO:.*]] to %[[FULLLO:.*]] step
// CHECK: %[[QQ:.*]] = memref.subview %[[Q]][%[[B]], %[[HEAD]], %{{.*}}, 0]
// CHECK: %[[DOQ:.*]] = memref.subview %[[DO]][%[[B]], %[[HEAD]], %{{.*}}, 0]
// CHECK: %[[LSEQ:.*]] = memref.subview %[[LSE]][%[[B]], %[[HEAD]], %{{.*}}]
// CHECK: %[[DELTAQ:.*]] = memref.subview %[[DELTA]][%[[MEMBER]], %{{.*}}]
// CHECK: %[[DQQ:.*]] = memref.subview %[[DQACC]][%[[MEMBER]], %{{.*}}, 0]
// CHECK: %[[ST:.*]] = memref.subview %[[S]][0, 0]
// CHECK: %[[PT:.*]] = memref.subview %[[P]][0, 0]
// CHECK: %[[DST:.*]] = memref.subview %[[DS]][0, 0]
// S = Q K^T.
// CHECK: linalg.fill {{.*}} outs(%[[ST]]
// CHECK: linalg.generic {indexing_maps = [#[[$MAP_IK]], #[[$MAP_JK]], #[[$MAP_IJ]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[QQ]], %[[KT]] : {{.*}}) outs(%[[ST]]
// P = exp2((softcap * tanh(scale * S / softcap) - LSE) * log2(e)), under the
// mask, 0 where LSE = -inf.
// CHECK: linalg.generic {{.*}} ins(%[[ST]], %[[LSEQ]] : {{.*}}) outs(%[[PT]]
// CHECK: ^bb0(%[[RAW:.*]]: f32, %[[L:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[SC:.*]] = arith.mulf %[[RAW]], %{{.*}} : f32
// CHECK: %[[X:.*]] = arith.mulf %[[SC]], %{{.*}} : f32
// CHECK: %[[T:.*]] = math.tanh %[[X]]
// CHECK: %[[CAPPED:.*]] = arith.mulf %[[T]], %{{.*}} : f32
// CHECK: %[[DIFF:.*]] = arith.subf %[[CAPPED]], %[[L]]
// CHECK: %[[E:.*]] = arith.mulf %[[DIFF]], %{{.*}} : f32
// CHECK: %[[EXP:.*]] = math.exp2 %[[E]]
// CHECK: %[[SEEN:.*]] = arith.cmpf ogt, %[[L]], %{{.*}} : f32
// CHECK: linalg.index 0
// CHECK: linalg.index 1
// CHECK: arith.cmpi slt
// CHECK: arith.cmpi sle
// CHECK: %[[VIS:.*]] = arith.andi
// CHECK: %[[KEEP:.*]] = arith.andi %[[SEEN]], %[[VIS]]
// CHECK: arith.select %[[KEEP]], %[[EXP]], %{{.*}} : f32
// dP = dO V^T, then dS = P (dP - D) (1 - tanh^2) over it.
// CHECK: linalg.fill {{.*}} outs(%[[DST]]
// CHECK: linalg.generic {indexing_maps = [#[[$MAP_IK]], #[[$MAP_JK]], #[[$MAP_IJ]]], {{.*}} ins(%[[DOQ]], %[[VT]] : {{.*}}) outs(%[[DST]]
// CHECK: linalg.generic {{.*}} ins(%[[PT]], %[[DELTAQ]], %[[ST]] : {{.*}}) outs(%[[DST]]
// CHECK: ^bb0(%[[PV:.*]]: f32, %[[DV_:.*]]: f32, %[[SV:.*]]: f32, %[[DPV:.*]]: f32):
// CHECK: %[[SUB:.*]] = arith.subf %[[DPV]], %[[DV_]]
// CHECK: %[[PDS:.*]] = arith.mulf %[[PV]], %[[SUB]]
// CHECK: %[[T2:.*]] = math.tanh
// CHECK: %[[SQ:.*]] = arith.mulf %[[T2]], %[[T2]]
// CHECK: %[[SLOPE:.*]] = arith.subf %{{.*}}, %[[SQ]]
// CHECK: arith.mulf %[[PDS]], %[[SLOPE]]
// dV += P^T dO; dK += dS^T Q; dQ += dS K.
// CHECK: linalg.generic {indexing_maps = [#[[$MAP_KI]], #[[$MAP_KJ]], #[[$MAP_IJ]]], {{.*}} ins(%[[PT]], %[[DOQ]] : {{.*}}) outs(%[[DVT]]
// CHECK: linalg.generic {indexing_maps = [#[[$MAP_KI]], #[[$MAP_KJ]], #[[$MAP_IJ]]], {{.*}} ins(%[[DST]], %[[QQ]] : {{.*}}) outs(%[[DKT]]
// CHECK: linalg.generic {indexing_maps = [#[[$MAP_IK]], #[[$MAP_KJ]], #[[$MAP_IJ]]], {{.*}} ins(%[[DST]], %[[KT]] : {{.*}}) outs(%[[DQQ]]
// Unmasked tiles: no linalg.index in P.
// CHECK: scf.for %{{.*}} = %[[FULLLO]] to %[[FULLHI:.*]] step
// CHECK: linalg.generic {{.*}} outs(%[[PT2:.*]] :
// CHECK-NOT: linalg.index
// CHECK: arith.select
// CHECK: linalg.yield
// The masked tail.
// CHECK: scf.for %{{.*}} = %[[FULLHI]] to %{{.*}} step
// CHECK: linalg.index 0
// dK (times the scale) and dV stored into the KV tile's rows.
// CHECK: %[[DKOUT:.*]] = memref.subview %[[DK]][%[[B]], %[[KVH]], %[[FIRSTKEY]], 0]
// CHECK: linalg.generic {{.*}} ins(%[[DKT]] : {{.*}}) outs(%[[DKOUT]]
// CHECK: arith.mulf
// CHECK: %[[DVOUT:.*]] = memref.subview %[[DV]][%[[B]], %[[KVH]], %[[FIRSTKEY]], 0]
// CHECK: linalg.generic {{.*}} ins(%[[DVT]] : {{.*}}) outs(%[[DVOUT]]
// CHECK-NOT: arith.mulf
// CHECK: linalg.yield
// dQ (times the scale) of the group's query heads.
// CHECK: %[[DQOUT:.*]] = memref.subview %[[DQ]][%[[B]], %[[FIRSTHEAD]], 0, 0] [1, %[[GROUP]], 33, 16]
// CHECK: linalg.generic {{.*}} ins(%[[DQACC]] : {{.*}}) outs(%[[DQOUT]]
// CHECK: arith.mulf
// CHECK-DAG: memref.dealloc %[[S]]
// CHECK-DAG: memref.dealloc %[[P]]
// CHECK-DAG: memref.dealloc %[[DS]]
// CHECK-DAG: memref.dealloc %[[DELTA]]
// CHECK-DAG: memref.dealloc %[[DQACC]]
// CHECK-DAG: memref.dealloc %[[DKACC]]
// CHECK-DAG: memref.dealloc %[[DVACC]]
// CHECK-NOT: fattn.attention_grad
// With the static sizes folded, the group and D's buffers are static too.
// CANON-LABEL: func.func @causal_softcap_gqa
// CANON-DAG: memref.alloc() : memref<2x33xf32>
// CANON-DAG: memref.alloc() : memref<2x33x16xf32>
func.func @causal_softcap_gqa(%q: memref<1x4x33x16xf32>, %k: memref<1x2x40x16xf32>, %v: memref<1x2x40x8xf32>,
                              %o: memref<1x4x33x8xf32>, %do: memref<1x4x33x8xf32>, %lse: memref<1x4x33xf32>,
                              %dq: memref<1x4x33x16xf32>, %dk: memref<1x2x40x16xf32>, %dv: memref<1x2x40x8xf32>) {
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<1x4x33x16xf32>, memref<1x2x40x16xf32>, memref<1x2x40x8xf32>, memref<1x4x33x8xf32>, memref<1x4x33x8xf32>, memref<1x4x33xf32>)
                       outs(%dq, %dk, %dv : memref<1x4x33x16xf32>, memref<1x2x40x16xf32>, memref<1x2x40x8xf32>) {causal = true, softcap = 5.0 : f32}
  return
}

// -----

// bf16 without a mask, dynamic batch, heads and seqs: sizes from memref.dim;
// P and dS rounded to bf16 before their products; dQ, dK, dV rounded to
// bf16 when stored. Without a right window edge the first Q tiles need no
// mask: two Q tile loops (the unmasked tiles, the masked tail).
// CHECK-LABEL: func.func @bf16_dynamic
// CHECK-DAG: %[[SQ:.*]] = memref.dim %arg0, %{{.*}} : memref<?x?x?x16xbf16>
// CHECK-DAG: %[[SK:.*]] = memref.dim %arg1, %{{.*}} : memref<?x?x?x16xbf16>
// CHECK: %[[GROUP:.*]] = arith.divui
// CHECK: memref.alloc(%[[GROUP]], %[[SQ]]) : memref<?x?xf32>
// CHECK: memref.alloc(%[[GROUP]], %[[SQ]]) : memref<?x?x16xf32>
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[GROUP]] step
// CHECK-NEXT: arith.addi
// CHECK-NEXT: arith.constant 1 : index
// CHECK-NEXT: scf.for %{{.*}} = %[[FULLLO:.*]] to %[[FULLHI:.*]] step
// CHECK: ^bb0(%{{.*}}: bf16, %{{.*}}: bf16, %{{.*}}: f32):
// CHECK: ^bb0(%{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK-NOT: linalg.index
// CHECK: math.exp2
// dV += P^T dO with P rounded to bf16.
// CHECK: linalg.generic
// CHECK: linalg.generic
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[PIN:.*]]: f32, %[[DOIN:.*]]: bf16, %[[ACC:.*]]: f32):
// CHECK-NEXT: %[[PB:.*]] = arith.truncf %[[PIN]] : f32 to bf16
// CHECK-NEXT: %[[PF:.*]] = arith.extf %[[PB]] : bf16 to f32
// CHECK-NEXT: %[[DOF:.*]] = arith.extf %[[DOIN]] : bf16 to f32
// CHECK-NEXT: %[[PROD:.*]] = arith.mulf %[[PF]], %[[DOF]]
// CHECK-NEXT: arith.addf %[[ACC]], %[[PROD]]
// CHECK: scf.for %{{.*}} = %[[FULLHI]] to %{{.*}} step
// CHECK: linalg.index 0
// CHECK: arith.cmpi slt
// CHECK-NOT: arith.cmpi
// CHECK: arith.select
// dK stored as bf16.
// CHECK: ^bb0(%[[DKIN:.*]]: f32, %{{.*}}: bf16):
// CHECK: %[[DKS:.*]] = arith.mulf %[[DKIN]]
// CHECK-NEXT: %[[DKB:.*]] = arith.truncf %[[DKS]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[DKB]] : bf16
func.func @bf16_dynamic(%q: memref<?x?x?x16xbf16>, %k: memref<?x?x?x16xbf16>, %v: memref<?x?x?x16xbf16>,
                        %o: memref<?x?x?x16xbf16>, %do: memref<?x?x?x16xbf16>, %lse: memref<?x?x?xf32>,
                        %dq: memref<?x?x?x16xbf16>, %dk: memref<?x?x?x16xbf16>, %dv: memref<?x?x?x16xbf16>) {
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<?x?x?x16xbf16>, memref<?x?x?x16xbf16>, memref<?x?x?x16xbf16>, memref<?x?x?x16xbf16>, memref<?x?x?x16xbf16>, memref<?x?x?xf32>)
                       outs(%dq, %dk, %dv : memref<?x?x?x16xbf16>, memref<?x?x?x16xbf16>, memref<?x?x?x16xbf16>)
  return
}

// -----

// A window with both edges: the masks test key >= row + offset - 5 and
// key <= row + offset + 3 (the forward's fattn.mask), in both masked loops.
// CHECK-LABEL: func.func @window
// CHECK: %[[OFFSET:.*]] = arith.subi
// CHECK: arith.ceildivsi
// CHECK: scf.for
// CHECK: scf.for %{{.*}} = %[[LO:.*]] to %[[FULLLO:.*]] step
// CHECK: %[[DIAG:.*]] = arith.addi %{{.*}}, %[[OFFSET]]
// CHECK: arith.subi %[[DIAG]], %c5
// CHECK: arith.cmpi sge
// CHECK: arith.addi %[[DIAG]], %c3
// CHECK: arith.cmpi sle
// CHECK: scf.for %{{.*}} = %[[FULLLO]] to %[[FULLHI:.*]] step
// CHECK: scf.for %{{.*}} = %[[FULLHI]] to %{{.*}} step
// CHECK: arith.cmpi sge
// CHECK: arith.cmpi sle
func.func @window(%q: memref<1x1x50x8xf32>, %k: memref<1x1x70x8xf32>, %v: memref<1x1x70x8xf32>,
                  %o: memref<1x1x50x8xf32>, %do: memref<1x1x50x8xf32>, %lse: memref<1x1x50xf32>,
                  %dq: memref<1x1x50x8xf32>, %dk: memref<1x1x70x8xf32>, %dv: memref<1x1x70x8xf32>) {
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<1x1x50x8xf32>, memref<1x1x70x8xf32>, memref<1x1x70x8xf32>, memref<1x1x50x8xf32>, memref<1x1x50x8xf32>, memref<1x1x50xf32>)
                       outs(%dq, %dk, %dv : memref<1x1x50x8xf32>, memref<1x1x70x8xf32>, memref<1x1x70x8xf32>) {window_left = 5 : i64, window_right = 3 : i64}
  return
}

// -----

// An empty query sequence: the offset 0 of the seq dim (static size 0) stays
// an SSA value, since a static offset must lie inside its dim; the CPU
// pipeline lowers it (dK = dV = 0).
// CHECK-LABEL: func.func @empty_sequence
// CHECK: linalg.fill
// CHECK: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT: memref.subview %arg4[%{{.*}}, %{{.*}}, %[[ZERO]], 0] [1, %{{.*}}, 0, 8]
// LLVM-LABEL: llvm.func @empty_sequence
func.func @empty_sequence(%q: memref<1x1x0x8xf32>, %k: memref<1x1x16x8xf32>, %v: memref<1x1x16x8xf32>,
                          %o: memref<1x1x0x8xf32>, %do: memref<1x1x0x8xf32>, %lse: memref<1x1x0xf32>,
                          %dq: memref<1x1x0x8xf32>, %dk: memref<1x1x16x8xf32>, %dv: memref<1x1x16x8xf32>) {
  fattn.attention_grad ins(%q, %k, %v, %o, %do, %lse : memref<1x1x0x8xf32>, memref<1x1x16x8xf32>, memref<1x1x16x8xf32>, memref<1x1x0x8xf32>, memref<1x1x0x8xf32>, memref<1x1x0xf32>)
                       outs(%dq, %dk, %dv : memref<1x1x0x8xf32>, memref<1x1x16x8xf32>, memref<1x1x16x8xf32>) {causal = true}
  return
}
