// --fattn-tile-grad takes the memref form, static head dims and positive
// tile sizes.
// RUN: not fattn-opt %s -split-input-file --fattn-tile-grad 2>&1 | FileCheck %s --check-prefix=FORM
// RUN: not fattn-opt %s -split-input-file --fattn-tile-grad="block-n=0" 2>&1 | FileCheck %s --check-prefix=BLOCK

func.func @tensors(%x: tensor<1x2x8x16xf32>, %lse: tensor<1x2x8xf32>) -> (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) {
  // FORM: error: 'fattn.attention_grad' op on tensors: --fattn-tile-grad takes the memref form (run --one-shot-bufferize first)
  %r:3 = fattn.attention_grad ins(%x, %x, %x, %x, %x, %lse : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8xf32>)
                              outs(%x, %x, %x : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
  return %r#0, %r#1, %r#2 : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
}

// -----

func.func @dynamic_head_dim(%x: memref<1x2x8x?xf32>, %lse: memref<1x2x8xf32>) {
  // FORM: error: 'fattn.attention_grad' op cannot be tiled: the head dims of query and value must be static
  fattn.attention_grad ins(%x, %x, %x, %x, %x, %lse : memref<1x2x8x?xf32>, memref<1x2x8x?xf32>, memref<1x2x8x?xf32>, memref<1x2x8x?xf32>, memref<1x2x8x?xf32>, memref<1x2x8xf32>)
                       outs(%x, %x, %x : memref<1x2x8x?xf32>, memref<1x2x8x?xf32>, memref<1x2x8x?xf32>) {scale = 0.25 : f32}
  return
}

// -----

func.func @block_sizes(%x: memref<1x2x8x16xf32>, %lse: memref<1x2x8xf32>) {
  // BLOCK: error: 'fattn.attention_grad' op cannot be tiled: block sizes must be positive, found block-m = 64, block-n = 0
  fattn.attention_grad ins(%x, %x, %x, %x, %x, %lse : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8xf32>)
                       outs(%x, %x, %x : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>)
  return
}
