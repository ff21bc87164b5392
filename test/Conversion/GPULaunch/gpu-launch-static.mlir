// RUN: fattn-opt %s -split-input-file -verify-diagnostics --fattn-gpu-launch -o /dev/null

// What the launch's run-time checks would refuse, decided at compile time
// where the memref types give the sizes and strides they read (the
// pipelines' cases: test/Pipelines/host-launch-static-limits.mlir).

// Keys 0 with queries.
module attributes {gpu.container_module} {
  func.func private @n_attention(memref<1x2x100x64xf16>, memref<1x2x0x64xf16>, memref<1x2x0x64xf16>, memref<1x2x100x64xf16>)
      attributes {fattn.kernel_ref = @k::@n}
  func.func @n(%q: memref<1x2x100x64xf16>, %k: memref<1x2x0x64xf16>) {
    // expected-error @+1 {{cannot launch @n from the host: k has no keys but q has queries}}
    call @n_attention(%q, %k, %k, %q) {fattn.launch_tensors = ["q", "k", "v", "o"]}
        : (memref<1x2x100x64xf16>, memref<1x2x0x64xf16>, memref<1x2x0x64xf16>, memref<1x2x100x64xf16>) -> ()
    return
  }
  gpu.module @k [#nvvm.target<chip = "sm_90a">] {
    llvm.func @n(%q: !llvm.ptr) attributes {gpu.kernel, fattn.kernel_description = "{\"version\": 1, \"arch\": \"sm_90a\", \"entry\": \"n\", \"cubin\": \"n.cubin\", \"dtype\": \"f16\", \"head_dim_qk\": 64, \"head_dim_v\": 64, \"scale\": 0.125, \"causal\": false, \"window_left\": -1, \"window_right\": -1, \"softcap\": 0.0, \"has_lse\": false, \"block_m\": 128, \"block_n\": 128, \"threads\": 384, \"dynamic_smem_bytes\": 0, \"grid\": [[\"seq_q\", 128]], \"params\": [{\"name\": \"q\", \"type\": \"ptr\"}]}"} {
      llvm.return
    }
  }
}

// -----

// A u32 stride parameter that the static stride does not fit.
module attributes {gpu.container_module} {
  func.func private @s_attention(memref<2x2x100x64xf16, strided<[4294967296, 6400, 64, 1]>>, memref<2x2x100x64xf16, strided<[4294967296, 6400, 64, 1]>>, memref<2x2x100x64xf16, strided<[4294967296, 6400, 64, 1]>>, memref<2x2x100x64xf16, strided<[4294967296, 6400, 64, 1]>>)
      attributes {fattn.kernel_ref = @k::@s}
  func.func @s(%q: memref<2x2x100x64xf16, strided<[4294967296, 6400, 64, 1]>>) {
    // expected-error @+1 {{cannot launch @s from the host: parameter 'q_stride_b' = 4294967296 does not fit in u32}}
    call @s_attention(%q, %q, %q, %q) {fattn.launch_tensors = ["q", "k", "v", "o"]}
        : (memref<2x2x100x64xf16, strided<[4294967296, 6400, 64, 1]>>, memref<2x2x100x64xf16, strided<[4294967296, 6400, 64, 1]>>, memref<2x2x100x64xf16, strided<[4294967296, 6400, 64, 1]>>, memref<2x2x100x64xf16, strided<[4294967296, 6400, 64, 1]>>) -> ()
    return
  }
  gpu.module @k [#nvvm.target<chip = "sm_90a">] {
    llvm.func @s(%q: !llvm.ptr, %qs: i32) attributes {gpu.kernel, fattn.kernel_description = "{\"version\": 1, \"arch\": \"sm_90a\", \"entry\": \"s\", \"cubin\": \"s.cubin\", \"dtype\": \"f16\", \"head_dim_qk\": 64, \"head_dim_v\": 64, \"scale\": 0.125, \"causal\": false, \"window_left\": -1, \"window_right\": -1, \"softcap\": 0.0, \"has_lse\": false, \"block_m\": 128, \"block_n\": 128, \"threads\": 384, \"dynamic_smem_bytes\": 0, \"grid\": [[\"seq_q\", 128]], \"params\": [{\"name\": \"q\", \"type\": \"ptr\"}, {\"name\": \"q_stride_b\", \"type\": \"u32\"}]}"} {
      llvm.return
    }
  }
}

// -----

// A broadcast dim (stride 0 over 2 heads), which a TMA box cannot step
// through.
module attributes {gpu.container_module} {
  func.func private @b_attention(memref<1x2x100x64xf16, strided<[6400, 0, 64, 1]>>, memref<1x2x100x64xf16, strided<[6400, 0, 64, 1]>>, memref<1x2x100x64xf16, strided<[6400, 0, 64, 1]>>, memref<1x2x100x64xf16>)
      attributes {fattn.kernel_ref = @k::@b}
  func.func @b(%q: memref<1x2x100x64xf16, strided<[6400, 0, 64, 1]>>, %o: memref<1x2x100x64xf16>) {
    // expected-error @+1 {{cannot launch @b from the host: tensormap parameter 'k_map' of tensor 'k': the stride of dim 1 is 0 (a broadcast view); TMA needs a nonzero stride}}
    call @b_attention(%q, %q, %q, %o) {fattn.launch_tensors = ["q", "k", "v", "o"]}
        : (memref<1x2x100x64xf16, strided<[6400, 0, 64, 1]>>, memref<1x2x100x64xf16, strided<[6400, 0, 64, 1]>>, memref<1x2x100x64xf16, strided<[6400, 0, 64, 1]>>, memref<1x2x100x64xf16>) -> ()
    return
  }
  gpu.module @k [#nvvm.target<chip = "sm_90a">] {
    llvm.func @b(%kmap: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}) attributes {gpu.kernel, nvvm.kernel, fattn.kernel_description = "{\"version\": 1, \"arch\": \"sm_90a\", \"entry\": \"b\", \"cubin\": \"b.cubin\", \"dtype\": \"f16\", \"head_dim_qk\": 64, \"head_dim_v\": 64, \"scale\": 0.125, \"causal\": false, \"window_left\": -1, \"window_right\": -1, \"softcap\": 0.0, \"has_lse\": false, \"block_m\": 128, \"block_n\": 128, \"threads\": 384, \"dynamic_smem_bytes\": 0, \"grid\": [[\"seq_q\", 128]], \"params\": [{\"name\": \"k_map\", \"type\": \"tensormap\", \"tensor\": \"k\", \"element_type\": \"f16\", \"box\": [1, 1, 128, 64], \"element_strides\": [1, 1, 1, 1], \"swizzle\": \"128B\", \"l2_promotion\": \"256B\", \"oob_fill\": \"zero\"}]}"} {
      llvm.return
    }
  }
}
