// The TMA plan decides how O leaves: the lowering builds O's TMA stores (and
// their tensor map, o_map) from `store = tma` in the IR, whatever pass or
// hand wrote it, and stores O from registers for `store = registers`.
// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-persistent-tiles \
// RUN:   | sed -e 's/store = registers/store = tma/' \
// RUN:   | fattn-opt --fattn-sm90-q-buffers --convert-fattn-to-nvvm-sm90="kernel-name=k" | FileCheck %s --check-prefix=TMA
// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma="tma-store=true" --fattn-warp-specialize --fattn-persistent-tiles \
// RUN:   | fattn-opt --fattn-sm90-q-buffers --convert-fattn-to-nvvm-sm90="kernel-name=k" | FileCheck %s --check-prefix=TMA
// RUN: fattn-opt %s --fattn-tile="block-m=128 block-n=128" --fattn-sm90-tma --fattn-warp-specialize --fattn-persistent-tiles \
// RUN:   | fattn-opt --fattn-sm90-q-buffers --convert-fattn-to-nvvm-sm90="kernel-name=k" | FileCheck %s --check-prefix=REGS

// TMA: \22name\22:\22o_map\22
// TMA: nvvm.cp.async.bulk.tensor.global.shared.cta
// REGS: llvm.func @k
// REGS-NOT: o_map
// REGS-NOT: nvvm.cp.async.bulk.tensor.global.shared.cta
func.func @attn(%q: memref<?x?x?x96xbf16>, %k: memref<?x?x?x96xbf16>, %v: memref<?x?x?x96xbf16>, %o: memref<?x?x?x96xbf16>) {
  fattn.attention ins(%q, %k, %v : memref<?x?x?x96xbf16>, memref<?x?x?x96xbf16>, memref<?x?x?x96xbf16>) outs(%o : memref<?x?x?x96xbf16>)
  return
}
