// REQUIRES: host-cc
// RUN: fattn-opt %fattn_src_root/examples/host-launch/attention.mlir --fattn-sm90-pipeline="host-launch=true" -o %t.mlir
// RUN: mlir-opt %t.mlir --gpu-module-to-binary=format=isa --convert-scf-to-cf --convert-cf-to-llvm --convert-arith-to-llvm --convert-index-to-llvm --finalize-memref-to-llvm --convert-func-to-llvm --gpu-to-llvm --reconcile-unrealized-casts -o %t.llvm.mlir
// RUN: mlir-translate --mlir-to-llvmir %t.llvm.mlir -o %t.ll
// RUN: llc -filetype=obj -relocation-model=pic %t.ll -o %t.o
// RUN: %host_cc %t.o %S/../Inputs/host_launch_main.c %S/../Inputs/mgpu_recorder.c -o %t.exe
// RUN: %t.exe | FileCheck %s

// The host code of examples/host-launch/attention.mlir, run on the CPU with a
// recording mgpu* runtime: what it asks of CUDA. The kernels load when the
// program starts; the causal function launches its kernel with grid
// (ceil(1000 / 128), 8 heads, batch 2), 384 threads, its shared memory and
// 27 parameters: element 0 of Q, K, V, O and the LSE (byte offsets from the
// buffer; the LSE's descriptor offset of 4096 floats included), the sizes,
// the strides of the BSHD views in elements, then the tensor maps of Q, K,
// V by value (bf16, innermost dim first, strides in bytes, box 64 x 128,
// 128B swizzle, 256B L2 promotion). Without queries nothing launches.
// CHECK: module load: ptx with a kernel, O{{[0-9]}}
// CHECK-NEXT: causal
// CHECK-NEXT: kernel fattn_fwd_sm90_d128_bf16_m128n128s2_causal_lse
// CHECK-NEXT: launch grid (8, 8, 2) block (384, 1, 1) smem {{[0-9]+}} params 27 extra null
// CHECK-NEXT: pointers 0 8192 16384 24576 16384
// CHECK-NEXT: sizes 2 8 2 1000 700
// CHECK-NEXT: strides 1024000 128 1024 179200 128 256 179200 128 256 1024000 128 1024 8000 1000
// CHECK-NEXT: tensor map 24: type 9 at 0 dims 128 1000 8 2 strides 2048 256 2048000 box 64/1 128/1 1/1 1/1 0330
// CHECK-NEXT: tensor map 25: type 9 at 8192 dims 128 700 2 2 strides 512 256 358400 box 64/1 128/1 1/1 1/1 0330
// CHECK-NEXT: tensor map 26: type 9 at 16384 dims 128 700 2 2 strides 512 256 358400 box 64/1 128/1 1/1 1/1 0330
// CHECK-NEXT: synchronize
// CHECK-NEXT: full, no queries
// CHECK-NEXT: done
