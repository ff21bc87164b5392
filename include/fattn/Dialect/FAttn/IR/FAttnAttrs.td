//===- FAttnAttrs.td - fattn attributes --------------------*- tablegen -*-===//
//
// The plans that the target passes record on a `fattn.tiled_attention` and
// the conversions read back: typed attributes whose parameters the parser,
// the printer and the verifiers know, instead of dictionaries of integers.
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_DIALECT_FATTN_IR_FATTNATTRS_TD
#define FATTN_DIALECT_FATTN_IR_FATTNATTRS_TD

include "fattn/Dialect/FAttn/IR/FAttnDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

class FAttn_Attr<string name, string attrMnemonic>
    : AttrDef<FAttn_Dialect, name> {
  let mnemonic = attrMnemonic;
}

//===----------------------------------------------------------------------===//
// sm_90a
//===----------------------------------------------------------------------===//

def FAttn_SM90OutputStore : I32EnumAttr<"SM90OutputStore",
    "how the sm_90a kernel writes O to global memory", [
  I32EnumAttrCase<"Registers", 0, "registers">,
  I32EnumAttrCase<"TMA", 1, "tma">
]> {
  let cppNamespace = "::mlir::fattn";
  let genSpecializedAttr = 0;
}

def FAttn_SM90TMAPlanAttr : FAttn_Attr<"SM90TMAPlan", "sm90_tma_plan"> {
  let summary = "how the tiles of an sm_90a kernel move between global and shared memory";
  let description = [{
    Recorded by `--fattn-sm90-tma` as `fattn.sm90.tma` on a
    `fattn.tiled_attention`; the sm_90a lowering implements it.

    - `stages`: the slots of the K/V ring (at least 2, so that the next
      tile's copy is in flight during the current tile's math); the
      `!fattn.ring` of `--fattn-warp-specialize` has as many.
    - `swizzle`: the bytes of a shared-memory swizzle atom (128, the only
      swizzle the lowering implements).
    - `box_cols`: the columns of one TMA box, one swizzle atom of a row: 64
      16-bit elements or 128 e4m3 ones. The lowering refuses a value that
      does not fit the op's element type.
    - `store`: how O leaves. `registers`: the consumer threads store it
      (through shared memory where the lowering stages it); `tma`: TMA
      stores from shared memory that the consumers do not wait for
      (`--fattn-sm90-tma="tma-store=true"`). The LSE always leaves from
      registers.

    ```mlir
    fattn.tiled_attention ... attributes {block_m = 128 : i64, block_n = 128 : i64,
        fattn.sm90.tma = #fattn.sm90_tma_plan<stages = 2, swizzle = 128,
                                              box_cols = 64, store = registers>}
    ```
  }];
  let parameters = (ins "int64_t":$stages, "int64_t":$swizzle,
                        "int64_t":$box_cols,
                        EnumParameter<FAttn_SM90OutputStore>:$store);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

/// An enum parameter that may be left out (its default) when parsed.
class FAttn_DefaultEnumParameter<EnumAttrInfo info, string case>
    : EnumParameter<info> {
  let defaultValue = info.cppNamespace # "::" # info.className # "::" # case;
}

/// An f32 parameter written as a float literal (`8.0`, `0.8`) or as the
/// hexadecimal bits of an f32 (`0x41000000`).
def FAttn_F32Parameter : AttrParameter<"::llvm::APFloat", "an f32 value"> {
  let parser = [{ [&]() -> ::mlir::FailureOr<::llvm::APFloat> {
    ::llvm::APFloat value(::llvm::APFloat::IEEEsingle());
    if (::mlir::failed(
            $_parser.parseFloat(::llvm::APFloat::IEEEsingle(), value)))
      return ::mlir::failure();
    return value;
  }() }];
  let printer = [{
    $_printer << ::mlir::fattn::formatF32Parameter($_self.convertToFloat())
  }];
  let defaultValue = "::llvm::APFloat(0.0f)";
}

def FAttn_SM90ValueMma : I32EnumAttr<"SM90ValueMma",
    "how the sm_90a kernel splits O += P V into wgmma", [
  I32EnumAttrCase<"Whole", 0, "whole">,
  I32EnumAttrCase<"PerAtom", 1, "per_atom">
]> {
  let cppNamespace = "::mlir::fattn";
  let genSpecializedAttr = 0;
}

def FAttn_SM90RowSums : I32EnumAttr<"SM90RowSums",
    "who adds up the sm_90a softmax's row sums", [
  I32EnumAttrCase<"Threads", 0, "threads">,
  I32EnumAttrCase<"Mma", 1, "mma">
]> {
  let cppNamespace = "::mlir::fattn";
  let genSpecializedAttr = 0;
}

def FAttn_SM90Exp2 : I32EnumAttr<"SM90Exp2",
    "how the sm_90a softmax computes 2^x", [
  I32EnumAttrCase<"Mufu", 0, "mufu">,
  I32EnumAttrCase<"Linear", 1, "linear">
]> {
  let cppNamespace = "::mlir::fattn";
  let genSpecializedAttr = 0;
}

def FAttn_SM90KVRanges : I32EnumAttr<"SM90KVRanges",
    "which KV tiles each sm_90a consumer warpgroup computes", [
  I32EnumAttrCase<"WorkItem", 0, "work_item">,
  I32EnumAttrCase<"Warpgroup", 1, "warpgroup">
]> {
  let cppNamespace = "::mlir::fattn";
  let genSpecializedAttr = 0;
}

def FAttn_SM90ConsumerPlanAttr
    : FAttn_Attr<"SM90ConsumerPlan", "sm90_consumer_plan"> {
  let summary = "how the consumer warpgroups of an sm_90a kernel compute";
  let description = [{
    Recorded as `fattn.sm90.consumers` on a `fattn.tiled_attention`, one
    parameter per pass (docs/SCHEDULING.md); the sm_90a lowering implements
    it. A parameter left out has its default, and an op without the
    attribute has every default.

    - `value_mma` (`--fattn-sm90-value-mma`): O += P V as one wgmma over the
      whole head dim (`whole`, the default) or one per 64-column atom
      (`per_atom`).
    - `row_sums` (`--fattn-sm90-row-sum-mma`): the softmax's row sums added
      up by the consumer threads (`threads`) or computed as P times a tile
      of ones on the tensor cores (`mma`).
    - `exp2` (`--fattn-sm90-linear-exp2`): P from `ex2.approx` (`mufu`) or,
      for e4m3, its bytes from a linear 2^x within each power of two
      (`linear`).
    - `rescale_threshold` (`--fattn-sm90-rescale-threshold`): conditional
      rescaling; a row keeps its max until a tile's exceeds it by more than
      this (log2 units), and warps whose rows kept theirs skip O's rescale
      (0: off).
    - `narrow_tail` (`--fattn-sm90-narrow-tail`): a work item's last KV
      tile, when it is the sequence's partial one with at most this many
      keys, runs on that many columns (0: off).
    - `kv_ranges` (`--fattn-sm90-warpgroup-kv-ranges`): every consumer
      warpgroup computes the work item's KV tiles (`work_item`), or only
      those its own rows see (`warpgroup`).

    ```mlir
    fattn.sm90.consumers = #fattn.sm90_consumer_plan<row_sums = mma,
                                                     rescale_threshold = 8.0>
    ```
  }];
  let parameters = (ins
    FAttn_DefaultEnumParameter<FAttn_SM90ValueMma, "Whole">:$value_mma,
    FAttn_DefaultEnumParameter<FAttn_SM90RowSums, "Threads">:$row_sums,
    FAttn_DefaultEnumParameter<FAttn_SM90Exp2, "Mufu">:$exp2,
    FAttn_F32Parameter:$rescale_threshold,
    DefaultValuedParameter<"int64_t", "0">:$narrow_tail,
    FAttn_DefaultEnumParameter<FAttn_SM90KVRanges, "WorkItem">:$kv_ranges);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def FAttn_SM90QTileOrder : I32EnumAttr<"SM90QTileOrder",
    "the order in which an sm_90a grid takes a head's Q tiles", [
  I32EnumAttrCase<"Forward", 0, "forward">,
  I32EnumAttrCase<"Reverse", 1, "reverse">
]> {
  let cppNamespace = "::mlir::fattn";
  let genSpecializedAttr = 0;
}

def FAttn_SM90WorkTail : I32EnumAttr<"SM90WorkTail",
    "how a persistent sm_90a grid takes the work items of its last rounds", [
  I32EnumAttrCase<"None", 0, "none">,
  I32EnumAttrCase<"Split", 1, "split">,
  I32EnumAttrCase<"Pairs", 2, "pairs">
]> {
  let cppNamespace = "::mlir::fattn";
  let genSpecializedAttr = 0;
}

def FAttn_SM90WorkPlanAttr : FAttn_Attr<"SM90WorkPlan", "sm90_work_plan"> {
  let summary = "how the CTAs of an sm_90a kernel take their work items";
  let description = [{
    Recorded as `fattn.sm90.work` on a `fattn.tiled_attention`, one
    parameter per pass (docs/SCHEDULING.md); the sm_90a lowering implements
    it. A parameter left out has its default, and an op without the
    attribute has every default.

    - `q_tile_order` (`--fattn-sm90-q-tile-order`): `reverse` (the default)
      starts with a head's last Q tiles, the longest under a causal mask;
      `forward` keeps the launch order.
    - `q_buffers` (`--fattn-sm90-q-buffers`): Q's shared-memory buffers, 1,
      or 2 in persistent kernels (the next work item's Q is copied while the
      current one's is read).
    - `tail` (`--fattn-sm90-work-tail`): the work items past the last
      whole round of a persistent grid are whole items in the snake order
      (`none`), cut along their KV tiles
      among all CTAs (`split`, unmasked attention), or the last (batch,
      head) pairs' items come Q tile slowest (`pairs`, masked attention; the
      launcher chooses how many pairs).

    ```mlir
    fattn.sm90.work = #fattn.sm90_work_plan<q_buffers = 2, tail = split>
    ```
  }];
  let parameters = (ins
    FAttn_DefaultEnumParameter<FAttn_SM90QTileOrder, "Reverse">:$q_tile_order,
    DefaultValuedParameter<"int64_t", "1">:$q_buffers,
    FAttn_DefaultEnumParameter<FAttn_SM90WorkTail, "None">:$tail);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

//===----------------------------------------------------------------------===//
// sm_80
//===----------------------------------------------------------------------===//

def FAttn_SM80QOperand : I32EnumAttr<"SM80QOperand",
    "where the sm_80 kernel's S = Q K^T reads Q from", [
  I32EnumAttrCase<"Registers", 0, "registers">,
  I32EnumAttrCase<"LdMatrix", 1, "ldmatrix">
]> {
  let cppNamespace = "::mlir::fattn";
  let genSpecializedAttr = 0;
}

def FAttn_SM80SmemPlanAttr : FAttn_Attr<"SM80SmemPlan", "sm80_smem_plan"> {
  let summary = "the shared memory of an sm_80 kernel: Q once, then a cp.async ring of K/V";
  let description = [{
    Recorded by `--fattn-sm80-async-copy` as `fattn.sm80.smem` on a
    `fattn.tiled_attention`; the sm_80 lowering places its tiles by it. Byte
    offsets in the CTA's dynamic shared memory:

    - `stages`: K/V slots of the ring (2 to 4); K/V tile j + stages - 1 is in
      flight (16-byte `cp.async.cg` copies, one commit group per tile) while
      tile j is computed;
    - `row_pitch`: bytes between consecutive rows of every tile (a row's
      bytes plus 16, so that the eight rows of an `ldmatrix` phase hit
      distinct bank groups);
    - `q_offset`: Q's block_m rows (O is staged there for the epilogue);
    - `kv_offset` and `stage_bytes`: slot s holds a K tile at
      `kv_offset + s * stage_bytes` and the V tile block_n rows after it;
    - `bytes`: the dynamic shared memory of the CTA.

    The verifier checks what holds for any tile shape (16-byte alignment,
    the ring inside `bytes`); the lowering checks the plan against the op's
    tiles and head dim.

    ```mlir
    fattn.sm80.smem = #fattn.sm80_smem_plan<stages = 2, row_pitch = 144,
        q_offset = 0, kv_offset = 18432, stage_bytes = 18432, bytes = 55296>
    ```
  }];
  let parameters = (ins "int64_t":$stages, "int64_t":$row_pitch,
                        "int64_t":$q_offset, "int64_t":$kv_offset,
                        "int64_t":$stage_bytes, "int64_t":$bytes);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def FAttn_SM80MmaPlanAttr : FAttn_Attr<"SM80MmaPlan", "sm80_mma_plan"> {
  let summary = "the warp decomposition of an sm_80 kernel's mma.sync m16n8k16";
  let description = [{
    Recorded by `--fattn-sm80-mma` as `fattn.sm80.mma` on a
    `fattn.tiled_attention`; the sm_80 lowering implements it. `warps` warps
    (4: the copy plan's 128 threads) each own `rows_per_warp` whole query
    rows (a multiple of the 16 rows of an m16n8k16 fragment), so that a
    row's max and sum need only the four lanes that share it. `q_operand`
    says where S = Q K^T reads Q: `registers` (loaded once by `ldmatrix`
    before the KV loop) or `ldmatrix` (re-read from shared memory for every
    tile, when keeping it would cost more than 32 registers per lane). K
    comes by `ldmatrix`, V by `ldmatrix.trans`, and P from S's accumulator
    registers.

    ```mlir
    fattn.sm80.mma = #fattn.sm80_mma_plan<warps = 4, rows_per_warp = 32,
                                          q_operand = registers>
    ```
  }];
  let parameters = (ins "int64_t":$warps, "int64_t":$rows_per_warp,
                        EnumParameter<FAttn_SM80QOperand>:$q_operand);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // FATTN_DIALECT_FATTN_IR_FATTNATTRS_TD
