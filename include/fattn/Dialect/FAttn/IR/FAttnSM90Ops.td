//===- FAttnSM90Ops.td - sm_90a target ops (L3) ------------*- tablegen -*-===//
//
// The target level (L3) of the sm_90a back end: the K/V ring's position of a
// tile (stage and phase as SSA values), the mbarriers of the ring and of Q,
// the named barriers between warpgroups, the TMA copies that complete on
// the mbarriers and the TMA stores of O, and the
// wgmma of S = Q K^T (both operands in shared memory) and of P V (P in
// registers) with their descriptors, fence, commit and wait, the
// warpgroups' roles, the quad reductions of the rows, P's packing, O's
// stores (from registers, and staged in a swizzled tile in shared memory),
// the FP8 producer's V transpose (ldmatrix, byte permutes, stmatrix) and the
// warp-uniform warpgroup index. The sm_90a
// kernel emitter builds them inside the kernel's llvm.func, between
// LLVM-dialect code; the patterns of populateSM90TargetToNVVMPatterns
// (--convert-fattn-sm90-target-to-nvvm) turn each into the NVVM and LLVM
// operations it stands for. Shared memory is addressed by byte offsets from
// the kernel's 1024-byte-aligned shared-memory base (an `!llvm.ptr<3>`),
// within the regions that fattn.sm90.smem_region names.
//
// Upstream nvgpu has mbarrier and TMA ops, on `!nvgpu.mbarrier.group`
// memrefs and `!nvgpu.tensormap.descriptor`s; their lowering addresses
// shared memory through memref descriptors, not by offsets from the aligned
// base, which would change every kernel's PTX, so these ops stay fattn's.
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_DIALECT_FATTN_IR_FATTNSM90OPS_TD
#define FATTN_DIALECT_FATTN_IR_FATTNSM90OPS_TD

include "fattn/Dialect/FAttn/IR/FAttnDialect.td"
include "mlir/IR/EnumAttr.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

// Pointers of the kernel: shared memory (address space 3), global memory
// (address space 1), and the generic pointer of a TMA tensor map (a by-value
// kernel parameter).
def FAttn_SM90SharedPtr : Type<
    And<[CPred<"::llvm::isa<::mlir::LLVM::LLVMPointerType>($_self)">,
         CPred<"::llvm::cast<::mlir::LLVM::LLVMPointerType>($_self)"
               ".getAddressSpace() == 3">]>,
    "LLVM pointer to shared memory (address space 3)",
    "::mlir::LLVM::LLVMPointerType">,
    BuildableType<"::mlir::LLVM::LLVMPointerType::get($_builder.getContext(), 3)">;

def FAttn_SM90GlobalPtr : Type<
    And<[CPred<"::llvm::isa<::mlir::LLVM::LLVMPointerType>($_self)">,
         CPred<"::llvm::cast<::mlir::LLVM::LLVMPointerType>($_self)"
               ".getAddressSpace() == 1">]>,
    "LLVM pointer to global memory (address space 1)",
    "::mlir::LLVM::LLVMPointerType">,
    BuildableType<"::mlir::LLVM::LLVMPointerType::get($_builder.getContext(), 1)">;

def FAttn_SM90TensorMapPtr : Type<
    And<[CPred<"::llvm::isa<::mlir::LLVM::LLVMPointerType>($_self)">,
         CPred<"::llvm::cast<::mlir::LLVM::LLVMPointerType>($_self)"
               ".getAddressSpace() == 0">]>,
    "generic LLVM pointer (a TMA tensor map)",
    "::mlir::LLVM::LLVMPointerType">,
    BuildableType<"::mlir::LLVM::LLVMPointerType::get($_builder.getContext(), 0)">;

// A 16-byte unit of 16-bit elements in registers: four i32.
def FAttn_SM90UnitVector : Type<
    And<[CPred<"::llvm::isa<::mlir::VectorType>($_self)">,
         CPred<"::llvm::cast<::mlir::VectorType>($_self) == "
               "::mlir::VectorType::get({4}, "
               "::mlir::IntegerType::get($_self.getContext(), 32))">]>,
    "vector of four i32 (a 16-byte unit)", "::mlir::VectorType">,
    BuildableType<"::mlir::VectorType::get({4}, $_builder.getI32Type())">;

// The accumulator of a wgmma: a literal struct of the thread's f32
// registers (the verifier checks the fields). As a plain Type, it prints
// as `!llvm.struct<...>` in the op's assembly.
def FAttn_SM90Accumulator : Type<
    CPred<"::llvm::isa<::mlir::LLVM::LLVMStructType>($_self)">,
    "LLVM struct (a wgmma accumulator)", "::mlir::Type">;

class FAttn_SM90Op<string mnemonic, list<Trait> traits = []>
    : FAttn_Op<"sm90." # mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Shared memory
//===----------------------------------------------------------------------===//

def FAttn_SM90SharedRegion : I32EnumAttr<"SM90SharedRegion",
    "a region of the sm_90a kernel's dynamic shared memory", [
  I32EnumAttrCase<"QBuffers", 0, "q_buffers">,
  I32EnumAttrCase<"Output", 1, "output">,
  I32EnumAttrCase<"KeyRing", 2, "key_ring">,
  I32EnumAttrCase<"ValueRing", 3, "value_ring">,
  I32EnumAttrCase<"TransposedValueRing", 4, "transposed_value_ring">,
  I32EnumAttrCase<"Ones", 5, "ones">,
  I32EnumAttrCase<"KeyFactors", 6, "key_factors">,
  I32EnumAttrCase<"Barriers", 7, "barriers">
]> {
  let cppNamespace = "::mlir::fattn";
}

def FAttn_SM90SmemRegionOp : FAttn_SM90Op<"smem_region", [Pure]> {
  let summary = "the byte offset of a named region of the kernel's shared memory";
  let description = [{
    The kernel's dynamic shared memory, from its 1024-byte-aligned base,
    holds in order Q's buffers (`q_buffers`), O's own staging buffer
    (`output`), the stages of the K, V and V^T rings (`key_ring`,
    `value_ring`, `transposed_value_ring`), the tile of ones of the row
    sums' wgmma (`ones`), the consumer warpgroups' slots of K's factors
    (`key_factors`) and the mbarriers (`barriers`). The result (an i32) is
    the byte `offset` of `region`, which is `bytes` long: the start from
    which the kernel addresses the region's stages, atoms and rows. Tiles
    that TMA or wgmma reads or that are swizzled (every region but
    `key_factors` and `barriers`) start at a multiple of 1024 bytes (the
    128-byte swizzle's pattern), the others at a multiple of 8; a region
    ends within the 227 KiB of a CTA's dynamic shared memory less the 1024
    bytes of the base's alignment.

    ```mlir
    %k = fattn.sm90.smem_region key_ring, offset = 32768, bytes = 65536
    ```
  }];
  let arguments = (ins FAttn_SM90SharedRegion:$region, I64Attr:$offset,
                       I64Attr:$bytes);
  let results = (outs I32:$result);
  let assemblyFormat = [{
    $region `,` `offset` `=` $offset `,` `bytes` `=` $bytes attr-dict
  }];
  let builders = [
    OpBuilder<(ins "::mlir::fattn::SM90SharedRegion":$region,
                   "int64_t":$offset, "int64_t":$bytes), [{
      build($_builder, $_state, $_builder.getI32Type(), region, offset,
            bytes);
    }]>
  ];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Warpgroup roles
//===----------------------------------------------------------------------===//

def FAttn_SM90RegisterAction : I32EnumAttr<"SM90RegisterAction",
    "whether setmaxnreg raises or lowers a warpgroup's registers", [
  I32EnumAttrCase<"Increase", 0, "increase">,
  I32EnumAttrCase<"Decrease", 1, "decrease">
]> {
  let cppNamespace = "::mlir::fattn";
}

def FAttn_SM90SetMaxNRegOp : FAttn_SM90Op<"setmaxnreg"> {
  let summary = "raise or lower the registers of the calling warpgroup";
  let description = [{
    `setmaxnreg.{inc,dec}.sync.aligned.u32 count`: the warpgroup's threads
    move to `count` registers each, a multiple of 8 in [24, 256]. With warp
    specialization the producer warpgroup gives registers back (`decrease`)
    and the consumer warpgroups take them (`increase`).

    ```mlir
    fattn.sm90.setmaxnreg decrease 24
    fattn.sm90.setmaxnreg increase 240
    ```
  }];
  let arguments = (ins FAttn_SM90RegisterAction:$action, I64Attr:$count);
  let assemblyFormat = "$action $count attr-dict";
  let hasVerifier = 1;
}

def FAttn_SM90ElectOneOp : FAttn_SM90Op<"elect_one"> {
  let summary = "true in one elected thread of the warp";
  let description = [{
    `elect.sync` over the whole warp: true in exactly one of the warp's
    active threads (the issuing thread of the producer's TMA copies), false
    in the others. The warp's threads all execute it, converged.

    ```mlir
    %elected = fattn.sm90.elect_one
    ```
  }];
  let results = (outs I1:$elected);
  let assemblyFormat = "attr-dict";
  let builders = [
    OpBuilder<(ins), [{ build($_builder, $_state, $_builder.getI1Type()); }]>
  ];
}

def FAttn_SM90WarpUniformOp : FAttn_SM90Op<"warp_uniform"> {
  let summary = "a value the same in every lane, made known to be warp-uniform";
  let description = [{
    `value`, which every lane of the warp holds alike (the consumer
    warpgroup's index, the thread index / 128), broadcast from lane 0
    (`shfl.sync.idx` of lane 0). The result is the same value, but ptxas
    knows it to be warp-uniform: what the kernel derives from it (Q's wgmma
    descriptors, which step by the warpgroup's 64 rows) stays in uniform
    registers instead of taking two R2UR moves before each wgmma. The whole
    warp executes it, converged.

    ```mlir
    %wg = fattn.sm90.warp_uniform %index
    ```
  }];
  let arguments = (ins I32:$value);
  let results = (outs I32:$result);
  let assemblyFormat = "$value attr-dict";
  let builders = [
    OpBuilder<(ins "::mlir::Value":$value), [{
      build($_builder, $_state, $_builder.getI32Type(), value);
    }]>
  ];
}

//===----------------------------------------------------------------------===//
// The consumer's row reductions
//===----------------------------------------------------------------------===//

def FAttn_SM90QuadReduceKind : I32EnumAttr<"SM90QuadReduceKind",
    "how a quad reduction combines its threads' values", [
  I32EnumAttrCase<"Max", 0, "max">,
  I32EnumAttrCase<"Add", 1, "add">
]> {
  let cppNamespace = "::mlir::fattn";
}

def FAttn_SM90QuadReduceOp : FAttn_SM90Op<"quad_reduce"> {
  let summary = "combine a value over the four threads of a quad";
  let description = [{
    The four threads of a quad (lanes 4i to 4i + 3) hold the same two rows
    of a wgmma accumulator, each a quarter of the columns: each thread gets
    the `max` (`llvm.intr.maxnum`) or the `add` of the quad's four
    `value`s, by two butterfly shuffles (lane xor 1, then xor 2), each
    combined with the thread's own value. The row max of the online softmax
    and the row sum of the epilogue. The whole warp executes it, converged.

    ```mlir
    %row_max = fattn.sm90.quad_reduce max %x
    %row_sum = fattn.sm90.quad_reduce add %l
    ```
  }];
  let arguments = (ins FAttn_SM90QuadReduceKind:$kind, F32:$value);
  let results = (outs F32:$result);
  let assemblyFormat = "$kind $value attr-dict";
  let builders = [
    OpBuilder<(ins "::mlir::fattn::SM90QuadReduceKind":$kind,
                   "::mlir::Value":$value), [{
      build($_builder, $_state, $_builder.getF32Type(), kind, value);
    }]>
  ];
}

//===----------------------------------------------------------------------===//
// P's packing
//===----------------------------------------------------------------------===//

def FAttn_SM90PackPairOp : FAttn_SM90Op<"pack_pair", [Pure]> {
  let summary = "two f32 rounded to 16-bit floats in one i32";
  let description = [{
    `low` and `high` rounded to the nearest `element_type` (bf16 or f16),
    `low` in bits 0-15 and `high` in bits 16-31: two of P's probabilities
    in a register of the A fragment of the P V wgmma, or two of O's values
    on their way to global memory. Lowered to the `fptrunc` of a vector of
    the two (`cvt.rn.bf16x2.f32` in PTX) and its bitcast to i32.

    ```mlir
    %p01 = fattn.sm90.pack_pair %p0, %p1, element_type = bf16
    ```
  }];
  let arguments = (ins F32:$low, F32:$high, TypeAttr:$element_type);
  let results = (outs I32:$packed);
  let assemblyFormat = [{
    $low `,` $high `,` `element_type` `=` $element_type attr-dict
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Value":$low, "::mlir::Value":$high,
                   "::mlir::Type":$elementType), [{
      build($_builder, $_state, $_builder.getI32Type(), low, high,
            elementType);
    }]>
  ];
  let hasVerifier = 1;
}

def FAttn_SM90PackE4M3Op : FAttn_SM90Op<"pack_e4m3", [Pure]> {
  let summary = "four f32 rounded to e4m3 in one i32";
  let description = [{
    `byte0` to `byte3` rounded to the nearest e4m3 (f8E4M3FN, saturating
    at +-448), in bytes 0 to 3 of the result: four of P's probabilities in a
    register of the A fragment of the e4m3 P V wgmma. Lowered to two
    `cvt.rn.satfinite.e4m3x2.f32` (of bytes 0-1 and of bytes 2-3), whose
    results become the register's halves in place (`mov.b32 {lo, hi}`), or,
    with `by_permute`, zero-extended and joined by a `prmt`, which needs no
    register for the merged halves.

    ```mlir
    %a0 = fattn.sm90.pack_e4m3 %p0, %p1, %p4, %p5
    %a1 = fattn.sm90.pack_e4m3 %p2, %p3, %p6, %p7 by_permute
    ```
  }];
  let arguments = (ins F32:$byte0, F32:$byte1, F32:$byte2, F32:$byte3,
                       UnitAttr:$by_permute);
  let results = (outs I32:$packed);
  let assemblyFormat = [{
    $byte0 `,` $byte1 `,` $byte2 `,` $byte3 (`by_permute` $by_permute^)?
    attr-dict
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Value":$byte0, "::mlir::Value":$byte1,
                   "::mlir::Value":$byte2, "::mlir::Value":$byte3,
                   "bool":$byPermute), [{
      build($_builder, $_state, $_builder.getI32Type(), byte0, byte1, byte2,
            byte3, byPermute);
    }]>
  ];
}

def FAttn_SM90PackBytesOp : FAttn_SM90Op<"pack_bytes", [Pure]> {
  let summary = "four f32 in [0, 1) as the bytes round(256 u) of one i32";
  let description = [{
    `byte0` to `byte3` (u, each in [0, 1)) as the bytes round(256 u), in
    bytes 0 to 3 of the result: with `linear-exp2`, the FP8 kernel computes
    P's e4m3 bit patterns as u = byte / 256 (a linear 2^x within each power
    of two), and these are the registers of the A fragment of its P V
    wgmma. Lowered to two `cvt.rn.f16x2.f32` (of bytes 0-1 and of bytes
    2-3) and an `fma.rn.f16x2` each, 256 u + 1536, an f16 whose low byte is
    round(256 u), and a `prmt` of those low bytes.

    ```mlir
    %a0 = fattn.sm90.pack_bytes %u0, %u1, %u4, %u5
    ```
  }];
  let arguments = (ins F32:$byte0, F32:$byte1, F32:$byte2, F32:$byte3);
  let results = (outs I32:$packed);
  let assemblyFormat = "$byte0 `,` $byte1 `,` $byte2 `,` $byte3 attr-dict";
  let builders = [
    OpBuilder<(ins "::mlir::Value":$byte0, "::mlir::Value":$byte1,
                   "::mlir::Value":$byte2, "::mlir::Value":$byte3), [{
      build($_builder, $_state, $_builder.getI32Type(), byte0, byte1, byte2,
            byte3);
    }]>
  ];
}

//===----------------------------------------------------------------------===//
// O's stores
//===----------------------------------------------------------------------===//

def FAttn_SM90StoreFragmentOp : FAttn_SM90Op<"store_fragment"> {
  let summary = "a thread's pairs of one accumulator row, scaled and packed, to global memory";
  let description = [{
    The thread's values of one row of a wgmma accumulator (m64nN: the
    thread holds columns 8 i + 2 q and 8 i + 2 q + 1 of its rows, q its
    lane mod 4), pair i = (`values`[2 i], `values`[2 i + 1]), each
    multiplied by `scale` (O / l), rounded to `element_type` (bf16 or f16)
    as by `fattn.sm90.pack_pair` and stored as one 4-byte word at element
    `offset` + 8 i of `output`: `offset` (i64) is the element of the row's
    column 2 q. A warp's store writes 16 bytes into each of 8 rows. The
    epilogue's O from registers, pair by pair.

    ```mlir
    fattn.sm90.store_fragment [%o0, %o1, %o4, %o5] scale %inv, %out[%offset], element_type = bf16
    ```
  }];
  let arguments = (ins Variadic<F32>:$values, F32:$scale,
                       FAttn_SM90GlobalPtr:$output, I64:$offset,
                       TypeAttr:$element_type);
  let assemblyFormat = [{
    ` ` `[` $values `]` `scale` $scale `,` $output `[` $offset `]` `,`
    `element_type` `=` $element_type attr-dict
  }];
  let hasVerifier = 1;
}

def FAttn_SM90QuadTransposeOp : FAttn_SM90Op<"quad_transpose"> {
  let summary = "a 4 x 4 transpose of 32-bit words across the threads of a quad";
  let description = [{
    Thread q of a quad (lane mod 4) holds `word0` to `word3`, its 4-byte
    parts of four consecutive 8-column groups 4 m to 4 m + 3 of a row (the
    accumulator layout); afterwards it holds the four parts of group
    4 m + q, of threads 0 to 3 in order, as one 16-byte vector that one
    store writes (a quad then writes 64 contiguous bytes of the row). `odd`
    and `upper` are bits 0 and 1 of q (i1, computed once per thread). Two
    butterfly stages (lane xor 2, then xor 1), each of two `shfl.sync.bfly`
    of the words selected by the bit. The whole warp executes it,
    converged.

    ```mlir
    %unit = fattn.sm90.quad_transpose %w0, %w1, %w2, %w3, odd = %odd, upper = %upper
    ```
  }];
  let arguments = (ins I32:$word0, I32:$word1, I32:$word2, I32:$word3,
                       I1:$odd, I1:$upper);
  let results = (outs FAttn_SM90UnitVector:$unit);
  let assemblyFormat = [{
    $word0 `,` $word1 `,` $word2 `,` $word3 `,` `odd` `=` $odd `,` `upper`
    `=` $upper attr-dict
  }];
  let builders = [
    OpBuilder<(ins "::mlir::ValueRange":$words, "::mlir::Value":$odd,
                   "::mlir::Value":$upper), [{
      build($_builder, $_state,
            ::mlir::VectorType::get({4}, $_builder.getI32Type()), words[0],
            words[1], words[2], words[3], odd, upper);
    }]>
  ];
}

def FAttn_SM90StageFragmentOp : FAttn_SM90Op<"stage_fragment"> {
  let summary = "a thread's pairs of one accumulator row, scaled and packed, into a swizzled tile in shared memory";
  let description = [{
    As `fattn.sm90.store_fragment`, pair i of the row (`values`[2 i],
    `values`[2 i + 1], times `scale`, rounded to `element_type`) is one
    4-byte word, written to shared memory at byte
    `buffer` + `row_byte` + (16 (i mod 8) xor `swizzle`) + (i / 8) `atom_bytes`
    of `base`: a tile of 64-column atoms (`atom_bytes` each, 128-byte rows)
    whose 16-byte units are swizzled by the row mod 8, Q's layout and that
    of a 128-byte-swizzled TMA box, so that each store instruction of a
    warp hits 8 distinct units. `row_byte` is the row's byte (128 row) plus
    the thread's column pair within a unit (4 q), `swizzle` (row mod 8) 16:
    the thread's two rows share it. O staged on its way out (copied out by
    `fattn.sm90.load_swizzled_unit`, or by TMA stores).

    ```mlir
    fattn.sm90.stage_fragment [%o0, %o1, %o4, %o5] scale %inv, %base[%buffer], row_byte = %rb, swizzle = %sw, atom_bytes = 16384, element_type = bf16
    ```
  }];
  let arguments = (ins Variadic<F32>:$values, F32:$scale,
                       FAttn_SM90SharedPtr:$base, I32:$buffer, I32:$row_byte,
                       I32:$swizzle, I64Attr:$atom_bytes,
                       TypeAttr:$element_type);
  let assemblyFormat = [{
    ` ` `[` $values `]` `scale` $scale `,` $base `[` $buffer `]` `,` `row_byte`
    `=` $row_byte `,` `swizzle` `=` $swizzle `,` `atom_bytes` `=`
    $atom_bytes `,` `element_type` `=` $element_type attr-dict
  }];
  let hasVerifier = 1;
}

def FAttn_SM90LoadSwizzledUnitOp : FAttn_SM90Op<"load_swizzled_unit"> {
  let summary = "one 16-byte unit of a row of a swizzled tile in shared memory";
  let description = [{
    The 16 bytes of unit `unit` (columns 8 `unit` to 8 `unit` + 7 of 16-bit
    elements) of row `row` of the tile at `base` in the layout of
    `fattn.sm90.stage_fragment` (64-column atoms of `atom_bytes`, 128-byte
    rows, units swizzled by the row mod 8): byte
    (`unit` / 8) `atom_bytes` + 128 `row` + 16 ((`unit` mod 8) xor (`row` mod 8)),
    as a vector of four i32, 16-byte aligned. Staged O copied out whole
    units at a time, consecutive threads along a row.

    ```mlir
    %v = fattn.sm90.load_swizzled_unit %base[%row, %unit], atom_bytes = 16384
    ```
  }];
  let arguments = (ins FAttn_SM90SharedPtr:$base, I32:$row, I32:$unit,
                       I64Attr:$atom_bytes);
  let results = (outs FAttn_SM90UnitVector:$result);
  let assemblyFormat = [{
    $base `[` $row `,` $unit `]` `,` `atom_bytes` `=` $atom_bytes attr-dict
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Value":$base, "::mlir::Value":$row,
                   "::mlir::Value":$unit, "uint64_t":$atomBytes), [{
      build($_builder, $_state,
            ::mlir::VectorType::get({4}, $_builder.getI32Type()), base, row,
            unit, atomBytes);
    }]>
  ];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// The FP8 producer's V transpose
//===----------------------------------------------------------------------===//

def FAttn_SM90LdmatrixX4Op : FAttn_SM90Op<"ldmatrix_x4"> {
  let summary = "load four 8 x 8 matrices of 16-bit elements from shared memory";
  let description = [{
    `ldmatrix.sync.aligned.m8n8.x4.shared.b16`: lanes 8 j to 8 j + 7 give
    the 16-byte rows of matrix j (`address`: the lane's row, a 32-bit
    shared-memory address, which takes one register where an `!llvm.ptr<3>`
    would take two); each thread gets one 4-byte word of each matrix (row
    lane / 4, columns 2 (lane mod 4) and + 1). With `fattn.sm90.permute_bytes`
    and `fattn.sm90.stmatrix_x4_trans`, one step of the FP8 producer's V
    transpose (SM90FP8Transpose.h). The whole warp executes it, converged,
    after the wait for the rows' arrival.

    ```mlir
    %w0, %w1, %w2, %w3 = fattn.sm90.ldmatrix_x4 %address
    ```
  }];
  let arguments = (ins I32:$address);
  let results = (outs I32:$word0, I32:$word1, I32:$word2, I32:$word3);
  let assemblyFormat = "$address attr-dict";
  let builders = [
    OpBuilder<(ins "::mlir::Value":$address), [{
      ::mlir::Type i32 = $_builder.getI32Type();
      build($_builder, $_state, i32, i32, i32, i32, address);
    }]>
  ];
}

def FAttn_SM90PermuteBytesOp : FAttn_SM90Op<"permute_bytes", [Pure]> {
  let summary = "the byte regrouping of the FP8 V transpose";
  let description = [{
    Result 2 k + s is the `prmt.b32` of `word`(2 k) and `word`(2 k + 1) by
    `selector`s (the four bytes of the two words that the selector's nibbles
    pick): between `fattn.sm90.ldmatrix_x4` and
    `fattn.sm90.stmatrix_x4_trans`, whose transpose moves 16-bit elements,
    it regroups each lane's e4m3 bytes so that the two make a transpose of
    bytes (with the keys permuted by wgmma_e4m3_k32). The selectors are the
    lane's (fp8TransposeSelector, and it xor 0x2222). Lowered last result
    first.

    ```mlir
    %r0, %r1, %r2, %r3 = fattn.sm90.permute_bytes %w0, %w1, %w2, %w3, selectors = [%s0, %s1]
    ```
  }];
  let arguments = (ins I32:$word0, I32:$word1, I32:$word2, I32:$word3,
                       I32:$selector0, I32:$selector1);
  let results = (outs I32:$result0, I32:$result1, I32:$result2,
                      I32:$result3);
  let assemblyFormat = [{
    $word0 `,` $word1 `,` $word2 `,` $word3 `,` `selectors` `=` `[`
    $selector0 `,` $selector1 `]` attr-dict
  }];
  let builders = [
    OpBuilder<(ins "::mlir::ValueRange":$words, "::mlir::Value":$selector0,
                   "::mlir::Value":$selector1), [{
      ::mlir::Type i32 = $_builder.getI32Type();
      build($_builder, $_state, i32, i32, i32, i32, words[0], words[1],
            words[2], words[3], selector0, selector1);
    }]>
  ];
}

def FAttn_SM90StmatrixX4TransOp : FAttn_SM90Op<"stmatrix_x4_trans"> {
  let summary = "store four 8 x 8 matrices of 16-bit elements, transposed, to shared memory";
  let description = [{
    `stmatrix.sync.aligned.m8n8.x4.trans.shared.b16`: each thread gives one
    4-byte word of each matrix (`word0` to `word3`), lanes 8 j to 8 j + 7
    the 16-byte rows of matrix j (`address`, a 32-bit shared-memory
    address), which receive the matrix transposed. The last step of the
    FP8 producer's V transpose. The whole warp executes it, converged.

    ```mlir
    fattn.sm90.stmatrix_x4_trans %address, [%r0, %r1, %r2, %r3]
    ```
  }];
  let arguments = (ins I32:$address, I32:$word0, I32:$word1, I32:$word2,
                       I32:$word3);
  let assemblyFormat = [{
    $address `,` `[` $word0 `,` $word1 `,` $word2 `,` $word3 `]` attr-dict
  }];
}

//===----------------------------------------------------------------------===//
// The work items of a persistent kernel
//===----------------------------------------------------------------------===//

def FAttn_SM90WorkItemOp : FAttn_SM90Op<"work_item",
    [Pure, AttrSizedOperandSegments]> {
  let summary = "the Q tile, head and batch of a persistent kernel's work item";
  let description = [{
    The coordinates of work item `index` of a persistent kernel, which each
    role's loop over work items gives to the item's ops (L2's
    `fattn.work_loop` block arguments). The `q_tiles` x `pairs` items
    (`pairs` = batch x `heads`, the (batch, head) pairs; `heads` the query
    heads) are in the order of WorkOrder.h's `decodeWorkItem` on a grid of
    `grid` CTAs:

    - without `masked`, the Q tile's rank fastest: rank = index mod q_tiles,
      pair = index / q_tiles;
    - with `masked` and q_tiles >= 22 (WorkOrder.h's kMinWindowQTiles),
      without `tail_pairs` or with few pairs (pairs x ctas_per_pair <=
      grid), in windows: the items of the Q tile fastest order cut into
      windows of 2 x grid (the last window also takes the items past the
      last whole one), each window's items with the rank slowest, then the
      pair (a window [begin, end) of that order, begin = a x q_tiles + b,
      end = a' x q_tiles + b', gives rank r the pairs
      [a + (r < b), a' + (r < b')));
    - otherwise with `masked` and without `tail_pairs`: with few pairs the
      rank slowest, rank = index / pairs, pair = index mod pairs; with many
      the rank fastest, as without `masked`;
    - otherwise with `masked` and `tail_pairs` T (WorkOrder.h's
      tailPairCount, 1 <= T <= pairs): with F = pairs - T, the first
      F x q_tiles items with the rank fastest and each later one, at
      o = index - F x q_tiles, the rank slowest over the last T pairs,
      rank = o / T, pair = F + o mod T.

    The results are the Q tile (the rank, or q_tiles - 1 - rank with
    `reverse_q_tiles`), head = pair mod heads and batch = pair / heads.

    All values are unsigned, and `index` is below q_tiles x pairs < 2^31.
    `fast_divisors` has an entry for each of `q_tiles` and `heads`; a
    divisor marked true takes its FastDivision.h multiplier m and shift l
    from `magic` (m, then l, for each marked divisor in that order):
    n / d = mulhi(2 n, m) >> l and n mod d = n - (n / d) d. Every other
    division, those by `pairs`, by `tail_pairs` and within a window
    included, is `div.u32` or `rem.u32`.

    ```mlir
    %q_tile, %head, %batch = fattn.sm90.work_item %index, q_tiles = %n, pairs = %p, heads = %h, grid = %g, ctas_per_pair = 3, fast_divisors = [true, true] magic(%m0, %l0, %m1, %l1) tail_pairs = %t masked reverse_q_tiles
    ```
  }];
  let arguments = (ins I32:$index, I32:$q_tiles, I32:$pairs, I32:$heads,
                       I32:$grid, Optional<I32>:$tail_pairs,
                       Variadic<I32>:$magic, UnitAttr:$masked,
                       UnitAttr:$reverse_q_tiles, I64Attr:$ctas_per_pair,
                       DenseBoolArrayAttr:$fast_divisors);
  let results = (outs I32:$q_tile, I32:$head, I32:$batch);
  let assemblyFormat = [{
    $index `,` `q_tiles` `=` $q_tiles `,` `pairs` `=` $pairs `,` `heads` `=`
    $heads `,` `grid` `=` $grid `,` `ctas_per_pair` `=` $ctas_per_pair `,`
    `fast_divisors` `=` $fast_divisors (`magic` `(` $magic^ `)`)?
    (`tail_pairs` `=` $tail_pairs^)? (`masked` $masked^)?
    (`reverse_q_tiles` $reverse_q_tiles^)? attr-dict
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Value":$index, "::mlir::Value":$qTiles,
                   "::mlir::Value":$pairs, "::mlir::Value":$heads,
                   "::mlir::Value":$grid, "::mlir::Value":$tailPairs,
                   "::mlir::ValueRange":$magic, "bool":$masked,
                   "bool":$reverseQTiles, "int64_t":$ctasPerPair,
                   "::llvm::ArrayRef<bool>":$fastDivisors), [{
      ::mlir::Type i32 = $_builder.getI32Type();
      build($_builder, $_state, i32, i32, i32, index, qTiles, pairs, heads,
            grid, tailPairs, magic, masked, reverseQTiles, ctasPerPair,
            fastDivisors);
    }]>
  ];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// The K/V ring's position of a tile
//===----------------------------------------------------------------------===//

class FAttn_SM90RingPositionOp<string mnemonic>
    : FAttn_SM90Op<mnemonic, [Pure]> {
  let arguments = (ins I32:$ordinal, I64Attr:$stages);
  let results = (outs I32:$result);
  let assemblyFormat = "$ordinal `,` `stages` `=` $stages attr-dict";
  let builders = [
    OpBuilder<(ins "::mlir::Value":$ordinal, "uint64_t":$stages), [{
      build($_builder, $_state, $_builder.getI32Type(), ordinal, stages);
    }]>
  ];
  let hasVerifier = 1;
}

def FAttn_SM90RingStageOp : FAttn_SM90RingPositionOp<"ring_stage"> {
  let summary = "the ring stage (slot) of the tile with a given ordinal";
  let description = [{
    The stage `ordinal mod stages` of a ring of `stages` slots that takes
    tiles in order: the tile with ordinal `t` (the t-th tile through the ring
    since the kernel began, across work items) sits in that slot. `ordinal`
    is unsigned.

    ```mlir
    %stage = fattn.sm90.ring_stage %t, stages = 2
    ```
  }];
}

def FAttn_SM90RingPhaseOp : FAttn_SM90RingPositionOp<"ring_phase"> {
  let summary = "the mbarrier phase parity of the tile with a given ordinal";
  let description = [{
    The parity `(ordinal / stages) mod 2` of the round in which the tile with
    ordinal `t` passes its stage: a stage's full and empty barriers complete
    once per round, so a consumer waits for this parity on the stage's full
    barrier, and a producer, which reuses the slot, for the other one on its
    empty barrier (a fresh barrier's previous phase counts as complete).

    ```mlir
    %phase = fattn.sm90.ring_phase %t, stages = 2
    ```
  }];
}

//===----------------------------------------------------------------------===//
// mbarriers
//===----------------------------------------------------------------------===//

def FAttn_SM90RingBarrierOp : FAttn_SM90Op<"ring_barrier", [Pure]> {
  let summary = "the mbarrier of a ring stage in shared memory";
  let description = [{
    The address of entry `stage` of an array of 8-byte mbarriers, one per
    ring stage, at byte `offset` of the kernel's shared memory (`base`, the
    1024-byte-aligned base): `base + offset + 8 * stage`. The ring has an
    array for each of its full and empty barriers of K, V (and V^T).

    ```mlir
    %bar = fattn.sm90.ring_barrier %base[%stage], offset = 163848
    ```
  }];
  let arguments = (ins FAttn_SM90SharedPtr:$base, I32:$stage, I64Attr:$offset);
  let results = (outs FAttn_SM90SharedPtr:$barrier);
  let assemblyFormat = "$base `[` $stage `]` `,` `offset` `=` $offset attr-dict";
  let builders = [
    OpBuilder<(ins "::mlir::Value":$base, "::mlir::Value":$stage,
                   "uint64_t":$offset), [{
      build($_builder, $_state, base.getType(), base, stage, offset);
    }]>
  ];
  let hasVerifier = 1;
}

def FAttn_SM90MBarrierInitOp : FAttn_SM90Op<"mbarrier_init"> {
  let summary = "initialize an mbarrier for a number of arrivals";
  let description = [{
    `mbarrier.init` of the mbarrier at `barrier` with `count` expected
    arrivals per phase, by the threads whose `predicate` is true (one
    thread, followed by `fence.mbarrier_init` and a CTA barrier).

    ```mlir
    fattn.sm90.mbarrier_init %bar, count = 256, predicate = %isThread0
    ```
  }];
  let arguments = (ins FAttn_SM90SharedPtr:$barrier, I64Attr:$count,
                       I1:$predicate);
  let assemblyFormat = [{
    $barrier `,` `count` `=` $count `,` `predicate` `=` $predicate attr-dict
  }];
  let hasVerifier = 1;
}

def FAttn_SM90MBarrierWaitOp : FAttn_SM90Op<"mbarrier_wait"> {
  let summary = "wait until an mbarrier's phase of a given parity completes";
  let description = [{
    Blocks the thread until the phase of the mbarrier at `barrier` whose
    parity is `parity` (0 or 1, an i32) has completed: the consumers' wait
    for a ring stage's full barrier, the producer's for its empty barrier.
    Lowered to `mbarrier.try_wait.parity` with a suspend-time hint of
    10,000,000 ns (the PTX loop around it retries until the phase completes).

    ```mlir
    fattn.sm90.mbarrier_wait %bar, parity = %phase
    ```
  }];
  let arguments = (ins FAttn_SM90SharedPtr:$barrier, I32:$parity);
  let assemblyFormat = "$barrier `,` `parity` `=` $parity attr-dict";
}

def FAttn_SM90MBarrierArriveOp : FAttn_SM90Op<"mbarrier_arrive"> {
  let summary = "arrive on an mbarrier";
  let description = [{
    One arrival of the calling thread on the mbarrier at `barrier`: a
    consumer thread handing a ring stage (or Q's buffer) back, or a producer
    thread announcing its part of a stage.

    ```mlir
    fattn.sm90.mbarrier_arrive %bar
    ```
  }];
  let arguments = (ins FAttn_SM90SharedPtr:$barrier);
  let assemblyFormat = "$barrier attr-dict";
}

def FAttn_SM90MBarrierArriveExpectTxOp
    : FAttn_SM90Op<"mbarrier_arrive_expect_tx"> {
  let summary = "arrive on an mbarrier, expecting TMA bytes";
  let description = [{
    The issuing thread's arrival on the mbarrier at `barrier`, which also
    makes the current phase wait for `bytes` bytes of asynchronous copies
    (the TMA loads that name this barrier) before it completes.

    ```mlir
    fattn.sm90.mbarrier_arrive_expect_tx %bar, bytes = 32768
    ```
  }];
  let arguments = (ins FAttn_SM90SharedPtr:$barrier, I64Attr:$bytes);
  let assemblyFormat = "$barrier `,` `bytes` `=` $bytes attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Named barriers
//===----------------------------------------------------------------------===//

class FAttn_SM90NamedBarrierOp<string mnemonic> : FAttn_SM90Op<mnemonic> {
  let arguments = (ins I32:$id, I64Attr:$threads);
  let assemblyFormat = "$id `,` `threads` `=` $threads attr-dict";
  let hasVerifier = 1;
}

def FAttn_SM90NamedBarrierOp : FAttn_SM90NamedBarrierOp<"named_barrier"> {
  let summary = "wait at a named barrier until a number of threads reached it";
  let description = [{
    `bar.sync id, threads`: the calling warps arrive at barrier `id` (an
    i32, 1 to 15) and wait until `threads` threads have arrived: a consumer
    warpgroup's turn of pingpong (256: its own and the one before it), or a
    warpgroup's own barrier around its shared-memory slots (128).

    ```mlir
    fattn.sm90.named_barrier %id, threads = 256
    ```
  }];
}

def FAttn_SM90NamedBarrierArriveOp
    : FAttn_SM90NamedBarrierOp<"named_barrier_arrive"> {
  let summary = "arrive at a named barrier without waiting";
  let description = [{
    `bar.arrive id, threads`: the calling warps count towards the `threads`
    that release the waiters of barrier `id`, and go on: a consumer
    warpgroup handing the tensor cores to the next one (pingpong).

    ```mlir
    fattn.sm90.named_barrier_arrive %next, threads = 256
    ```
  }];
}

//===----------------------------------------------------------------------===//
// TMA
//===----------------------------------------------------------------------===//

def FAttn_SM90TmaLoadOp : FAttn_SM90Op<"tma_load"> {
  let summary = "copy one box of a tensor map into shared memory by TMA";
  let description = [{
    The TMA load of the box of tensor map `map` (a `CUtensorMap` passed by
    value) at `coordinates` (innermost first: column, row, head, batch) into
    shared memory at byte `offset` (an i32) of `base`, completing
    transactions on the mbarrier at `barrier` (armed by
    `fattn.sm90.mbarrier_arrive_expect_tx`).

    ```mlir
    fattn.sm90.tma_load %k_map[%col, %row, %head, %batch], %base[%offset], barrier = %bar
    ```
  }];
  let arguments = (ins FAttn_SM90TensorMapPtr:$map, Variadic<I32>:$coordinates,
                       FAttn_SM90SharedPtr:$base, I32:$offset,
                       FAttn_SM90SharedPtr:$barrier);
  let assemblyFormat = [{
    $map `[` $coordinates `]` `,` $base `[` $offset `]` `,` `barrier` `=`
    $barrier attr-dict
  }];
  let hasVerifier = 1;
}

def FAttn_SM90TmaStoreOp : FAttn_SM90Op<"tma_store"> {
  let summary = "copy one box from shared memory to a tensor map by TMA";
  let description = [{
    The TMA store of the box at byte `offset` (an i32) of shared memory
    `base` to tensor map `map` at `coordinates` (innermost first); rows and
    columns past the tensor's end are clipped. The store reads shared memory
    through the async proxy (after `fattn.sm90.fence_proxy_async` of the
    writes) until its bulk group completes its reads
    (`fattn.sm90.bulk_commit_group`, `fattn.sm90.bulk_wait_group_read`).

    ```mlir
    fattn.sm90.tma_store %o_map[%col, %row, %head, %batch], %base[%offset]
    ```
  }];
  let arguments = (ins FAttn_SM90TensorMapPtr:$map, Variadic<I32>:$coordinates,
                       FAttn_SM90SharedPtr:$base, I32:$offset);
  let assemblyFormat = [{
    $map `[` $coordinates `]` `,` $base `[` $offset `]` attr-dict
  }];
  let hasVerifier = 1;
}

def FAttn_SM90BulkReduceAddOp : FAttn_SM90Op<"bulk_reduce_add"> {
  let summary = "add f32 values from shared memory into global memory in one bulk copy";
  let description = [{
    `cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32`: adds the
    `bytes` bytes of f32 values at shared-memory address `source` (a 32-bit
    address, 16-byte aligned) element by element into global memory at
    `destination` (16-byte aligned); each element's addition is atomic, so
    CTAs may add into the same destination. `bytes` is a positive multiple
    of 16. As a TMA store, the copy reads shared memory through the async
    proxy (after `fattn.sm90.fence_proxy_async` of the writes) until its
    bulk group completes its reads (`fattn.sm90.bulk_commit_group`,
    `fattn.sm90.bulk_wait_group_read`). One thread issues it: a copy of a
    contiguous run of a workspace takes one instruction where per-element
    atomics take one per element and thread.

    ```mlir
    fattn.sm90.bulk_reduce_add %dq_row, %staged_row, bytes = %bytes
    ```
  }];
  let arguments = (ins FAttn_SM90GlobalPtr:$destination, I32:$source,
                       I32:$bytes);
  let assemblyFormat = [{
    $destination `,` $source `,` `bytes` `=` $bytes attr-dict
  }];
  let hasVerifier = 1;
}

def FAttn_SM90BulkCommitGroupOp : FAttn_SM90Op<"bulk_commit_group"> {
  let summary = "close the bulk group of the TMA stores issued since the last one";
  let description = [{
    `cp.async.bulk.commit_group`: the thread's TMA stores and bulk
    reductions since the last commit form one bulk group.

    ```mlir
    fattn.sm90.bulk_commit_group
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def FAttn_SM90BulkWaitGroupReadOp : FAttn_SM90Op<"bulk_wait_group_read"> {
  let summary = "wait until at most a number of bulk groups still read shared memory";
  let description = [{
    `cp.async.bulk.wait_group.read`: blocks the thread until at most
    `pending` of its bulk groups are still reading their shared-memory
    sources, which may then be written again.

    ```mlir
    fattn.sm90.bulk_wait_group_read pending = 0
    ```
  }];
  let arguments = (ins I64Attr:$pending);
  let assemblyFormat = "`pending` `=` $pending attr-dict";
  let hasVerifier = 1;
}

def FAttn_SM90FenceProxyAsyncOp : FAttn_SM90Op<"fence_proxy_async"> {
  let summary = "make the thread's shared-memory writes visible to the async proxy";
  let description = [{
    `fence.proxy.async.shared::cta`: the calling thread's ordinary writes to
    shared memory are ordered before the asynchronous proxy's reads (TMA
    stores, wgmma operands) that a later barrier lets start.

    ```mlir
    fattn.sm90.fence_proxy_async
    ```
  }];
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// wgmma
//===----------------------------------------------------------------------===//

def FAttn_SM90WgmmaDescriptorOp : FAttn_SM90Op<"wgmma_descriptor", [Pure]> {
  let summary = "the wgmma matrix descriptor of a 128-byte-swizzled tile";
  let description = [{
    The 64-bit shared-memory matrix descriptor of the tile at byte `offset`
    from shared-memory address `address` (both i32; `address` 1024-byte
    aligned): the start address in 16-byte units, the leading-dimension byte
    offset `leading_bytes`, a stride of 1024 bytes (eight 128-byte rows) and
    the 128-byte swizzle, the layout TMA writes the tiles in.

    ```mlir
    %desc = fattn.sm90.wgmma_descriptor %address[%offset], leading_bytes = 16
    ```
  }];
  let arguments = (ins I32:$address, I32:$offset, I64Attr:$leading_bytes);
  let results = (outs I64:$descriptor);
  let assemblyFormat = [{
    $address `[` $offset `]` `,` `leading_bytes` `=` $leading_bytes attr-dict
  }];
  let hasVerifier = 1;
}

def FAttn_SM90WgmmaFenceOp : FAttn_SM90Op<"wgmma_fence"> {
  let summary = "order register and shared-memory accesses before wgmma";
  let description = [{
    `wgmma.fence`: the warpgroup's earlier writes of accumulator registers
    (and of shared memory the wgmma reads) are ordered before the
    `fattn.sm90.wgmma` ops that follow.

    ```mlir
    fattn.sm90.wgmma_fence
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def FAttn_SM90WgmmaCommitGroupOp : FAttn_SM90Op<"wgmma_commit_group"> {
  let summary = "close the group of the wgmma ops issued since the last one";
  let description = [{
    `wgmma.commit_group`: the `fattn.sm90.wgmma` ops issued since the last
    commit form one group, which `fattn.sm90.wgmma_wait_group` waits for.

    ```mlir
    fattn.sm90.wgmma_commit_group
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def FAttn_SM90WgmmaWaitGroupOp : FAttn_SM90Op<"wgmma_wait_group"> {
  let summary = "wait until at most a number of wgmma groups are pending";
  let description = [{
    `wgmma.wait_group`: blocks until at most `pending` committed groups of
    the warpgroup are still running; their accumulators are complete. The
    overlapped KV loop waits with 1 for S = Q K^T while P V still runs.

    ```mlir
    fattn.sm90.wgmma_wait_group pending = 1
    ```
  }];
  let arguments = (ins I64Attr:$pending);
  let assemblyFormat = "`pending` `=` $pending attr-dict";
  let hasVerifier = 1;
}

def FAttn_SM90WgmmaOp : FAttn_SM90Op<"wgmma",
    [AllTypesMatch<["accumulator", "result"]>]> {
  let summary = "one asynchronous warpgroup MMA with both operands in shared memory";
  let description = [{
    `wgmma.mma_async` m64nNk: D = A B (+ `accumulator` with `accumulate`)
    of a warpgroup, with A (64 x k, row-major) and B (k x N, K-major) in
    shared memory, named by their matrix descriptors (i64), and D in f32
    registers: N / 2 per thread, the fields of `accumulator`'s literal
    struct, which give N. k is one step of `element_type`: 16 for bf16 and
    f16, 32 for f8E4M3FN. Without `accumulate` the accumulator's values are
    not read (scale-d 0: the first step of a GEMM). The result is the
    accumulator after the step, complete only after a
    `fattn.sm90.wgmma_wait_group` for its group.

    ```mlir
    %s1 = fattn.sm90.wgmma %da, %db, %s0, element_type = bf16 : !llvm.struct<(f32, f32, f32, f32)>
    %s2 = fattn.sm90.wgmma %da, %db, %s1, element_type = bf16, accumulate : !llvm.struct<(f32, f32, f32, f32)>
    ```
  }];
  let arguments = (ins I64:$descriptor_a, I64:$descriptor_b,
                       FAttn_SM90Accumulator:$accumulator, TypeAttr:$element_type,
                       UnitAttr:$accumulate);
  let results = (outs FAttn_SM90Accumulator:$result);
  let assemblyFormat = [{
    $descriptor_a `,` $descriptor_b `,` $accumulator `,` `element_type` `=`
    $element_type (`,` `accumulate` $accumulate^)? attr-dict `:` type($result)
  }];
  let extraClassDeclaration = [{
    /// N of m64nNk: twice the accumulator's registers.
    int64_t getN();
    /// k of m64nNk: 32 bytes of element_type.
    int64_t getK();
  }];
  let hasVerifier = 1;
}

def FAttn_SM90WgmmaRsOp : FAttn_SM90Op<"wgmma_rs", [AttrSizedOperandSegments]> {
  let summary = "one asynchronous warpgroup MMA with A in registers";
  let description = [{
    `wgmma.mma_async` m64nNk with A from registers (RS): D = A B +
    `accumulator` (D = A B without `accumulate`) of a warpgroup. `a` is the
    thread's four i32 registers of the 64 x k A fragment (P, packed: two
    16-bit or four e4m3 values each); B (k x N) is in shared memory, named
    by its matrix descriptor, K-major, or N-major when `transposed`
    (`transpose_b`; 16-bit only: e4m3 wgmma reads B K-major). `accumulator` holds the thread's N / 2
    f32 registers, which the result returns after the step (complete after
    a `fattn.sm90.wgmma_wait_group` for its group); k is one step of
    `element_type` (16 for bf16 and f16, 32 for f8E4M3FN). No upstream op
    has A in registers: it lowers to inline PTX.

    ```mlir
    %o = fattn.sm90.wgmma_rs [%p0, %p1, %p2, %p3], %dv transposed, [%o0, %o1, %o2, %o3], element_type = bf16, accumulate : !llvm.struct<(f32, f32, f32, f32)>
    ```
  }];
  let arguments = (ins Variadic<I32>:$a, I64:$descriptor_b,
                       Variadic<F32>:$accumulator, TypeAttr:$element_type,
                       UnitAttr:$accumulate, UnitAttr:$transpose_b);
  let results = (outs FAttn_SM90Accumulator:$result);
  let assemblyFormat = [{
    ` ` `[` $a `]` `,` $descriptor_b (`transposed` $transpose_b^)? `,`
    `[` $accumulator `]` `,` `element_type` `=` $element_type
    (`,` `accumulate` $accumulate^)? attr-dict `:` type($result)
  }];
  let extraClassDeclaration = [{
    /// N of m64nNk: twice the accumulator's registers.
    int64_t getN() { return 2 * static_cast<int64_t>(getAccumulator().size()); }
    /// k of m64nNk: 32 bytes of element_type.
    int64_t getK();
  }];
  let hasVerifier = 1;
}

#endif // FATTN_DIALECT_FATTN_IR_FATTNSM90OPS_TD
