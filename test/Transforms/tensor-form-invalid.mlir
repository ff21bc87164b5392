// The lowerings take the memref form; on the tensor form they stop with a
// diagnostic that says to bufferize first.
// RUN: not fattn-opt %s -split-input-file --fattn-tile 2>&1 | FileCheck %s --check-prefix=TILE
// RUN: not fattn-opt %s -split-input-file --fattn-lower-rowwise 2>&1 | FileCheck %s --check-prefix=ROWWISE
// RUN: not fattn-opt %s -split-input-file --fattn-lower-quantize 2>&1 | FileCheck %s --check-prefix=QUANTIZE
// RUN: not fattn-opt %s -split-input-file --fattn-lower-hadamard 2>&1 | FileCheck %s --check-prefix=HADAMARD

func.func @attention(%q: tensor<1x2x8x16xf32>, %o: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  // TILE: error: 'fattn.attention' op on tensors: --fattn-tile takes the memref form (run --one-shot-bufferize first)
  // ROWWISE: error: 'fattn.attention' op on tensors: --fattn-lower-rowwise takes the memref form (run --one-shot-bufferize first)
  %r = fattn.attention ins(%q, %q, %q : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%o : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %r : tensor<1x2x8x16xf32>
}

// -----

func.func @quantize(%x: tensor<1x4x16x64xbf16>, %y: tensor<1x4x16x64xf8E4M3FN>, %d: tensor<f32>) -> tensor<1x4x16x64xf8E4M3FN> {
  // QUANTIZE: error: 'fattn.quantize' op on tensors: --fattn-lower-quantize takes the memref form (run --one-shot-bufferize first)
  %r:2 = fattn.quantize ins(%x : tensor<1x4x16x64xbf16>) outs(%y : tensor<1x4x16x64xf8E4M3FN>) descale(%d : tensor<f32>) -> tensor<1x4x16x64xf8E4M3FN>, tensor<f32>
  return %r#0 : tensor<1x4x16x64xf8E4M3FN>
}

// -----

func.func @hadamard(%x: tensor<4x8xf32>, %s: tensor<8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // HADAMARD: error: 'fattn.hadamard_rotate' op on tensors: --fattn-lower-hadamard takes the memref form (run --one-shot-bufferize first)
  %r = fattn.hadamard_rotate ins(%x : tensor<4x8xf32>) signs(%s : tensor<8xf32>) outs(%y : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
