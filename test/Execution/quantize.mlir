// RUN: fattn-opt %s --fattn-cpu-pipeline \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | FileCheck %s

// Exact cases of fattn.quantize, printed as descales and e4m3 bytes.
//
// Per block of one row, bf16 input:
//   row 0 (896, -448, 3.5, 0): amax 896, scale 2 -> (448, -224, 1.75, 0),
//     bytes 0x7E = 126, 0x80 | 0x76 = 246, 0x3E = 62, 0;
//   row 1 (448, 1.0625, 1.1875, 1.5 * 2^-9): scale 1; 1.0625 and 1.1875 lie
//     halfway between e4m3 neighbours and round to the even mantissa (1.0 =
//     56, 1.25 = 58), 1.5 * 2^-9 halfway between subnormals 1 and 2 (-> 2);
//   row 2 (zeros): scale 2^-126 (the floor; 1.17549e-38), bytes 0.
// CHECK: data =
// CHECK-NEXT: {{\[}}[2, 1, 1.17549e-38]]]
// CHECK: data =
// CHECK-NEXT: [126, 246, 62, 0]
// CHECK-NEXT: [126, 56, 58, 2]
// CHECK-NEXT: [0, 0, 0, 0]
//
// Per tensor with the fused rotation: (112, 224, 336, 448) diag(1, -1, 1, 1)
// H / 2 = (336, 112, -448, 224), exact in f32; amax 448, scale 1; 336 is a
// tie between 320 (0x7A = 122) and 352 and goes to even; 112 = 0x6E = 110,
// -448 = 0xFE = 254, 224 = 0x76 = 118.
// CHECK: data =
// CHECK-NEXT: [1]
// CHECK: data =
// CHECK-NEXT: [122, 110, 254, 118]

memref.global "private" constant @rows : memref<1x1x3x4xbf16> = dense<[[[[896.0, -448.0, 3.5, 0.0], [448.0, 1.0625, 1.1875, 0.0029296875], [0.0, 0.0, 0.0, 0.0]]]]>
memref.global "private" constant @x : memref<1x1x1x4xf32> = dense<[[[[112.0, 224.0, 336.0, 448.0]]]]>
memref.global "private" constant @signs : memref<4xf32> = dense<[1.0, -1.0, 1.0, 1.0]>
func.func private @printMemrefF32(memref<*xf32>)
func.func private @printMemrefI32(memref<*xi32>)

// The e4m3 bytes of `y` as i32, printed.
func.func @print_bytes(%y: memref<?x?x?x?xf8E4M3FN>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %b = memref.dim %y, %c0 : memref<?x?x?x?xf8E4M3FN>
  %h = memref.dim %y, %c1 : memref<?x?x?x?xf8E4M3FN>
  %s = memref.dim %y, %c2 : memref<?x?x?x?xf8E4M3FN>
  %d = memref.dim %y, %c3 : memref<?x?x?x?xf8E4M3FN>
  %codes = memref.alloc(%b, %h, %s, %d) : memref<?x?x?x?xi32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%y : memref<?x?x?x?xf8E4M3FN>) outs(%codes : memref<?x?x?x?xi32>) {
  ^bb0(%x: f8E4M3FN, %o: i32):
    %i = arith.bitcast %x : f8E4M3FN to i8
    %w = arith.extui %i : i8 to i32
    linalg.yield %w : i32
  }
  %u = memref.cast %codes : memref<?x?x?x?xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  memref.dealloc %codes : memref<?x?x?x?xi32>
  return
}

func.func @main() {
  %rows = memref.get_global @rows : memref<1x1x3x4xbf16>
  %y = memref.alloc() : memref<1x1x3x4xf8E4M3FN>
  %d = memref.alloc() : memref<1x1x3xf32>
  fattn.quantize ins(%rows : memref<1x1x3x4xbf16>) outs(%y : memref<1x1x3x4xf8E4M3FN>) descale(%d : memref<1x1x3xf32>) {block = 1 : i64}
  %du = memref.cast %d : memref<1x1x3xf32> to memref<*xf32>
  call @printMemrefF32(%du) : (memref<*xf32>) -> ()
  %yd = memref.cast %y : memref<1x1x3x4xf8E4M3FN> to memref<?x?x?x?xf8E4M3FN>
  call @print_bytes(%yd) : (memref<?x?x?x?xf8E4M3FN>) -> ()

  %x = memref.get_global @x : memref<1x1x1x4xf32>
  %s = memref.get_global @signs : memref<4xf32>
  %z = memref.alloc() : memref<1x1x1x4xf8E4M3FN>
  %dz = memref.alloc() : memref<f32>
  fattn.quantize ins(%x : memref<1x1x1x4xf32>) signs(%s : memref<4xf32>) outs(%z : memref<1x1x1x4xf8E4M3FN>) descale(%dz : memref<f32>)
  %dzu = memref.cast %dz : memref<f32> to memref<*xf32>
  call @printMemrefF32(%dzu) : (memref<*xf32>) -> ()
  %zd = memref.cast %z : memref<1x1x1x4xf8E4M3FN> to memref<?x?x?x?xf8E4M3FN>
  call @print_bytes(%zd) : (memref<?x?x?x?xf8E4M3FN>) -> ()
  memref.dealloc %y : memref<1x1x3x4xf8E4M3FN>
  memref.dealloc %d : memref<1x1x3xf32>
  memref.dealloc %z : memref<1x1x1x4xf8E4M3FN>
  memref.dealloc %dz : memref<f32>
  return
}
