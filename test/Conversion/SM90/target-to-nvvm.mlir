// RUN: fattn-opt %s -split-input-file --convert-fattn-sm90-target-to-nvvm | FileCheck %s --enable-var-scope

// Hand-written sm_90a target ops (L3) lowered to NVVM and LLVM (L4): each
// op becomes the operations it stands for, in place; the LLVM ops around
// them stay.

// The producer's turn for tile %t of a 2-stage ring: wait for the stage's
// empty barrier (the other parity), arm its full barrier for 32 KiB and copy
// one box into the stage.
// CHECK-LABEL: llvm.func @produce
// CHECK-SAME: (%[[BASE:.*]]: !llvm.ptr<3>, %[[MAP:.*]]: !llvm.ptr, %[[T:.*]]: i32, %[[ROW:.*]]: i32)
// CHECK:      %[[C2:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: %[[STAGE:.*]] = llvm.urem %[[T]], %[[C2]] : i32
// CHECK-NEXT: %[[C2B:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: %[[ROUND:.*]] = llvm.udiv %[[T]], %[[C2B]] : i32
// CHECK-NEXT: %[[C1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[PHASE:.*]] = llvm.and %[[ROUND]], %[[C1]] : i32
// CHECK-NEXT: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[FREE:.*]] = llvm.xor %[[PHASE]], %[[ONE]] : i32
// CHECK-NEXT: %[[C8:.*]] = llvm.mlir.constant(8 : i32) : i32
// CHECK-NEXT: %[[ENTRY:.*]] = llvm.mul %[[STAGE]], %[[C8]] : i32
// CHECK-NEXT: %[[EMPTY_AT:.*]] = llvm.mlir.constant(163880 : i32) : i32
// CHECK-NEXT: %[[EMPTY_OFF:.*]] = llvm.add %[[EMPTY_AT]], %[[ENTRY]] : i32
// CHECK-NEXT: %[[EMPTY:.*]] = llvm.getelementptr %[[BASE]][%[[EMPTY_OFF]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK-NEXT: %[[TICKS:.*]] = llvm.mlir.constant(10000000 : i32) : i32
// CHECK-NEXT: nvvm.mbarrier.try_wait.parity %[[EMPTY]], %[[FREE]], %[[TICKS]] : !llvm.ptr<3>, i32, i32
// CHECK:      %[[FULL:.*]] = llvm.getelementptr %[[BASE]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK-NEXT: %[[BYTES:.*]] = llvm.mlir.constant(32768 : i32) : i32
// CHECK-NEXT: nvvm.mbarrier.arrive.expect_tx %[[FULL]], %[[BYTES]] : !llvm.ptr<3>, i32
// CHECK-NEXT: %[[SLOT:.*]] = llvm.mlir.constant(32768 : i32) : i32
// CHECK-NEXT: %[[DST_OFF:.*]] = llvm.mul %[[STAGE]], %[[SLOT]] : i32
// CHECK-NEXT: %[[DST:.*]] = llvm.getelementptr %[[BASE]][%[[DST_OFF]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK-NEXT: %[[DST7:.*]] = llvm.addrspacecast %[[DST]] : !llvm.ptr<3> to !llvm.ptr<7>
// CHECK-NEXT: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[DST7]], %[[MAP]], %[[FULL]], box[%[[ROW]], %[[ROW]], %[[T]], %[[T]]] : !llvm.ptr<7>, !llvm.ptr
// CHECK-NOT:  fattn.sm90
// CHECK:      llvm.return
llvm.func @produce(%base: !llvm.ptr<3>, %map: !llvm.ptr, %t: i32, %row: i32) {
  %stage = fattn.sm90.ring_stage %t, stages = 2
  %phase = fattn.sm90.ring_phase %t, stages = 2
  %one = llvm.mlir.constant(1 : i32) : i32
  %free = llvm.xor %phase, %one : i32
  %empty = fattn.sm90.ring_barrier %base[%stage], offset = 163880
  fattn.sm90.mbarrier_wait %empty, parity = %free
  %full = fattn.sm90.ring_barrier %base[%stage], offset = 163848
  fattn.sm90.mbarrier_arrive_expect_tx %full, bytes = 32768
  %slot = llvm.mlir.constant(32768 : i32) : i32
  %dst = llvm.mul %stage, %slot : i32
  fattn.sm90.tma_load %map[%row, %row, %t, %t], %base[%dst], barrier = %full
  llvm.return
}

// -----

// The consumer's side: wait for the stage's full barrier, hand it back; and
// the entry's initialization of a barrier.
// CHECK-LABEL: llvm.func @consume
// CHECK-SAME: (%[[BASE:.*]]: !llvm.ptr<3>, %[[STAGE:.*]]: i32, %[[PHASE:.*]]: i32, %[[PRED:.*]]: i1)
// CHECK:      %[[COUNT:.*]] = llvm.mlir.constant(256 : i32) : i32
// CHECK-NEXT: nvvm.mbarrier.init %[[BASE]], %[[COUNT]], predicate = %[[PRED]] : !llvm.ptr<3>, i32, i1
// CHECK:      %[[FULL:.*]] = llvm.getelementptr %[[BASE]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK:      nvvm.mbarrier.try_wait.parity %[[FULL]], %[[PHASE]], %{{.*}} : !llvm.ptr<3>, i32, i32
// CHECK:      %[[EMPTY:.*]] = llvm.getelementptr %[[BASE]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK-NEXT: nvvm.mbarrier.arrive %[[EMPTY]] : !llvm.ptr<3>
// CHECK-NOT:  fattn.sm90
llvm.func @consume(%base: !llvm.ptr<3>, %stage: i32, %phase: i32, %pred: i1) {
  fattn.sm90.mbarrier_init %base, count = 256, predicate = %pred
  %full = fattn.sm90.ring_barrier %base[%stage], offset = 8
  fattn.sm90.mbarrier_wait %full, parity = %phase
  %empty = fattn.sm90.ring_barrier %base[%stage], offset = 40
  fattn.sm90.mbarrier_arrive %empty
  llvm.return
}

// -----

// S = Q K^T of two k steps: the first does not read the accumulator
// (scale-d zero), the second adds to it; m64n8, k16 for bf16 and k32 for
// e4m3.
// CHECK-LABEL: llvm.func @scores
// CHECK-SAME: (%[[DA:.*]]: i64, %[[DB:.*]]: i64)
// CHECK:      nvvm.wgmma.fence.aligned
// CHECK-NEXT: %[[S0:.*]] = nvvm.wgmma.mma_async %[[DA]], %[[DB]], %{{.*}}, <m = 64, n = 8, k = 16>, D[<f32>, <zero>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>] : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NEXT: %[[S1:.*]] = nvvm.wgmma.mma_async %[[DA]], %[[DB]], %[[S0]], <m = 64, n = 8, k = 32>, D[<f32>, <one>], A[<e4m3>, <one>, <row>], B[<e4m3>, <one>, <col>] : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NEXT: %{{.*}} = nvvm.wgmma.mma_async %[[DA]], %[[DB]], %[[S1]], <m = 64, n = 8, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <col>]
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-NOT:  fattn.sm90
llvm.func @scores(%da: i64, %db: i64) {
  %zero = llvm.mlir.zero : !llvm.struct<(f32, f32, f32, f32)>
  fattn.sm90.wgmma_fence
  %s0 = fattn.sm90.wgmma %da, %db, %zero, element_type = bf16 : !llvm.struct<(f32, f32, f32, f32)>
  %s1 = fattn.sm90.wgmma %da, %db, %s0, element_type = f8E4M3FN, accumulate : !llvm.struct<(f32, f32, f32, f32)>
  %s2 = fattn.sm90.wgmma %da, %db, %s1, element_type = f16, accumulate : !llvm.struct<(f32, f32, f32, f32)>
  fattn.sm90.wgmma_commit_group
  fattn.sm90.wgmma_wait_group pending = 1
  llvm.return
}

// -----

// O += P V with P in registers: inline PTX, the accumulator tied to the
// outputs; V N-major (16-bit, trans-b 1), the row sums' ones K-major and
// the first step without the accumulator (scale-d 0); e4m3 has no trans-b.
// CHECK-LABEL: llvm.func @values
// CHECK-SAME: (%[[P:.*]]: i32, %[[DV:.*]]: i64, %[[O:.*]]: f32)
// CHECK-NEXT: %{{.*}} = llvm.inline_asm has_side_effects asm_dialect = att "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {$0,$1,$2,$3}, {$4,$5,$6,$7}, $8, 1, 1, 1, 1;", "=f,=f,=f,=f,r,r,r,r,l,0,1,2,3" %[[P]], %[[P]], %[[P]], %[[P]], %[[DV]], %[[O]], %[[O]], %[[O]], %[[O]] : (i32, i32, i32, i32, i64, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NEXT: %{{.*}} = llvm.inline_asm has_side_effects asm_dialect = att "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {$0,$1,$2,$3}, {$4,$5,$6,$7}, $8, 0, 1, 1, 0;"
// CHECK-NEXT: %{{.*}} = llvm.inline_asm has_side_effects asm_dialect = att "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 {$0,$1,$2,$3}, {$4,$5,$6,$7}, $8, 1, 1, 1;"
// CHECK-NOT:  fattn.sm90
llvm.func @values(%p: i32, %dv: i64, %o: f32) {
  %0 = fattn.sm90.wgmma_rs [%p, %p, %p, %p], %dv transposed, [%o, %o, %o, %o], element_type = bf16, accumulate : !llvm.struct<(f32, f32, f32, f32)>
  %1 = fattn.sm90.wgmma_rs [%p, %p, %p, %p], %dv, [%o, %o, %o, %o], element_type = f16 : !llvm.struct<(f32, f32, f32, f32)>
  %2 = fattn.sm90.wgmma_rs [%p, %p, %p, %p], %dv, [%o, %o, %o, %o], element_type = f8E4M3FN, accumulate : !llvm.struct<(f32, f32, f32, f32)>
  llvm.return
}

// -----

// O out by TMA: the fence before the async proxy reads, the store, its bulk
// group and the wait for its reads; and a matrix descriptor (start address
// / 16 in bits 0-13, leading bytes / 16 = 1024 in bits 16-29, stride 1024 /
// 16 in bits 32-45, the 128-byte swizzle in bit 62).
// CHECK-LABEL: llvm.func @output
// CHECK-SAME: (%[[MAP:.*]]: !llvm.ptr, %[[BASE:.*]]: !llvm.ptr<3>, %[[ADDR:.*]]: i32, %[[X:.*]]: i32)
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: %[[SRC:.*]] = llvm.getelementptr %[[BASE]][%[[X]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK-NEXT: nvvm.cp.async.bulk.tensor.global.shared.cta %[[MAP]], %[[SRC]], box[%[[X]], %[[X]], %[[X]], %[[X]]] : !llvm.ptr, <3>
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK-NEXT: %[[A:.*]] = llvm.add %[[ADDR]], %[[X]] : i32
// CHECK-NEXT: %[[C4:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK-NEXT: %[[UNITS:.*]] = llvm.lshr %[[A]], %[[C4]] : i32
// CHECK-NEXT: %[[MASK:.*]] = llvm.mlir.constant(16383 : i32) : i32
// CHECK-NEXT: %[[FIELD:.*]] = llvm.and %[[UNITS]], %[[MASK]] : i32
// CHECK-NEXT: %[[WIDE:.*]] = llvm.zext %[[FIELD]] : i32 to i64
// CHECK-NEXT: %[[BITS:.*]] = llvm.mlir.constant(4611686293372403712 : i64) : i64
// CHECK-NEXT: %{{.*}} = llvm.or %[[WIDE]], %[[BITS]] : i64
// CHECK-NOT:  fattn.sm90
llvm.func @output(%map: !llvm.ptr, %base: !llvm.ptr<3>, %addr: i32, %x: i32) {
  fattn.sm90.fence_proxy_async
  fattn.sm90.tma_store %map[%x, %x, %x, %x], %base[%x]
  fattn.sm90.bulk_commit_group
  fattn.sm90.bulk_wait_group_read pending = 0
  %d = fattn.sm90.wgmma_descriptor %addr[%x], leading_bytes = 16384
  llvm.return
}

// -----

// A bulk reduction of f32 from shared into global memory: inline PTX (no
// NVVM op has the non-tensor form), the shared address in one 32-bit
// register; its bulk group closed like a TMA store's.
// CHECK-LABEL: llvm.func @bulk_reduce
// CHECK-SAME: (%[[DST:.*]]: !llvm.ptr<1>, %[[SRC:.*]]: i32, %[[BYTES:.*]]: i32)
// CHECK-NEXT: llvm.inline_asm has_side_effects asm_dialect = att "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [$0], [$1], $2;", "l,r,r,~{memory}" %[[DST]], %[[SRC]], %[[BYTES]] : (!llvm.ptr<1>, i32, i32) -> ()
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK-NOT:  fattn.sm90
llvm.func @bulk_reduce(%dst: !llvm.ptr<1>, %src: i32, %bytes: i32) {
  fattn.sm90.bulk_reduce_add %dst, %src, bytes = %bytes
  fattn.sm90.bulk_commit_group
  llvm.return
}

// -----

// Pingpong's turn: wait on the warpgroup's own barrier with the one before
// it (256 threads), arrive on the next one's.
// CHECK-LABEL: llvm.func @turns
// CHECK-SAME: (%[[OWN:.*]]: i32, %[[NEXT:.*]]: i32)
// CHECK-NEXT: %[[T1:.*]] = llvm.mlir.constant(256 : i32) : i32
// CHECK-NEXT: nvvm.barrier id = %[[OWN]] number_of_threads = %[[T1]]
// CHECK-NEXT: %[[T2:.*]] = llvm.mlir.constant(256 : i32) : i32
// CHECK-NEXT: nvvm.barrier.arrive id = %[[NEXT]] number_of_threads = %[[T2]]
// CHECK-NOT:  fattn.sm90
llvm.func @turns(%own: i32, %next: i32) {
  fattn.sm90.named_barrier %own, threads = 256
  fattn.sm90.named_barrier_arrive %next, threads = 256
  llvm.return
}

// -----

// The warpgroup roles: the producer gives registers back and elects the
// thread that issues its copies; the consumers take the registers.
// CHECK-LABEL: llvm.func @roles
// CHECK-NEXT: nvvm.setmaxregister  decrease 24
// CHECK-NEXT: %[[E:.*]] = nvvm.elect.sync -> i1
// CHECK-NEXT: nvvm.setmaxregister  increase 240
// CHECK-NEXT: llvm.return %[[E]] : i1
// CHECK-NOT:  fattn.sm90
llvm.func @roles() -> i1 {
  fattn.sm90.setmaxnreg decrease 24
  %e = fattn.sm90.elect_one
  fattn.sm90.setmaxnreg increase 240
  llvm.return %e : i1
}

// -----

// The row max of the online softmax and the row sum of the epilogue: two
// butterfly shuffles over the quad (lanes xor 1, then xor 2), each combined
// with the thread's own value.
// CHECK-LABEL: llvm.func @row_reductions
// CHECK-SAME: (%[[X:.*]]: f32)
// CHECK-NEXT: %[[ALL:.*]] = llvm.mlir.constant(-1 : i32) : i32
// CHECK-NEXT: %[[CLAMP:.*]] = llvm.mlir.constant(31 : i32) : i32
// CHECK-NEXT: %[[L1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[O1:.*]] = nvvm.shfl.sync  bfly %[[ALL]], %[[X]], %[[L1]], %[[CLAMP]] : f32 -> f32
// CHECK-NEXT: %[[M1:.*]] = llvm.intr.maxnum(%[[X]], %[[O1]]) : (f32, f32) -> f32
// CHECK-NEXT: %[[L2:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: %[[O2:.*]] = nvvm.shfl.sync  bfly %[[ALL]], %[[M1]], %[[L2]], %[[CLAMP]] : f32 -> f32
// CHECK-NEXT: %[[M:.*]] = llvm.intr.maxnum(%[[M1]], %[[O2]]) : (f32, f32) -> f32
// CHECK:      %[[S1:.*]] = nvvm.shfl.sync  bfly %{{.*}}, %[[M]], %{{.*}}, %{{.*}} : f32 -> f32
// CHECK-NEXT: %[[A1:.*]] = llvm.fadd %[[M]], %[[S1]] : f32
// CHECK:      %[[S2:.*]] = nvvm.shfl.sync  bfly %{{.*}}, %[[A1]], %{{.*}}, %{{.*}} : f32 -> f32
// CHECK-NEXT: %[[A2:.*]] = llvm.fadd %[[A1]], %[[S2]] : f32
// CHECK-NEXT: llvm.return %[[A2]] : f32
// CHECK-NOT:  fattn.sm90
llvm.func @row_reductions(%x: f32) -> f32 {
  %m = fattn.sm90.quad_reduce max %x
  %l = fattn.sm90.quad_reduce add %m
  llvm.return %l : f32
}

// -----

// P's packing: two f32 rounded to bf16 in one register (the fptrunc of a
// vector), and four rounded to e4m3 (two cvt.e4m3x2, whose first source is
// the upper byte) merged in place or, with by_permute, by a prmt of their
// zero extensions.
// CHECK-LABEL: llvm.func @packing
// CHECK-SAME: (%[[X:.*]]: f32, %[[Y:.*]]: f32, %[[Z:.*]]: f32, %[[W:.*]]: f32)
// CHECK-NEXT: %[[V0:.*]] = llvm.mlir.poison : vector<2xf32>
// CHECK-NEXT: %[[I0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[V1:.*]] = llvm.insertelement %[[X]], %[[V0]][%[[I0]] : i32] : vector<2xf32>
// CHECK-NEXT: %[[I1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[V2:.*]] = llvm.insertelement %[[Y]], %[[V1]][%[[I1]] : i32] : vector<2xf32>
// CHECK-NEXT: %[[H:.*]] = llvm.fptrunc %[[V2]] : vector<2xf32> to vector<2xbf16>
// CHECK-NEXT: %[[B:.*]] = llvm.bitcast %[[H]] : vector<2xbf16> to i32
// CHECK-NEXT: %[[LO:.*]] = llvm.call_intrinsic "llvm.nvvm.ff.to.e4m3x2.rn"(%[[Y]], %[[X]]) : (f32, f32) -> i16
// CHECK-NEXT: %[[HI:.*]] = llvm.call_intrinsic "llvm.nvvm.ff.to.e4m3x2.rn"(%[[W]], %[[Z]]) : (f32, f32) -> i16
// CHECK-NEXT: %[[U0:.*]] = llvm.mlir.poison : vector<2xi16>
// CHECK-NEXT: %[[J0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[U1:.*]] = llvm.insertelement %[[LO]], %[[U0]][%[[J0]] : i32] : vector<2xi16>
// CHECK-NEXT: %[[J1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[U2:.*]] = llvm.insertelement %[[HI]], %[[U1]][%[[J1]] : i32] : vector<2xi16>
// CHECK-NEXT: %[[E:.*]] = llvm.bitcast %[[U2]] : vector<2xi16> to i32
// CHECK-NEXT: %[[LO2:.*]] = llvm.call_intrinsic "llvm.nvvm.ff.to.e4m3x2.rn"(%[[Y]], %[[X]]) : (f32, f32) -> i16
// CHECK-NEXT: %[[HI2:.*]] = llvm.call_intrinsic "llvm.nvvm.ff.to.e4m3x2.rn"(%[[W]], %[[Z]]) : (f32, f32) -> i16
// CHECK-NEXT: %[[WHI:.*]] = llvm.zext %[[HI2]] : i16 to i32
// CHECK-NEXT: %[[WLO:.*]] = llvm.zext %[[LO2]] : i16 to i32
// CHECK-NEXT: %[[SEL:.*]] = llvm.mlir.constant(21520 : i32) : i32
// CHECK-NEXT: %[[F:.*]] = llvm.call_intrinsic "llvm.nvvm.prmt"(%[[WLO]], %[[WHI]], %[[SEL]]) : (i32, i32, i32) -> i32
// CHECK:      llvm.insertvalue %[[B]], %{{.*}}[0]
// CHECK-NEXT: llvm.insertvalue %[[E]], %{{.*}}[1]
// CHECK-NEXT: llvm.insertvalue %[[F]], %{{.*}}[2]
// CHECK-NOT:  fattn.sm90
llvm.func @packing(%x: f32, %y: f32, %z: f32, %w: f32) -> !llvm.struct<(i32, i32, i32)> {
  %b = fattn.sm90.pack_pair %x, %y, element_type = bf16
  %e = fattn.sm90.pack_e4m3 %x, %y, %z, %w
  %f = fattn.sm90.pack_e4m3 %x, %y, %z, %w by_permute
  %s0 = llvm.mlir.poison : !llvm.struct<(i32, i32, i32)>
  %s1 = llvm.insertvalue %b, %s0[0] : !llvm.struct<(i32, i32, i32)>
  %s2 = llvm.insertvalue %e, %s1[1] : !llvm.struct<(i32, i32, i32)>
  %s3 = llvm.insertvalue %f, %s2[2] : !llvm.struct<(i32, i32, i32)>
  llvm.return %s3 : !llvm.struct<(i32, i32, i32)>
}

// -----

// linear-exp2's bytes: per pair a cvt to f16x2 (the first source is the
// upper half) and 256 u + 1536 in both halves (0x5c005c00 = 1543527424,
// 0x66006600 = 1711302144); a prmt (0x6420 = 25632) takes the halves' low
// bytes.
// CHECK-LABEL: llvm.func @linear_bytes
// CHECK-SAME: (%[[A:.*]]: f32, %[[B:.*]]: f32, %[[C:.*]]: f32, %[[D:.*]]: f32)
// CHECK-NEXT: %[[H0:.*]] = llvm.inline_asm asm_dialect = att "cvt.rn.f16x2.f32 $0, $1, $2;", "=r,f,f" %[[B]], %[[A]] : (f32, f32) -> i32
// CHECK-NEXT: %[[S0:.*]] = llvm.mlir.constant(1543527424 : i32) : i32
// CHECK-NEXT: %[[M0:.*]] = llvm.mlir.constant(1711302144 : i32) : i32
// CHECK-NEXT: %[[LO:.*]] = llvm.inline_asm asm_dialect = att "fma.rn.f16x2 $0, $1, $2, $3;", "=r,r,r,r" %[[H0]], %[[S0]], %[[M0]] : (i32, i32, i32) -> i32
// CHECK-NEXT: %[[H1:.*]] = llvm.inline_asm asm_dialect = att "cvt.rn.f16x2.f32 $0, $1, $2;", "=r,f,f" %[[D]], %[[C]] : (f32, f32) -> i32
// CHECK:      %[[HI:.*]] = llvm.inline_asm asm_dialect = att "fma.rn.f16x2 $0, $1, $2, $3;", "=r,r,r,r" %[[H1]], %{{.*}}, %{{.*}} : (i32, i32, i32) -> i32
// CHECK-NEXT: %[[SEL:.*]] = llvm.mlir.constant(25632 : i32) : i32
// CHECK-NEXT: %[[P:.*]] = llvm.call_intrinsic "llvm.nvvm.prmt"(%[[LO]], %[[HI]], %[[SEL]]) : (i32, i32, i32) -> i32
// CHECK-NEXT: llvm.return %[[P]] : i32
// CHECK-NOT:  fattn.sm90
llvm.func @linear_bytes(%a: f32, %b: f32, %c: f32, %d: f32) -> i32 {
  %p = fattn.sm90.pack_bytes %a, %b, %c, %d
  llvm.return %p : i32
}

// -----

// O's pairs from registers: pair i scaled, packed (as pack_pair) and stored
// as 4 bytes at element offset + 8 i of O (16-bit elements).
// CHECK-LABEL: llvm.func @store_fragment
// CHECK-SAME: (%[[O:.*]]: !llvm.ptr<1>, %[[OFF:.*]]: i64, %[[A:.*]]: f32, %[[B:.*]]: f32, %[[C:.*]]: f32, %[[D:.*]]: f32, %[[INV:.*]]: f32)
// CHECK-NEXT: %[[LO:.*]] = llvm.fmul %[[A]], %[[INV]] : f32
// CHECK-NEXT: %[[HI:.*]] = llvm.fmul %[[B]], %[[INV]] : f32
// CHECK:      %[[H:.*]] = llvm.fptrunc %{{.*}} : vector<2xf32> to vector<2xbf16>
// CHECK-NEXT: %[[W:.*]] = llvm.bitcast %[[H]] : vector<2xbf16> to i32
// CHECK-NEXT: %[[E0:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK-NEXT: %[[OFF0:.*]] = llvm.add %[[OFF]], %[[E0]] : i64
// CHECK-NEXT: %[[P0:.*]] = llvm.getelementptr %[[O]][%[[OFF0]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i16
// CHECK-NEXT: llvm.store %[[W]], %[[P0]] {alignment = 4 : i64} : i32, !llvm.ptr<1>
// CHECK-NEXT: llvm.fmul %[[C]], %[[INV]] : f32
// CHECK-NEXT: llvm.fmul %[[D]], %[[INV]] : f32
// CHECK:      %[[E8:.*]] = llvm.mlir.constant(8 : i64) : i64
// CHECK-NEXT: %[[OFF8:.*]] = llvm.add %[[OFF]], %[[E8]] : i64
// CHECK-NEXT: %[[P8:.*]] = llvm.getelementptr %[[O]][%[[OFF8]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i16
// CHECK-NEXT: llvm.store %{{.*}}, %[[P8]] {alignment = 4 : i64} : i32, !llvm.ptr<1>
// CHECK-NEXT: llvm.return
llvm.func @store_fragment(%o: !llvm.ptr<1>, %off: i64, %a: f32, %b: f32, %c: f32, %d: f32, %inv: f32) {
  fattn.sm90.store_fragment [%a, %b, %c, %d] scale %inv, %o[%off], element_type = bf16
  llvm.return
}

// -----

// The quad's 4 x 4 transpose: the stage of lane xor 2 (selected by `upper`)
// exchanges words 0, 2 and 1, 3; the stage of lane xor 1 (`odd`) words 0, 1
// and 2, 3; each exchange sends the word the partner keeps, by one
// butterfly shuffle.
// CHECK-LABEL: llvm.func @quad_transpose
// CHECK-SAME: (%[[W0:.*]]: i32, %[[W1:.*]]: i32, %[[W2:.*]]: i32, %[[W3:.*]]: i32, %[[ODD:.*]]: i1, %[[UP:.*]]: i1)
// CHECK:      %[[ALL:.*]] = llvm.mlir.constant(-1 : i32) : i32
// CHECK-NEXT: %[[CLAMP:.*]] = llvm.mlir.constant(31 : i32) : i32
// CHECK-NEXT: %[[SEND0:.*]] = llvm.select %[[UP]], %[[W0]], %[[W2]] : i1, i32
// CHECK-NEXT: %[[TWO:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: %[[RECV0:.*]] = nvvm.shfl.sync  bfly %[[ALL]], %[[SEND0]], %[[TWO]], %[[CLAMP]] : i32 -> i32
// CHECK-NEXT: %[[X0:.*]] = llvm.select %[[UP]], %[[RECV0]], %[[W0]] : i1, i32
// CHECK-NEXT: %[[X2:.*]] = llvm.select %[[UP]], %[[W2]], %[[RECV0]] : i1, i32
// CHECK-NEXT: %[[SEND1:.*]] = llvm.select %[[UP]], %[[W1]], %[[W3]] : i1, i32
// CHECK:      %[[RECV1:.*]] = nvvm.shfl.sync  bfly %[[ALL]], %[[SEND1]], %{{.*}}, %[[CLAMP]] : i32 -> i32
// CHECK-NEXT: %[[X1:.*]] = llvm.select %[[UP]], %[[RECV1]], %[[W1]] : i1, i32
// CHECK-NEXT: %[[X3:.*]] = llvm.select %[[UP]], %[[W3]], %[[RECV1]] : i1, i32
// CHECK-NEXT: %[[SEND2:.*]] = llvm.select %[[ODD]], %[[X0]], %[[X1]] : i1, i32
// CHECK-NEXT: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[RECV2:.*]] = nvvm.shfl.sync  bfly %[[ALL]], %[[SEND2]], %[[ONE]], %[[CLAMP]] : i32 -> i32
// CHECK-NEXT: %[[Y0:.*]] = llvm.select %[[ODD]], %[[RECV2]], %[[X0]] : i1, i32
// CHECK-NEXT: %[[Y1:.*]] = llvm.select %[[ODD]], %[[X1]], %[[RECV2]] : i1, i32
// CHECK-NEXT: %[[SEND3:.*]] = llvm.select %[[ODD]], %[[X2]], %[[X3]] : i1, i32
// CHECK:      %[[RECV3:.*]] = nvvm.shfl.sync  bfly %[[ALL]], %[[SEND3]], %{{.*}}, %[[CLAMP]] : i32 -> i32
// CHECK-NEXT: %[[Y2:.*]] = llvm.select %[[ODD]], %[[RECV3]], %[[X2]] : i1, i32
// CHECK-NEXT: %[[Y3:.*]] = llvm.select %[[ODD]], %[[X3]], %[[RECV3]] : i1, i32
// CHECK:      %[[V0:.*]] = llvm.insertelement %[[Y0]], %{{.*}}[%{{.*}} : i32] : vector<4xi32>
// CHECK:      %[[V1:.*]] = llvm.insertelement %[[Y1]], %[[V0]][%{{.*}} : i32] : vector<4xi32>
// CHECK:      %[[V2:.*]] = llvm.insertelement %[[Y2]], %[[V1]][%{{.*}} : i32] : vector<4xi32>
// CHECK:      %[[V3:.*]] = llvm.insertelement %[[Y3]], %[[V2]][%{{.*}} : i32] : vector<4xi32>
// CHECK-NEXT: llvm.return %[[V3]] : vector<4xi32>
llvm.func @quad_transpose(%w0: i32, %w1: i32, %w2: i32, %w3: i32, %odd: i1, %upper: i1) -> vector<4xi32> {
  %u = fattn.sm90.quad_transpose %w0, %w1, %w2, %w3, odd = %odd, upper = %upper
  llvm.return %u : vector<4xi32>
}

// -----

// O's pairs into the swizzled tile: pair i at buffer + row_byte +
// (16 (i mod 8) xor swizzle) + (i / 8) atom_bytes; pairs 8 and 9 are in the
// next atom.
// CHECK-LABEL: llvm.func @stage_fragment
// CHECK-SAME: (%[[BASE:.*]]: !llvm.ptr<3>, %[[BUF:.*]]: i32, %[[RB:.*]]: i32, %[[SW:.*]]: i32, %[[A:.*]]: f32, %[[B:.*]]: f32, %[[INV:.*]]: f32)
// CHECK-NEXT: llvm.fmul %[[A]], %[[INV]] : f32
// CHECK-NEXT: llvm.fmul %[[B]], %[[INV]] : f32
// CHECK:      llvm.fptrunc %{{.*}} : vector<2xf32> to vector<2xf16>
// CHECK-NEXT: %[[W:.*]] = llvm.bitcast %{{.*}} : vector<2xf16> to i32
// CHECK-NEXT: %[[U0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[UNIT:.*]] = llvm.xor %[[SW]], %[[U0]] : i32
// CHECK-NEXT: %[[A0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[IN_ROW:.*]] = llvm.add %[[RB]], %[[UNIT]] : i32
// CHECK-NEXT: %[[IN_TILE:.*]] = llvm.add %[[IN_ROW]], %[[A0]] : i32
// CHECK-NEXT: %[[AT:.*]] = llvm.add %[[BUF]], %[[IN_TILE]] : i32
// CHECK-NEXT: %[[PTR:.*]] = llvm.getelementptr %[[BASE]][%[[AT]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK-NEXT: llvm.store %[[W]], %[[PTR]] {alignment = 4 : i64} : i32, !llvm.ptr<3>
// CHECK:      llvm.bitcast
// CHECK-NEXT: llvm.mlir.constant(16 : i32) : i32
// CHECK-NEXT: llvm.xor %[[SW]], %{{.*}} : i32
// CHECK-NEXT: llvm.mlir.constant(0 : i32) : i32
// CHECK:      llvm.mlir.constant(112 : i32) : i32
// CHECK-NEXT: llvm.xor %[[SW]], %{{.*}} : i32
// CHECK-NEXT: llvm.mlir.constant(0 : i32) : i32
// CHECK:      llvm.bitcast
// CHECK-NEXT: llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: llvm.xor %[[SW]], %{{.*}} : i32
// CHECK-NEXT: llvm.mlir.constant(16384 : i32) : i32
// CHECK:      llvm.bitcast
// CHECK-NEXT: llvm.mlir.constant(16 : i32) : i32
// CHECK-NEXT: llvm.xor %[[SW]], %{{.*}} : i32
// CHECK-NEXT: llvm.mlir.constant(16384 : i32) : i32
// CHECK:      llvm.store
// CHECK-NEXT: llvm.return
llvm.func @stage_fragment(%base: !llvm.ptr<3>, %buffer: i32, %rb: i32, %sw: i32, %a: f32, %b: f32, %inv: f32) {
  fattn.sm90.stage_fragment [%a, %b, %a, %b, %a, %b, %a, %b, %a, %b, %a, %b, %a, %b, %a, %b, %a, %b, %a, %b] scale %inv, %base[%buffer], row_byte = %rb, swizzle = %sw, atom_bytes = 16384, element_type = f16
  llvm.return
}

// -----

// A 16-byte unit of the swizzled tile: (unit / 8) atom_bytes + 128 row +
// 16 ((unit mod 8) xor (row mod 8)).
// CHECK-LABEL: llvm.func @load_swizzled_unit
// CHECK-SAME: (%[[BASE:.*]]: !llvm.ptr<3>, %[[ROW:.*]]: i32, %[[UNIT:.*]]: i32)
// CHECK-DAG:  %[[ROW8:.*]] = llvm.and %[[ROW]], %{{.*}} : i32
// CHECK-DAG:  %[[UNIT8:.*]] = llvm.and %[[UNIT]], %{{.*}} : i32
// CHECK:      %[[SWZ:.*]] = llvm.xor %[[UNIT8]], %[[ROW8]] : i32
// CHECK-NEXT: %[[FOUR:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK-NEXT: %[[IN_ROW:.*]] = llvm.shl %[[SWZ]], %[[FOUR]] : i32
// CHECK-NEXT: %[[C128:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT: %[[ROW_BYTE:.*]] = llvm.mul %[[ROW]], %[[C128]] : i32
// CHECK-NEXT: %[[ATOM:.*]] = llvm.mlir.constant(16384 : i32) : i32
// CHECK-NEXT: %[[THREE:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-NEXT: %[[ATOM_IDX:.*]] = llvm.lshr %[[UNIT]], %[[THREE]] : i32
// CHECK-NEXT: %[[ATOM_BYTE:.*]] = llvm.mul %[[ATOM_IDX]], %[[ATOM]] : i32
// CHECK-NEXT: %[[S0:.*]] = llvm.add %[[ATOM_BYTE]], %[[ROW_BYTE]] : i32
// CHECK-NEXT: %[[OFF:.*]] = llvm.add %[[S0]], %[[IN_ROW]] : i32
// CHECK-NEXT: %[[PTR:.*]] = llvm.getelementptr %[[BASE]][%[[OFF]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK-NEXT: %[[V:.*]] = llvm.load %[[PTR]] {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK-NEXT: llvm.return %[[V]] : vector<4xi32>
llvm.func @load_swizzled_unit(%base: !llvm.ptr<3>, %row: i32, %unit: i32) -> vector<4xi32> {
  %v = fattn.sm90.load_swizzled_unit %base[%row, %unit], atom_bytes = 16384
  llvm.return %v : vector<4xi32>
}

// -----

// The warp-uniform value: a shuffle from lane 0 of the whole warp.
// CHECK-LABEL: llvm.func @warp_uniform
// CHECK-SAME: (%[[T:.*]]: i32)
// CHECK-NEXT: %[[ALL:.*]] = llvm.mlir.constant(-1 : i32) : i32
// CHECK-NEXT: %[[CLAMP:.*]] = llvm.mlir.constant(31 : i32) : i32
// CHECK-NEXT: %[[LANE0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[WG:.*]] = nvvm.shfl.sync  idx %[[ALL]], %[[T]], %[[LANE0]], %[[CLAMP]] : i32 -> i32
// CHECK-NEXT: llvm.return %[[WG]] : i32
llvm.func @warp_uniform(%t: i32) -> i32 {
  %wg = fattn.sm90.warp_uniform %t
  llvm.return %wg : i32
}

// -----

// One step of the FP8 V transpose: ldmatrix.x4 at a 32-bit shared address,
// the four prmt (the last result first: selector 1, then 0, of words 2 and
// 3, then of words 0 and 1), stmatrix.x4.trans.
// CHECK-LABEL: llvm.func @value_transpose
// CHECK-SAME: (%[[FROM:.*]]: i32, %[[TO:.*]]: i32, %[[S0:.*]]: i32, %[[S1:.*]]: i32)
// CHECK-NEXT: %[[LD:.*]] = llvm.inline_asm has_side_effects asm_dialect = att "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {$0, $1, $2, $3}, [$4];", "=r,=r,=r,=r,r" %[[FROM]] : (i32) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK-NEXT: %[[W0:.*]] = llvm.extractvalue %[[LD]][0]
// CHECK-NEXT: %[[W1:.*]] = llvm.extractvalue %[[LD]][1]
// CHECK-NEXT: %[[W2:.*]] = llvm.extractvalue %[[LD]][2]
// CHECK-NEXT: %[[W3:.*]] = llvm.extractvalue %[[LD]][3]
// CHECK-NEXT: %[[R3:.*]] = llvm.inline_asm asm_dialect = att "prmt.b32 $0, $1, $2, $3;", "=r,r,r,r" %[[W2]], %[[W3]], %[[S1]] : (i32, i32, i32) -> i32
// CHECK-NEXT: %[[R2:.*]] = llvm.inline_asm asm_dialect = att "prmt.b32 $0, $1, $2, $3;", "=r,r,r,r" %[[W2]], %[[W3]], %[[S0]] : (i32, i32, i32) -> i32
// CHECK-NEXT: %[[R1:.*]] = llvm.inline_asm asm_dialect = att "prmt.b32 $0, $1, $2, $3;", "=r,r,r,r" %[[W0]], %[[W1]], %[[S1]] : (i32, i32, i32) -> i32
// CHECK-NEXT: %[[R0:.*]] = llvm.inline_asm asm_dialect = att "prmt.b32 $0, $1, $2, $3;", "=r,r,r,r" %[[W0]], %[[W1]], %[[S0]] : (i32, i32, i32) -> i32
// CHECK-NEXT: llvm.inline_asm has_side_effects asm_dialect = att "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [$0], {$1, $2, $3, $4};", "r,r,r,r,r" %[[TO]], %[[R0]], %[[R1]], %[[R2]], %[[R3]] : (i32, i32, i32, i32, i32) -> ()
// CHECK-NEXT: llvm.return
llvm.func @value_transpose(%from: i32, %to: i32, %s0: i32, %s1: i32) {
  %w:4 = fattn.sm90.ldmatrix_x4 %from
  %r:4 = fattn.sm90.permute_bytes %w#0, %w#1, %w#2, %w#3, selectors = [%s0, %s1]
  fattn.sm90.stmatrix_x4_trans %to, [%r#0, %r#1, %r#2, %r#3]
  llvm.return
}

// -----

// A shared-memory region is its offset, an i32 constant.
// CHECK-LABEL: llvm.func @shared_region
// CHECK-NEXT: %[[K:.*]] = llvm.mlir.constant(32768 : i32) : i32
// CHECK-NEXT: llvm.return %[[K]] : i32
llvm.func @shared_region() -> i32 {
  %k = fattn.sm90.smem_region key_ring, offset = 32768, bytes = 65536
  llvm.return %k : i32
}

// -----

// L3 with upstream ops around the target ops: a consumer's loop over ring
// tiles as scf.for on i32, with arith and math in its body. The same
// conversion lowers the loop to LLVM branches (SCF -> ControlFlow ->
// LLVM), the arithmetic to LLVM, and the target ops to NVVM.
// CHECK-LABEL: llvm.func @consume_loop
// CHECK-SAME: (%[[BASE:.*]]: !llvm.ptr<3>, %[[N:.*]]: i32, %[[X:.*]]: f32)
// CHECK:      %[[C0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[C1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: llvm.br ^[[HEAD:.*]](%[[C0]], %[[X]] : i32, f32)
// CHECK-NEXT: ^[[HEAD]](%[[T:.*]]: i32, %[[ACC:.*]]: f32):
// CHECK-NEXT: %[[MORE:.*]] = llvm.icmp "slt" %[[T]], %[[N]] : i32
// CHECK-NEXT: llvm.cond_br %[[MORE]], ^[[BODY:.*]], ^[[EXIT:.*]]
// CHECK-NEXT: ^[[BODY]]:
// CHECK:      %[[STAGE:.*]] = llvm.urem %[[T]], %{{.*}} : i32
// CHECK:      %[[FULL:.*]] = llvm.getelementptr %[[BASE]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK:      nvvm.mbarrier.try_wait.parity %[[FULL]], %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32, i32
// CHECK-NEXT: %[[E:.*]] = llvm.intr.exp2(%[[ACC]]) : (f32) -> f32
// CHECK-NEXT: %[[S:.*]] = llvm.fadd %[[ACC]], %[[E]] : f32
// CHECK-NEXT: %[[NEXT:.*]] = llvm.add %[[T]], %[[C1]] : i32
// CHECK-NEXT: llvm.br ^[[HEAD]](%[[NEXT]], %[[S]] : i32, f32)
// CHECK-NEXT: ^[[EXIT]]:
// CHECK-NEXT: llvm.return %[[ACC]] : f32
// CHECK-NOT:  scf.
// CHECK-NOT:  arith.
// CHECK-NOT:  math.
// CHECK-NOT:  fattn.sm90
llvm.func @consume_loop(%base: !llvm.ptr<3>, %n: i32, %x: f32) -> f32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = scf.for %t = %c0 to %n step %c1 iter_args(%acc = %x) -> (f32) : i32 {
    %stage = fattn.sm90.ring_stage %t, stages = 2
    %phase = fattn.sm90.ring_phase %t, stages = 2
    %full = fattn.sm90.ring_barrier %base[%stage], offset = 163848
    fattn.sm90.mbarrier_wait %full, parity = %phase
    %e = math.exp2 %acc : f32
    %s = arith.addf %acc, %e : f32
    scf.yield %s : f32
  }
  llvm.return %r : f32
}

// -----

// A work item of an unmasked order with the consumers' multipliers and
// shifts for q_tiles and heads: each quotient a multiply-high of twice the
// dividend and a shift, each remainder the dividend less the quotient times
// the divisor; the Q tile's rank and the pair from the index, then the batch
// and the head from the pair.
// CHECK-LABEL: llvm.func @work_item_fast
// CHECK-SAME: (%[[I:.*]]: i32, %[[N:.*]]: i32, %[[P:.*]]: i32, %[[H:.*]]: i32, %[[G:.*]]: i32, %[[M0:.*]]: i32, %[[L0:.*]]: i32, %[[M2:.*]]: i32, %[[L2:.*]]: i32)
// CHECK-NEXT: %[[I2:.*]] = llvm.add %[[I]], %[[I]] : i32
// CHECK-NEXT: %[[HI:.*]] = llvm.call_intrinsic "llvm.nvvm.mulhi.ui"(%[[I2]], %[[M0]]) : (i32, i32) -> i32
// CHECK-NEXT: %[[QI:.*]] = llvm.lshr %[[HI]], %[[L0]] : i32
// CHECK-NEXT: %[[QN:.*]] = llvm.mul %[[QI]], %[[N]] : i32
// CHECK-NEXT: %[[RANK:.*]] = llvm.sub %[[I]], %[[QN]] : i32
// CHECK-NEXT: %[[I2B:.*]] = llvm.add %[[I]], %[[I]] : i32
// CHECK-NEXT: %[[HIB:.*]] = llvm.call_intrinsic "llvm.nvvm.mulhi.ui"(%[[I2B]], %[[M0]]) : (i32, i32) -> i32
// CHECK-NEXT: %[[PAIR:.*]] = llvm.lshr %[[HIB]], %[[L0]] : i32
// CHECK-NEXT: %[[P2:.*]] = llvm.add %[[PAIR]], %[[PAIR]] : i32
// CHECK-NEXT: %[[PHI:.*]] = llvm.call_intrinsic "llvm.nvvm.mulhi.ui"(%[[P2]], %[[M2]]) : (i32, i32) -> i32
// CHECK-NEXT: %[[BATCH:.*]] = llvm.lshr %[[PHI]], %[[L2]] : i32
// CHECK-NEXT: %[[P2B:.*]] = llvm.add %[[PAIR]], %[[PAIR]] : i32
// CHECK-NEXT: %[[PHIB:.*]] = llvm.call_intrinsic "llvm.nvvm.mulhi.ui"(%[[P2B]], %[[M2]]) : (i32, i32) -> i32
// CHECK-NEXT: %[[QP:.*]] = llvm.lshr %[[PHIB]], %[[L2]] : i32
// CHECK-NEXT: %[[QH:.*]] = llvm.mul %[[QP]], %[[H]] : i32
// CHECK-NEXT: %[[HEAD:.*]] = llvm.sub %[[PAIR]], %[[QH]] : i32
// CHECK-NEXT: llvm.call @use(%[[RANK]], %[[HEAD]], %[[BATCH]])
// CHECK-NOT:  udiv
// CHECK-NOT:  urem
llvm.func @use(i32, i32, i32)
llvm.func @work_item_fast(%i: i32, %n: i32, %p: i32, %h: i32, %g: i32, %m0: i32, %l0: i32, %m2: i32, %l2: i32) {
  %w:3 = fattn.sm90.work_item %i, q_tiles = %n, pairs = %p, heads = %h, grid = %g, ctas_per_pair = 3, fast_divisors = [true, true] magic(%m0, %l0, %m2, %l2)
  llvm.call @use(%w#0, %w#1, %w#2) : (i32, i32, i32) -> ()
  llvm.return
}

// -----

// A masked order without the launch's tail and with reversed Q tiles, by
// div.u32 and rem.u32: windows of 2 x grid items of the Q tile fastest order
// from 22 Q tiles on (below, one window of all items with few pairs, or of
// one pair's items; the size from an opaque copy of the pairs, which keeps
// it in the kernels' item loops), the last one to the end of the items,
// [begin, end) with begin = a x
// q_tiles + b and end = a' x q_tiles + b'; in a window the rank slowest, its
// segment's pairs per rank dividing the offset past the segment's first
// item; the pair from a, one more for ranks below b; the Q tile counts from
// the last.
// CHECK-LABEL: llvm.func @work_item_plain
// CHECK-SAME: (%[[I:.*]]: i32, %[[N:.*]]: i32, %[[P:.*]]: i32, %[[H:.*]]: i32, %[[G:.*]]: i32)
// CHECK-NEXT: %[[PAIRS:.*]] = llvm.inline_asm has_side_effects asm_dialect = att "mov.b32 $0, $1;", "=r,r" %[[P]] : (i32) -> i32
// CHECK-NEXT: %[[C3:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-NEXT: %[[CTAS:.*]] = llvm.mul %[[PAIRS]], %[[C3]] : i32
// CHECK-NEXT: %[[FEW:.*]] = llvm.icmp "ule" %[[CTAS]], %[[G]] : i32
// CHECK-NEXT: %[[ALL:.*]] = llvm.mul %[[N]], %[[PAIRS]] : i32
// CHECK-NEXT: %[[C22:.*]] = llvm.mlir.constant(22 : i32) : i32
// CHECK-NEXT: %[[LONG:.*]] = llvm.icmp "ule" %[[C22]], %[[N]] : i32
// CHECK-NEXT: %[[SHORT:.*]] = llvm.select %[[FEW]], %[[ALL]], %[[N]] : i1, i32
// CHECK-NEXT: %[[ROUNDS:.*]] = llvm.add %[[G]], %[[G]] : i32
// CHECK-NEXT: %[[WINDOW:.*]] = llvm.select %[[LONG]], %[[ROUNDS]], %[[SHORT]] : i1, i32
// CHECK-NEXT: %[[TOTAL:.*]] = llvm.mul %[[N]], %[[PAIRS]] : i32
// CHECK:      %[[WHOLE:.*]] = llvm.udiv %[[TOTAL]], %[[WINDOW]] : i32
// CHECK:      %[[LAST:.*]] = llvm.sub %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: %[[IDX:.*]] = llvm.udiv %[[I]], %[[WINDOW]] : i32
// CHECK-NEXT: %[[EARLY:.*]] = llvm.icmp "slt" %[[IDX]], %[[LAST]] : i32
// CHECK-NEXT: %[[Q:.*]] = llvm.select %[[EARLY]], %[[IDX]], %[[LAST]] : i1, i32
// CHECK-NEXT: %[[BEGIN:.*]] = llvm.mul %[[Q]], %[[WINDOW]] : i32
// CHECK-NEXT: %[[NEXT:.*]] = llvm.add %[[BEGIN]], %[[WINDOW]] : i32
// CHECK-NEXT: %[[NOT_LAST:.*]] = llvm.icmp "slt" %[[Q]], %[[LAST]] : i32
// CHECK-NEXT: %[[END:.*]] = llvm.select %[[NOT_LAST]], %[[NEXT]], %[[TOTAL]] : i1, i32
// CHECK-NEXT: %[[A:.*]] = llvm.udiv %[[BEGIN]], %[[N]] : i32
// CHECK-NEXT: %[[B:.*]] = llvm.urem %[[BEGIN]], %[[N]] : i32
// CHECK-NEXT: %[[B2:.*]] = llvm.urem %[[END]], %[[N]] : i32
// CHECK-NEXT: %[[A2:.*]] = llvm.udiv %[[END]], %[[N]] : i32
// CHECK-NEXT: %[[PER_RANK:.*]] = llvm.sub %[[A2]], %[[A]] : i32
// CHECK-NEXT: %[[RISING:.*]] = llvm.icmp "slt" %[[B]], %[[B2]] : i32
// CHECK-NEXT: %[[LOW:.*]] = llvm.select %[[RISING]], %[[B]], %[[B2]] : i1, i32
// CHECK-NEXT: %[[HIGH:.*]] = llvm.select %[[RISING]], %[[B2]], %[[B]] : i1, i32
// CHECK:      %[[FEWER:.*]] = llvm.sub %[[PER_RANK]], %{{.*}} : i32
// CHECK:      %[[MORE:.*]] = llvm.add %[[PER_RANK]], %{{.*}} : i32
// CHECK-NEXT: %[[MIDDLE:.*]] = llvm.select %[[RISING]], %[[MORE]], %[[FEWER]] : i1, i32
// CHECK-NEXT: %[[BEFORE_LOW:.*]] = llvm.mul %[[PER_RANK]], %[[LOW]] : i32
// CHECK-NEXT: %[[SPAN:.*]] = llvm.sub %[[HIGH]], %[[LOW]] : i32
// CHECK-NEXT: %[[IN_SPAN:.*]] = llvm.mul %[[MIDDLE]], %[[SPAN]] : i32
// CHECK-NEXT: %[[BEFORE_HIGH:.*]] = llvm.add %[[BEFORE_LOW]], %[[IN_SPAN]] : i32
// CHECK-NEXT: %[[OFFSET:.*]] = llvm.sub %[[I]], %[[BEGIN]] : i32
// CHECK-NEXT: %[[IN_LOW:.*]] = llvm.icmp "slt" %[[OFFSET]], %[[BEFORE_LOW]] : i32
// CHECK-NEXT: %[[IN_MIDDLE:.*]] = llvm.icmp "slt" %[[OFFSET]], %[[BEFORE_HIGH]] : i32
// CHECK:      %[[FIRST_RANK:.*]] = llvm.select %[[IN_LOW]], %{{.*}}, %{{.*}} : i1, i32
// CHECK:      %[[FIRST_ITEM:.*]] = llvm.select %[[IN_LOW]], %{{.*}}, %{{.*}} : i1, i32
// CHECK-NEXT: %[[SEGMENT_PER_RANK:.*]] = llvm.select %[[IN_MIDDLE]], %[[MIDDLE]], %[[PER_RANK]] : i1, i32
// CHECK-NEXT: %[[PER:.*]] = llvm.select %[[IN_LOW]], %[[PER_RANK]], %[[SEGMENT_PER_RANK]] : i1, i32
// CHECK-NEXT: %[[WITHIN:.*]] = llvm.sub %[[OFFSET]], %[[FIRST_ITEM]] : i32
// CHECK-NEXT: %[[STEP:.*]] = llvm.udiv %[[WITHIN]], %[[PER]] : i32
// CHECK-NEXT: %[[RANK:.*]] = llvm.add %[[FIRST_RANK]], %[[STEP]] : i32
// CHECK:      %[[CUT:.*]] = llvm.icmp "slt" %[[RANK]], %[[B]] : i32
// CHECK-NEXT: %[[SKIP:.*]] = llvm.select %[[CUT]], %{{.*}}, %{{.*}} : i1, i32
// CHECK-NEXT: %[[FIRST_PAIR:.*]] = llvm.add %[[A]], %[[SKIP]] : i32
// CHECK-NEXT: %[[COLUMN:.*]] = llvm.urem %[[WITHIN]], %[[PER]] : i32
// CHECK-NEXT: %[[PAIR:.*]] = llvm.add %[[FIRST_PAIR]], %[[COLUMN]] : i32
// CHECK-NEXT: %[[C1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[LAST_TILE:.*]] = llvm.sub %[[N]], %[[C1]] : i32
// CHECK-NEXT: %[[QT:.*]] = llvm.sub %[[LAST_TILE]], %[[RANK]] : i32
// CHECK-NEXT: %[[BATCH:.*]] = llvm.udiv %[[PAIR]], %[[H]] : i32
// CHECK-NEXT: %[[HEAD:.*]] = llvm.urem %[[PAIR]], %[[H]] : i32
// CHECK-NEXT: llvm.call @use(%[[QT]], %[[HEAD]], %[[BATCH]])
llvm.func @use(i32, i32, i32)
llvm.func @work_item_plain(%i: i32, %n: i32, %p: i32, %h: i32, %g: i32) {
  %w:3 = fattn.sm90.work_item %i, q_tiles = %n, pairs = %p, heads = %h, grid = %g, ctas_per_pair = 3, fast_divisors = [false, false] masked reverse_q_tiles
  llvm.call @use(%w#0, %w#1, %w#2) : (i32, i32, i32) -> ()
  llvm.return
}

// -----

// A masked order with the launch's tail of %t pairs: the windows (above),
// then the Q tile fastest and, from (pairs - t) x q_tiles on, the Q tile
// slowest over the last t pairs; the windows where pairs x 1 <= grid.
// CHECK-LABEL: llvm.func @work_item_tail
// CHECK-SAME: (%[[I:.*]]: i32, %[[N:.*]]: i32, %[[P:.*]]: i32, %[[H:.*]]: i32, %[[G:.*]]: i32, %[[T:.*]]: i32)
// CHECK-NEXT: %[[PAIRS:.*]] = llvm.inline_asm has_side_effects {{.*}} %[[P]] : (i32) -> i32
// CHECK-NEXT: %[[C1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[CTAS:.*]] = llvm.mul %[[PAIRS]], %[[C1]] : i32
// CHECK-NEXT: %[[FEW:.*]] = llvm.icmp "ule" %[[CTAS]], %[[G]] : i32
// CHECK:      llvm.sub %[[I]], %{{.*}} : i32
// CHECK:      %[[STEP:.*]] = llvm.udiv %[[WITHIN:.*]], %[[PER:.*]] : i32
// CHECK-NEXT: %[[W_RANK:.*]] = llvm.add %{{.*}}, %[[STEP]] : i32
// CHECK:      %[[COLUMN:.*]] = llvm.urem %[[WITHIN]], %[[PER]] : i32
// CHECK-NEXT: %[[W_PAIR:.*]] = llvm.add %{{.*}}, %[[COLUMN]] : i32
// CHECK-NEXT: %[[FIRST:.*]] = llvm.sub %[[P]], %[[T]] : i32
// CHECK-NEXT: %[[START:.*]] = llvm.mul %[[FIRST]], %[[N]] : i32
// CHECK-NEXT: %[[IN_TAIL:.*]] = llvm.icmp "ule" %[[START]], %[[I]] : i32
// CHECK-NEXT: %[[OFFSET:.*]] = llvm.sub %[[I]], %[[START]] : i32
// CHECK-NEXT: %[[RANK_F:.*]] = llvm.urem %[[I]], %[[N]] : i32
// CHECK-NEXT: %[[RANK_T:.*]] = llvm.udiv %[[OFFSET]], %[[T]] : i32
// CHECK-NEXT: %[[RANK_O:.*]] = llvm.select %[[IN_TAIL]], %[[RANK_T]], %[[RANK_F]] : i1, i32
// CHECK-NEXT: %[[PAIR_F:.*]] = llvm.udiv %[[I]], %[[N]] : i32
// CHECK-NEXT: %[[OF_TAIL:.*]] = llvm.urem %[[OFFSET]], %[[T]] : i32
// CHECK-NEXT: %[[PAIR_T:.*]] = llvm.add %[[FIRST]], %[[OF_TAIL]] : i32
// CHECK-NEXT: %[[PAIR_O:.*]] = llvm.select %[[IN_TAIL]], %[[PAIR_T]], %[[PAIR_F]] : i1, i32
// CHECK-NEXT: %[[RANK:.*]] = llvm.select %[[FEW]], %[[W_RANK]], %[[RANK_O]] : i1, i32
// CHECK-NEXT: %[[PAIR:.*]] = llvm.select %[[FEW]], %[[W_PAIR]], %[[PAIR_O]] : i1, i32
// CHECK-NEXT: %[[BATCH:.*]] = llvm.udiv %[[PAIR]], %[[H]] : i32
// CHECK-NEXT: %[[HEAD:.*]] = llvm.urem %[[PAIR]], %[[H]] : i32
// CHECK-NEXT: llvm.call @use(%[[RANK]], %[[HEAD]], %[[BATCH]])
llvm.func @use(i32, i32, i32)
llvm.func @work_item_tail(%i: i32, %n: i32, %p: i32, %h: i32, %g: i32, %t: i32) {
  %w:3 = fattn.sm90.work_item %i, q_tiles = %n, pairs = %p, heads = %h, grid = %g, ctas_per_pair = 1, fast_divisors = [false, false] tail_pairs = %t masked
  llvm.call @use(%w#0, %w#1, %w#2) : (i32, i32, i32) -> ()
  llvm.return
}
