// The meaning of the fp8 layout ops on the CPU (--fattn-lower-fp8-layout in
// --fattn-cpu-pipeline), on 64 keys numbered by their value: "wgmma_e4m3_k32"
// puts keys 2q, 2q + 1, 2q + 8, 2q + 9 into slots 4q .. 4q + 3 of each 16.
// RUN: fattn-opt %s --fattn-cpu-pipeline \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | FileCheck %s

// permute_keys of a vector: result[k] = key pi(k).
// CHECK: data =
// CHECK-NEXT: [0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15, 16, 17, 24, 25, 18, 19, 26, 27, 20, 21, 28, 29, 22, 23, 30, 31, 32, 33, 40, 41, 34, 35, 42, 43, 36, 37, 44, 45, 38, 39, 46, 47, 48, 49, 56, 57, 50, 51, 58, 59, 52, 53, 60, 61, 54, 55, 62, 63]
// transpose_tile of a 64 x 2 tile with input[k, n] = k + 100 n:
// result[n, k] = pi(k) + 100 n.
// CHECK: data =
// CHECK-NEXT: [0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15, 16, 17, 24, 25, 18, 19, 26, 27, 20, 21, 28, 29, 22, 23, 30, 31, 32, 33, 40, 41, 34, 35, 42, 43, 36, 37, 44, 45, 38, 39, 46, 47, 48, 49, 56, 57, 50, 51, 58, 59, 52, 53, 60, 61, 54, 55, 62, 63],
// CHECK-NEXT: [100, 101, 108, 109, 102, 103, 110, 111, 104, 105, 112, 113, 106, 107, 114, 115, 116, 117, 124, 125, 118, 119, 126, 127, 120, 121, 128, 129, 122, 123, 130, 131, 132, 133, 140, 141, 134, 135, 142, 143, 136, 137, 144, 145, 138, 139, 146, 147, 148, 149, 156, 157, 150, 151, 158, 159, 152, 153, 160, 161, 154, 155, 162, 163]
// permute_keys of a 2 x 64 tile permutes each row alike.
// CHECK: data =
// CHECK-NEXT: [100, 101, 108, 109, 102, 103, 110, 111, 104, 105, 112, 113, 106, 107, 114, 115, 116, 117, 124, 125, 118, 119, 126, 127, 120, 121, 128, 129, 122, 123, 130, 131, 132, 133, 140, 141, 134, 135, 142, 143, 136, 137, 144, 145, 138, 139, 146, 147, 148, 149, 156, 157, 150, 151, 158, 159, 152, 153, 160, 161, 154, 155, 162, 163],
// CHECK-NEXT: [200, 201, 208, 209, 202, 203, 210, 211, 204, 205, 212, 213, 206, 207, 214, 215, 216, 217, 224, 225, 218, 219, 226, 227, 220, 221, 228, 229, 222, 223, 230, 231, 232, 233, 240, 241, 234, 235, 242, 243, 236, 237, 244, 245, 238, 239, 246, 247, 248, 249, 256, 257, 250, 251, 258, 259, 252, 253, 260, 261, 254, 255, 262, 263]

func.func private @printMemrefF32(memref<*xf32>)

func.func @print(%t: tensor<*xf32>) {
  %m = bufferization.to_buffer %t : tensor<*xf32> to memref<*xf32>
  call @printMemrefF32(%m) : (memref<*xf32>) -> ()
  return
}

func.func @main() {
  %keys = tensor.generate {
  ^bb0(%k: index):
    %i = arith.index_cast %k : index to i32
    %f = arith.sitofp %i : i32 to f32
    tensor.yield %f : f32
  } : tensor<64xf32>
  %pk = fattn.permute_keys %keys {key_permutation = "wgmma_e4m3_k32"} : tensor<64xf32>
  %pk_u = tensor.cast %pk : tensor<64xf32> to tensor<*xf32>
  call @print(%pk_u) : (tensor<*xf32>) -> ()

  %v = tensor.generate {
  ^bb0(%k: index, %n: index):
    %c100 = arith.constant 100 : index
    %n100 = arith.muli %n, %c100 : index
    %e = arith.addi %k, %n100 : index
    %i = arith.index_cast %e : index to i32
    %f = arith.sitofp %i : i32 to f32
    tensor.yield %f : f32
  } : tensor<64x2xf32>
  %vt = fattn.transpose_tile %v {key_permutation = "wgmma_e4m3_k32"} : tensor<64x2xf32> -> tensor<2x64xf32>
  %vt_u = tensor.cast %vt : tensor<2x64xf32> to tensor<*xf32>
  call @print(%vt_u) : (tensor<*xf32>) -> ()

  %p = tensor.generate {
  ^bb0(%m: index, %k: index):
    %c100 = arith.constant 100 : index
    %m1 = arith.constant 1 : index
    %row = arith.addi %m, %m1 : index
    %r100 = arith.muli %row, %c100 : index
    %e = arith.addi %k, %r100 : index
    %i = arith.index_cast %e : index to i32
    %f = arith.sitofp %i : i32 to f32
    tensor.yield %f : f32
  } : tensor<2x64xf32>
  %pp = fattn.permute_keys %p {key_permutation = "wgmma_e4m3_k32"} : tensor<2x64xf32>
  %pp_u = tensor.cast %pp : tensor<2x64xf32> to tensor<*xf32>
  call @print(%pp_u) : (tensor<*xf32>) -> ()
  return
}
