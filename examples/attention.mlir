// A small causal GQA attention in the form users write, with a main that
// fills the inputs, runs it and prints O and the LSE (mlir-runner).
func.func private @printMemrefF32(memref<*xf32>)

func.func @attention(%q: memref<1x4x6x8xf32>, %k: memref<1x2x6x8xf32>, %v: memref<1x2x6x8xf32>,
                     %o: memref<1x4x6x8xf32>, %lse: memref<1x4x6xf32>) {
  fattn.attention ins(%q, %k, %v : memref<1x4x6x8xf32>, memref<1x2x6x8xf32>, memref<1x2x6x8xf32>)
                  outs(%o : memref<1x4x6x8xf32>) lse(%lse : memref<1x4x6xf32>)
                  {scale = 0.35355339 : f32, causal = true}
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %q = memref.alloc() : memref<1x4x6x8xf32>
  %k = memref.alloc() : memref<1x2x6x8xf32>
  %v = memref.alloc() : memref<1x2x6x8xf32>
  %o = memref.alloc() : memref<1x4x6x8xf32>
  %lse = memref.alloc() : memref<1x4x6xf32>
  // q[h, s, d] = sin(h + 3s + d), k = cos(...), v = s + d / 8.
  scf.for %s = %c0 to %c6 step %c1 {
    scf.for %d = %c0 to %c8 step %c1 {
      %si = arith.index_cast %s : index to i32
      %di = arith.index_cast %d : index to i32
      %sf = arith.sitofp %si : i32 to f32
      %df = arith.sitofp %di : i32 to f32
      %three = arith.constant 3.0 : f32
      %eighth = arith.constant 0.125 : f32
      %s3 = arith.mulf %sf, %three : f32
      %base = arith.addf %s3, %df : f32
      %dv = arith.mulf %df, %eighth : f32
      %vv = arith.addf %sf, %dv : f32
      scf.for %h = %c0 to %c4 step %c1 {
        %hi = arith.index_cast %h : index to i32
        %hf = arith.sitofp %hi : i32 to f32
        %x = arith.addf %base, %hf : f32
        %qv = math.sin %x : f32
        memref.store %qv, %q[%c0, %h, %s, %d] : memref<1x4x6x8xf32>
      }
      scf.for %h = %c0 to %c2 step %c1 {
        %hi = arith.index_cast %h : index to i32
        %hf = arith.sitofp %hi : i32 to f32
        %x = arith.addf %base, %hf : f32
        %kv = math.cos %x : f32
        memref.store %kv, %k[%c0, %h, %s, %d] : memref<1x2x6x8xf32>
        memref.store %vv, %v[%c0, %h, %s, %d] : memref<1x2x6x8xf32>
      }
    }
  }
  call @attention(%q, %k, %v, %o, %lse) : (memref<1x4x6x8xf32>, memref<1x2x6x8xf32>, memref<1x2x6x8xf32>, memref<1x4x6x8xf32>, memref<1x4x6xf32>) -> ()
  %ou = memref.cast %o : memref<1x4x6x8xf32> to memref<*xf32>
  call @printMemrefF32(%ou) : (memref<*xf32>) -> ()
  %lu = memref.cast %lse : memref<1x4x6xf32> to memref<*xf32>
  call @printMemrefF32(%lu) : (memref<*xf32>) -> ()
  memref.dealloc %q : memref<1x4x6x8xf32>
  memref.dealloc %k : memref<1x2x6x8xf32>
  memref.dealloc %v : memref<1x2x6x8xf32>
  memref.dealloc %o : memref<1x4x6x8xf32>
  memref.dealloc %lse : memref<1x4x6xf32>
  return
}
