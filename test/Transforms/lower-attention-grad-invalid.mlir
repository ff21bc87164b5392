// --fattn-lower-attention-grad takes the memref form, and tile sizes that are
// positive and whose block_m x block_n scratch tiles stay below 2^28 elements.
// RUN: not fattn-opt %s -split-input-file --fattn-lower-attention-grad 2>&1 | FileCheck %s --check-prefix=TENSOR
// RUN: not fattn-opt %s -split-input-file --fattn-lower-attention-grad="block-m=0" 2>&1 | FileCheck %s --check-prefix=BLOCK
// RUN: not fattn-opt %s -split-input-file --fattn-lower-attention-grad="block-m=65536 block-n=8192" 2>&1 | FileCheck %s --check-prefix=HUGE

func.func @tensors(%x: tensor<1x2x8x16xf32>, %lse: tensor<1x2x8xf32>) -> (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) {
  // TENSOR: error: 'fattn.attention_grad' op on tensors: --fattn-lower-attention-grad takes the memref form (run --one-shot-bufferize first)
  %r:3 = fattn.attention_grad ins(%x, %x, %x, %x, %x, %lse : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8xf32>)
                              outs(%x, %x, %x : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
  return %r#0, %r#1, %r#2 : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
}

// -----

func.func @block_sizes(%x: memref<1x2x8x16xf32>, %lse: memref<1x2x8xf32>) {
  // BLOCK: error: 'fattn.attention_grad' op cannot be lowered: block sizes must be positive, found block-m = 0, block-n = 64
  // HUGE: error: 'fattn.attention_grad' op cannot be lowered: block-m * block-n must be at most 2^28, found block-m = 65536, block-n = 8192
  fattn.attention_grad ins(%x, %x, %x, %x, %x, %lse : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8xf32>)
                       outs(%x, %x, %x : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>)
  return
}
