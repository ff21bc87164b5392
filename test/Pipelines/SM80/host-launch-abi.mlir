// REQUIRES: host-cc
// RUN: fattn-opt %fattn_src_root/examples/host-launch/attention.mlir --fattn-sm80-pipeline="host-launch=true" -o %t.mlir
// RUN: mlir-opt %t.mlir --gpu-module-to-binary=format=isa --convert-scf-to-cf --convert-cf-to-llvm --convert-arith-to-llvm --convert-index-to-llvm --finalize-memref-to-llvm --convert-func-to-llvm --gpu-to-llvm --reconcile-unrealized-casts -o %t.llvm.mlir
// RUN: mlir-translate --mlir-to-llvmir %t.llvm.mlir -o %t.ll
// RUN: llc -filetype=obj -relocation-model=pic %t.ll -o %t.o
// RUN: %host_cc %t.o %S/../Inputs/host_launch_main.c %S/../Inputs/mgpu_recorder.c -o %t.exe
// RUN: %t.exe | FileCheck %s

// The host code of examples/host-launch/attention.mlir, run on the CPU with a
// recording mgpu* runtime: the sm_80 kernel (named after the outlined
// function) launched with grid (ceil(1000 / 128), 8 heads, batch 2), 128
// threads, its shared memory and 24 parameters; no tensor maps.
// CHECK: module load: ptx with a kernel, O{{[0-9]}}
// CHECK-NEXT: causal
// CHECK-NEXT: kernel attention_causal_attention
// CHECK-NEXT: launch grid (8, 8, 2) block (128, 1, 1) smem {{[0-9]+}} params 24 extra null
// CHECK-NEXT: pointers 0 8192 16384 24576 16384
// CHECK-NEXT: sizes 2 8 2 1000 700
// CHECK-NEXT: strides 1024000 128 1024 179200 128 256 179200 128 256 1024000 128 1024 8000 1000
// CHECK-NEXT: synchronize
// CHECK-NEXT: full, no queries
// CHECK-NEXT: done
