// RUN: fattn-opt %s -split-input-file -verify-diagnostics

llvm.func @no_stage(%t: i32) {
  // expected-error @below {{'fattn.sm90.ring_stage' op expected at least one stage, found 0}}
  %s = fattn.sm90.ring_stage %t, stages = 0
  llvm.return
}

// -----

llvm.func @no_phase_stage(%t: i32) {
  // expected-error @below {{'fattn.sm90.ring_phase' op expected at least one stage, found -1}}
  %p = fattn.sm90.ring_phase %t, stages = -1
  llvm.return
}

// -----

llvm.func @unaligned_barrier(%base: !llvm.ptr<3>, %s: i32) {
  // expected-error @below {{'fattn.sm90.ring_barrier' op expected a non-negative 32-bit byte offset that is a multiple of 8 (mbarriers are 8 bytes, 8-byte aligned), found 163844}}
  %bar = fattn.sm90.ring_barrier %base[%s], offset = 163844
  llvm.return
}

// -----

llvm.func @global_barrier(%base: !llvm.ptr<1>, %s: i32) {
  // expected-error @below {{'fattn.sm90.ring_barrier' op operand #0 must be LLVM pointer to shared memory (address space 3), but got '!llvm.ptr<1>'}}
  %bar = "fattn.sm90.ring_barrier"(%base, %s) <{offset = 8 : i64}> : (!llvm.ptr<1>, i32) -> !llvm.ptr<3>
  llvm.return
}

// -----

llvm.func @no_arrivals(%bar: !llvm.ptr<3>, %p: i1) {
  // expected-error @below {{'fattn.sm90.mbarrier_init' op expected an arrival count in [1, 1048575], found 0}}
  fattn.sm90.mbarrier_init %bar, count = 0, predicate = %p
  llvm.return
}

// -----

llvm.func @too_many_bytes(%bar: !llvm.ptr<3>) {
  // expected-error @below {{'fattn.sm90.mbarrier_arrive_expect_tx' op expected a transaction count in [1, 1048575] bytes, found 1048576}}
  fattn.sm90.mbarrier_arrive_expect_tx %bar, bytes = 1048576
  llvm.return
}

// -----

llvm.func @six_coordinates(%map: !llvm.ptr, %base: !llvm.ptr<3>, %bar: !llvm.ptr<3>, %x: i32) {
  // expected-error @below {{'fattn.sm90.tma_load' op expected 1 to 5 coordinates (one per dim of the tensor map), found 6}}
  fattn.sm90.tma_load %map[%x, %x, %x, %x, %x, %x], %base[%x], barrier = %bar
  llvm.return
}

// -----

llvm.func @no_coordinates(%map: !llvm.ptr, %base: !llvm.ptr<3>, %bar: !llvm.ptr<3>, %x: i32) {
  // expected-error @below {{'fattn.sm90.tma_load' op expected 1 to 5 coordinates (one per dim of the tensor map), found 0}}
  fattn.sm90.tma_load %map[], %base[%x], barrier = %bar
  llvm.return
}

// -----

llvm.func @shared_tensor_map(%map: !llvm.ptr<3>, %base: !llvm.ptr<3>, %bar: !llvm.ptr<3>, %x: i32) {
  // expected-error @below {{'fattn.sm90.tma_load' op operand #0 must be generic LLVM pointer (a TMA tensor map), but got '!llvm.ptr<3>'}}
  "fattn.sm90.tma_load"(%map, %x, %base, %x, %bar) : (!llvm.ptr<3>, i32, !llvm.ptr<3>, i32, !llvm.ptr<3>) -> ()
  llvm.return
}

// -----

llvm.func @negative_pending() {
  // expected-error @below {{'fattn.sm90.wgmma_wait_group' op expected a non-negative number of pending groups, found -1}}
  fattn.sm90.wgmma_wait_group pending = -1
  llvm.return
}

// -----

llvm.func @f32_operands(%d: i64, %acc: !llvm.struct<(f32, f32, f32, f32)>) {
  // expected-error @below {{'fattn.sm90.wgmma' op expected element_type bf16, f16 or f8E4M3FN, found 'f32'}}
  %s = fattn.sm90.wgmma %d, %d, %acc, element_type = f32 : !llvm.struct<(f32, f32, f32, f32)>
  llvm.return
}

// -----

llvm.func @integer_accumulator(%d: i64, %acc: !llvm.struct<(i32, i32, i32, i32)>) {
  // expected-error @below {{'fattn.sm90.wgmma' op expected a literal struct of f32 accumulator registers, found '!llvm.struct<(i32, i32, i32, i32)>'}}
  %s = fattn.sm90.wgmma %d, %d, %acc, element_type = bf16 : !llvm.struct<(i32, i32, i32, i32)>
  llvm.return
}

// -----

llvm.func @odd_n(%d: i64, %acc: !llvm.struct<(f32, f32, f32, f32, f32, f32)>) {
  // expected-error @below {{'fattn.sm90.wgmma' op expected N / 2 accumulator registers with N a multiple of 8 in [8, 256] (m64nNk), found 6}}
  %s = fattn.sm90.wgmma %d, %d, %acc, element_type = f16 : !llvm.struct<(f32, f32, f32, f32, f32, f32)>
  llvm.return
}

// -----

llvm.func @result_type(%d: i64, %acc: !llvm.struct<(f32, f32, f32, f32)>) {
  // expected-error @below {{'fattn.sm90.wgmma' op failed to verify that all of {accumulator, result} have same type}}
  %s = "fattn.sm90.wgmma"(%d, %d, %acc) <{element_type = bf16}> : (i64, i64, !llvm.struct<(f32, f32, f32, f32)>) -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  llvm.return
}

// -----

llvm.func @three_a_registers(%p: i32, %d: i64, %o: f32) {
  // expected-error @below {{'fattn.sm90.wgmma_rs' op expected 4 i32 registers of A (its m64k fragment per thread), found 3}}
  %0 = fattn.sm90.wgmma_rs [%p, %p, %p], %d, [%o, %o, %o, %o], element_type = bf16 : !llvm.struct<(f32, f32, f32, f32)>
  llvm.return
}

// -----

llvm.func @rs_result(%p: i32, %d: i64, %o: f32) {
  // expected-error @below {{'fattn.sm90.wgmma_rs' op expected result type '!llvm.struct<(f32, f32, f32, f32)>' (the accumulator's registers), found '!llvm.struct<(f32, f32)>'}}
  %0 = fattn.sm90.wgmma_rs [%p, %p, %p, %p], %d, [%o, %o, %o, %o], element_type = bf16 : !llvm.struct<(f32, f32)>
  llvm.return
}

// -----

llvm.func @e4m3_transpose(%p: i32, %d: i64, %o: f32) {
  // expected-error @below {{'fattn.sm90.wgmma_rs' op expected no transpose_b with f8E4M3FN (e4m3 wgmma reads B K-major only)}}
  %0 = fattn.sm90.wgmma_rs [%p, %p, %p, %p], %d transposed, [%o, %o, %o, %o], element_type = f8E4M3FN : !llvm.struct<(f32, f32, f32, f32)>
  llvm.return
}

// -----

llvm.func @rs_n(%p: i32, %d: i64, %o: f32) {
  // expected-error @below {{'fattn.sm90.wgmma_rs' op expected N / 2 accumulator registers with N a multiple of 8 in [8, 256] (m64nNk), found 2}}
  %0 = fattn.sm90.wgmma_rs [%p, %p, %p, %p], %d, [%o, %o], element_type = f16 : !llvm.struct<(f32, f32)>
  llvm.return
}

// -----

llvm.func @store_coordinates(%map: !llvm.ptr, %base: !llvm.ptr<3>, %x: i32) {
  // expected-error @below {{'fattn.sm90.tma_store' op expected 1 to 5 coordinates (one per dim of the tensor map), found 6}}
  fattn.sm90.tma_store %map[%x, %x, %x, %x, %x, %x], %base[%x]
  llvm.return
}

// -----

llvm.func @bulk_reduce_size(%dst: !llvm.ptr<1>, %src: i32) {
  %bytes = llvm.mlir.constant(40 : i32) : i32
  // expected-error @below {{'fattn.sm90.bulk_reduce_add' op expected bytes a positive multiple of 16, found 40}}
  fattn.sm90.bulk_reduce_add %dst, %src, bytes = %bytes
  llvm.return
}

// -----

llvm.func @bulk_reduce_shared(%dst: !llvm.ptr<3>, %src: i32, %bytes: i32) {
  // expected-error @below {{'fattn.sm90.bulk_reduce_add' op operand #0 must be LLVM pointer to global memory (address space 1)}}
  "fattn.sm90.bulk_reduce_add"(%dst, %src, %bytes) : (!llvm.ptr<3>, i32, i32) -> ()
  llvm.return
}

// -----

llvm.func @negative_bulk_pending() {
  // expected-error @below {{'fattn.sm90.bulk_wait_group_read' op expected a non-negative number of pending groups, found -2}}
  fattn.sm90.bulk_wait_group_read pending = -2
  llvm.return
}

// -----

llvm.func @unaligned_leading_bytes(%x: i32) {
  // expected-error @below {{'fattn.sm90.wgmma_descriptor' op expected leading_bytes a multiple of 16 in [16, 262128] (14 bits of 16-byte units), found 24}}
  %d = fattn.sm90.wgmma_descriptor %x[%x], leading_bytes = 24
  llvm.return
}

// -----

llvm.func @wide_leading_bytes(%x: i32) {
  // expected-error @below {{'fattn.sm90.wgmma_descriptor' op expected leading_bytes a multiple of 16 in [16, 262128] (14 bits of 16-byte units), found 262144}}
  %d = fattn.sm90.wgmma_descriptor %x[%x], leading_bytes = 262144
  llvm.return
}

// -----

llvm.func @odd_threads(%id: i32) {
  // expected-error @below {{'fattn.sm90.named_barrier' op expected a thread count that is a positive multiple of 32 (at most 1024), found 100}}
  fattn.sm90.named_barrier %id, threads = 100
  llvm.return
}

// -----

llvm.func @too_many_threads(%id: i32) {
  // expected-error @below {{'fattn.sm90.named_barrier_arrive' op expected a thread count that is a positive multiple of 32 (at most 1024), found 2048}}
  fattn.sm90.named_barrier_arrive %id, threads = 2048
  llvm.return
}

// -----

llvm.func @odd_registers() {
  // expected-error @below {{'fattn.sm90.setmaxnreg' op expected a register count that is a multiple of 8 in [24, 256], found 100}}
  fattn.sm90.setmaxnreg increase 100
  llvm.return
}

// -----

llvm.func @too_few_registers() {
  // expected-error @below {{'fattn.sm90.setmaxnreg' op expected a register count that is a multiple of 8 in [24, 256], found 16}}
  fattn.sm90.setmaxnreg decrease 16
  llvm.return
}

// -----

llvm.func @too_many_registers() {
  // expected-error @below {{'fattn.sm90.setmaxnreg' op expected a register count that is a multiple of 8 in [24, 256], found 264}}
  fattn.sm90.setmaxnreg increase 264
  llvm.return
}

// -----

llvm.func @quad_reduce_kind(%x: f32) {
  // expected-error @below {{custom op 'fattn.sm90.quad_reduce' expected string or keyword containing one of the following enum values for attribute 'kind' [max, add]}}
  %m = fattn.sm90.quad_reduce min %x
  llvm.return
}

// -----

llvm.func @pack_pair_f32(%x: f32) {
  // expected-error @below {{'fattn.sm90.pack_pair' op expected element_type bf16 or f16, found 'f32'}}
  %p = fattn.sm90.pack_pair %x, %x, element_type = f32
  llvm.return
}

// -----

llvm.func @pack_pair_e4m3(%x: f32) {
  // expected-error @below {{'fattn.sm90.pack_pair' op expected element_type bf16 or f16, found 'f8E4M3FN'}}
  %p = fattn.sm90.pack_pair %x, %x, element_type = f8E4M3FN
  llvm.return
}

// -----

llvm.func @store_fragment_odd(%o: !llvm.ptr<1>, %off: i64, %x: f32) {
  // expected-error @below {{'fattn.sm90.store_fragment' op expected a positive, even number of values (pairs of adjacent columns), found 3}}
  fattn.sm90.store_fragment [%x, %x, %x] scale %x, %o[%off], element_type = bf16
  llvm.return
}

// -----

llvm.func @store_fragment_f32(%o: !llvm.ptr<1>, %off: i64, %x: f32) {
  // expected-error @below {{'fattn.sm90.store_fragment' op expected element_type bf16 or f16, found 'f32'}}
  fattn.sm90.store_fragment [%x, %x] scale %x, %o[%off], element_type = f32
  llvm.return
}

// -----

llvm.func @store_fragment_shared(%o: !llvm.ptr<3>, %off: i64, %x: f32) {
  // expected-error @below {{'fattn.sm90.store_fragment' op operand #3 must be LLVM pointer to global memory (address space 1), but got '!llvm.ptr<3>'}}
  "fattn.sm90.store_fragment"(%x, %x, %x, %o, %off) <{element_type = bf16}> : (f32, f32, f32, !llvm.ptr<3>, i64) -> ()
  llvm.return
}

// -----

llvm.func @stage_fragment_empty(%base: !llvm.ptr<3>, %i: i32, %x: f32) {
  // expected-error @below {{'fattn.sm90.stage_fragment' op expected a positive, even number of values (pairs of adjacent columns), found 0}}
  fattn.sm90.stage_fragment [] scale %x, %base[%i], row_byte = %i, swizzle = %i, atom_bytes = 16384, element_type = bf16
  llvm.return
}

// -----

llvm.func @stage_fragment_atom(%base: !llvm.ptr<3>, %i: i32, %x: f32) {
  // expected-error @below {{'fattn.sm90.stage_fragment' op expected atom_bytes a positive 32-bit multiple of 1024 (8 rows of 128 bytes), found 1000}}
  fattn.sm90.stage_fragment [%x, %x] scale %x, %base[%i], row_byte = %i, swizzle = %i, atom_bytes = 1000, element_type = bf16
  llvm.return
}

// -----

llvm.func @load_swizzled_unit_atom(%base: !llvm.ptr<3>, %i: i32) {
  // expected-error @below {{'fattn.sm90.load_swizzled_unit' op expected atom_bytes a positive 32-bit multiple of 1024 (8 rows of 128 bytes), found 0}}
  %u = fattn.sm90.load_swizzled_unit %base[%i, %i], atom_bytes = 0
  llvm.return
}

// -----

llvm.func @quad_transpose_i16(%w: i32, %b: i1) {
  // expected-error @below {{'fattn.sm90.quad_transpose' op result #0 must be vector of four i32 (a 16-byte unit), but got 'vector<8xi16>'}}
  %t = "fattn.sm90.quad_transpose"(%w, %w, %w, %w, %b, %b) : (i32, i32, i32, i32, i1, i1) -> vector<8xi16>
  llvm.return
}

// -----

llvm.func @region_unaligned_tiles() {
  // expected-error @below {{'fattn.sm90.smem_region' op expected the offset of region value_ring a non-negative multiple of 1024, found 33000}}
  %v = fattn.sm90.smem_region value_ring, offset = 33000, bytes = 65536
  llvm.return
}

// -----

llvm.func @region_unaligned_barriers() {
  // expected-error @below {{'fattn.sm90.smem_region' op expected the offset of region barriers a non-negative multiple of 8, found 163844}}
  %b = fattn.sm90.smem_region barriers, offset = 163844, bytes = 72
  llvm.return
}

// -----

llvm.func @region_too_far() {
  // expected-error @below {{'fattn.sm90.smem_region' op expected region key_ring to be non-empty and to end within 231424 bytes (227 KiB less the base's alignment), found bytes 32768 to 295680}}
  %k = fattn.sm90.smem_region key_ring, offset = 32768, bytes = 262912
  llvm.return
}

// -----

llvm.func @region_empty() {
  // expected-error @below {{'fattn.sm90.smem_region' op expected region output to be non-empty and to end within 231424 bytes (227 KiB less the base's alignment), found bytes 32768 to 32768}}
  %o = fattn.sm90.smem_region output, offset = 32768, bytes = 0
  llvm.return
}

// -----

llvm.func @region_unknown() {
  // expected-error @below {{custom op 'fattn.sm90.smem_region' expected string or keyword containing one of the following enum values for attribute 'region' [q_buffers, output, key_ring, value_ring, transposed_value_ring, ones, key_factors, barriers]}}
  %r = fattn.sm90.smem_region lse, offset = 0, bytes = 1024
  llvm.return
}

// -----

llvm.func @work_item_three_divisors(%i: i32, %n: i32) {
  // expected-error @below {{'fattn.sm90.work_item' op expected 2 fast_divisors (one each for q_tiles and heads), found 3}}
  %w:3 = fattn.sm90.work_item %i, q_tiles = %n, pairs = %n, heads = %n, grid = %n, ctas_per_pair = 1, fast_divisors = [false, false, false]
  llvm.return
}

// -----

llvm.func @work_item_multiplier_only(%i: i32, %n: i32, %m: i32) {
  // expected-error @below {{'fattn.sm90.work_item' op expected 4 magic operands (a multiplier and a shift for each of the 2 fast divisors), found 3}}
  %w:3 = fattn.sm90.work_item %i, q_tiles = %n, pairs = %n, heads = %n, grid = %n, ctas_per_pair = 1, fast_divisors = [true, true] magic(%m, %m, %m)
  llvm.return
}

// -----

llvm.func @work_item_no_ctas(%i: i32, %n: i32) {
  // expected-error @below {{'fattn.sm90.work_item' op expected ctas_per_pair in [1, 2^31 - 1], found 0}}
  %w:3 = fattn.sm90.work_item %i, q_tiles = %n, pairs = %n, heads = %n, grid = %n, ctas_per_pair = 0, fast_divisors = [false, false] masked
  llvm.return
}

// -----

llvm.func @work_item_unmasked_tail(%i: i32, %n: i32, %t: i32) {
  // expected-error @below {{'fattn.sm90.work_item' op expected tail_pairs only with masked (unmasked items are all of one length, in one order)}}
  %w:3 = fattn.sm90.work_item %i, q_tiles = %n, pairs = %n, heads = %n, grid = %n, ctas_per_pair = 1, fast_divisors = [false, false] tail_pairs = %t
  llvm.return
}
