//===- FAttnSM80Ops.td - sm_80 target ops (L3) -------------*- tablegen -*-===//
//
// The target level (L3) of the sm_80 back end: the cp.async copies of a tile
// into the shared-memory ring (zero-filling the rows past the sequence's
// end), ldmatrix of the m16n8k16 operand fragments from a ring slot, the
// mma.sync m16n8k16 steps on fragments in registers, P's packing, and O's
// way out (staged in Q's rows of shared memory, then copied out in 16-byte
// chunks). The sm_80 kernel builder (--convert-fattn-to-nvvm) builds them
// inside the kernel's llvm.func, between LLVM, arith and scf code and the
// upstream ops that lower to the same instructions (the waits for the
// copies' commit groups as nvgpu.device_async_wait, the quads' row
// reductions as gpu.shuffle); the patterns of
// populateSM80TargetToNVVMPatterns (--convert-fattn-sm80-target-to-nvvm)
// turn each into what it stands for.
//
// Upstream nvgpu.device_async_copy, nvgpu.ldmatrix and nvgpu.mma.sync take
// memrefs and vector-typed fragments; the kernel addresses shared and
// global memory by pointers and byte offsets and holds fragments as i32
// registers, so those three stay fattn's (and the commit group: see
// fattn.sm80.commit_group).
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_DIALECT_FATTN_IR_FATTNSM80OPS_TD
#define FATTN_DIALECT_FATTN_IR_FATTNSM80OPS_TD

include "fattn/Dialect/FAttn/IR/FAttnDialect.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

// Pointers of the kernel: shared memory (address space 3) and global memory
// (address space 1).
class FAttn_SM80Ptr<int space, string memory> : Type<
    And<[CPred<"::llvm::isa<::mlir::LLVM::LLVMPointerType>($_self)">,
         CPred<"::llvm::cast<::mlir::LLVM::LLVMPointerType>($_self)"
               ".getAddressSpace() == " # space>]>,
    "LLVM pointer to " # memory # " memory (address space " # space # ")",
    "::mlir::LLVM::LLVMPointerType">,
    BuildableType<"::mlir::LLVM::LLVMPointerType::get($_builder.getContext(), "
                  # space # ")">;
def FAttn_SM80SharedPtr : FAttn_SM80Ptr<3, "shared">;
def FAttn_SM80GlobalPtr : FAttn_SM80Ptr<1, "global">;

// The token of a cp.async commit group, upstream's, so that
// nvgpu.device_async_wait waits for it.
def FAttn_SM80AsyncToken : Type<
    CPred<"::llvm::isa<::mlir::nvgpu::DeviceAsyncTokenType>($_self)">,
    "!nvgpu.device.async.token", "::mlir::nvgpu::DeviceAsyncTokenType">,
    BuildableType<"::mlir::nvgpu::DeviceAsyncTokenType::get("
                  "$_builder.getContext())">;

class FAttn_SM80Op<string mnemonic, list<Trait> traits = []>
    : FAttn_Op<"sm80." # mnemonic, traits>;

//===----------------------------------------------------------------------===//
// The cp.async ring
//===----------------------------------------------------------------------===//

def FAttn_SM80CopyTileOp : FAttn_SM80Op<"copy_tile"> {
  let summary = "cp.async copies of a tile's rows into shared memory";
  let description = [{
    The `threads` threads of the CTA (`thread`: this one's index) copy
    `rows` rows of `row_bytes` bytes, from row `first_row` of `source`
    (consecutive rows `row_stride` bytes apart), to byte `offset` of the
    shared memory at `smem` (rows `row_pitch` bytes apart), by 16-byte
    `cp.async.cg` copies: thread t copies chunk t mod (row_bytes / 16) of
    rows t / (row_bytes / 16) + i s, where s, the rows of one step, is the
    largest power of two whose rows the threads cover (the threads past them
    copy nothing). With `seq_len`, the rows at or past it are zero-filled
    (a copy of 0 bytes, from row `first_row`, so that no address past the
    tensor is formed); without, every row must exist. The copies join the
    thread's next commit group (`nvgpu.device_async_create_group`).

    ```mlir
    fattn.sm80.copy_tile %k[%row], row_stride = %stride, into %smem[%slot], thread = %tid, seq_len = %seq_k, rows = 64, row_bytes = 256, row_pitch = 272, threads = 128
    ```
  }];
  let arguments = (ins FAttn_SM80GlobalPtr:$source, I32:$first_row,
                       I64:$row_stride, FAttn_SM80SharedPtr:$smem,
                       I32:$offset, I32:$thread, Optional<I32>:$seq_len,
                       I64Attr:$rows, I64Attr:$row_bytes, I64Attr:$row_pitch,
                       I64Attr:$threads);
  let assemblyFormat = [{
    $source `[` $first_row `]` `,` `row_stride` `=` $row_stride `,` `into`
    $smem `[` $offset `]` `,` `thread` `=` $thread `,`
    (`seq_len` `=` $seq_len^ `,`)? `rows` `=` $rows `,` `row_bytes` `=`
    $row_bytes `,` `row_pitch` `=` $row_pitch `,` `threads` `=` $threads
    attr-dict
  }];
  let extraClassDeclaration = [{
    /// The 16-byte chunks of a row.
    int64_t getChunksPerRow() { return getRowBytes() / 16; }
    /// The rows that one step of the threads' copies covers.
    int64_t getRowsPerStep();
  }];
  let hasVerifier = 1;
}

def FAttn_SM80CommitGroupOp : FAttn_SM80Op<"commit_group"> {
  let summary = "close the thread's cp.async commit group";
  let description = [{
    `cp.async.commit_group`: the thread's copies issued since its previous
    commit (its `fattn.sm80.copy_tile`s, wherever they stand, under `scf.if`
    too) form a group, named by the result. `nvgpu.device_async_wait` on it
    (`numGroups` = n) waits until at most the n latest groups are in flight.
    Upstream's `nvgpu.device_async_create_group` groups the copies named by
    their tokens, which these copies, issued under conditions, do not
    yield, and its form without tokens does not parse back (the next
    line's SSA name reads as its operand).

    ```mlir
    %g = fattn.sm80.commit_group
    nvgpu.device_async_wait %g {numGroups = 1 : i32}
    ```
  }];
  let results = (outs FAttn_SM80AsyncToken:$group);
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Fragments
//===----------------------------------------------------------------------===//

def FAttn_SM80LdmatrixX4Op : FAttn_SM80Op<"ldmatrix_x4"> {
  let summary = "load four 8 x 8 matrices of 16-bit elements from shared memory";
  let description = [{
    `ldmatrix.sync.aligned.m8n8.x4.shared.b16` (`.trans` with `trans`):
    lanes 8 j to 8 j + 7 give the 16-byte rows of matrix j (`address`: the
    lane's row); each thread gets one 4-byte word of each matrix (row
    lane / 4, columns 2 (lane mod 4) and + 1; of the transposed matrix with
    `trans`). An A fragment of mma.sync m16n8k16 (Q), or the B fragments of
    two n8 tiles (K; V, whose rows are keys, with `trans`). The whole warp
    executes it, converged.

    ```mlir
    %w0, %w1, %w2, %w3 = fattn.sm80.ldmatrix_x4 %address trans
    ```
  }];
  let arguments = (ins FAttn_SM80SharedPtr:$address, UnitAttr:$trans);
  let results = (outs I32:$word0, I32:$word1, I32:$word2, I32:$word3);
  let assemblyFormat = "$address (`trans` $trans^)? attr-dict";
  let builders = [
    OpBuilder<(ins "::mlir::Value":$address, "bool":$trans), [{
      ::mlir::Type i32 = $_builder.getI32Type();
      build($_builder, $_state, i32, i32, i32, i32, address,
            trans ? $_builder.getUnitAttr() : ::mlir::UnitAttr());
    }]>
  ];
}

def FAttn_SM80MmaOp : FAttn_SM80Op<"mma_m16n8k16", [Pure]> {
  let summary = "one mma.sync m16n8k16 step on fragments in registers";
  let description = [{
    `mma.sync.aligned.m16n8k16.row.col.f32` of a warp: D = A B + C, A
    (16 x 16, row-major: four i32, two 16-bit values each), B (16 x 8,
    column-major: two i32) of `element_type` (bf16 or f16), C and D (16 x 8)
    f32, four per thread (rows lane / 4 and + 8, columns 2 (lane mod 4) and
    + 1).

    ```mlir
    %d0, %d1, %d2, %d3 = fattn.sm80.mma_m16n8k16 [%a0, %a1, %a2, %a3], [%b0, %b1], [%c0, %c1, %c2, %c3], element_type = bf16
    ```
  }];
  let arguments = (ins I32:$a0, I32:$a1, I32:$a2, I32:$a3, I32:$b0, I32:$b1,
                       F32:$c0, F32:$c1, F32:$c2, F32:$c3,
                       TypeAttr:$element_type);
  let results = (outs F32:$d0, F32:$d1, F32:$d2, F32:$d3);
  let assemblyFormat = [{
    ` ` `[` $a0 `,` $a1 `,` $a2 `,` $a3 `]` `,` `[` $b0 `,` $b1 `]` `,`
    `[` $c0 `,` $c1 `,` $c2 `,` $c3 `]` `,` `element_type` `=` $element_type
    attr-dict
  }];
  let builders = [
    OpBuilder<(ins "::mlir::ValueRange":$a, "::mlir::ValueRange":$b,
                   "::mlir::ValueRange":$c, "::mlir::Type":$elementType), [{
      ::mlir::Type f32 = $_builder.getF32Type();
      build($_builder, $_state, f32, f32, f32, f32, a[0], a[1], a[2], a[3],
            b[0], b[1], c[0], c[1], c[2], c[3], elementType);
    }]>
  ];
  let hasVerifier = 1;
}

def FAttn_SM80PackPairOp : FAttn_SM80Op<"pack_pair", [Pure]> {
  let summary = "two f32 rounded to 16-bit floats in one i32";
  let description = [{
    `low` and `high` rounded to the nearest `element_type` (bf16 or f16),
    `low` in bits 0-15 and `high` in bits 16-31: two of P's probabilities in
    a register of the A fragment of the P V mma.sync (the scores of n8
    tiles 2 c and 2 c + 1 are the A fragment of k chunk c). Lowered to the
    `fptrunc` of a vector of the two (`cvt.rn.bf16x2.f32`) and its bitcast
    to i32.

    ```mlir
    %p01 = fattn.sm80.pack_pair %p0, %p1, element_type = bf16
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

//===----------------------------------------------------------------------===//
// Warp barrier
//===----------------------------------------------------------------------===//

def FAttn_SM80SyncWarpOp : FAttn_SM80Op<"sync_warp"> {
  let summary = "wait until every lane of the warp reaches this point";
  let description = [{
    `bar.warp.sync` over all 32 lanes: orders a warp's shared-memory writes
    before its lanes' reads (O's staged rows, which only the warp that
    wrote them reads). The CTA's barrier is upstream's `gpu.barrier`;
    upstream has no warp-level one.

    ```mlir
    fattn.sm80.sync_warp
    ```
  }];
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// O's stores
//===----------------------------------------------------------------------===//

def FAttn_SM80StageRowOp : FAttn_SM80Op<"stage_row"> {
  let summary = "a thread's values of an O row, scaled and packed, into shared memory";
  let description = [{
    Pair i of `values` (the thread's two columns of the i-th n8 tile of an
    accumulator row), each times `scale` (1 / l), rounded to
    `element_type` and packed (as `fattn.sm80.pack_pair`), is stored (4
    bytes) at byte `offset` + 16 i from `address` (the thread's columns of
    its first row in the warp's rows of the staging tile).

    ```mlir
    fattn.sm80.stage_row %frag[1088], scale = %inv, [%x0, %x1, %x2, %x3], element_type = bf16
    ```
  }];
  let arguments = (ins FAttn_SM80SharedPtr:$address, I64Attr:$offset,
                       F32:$scale, Variadic<F32>:$values,
                       TypeAttr:$element_type);
  let assemblyFormat = [{
    $address `[` $offset `]` `,` `scale` `=` $scale `,` `[` $values `]` `,`
    `element_type` `=` $element_type attr-dict
  }];
  let hasVerifier = 1;
}

def FAttn_SM80StoreRowsOp : FAttn_SM80Op<"store_rows"> {
  let summary = "a warp's staged rows copied to global memory in 16-byte chunks";
  let description = [{
    The 32 lanes of a warp (`lane`: this one's) copy `rows` rows of
    `row_bytes` bytes from byte `offset` of the shared memory at `smem`
    (rows `row_pitch` bytes apart) to rows `first_row` onwards of `output`
    (rows `row_stride` bytes apart), in 16-byte chunks: chunk c = lane + 32 i
    (c < rows row_bytes / 16) is row c / (row_bytes / 16), column
    c mod (row_bytes / 16), so that consecutive lanes read and write
    consecutive chunks; rows at or past `seq_len` are not stored. After the
    warp's `stage_row`s and a warp barrier.

    ```mlir
    fattn.sm80.store_rows %smem[%warp_rows], lane = %lane, into %o[%row], row_stride = %stride, seq_len = %seq_q, rows = 32, row_bytes = 256, row_pitch = 272
    ```
  }];
  let arguments = (ins FAttn_SM80SharedPtr:$smem, I32:$offset, I32:$lane,
                       FAttn_SM80GlobalPtr:$output, I32:$first_row,
                       I64:$row_stride, I32:$seq_len, I64Attr:$rows,
                       I64Attr:$row_bytes, I64Attr:$row_pitch);
  let assemblyFormat = [{
    $smem `[` $offset `]` `,` `lane` `=` $lane `,` `into` $output `[`
    $first_row `]` `,` `row_stride` `=` $row_stride `,` `seq_len` `=`
    $seq_len `,` `rows` `=` $rows `,` `row_bytes` `=` $row_bytes `,`
    `row_pitch` `=` $row_pitch attr-dict
  }];
  let hasVerifier = 1;
}

def FAttn_SM80StoreLseOp : FAttn_SM80Op<"store_lse"> {
  let summary = "one row's log-sum-exp to global memory";
  let description = [{
    Stores `value` (4 bytes) at f32 element `index` of the LSE tensor at
    `lse` (the element of a query row: batch, head and row by the LSE's
    strides). The lane that holds a row's values among the quad stores it,
    for the rows before the sequence's end.

    ```mlir
    fattn.sm80.store_lse %value, %lse[%index]
    ```
  }];
  let arguments = (ins F32:$value, FAttn_SM80GlobalPtr:$lse, I64:$index);
  let assemblyFormat = "$value `,` $lse `[` $index `]` attr-dict";
}

#endif // FATTN_DIALECT_FATTN_IR_FATTNSM80OPS_TD
