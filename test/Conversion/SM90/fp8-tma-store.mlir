// RUN: fattn-opt %s --fattn-sm90-pipeline="kernel-name=k persistent=true tma-store=true" | FileCheck %s
// RUN: fattn-opt %s --fattn-sm90-pipeline="kernel-name=k persistent=true" | FileCheck %s --check-prefix=REGS

// tma-store=true on FP8: the e4m3 Q buffer (128 rows x 128 bytes, 16384
// bytes at offset 0) cannot hold O's bf16 tile, so O gets a buffer of its own
// right after it (two 64-column atoms of 128 rows: 32768 more bytes of shared
// memory), and O's tensor map takes boxes of 64 rows of one bf16 atom.
// CHECK: \22dynamic_smem_bytes\22:148592
// CHECK-SAME: {\22box\22:[1,1,64,64],\22element_strides\22:[1,1,1,1],\22element_type\22:\22bf16\22,\22name\22:\22o_map\22
// REGS: \22dynamic_smem_bytes\22:115824
// REGS-NOT: o_map

// The epilogue, after 1 / l of the thread's two rows: the warpgroup's first thread waits until the previous item's
// stores have read the buffer, the warpgroup's barrier (12 + warpgroup)
// passes that on, O goes into the buffer at byte 16384, fenced for the async
// proxy, and after the barrier the first thread stores its 64 rows, one TMA
// store per atom (fp8-compile-short-seqs.mlir checks the columns in the PTX),
// and commits them; nobody waits for them.
// The buffer is the shared-memory region after Q's: the entry's region
// offsets, from the aligned base, are Q's buffer at 0 and O's at 16384.
// CHECK: llvm.mlir.addressof @fattn_smem
// CHECK: llvm.getelementptr
// CHECK-NEXT: llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[OFF:.*]] = llvm.mlir.constant(16384 : i32) : i32
// CHECK: llvm.fdiv
// CHECK: llvm.fdiv
// CHECK-NEXT: llvm.select
// CHECK-NEXT: llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: llvm.mlir.constant(127 : i32) : i32
// CHECK-NEXT: llvm.and
// CHECK-NEXT: llvm.icmp "eq"
// CHECK-NEXT: llvm.cond_br %{{.*}}, ^[[WAIT:bb[0-9]+]], ^[[WRITE:bb[0-9]+]]
// CHECK-NEXT: ^[[WAIT]]:
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK-NEXT: llvm.br ^[[WRITE]]
// CHECK-NEXT: ^[[WRITE]]:
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// CHECK: llvm.add %[[OFF]], %{{.*}} : i32
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr<3>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %[[MAP:.*]], %{{.*}}, box[%{{.*}}, %[[ROW:.*]], %{{.*}}, %{{.*}}]
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %[[MAP]], %{{.*}}, box[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}]
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// No O leaves by global stores from registers.
// CHECK-NOT: !llvm.ptr<1>
// REGS: llvm.store {{.*}} !llvm.ptr<1>
func.func @rows(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>, %v: memref<?x?x?x128xf8E4M3FN>, %o: memref<?x?x?x128xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>) outs(%o : memref<?x?x?x128xbf16>)
  return
}
