// RUN: fattn-opt %s -split-input-file -verify-diagnostics

func.func @input_rank(%x: memref<4x16x64xbf16>, %y: memref<1x4x16x64xf8E4M3FN>, %d: memref<f32>) {
  // expected-error @+1 {{'fattn.quantize' op expected input to be rank 4 ([batch, heads, seq, d]), found rank 3}}
  fattn.quantize ins(%x : memref<4x16x64xbf16>) outs(%y : memref<1x4x16x64xf8E4M3FN>) descale(%d : memref<f32>)
  return
}

// -----

func.func @output_rank(%x: memref<1x4x16x64xbf16>, %y: memref<4x16x64xf8E4M3FN>, %d: memref<f32>) {
  // expected-error @+1 {{expected output to be rank 4 ([batch, heads, seq, d]), found rank 3}}
  fattn.quantize ins(%x : memref<1x4x16x64xbf16>) outs(%y : memref<4x16x64xf8E4M3FN>) descale(%d : memref<f32>)
  return
}

// -----

func.func @input_type(%x: memref<1x4x16x64xf8E4M3FN>, %y: memref<1x4x16x64xf8E4M3FN>, %d: memref<f32>) {
  // expected-error @+1 {{expected input element type to be f32, f16 or bf16, found 'f8E4M3FN'}}
  fattn.quantize ins(%x : memref<1x4x16x64xf8E4M3FN>) outs(%y : memref<1x4x16x64xf8E4M3FN>) descale(%d : memref<f32>)
  return
}

// -----

func.func @output_type(%x: memref<1x4x16x64xbf16>, %y: memref<1x4x16x64xf8E5M2>, %d: memref<f32>) {
  // expected-error @+1 {{expected output element type to be f8E4M3FN, found 'f8E5M2'}}
  fattn.quantize ins(%x : memref<1x4x16x64xbf16>) outs(%y : memref<1x4x16x64xf8E5M2>) descale(%d : memref<f32>)
  return
}

// -----

func.func @output_shape(%x: memref<1x4x16x64xbf16>, %y: memref<1x4x17x64xf8E4M3FN>, %d: memref<f32>) {
  // expected-error @+1 {{expected output dim 2 (17) to match input dim 2 (16)}}
  fattn.quantize ins(%x : memref<1x4x16x64xbf16>) outs(%y : memref<1x4x17x64xf8E4M3FN>) descale(%d : memref<f32>)
  return
}

// -----

func.func @descale_type(%x: memref<1x4x16x64xbf16>, %y: memref<1x4x16x64xf8E4M3FN>, %d: memref<bf16>) {
  // expected-error @+1 {{expected descale element type to be f32, found 'bf16'}}
  fattn.quantize ins(%x : memref<1x4x16x64xbf16>) outs(%y : memref<1x4x16x64xf8E4M3FN>) descale(%d : memref<bf16>)
  return
}

// -----

func.func @descale_rank(%x: memref<1x4x16x64xbf16>, %y: memref<1x4x16x64xf8E4M3FN>, %d: memref<4xf32>) {
  // expected-error @+1 {{expected descale to be rank 0 (per tensor), 2 ([batch, head groups]) or 3 ([batch, heads, blocks]), found rank 1}}
  fattn.quantize ins(%x : memref<1x4x16x64xbf16>) outs(%y : memref<1x4x16x64xf8E4M3FN>) descale(%d : memref<4xf32>)
  return
}

// -----

func.func @block_not_positive(%x: memref<1x4x16x64xbf16>, %y: memref<1x4x16x64xf8E4M3FN>, %d: memref<1x4x1xf32>) {
  // expected-error @+1 {{expected a positive block, found 0}}
  fattn.quantize ins(%x : memref<1x4x16x64xbf16>) outs(%y : memref<1x4x16x64xf8E4M3FN>) descale(%d : memref<1x4x1xf32>) {block = 0 : i64}
  return
}

// -----

func.func @block_without_blocks(%x: memref<1x4x16x64xbf16>, %y: memref<1x4x16x64xf8E4M3FN>, %d: memref<1x4xf32>) {
  // expected-error @+1 {{expected block only with a rank-3 (per-block) descale, found rank 2}}
  fattn.quantize ins(%x : memref<1x4x16x64xbf16>) outs(%y : memref<1x4x16x64xf8E4M3FN>) descale(%d : memref<1x4xf32>) {block = 16 : i64}
  return
}

// -----

func.func @group_batch(%x: memref<2x4x16x64xbf16>, %y: memref<2x4x16x64xf8E4M3FN>, %d: memref<3x4xf32>) {
  // expected-error @+1 {{expected descale dim 0 (3) to match the input's batch size (2)}}
  fattn.quantize ins(%x : memref<2x4x16x64xbf16>) outs(%y : memref<2x4x16x64xf8E4M3FN>) descale(%d : memref<3x4xf32>)
  return
}

// -----

func.func @group_count(%x: memref<2x4x16x64xbf16>, %y: memref<2x4x16x64xf8E4M3FN>, %d: memref<2x3xf32>) {
  // expected-error @+1 {{expected the descale's head group count (3) to divide the head count (4)}}
  fattn.quantize ins(%x : memref<2x4x16x64xbf16>) outs(%y : memref<2x4x16x64xf8E4M3FN>) descale(%d : memref<2x3xf32>)
  return
}

// -----

func.func @group_zero(%x: memref<2x4x16x64xbf16>, %y: memref<2x4x16x64xf8E4M3FN>, %d: memref<2x0xf32>) {
  // expected-error @+1 {{expected the descale's head group count (0) to divide the head count (4)}}
  fattn.quantize ins(%x : memref<2x4x16x64xbf16>) outs(%y : memref<2x4x16x64xf8E4M3FN>) descale(%d : memref<2x0xf32>)
  return
}

// -----

func.func @block_missing(%x: memref<1x4x16x64xbf16>, %y: memref<1x4x16x64xf8E4M3FN>, %d: memref<1x4x1xf32>) {
  // expected-error @+1 {{expected a block attribute with a rank-3 (per-block) descale}}
  fattn.quantize ins(%x : memref<1x4x16x64xbf16>) outs(%y : memref<1x4x16x64xf8E4M3FN>) descale(%d : memref<1x4x1xf32>)
  return
}

// -----

func.func @block_batch(%x: memref<1x4x16x64xbf16>, %y: memref<1x4x16x64xf8E4M3FN>, %d: memref<2x4x1xf32>) {
  // expected-error @+1 {{expected descale dim 0 (2) to match the input's batch size (1)}}
  fattn.quantize ins(%x : memref<1x4x16x64xbf16>) outs(%y : memref<1x4x16x64xf8E4M3FN>) descale(%d : memref<2x4x1xf32>) {block = 16 : i64}
  return
}

// -----

func.func @block_heads(%x: memref<1x4x16x64xbf16>, %y: memref<1x4x16x64xf8E4M3FN>, %d: memref<1x2x1xf32>) {
  // expected-error @+1 {{expected descale dim 1 (2) to match the input's head count (4)}}
  fattn.quantize ins(%x : memref<1x4x16x64xbf16>) outs(%y : memref<1x4x16x64xf8E4M3FN>) descale(%d : memref<1x2x1xf32>) {block = 16 : i64}
  return
}

// -----

func.func @block_count(%x: memref<1x4x100x64xbf16>, %y: memref<1x4x100x64xf8E4M3FN>, %d: memref<1x4x3xf32>) {
  // expected-error @+1 {{expected descale block count (3) to be ceildiv(sequence length, block) = 2}}
  fattn.quantize ins(%x : memref<1x4x100x64xbf16>) outs(%y : memref<1x4x100x64xf8E4M3FN>) descale(%d : memref<1x4x3xf32>) {block = 64 : i64}
  return
}

// -----

func.func @signs_width(%x: memref<1x4x16x96xbf16>, %s: memref<96xf32>, %y: memref<1x4x16x96xf8E4M3FN>, %d: memref<f32>) {
  // expected-error @+1 {{expected a static power-of-two d with signs, found 96}}
  fattn.quantize ins(%x : memref<1x4x16x96xbf16>) signs(%s : memref<96xf32>) outs(%y : memref<1x4x16x96xf8E4M3FN>) descale(%d : memref<f32>)
  return
}

// -----

func.func @signs_dynamic_width(%x: memref<1x4x16x?xbf16>, %s: memref<?xf32>, %y: memref<1x4x16x?xf8E4M3FN>, %d: memref<f32>) {
  // expected-error @+1 {{expected a static power-of-two d with signs, found ?}}
  fattn.quantize ins(%x : memref<1x4x16x?xbf16>) signs(%s : memref<?xf32>) outs(%y : memref<1x4x16x?xf8E4M3FN>) descale(%d : memref<f32>)
  return
}

// -----

func.func @signs_count(%x: memref<1x4x16x64xbf16>, %s: memref<32xf32>, %y: memref<1x4x16x64xf8E4M3FN>, %d: memref<f32>) {
  // expected-error @+1 {{expected 64 signs, found 32}}
  fattn.quantize ins(%x : memref<1x4x16x64xbf16>) signs(%s : memref<32xf32>) outs(%y : memref<1x4x16x64xf8E4M3FN>) descale(%d : memref<f32>)
  return
}

// -----

func.func @signs_type(%x: memref<1x4x16x64xbf16>, %s: memref<64xf16>, %y: memref<1x4x16x64xf8E4M3FN>, %d: memref<f32>) {
  // expected-error @+1 {{'fattn.quantize' op operand #1 must be 1D memref of 32-bit float values, but got 'memref<64xf16>'}}
  fattn.quantize ins(%x : memref<1x4x16x64xbf16>) signs(%s : memref<64xf16>) outs(%y : memref<1x4x16x64xf8E4M3FN>) descale(%d : memref<f32>)
  return
}
