// RUN: fattn-opt %s -split-input-file -verify-diagnostics

// The target ops' parsers build their LLVM pointer operand types where no
// LLVM type has been parsed before: a value of another type is a
// diagnostic.

// expected-note @below {{prior use here}}
func.func @sm80_ldmatrix(%a: i32) {
  // expected-error @below {{use of value '%a' expects different type than prior uses: '!llvm.ptr<3>' vs 'i32'}}
  %w0, %w1, %w2, %w3 = fattn.sm80.ldmatrix_x4 %a
  return
}

// -----

// expected-note @below {{prior use here}}
func.func @sm80_store_rows(%s: i32, %i: i64) {
  // expected-error @below {{use of value '%s' expects different type than prior uses: '!llvm.ptr<3>' vs 'i32'}}
  fattn.sm80.store_rows %s[%s], lane = %s, into %s[%s], row_stride = %i, seq_len = %s, rows = 4, row_bytes = 128, row_pitch = 144
  return
}

// -----

// expected-note @below {{prior use here}}
func.func @sm90_mbarrier_wait(%a: i32) {
  // expected-error @below {{use of value '%a' expects different type than prior uses: '!llvm.ptr<3>' vs 'i32'}}
  fattn.sm90.mbarrier_wait %a, parity = %a
  return
}
