// RUN: fattn-opt %s -split-input-file -verify-diagnostics --fattn-gpu-launch | FileCheck %s

// A call of an attention function that a GPU conversion emptied and marked
// with its kernel becomes the kernel's launch, as the kernel's description
// says: grid ceildiv(seq_q, 128) x heads_q x batch (within CUDA's limits,
// asserted), 384 threads, its dynamic shared memory, pointers, sizes,
// strides, the scale and a tensor map of K (innermost dim first, strides in
// bytes, box [64, 128, 1, 1], 128B swizzle, 256B L2 promotion, zero fill)
// encoded on the host and passed by value. The emptied function goes.

// CHECK: llvm.func @mgpuTensorMapEncodeTiled(!llvm.ptr, i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, i32, i32)
// CHECK-NOT: func.func private @f_attention
// CHECK-LABEL: func.func @f(
// CHECK-SAME: %[[Q:arg[0-9]+]]: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %[[K:arg[0-9]+]]: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>,
// CHECK: %{{.*}}, %[[QOFF:[a-z0-9_]+]], %[[QS:[a-z0-9_]+]]:4, %[[QST:[a-z0-9_]+]]:4 = memref.extract_strided_metadata %[[Q]] :
// CHECK: %[[QP:.*]] = memref.extract_aligned_pointer_as_index %[[Q]]
// CHECK: %[[QOFFB:.*]] = arith.muli %[[QOFF]], %c2{{[_0-9]*}} :
// CHECK: %[[QA:.*]] = arith.addi %[[QP]], %[[QOFFB]]
// CHECK: %[[QA64:.*]] = arith.index_cast %[[QA]] : index to i64
// CHECK: memref.extract_strided_metadata %[[K]] :
// CHECK: cf.assert %{{.*}}, "fattn launch of @kern: q, k and v must have the same batch size"
// CHECK: cf.assert %{{.*}}, "fattn launch of @kern: o must have q's batch, heads and sequence length"
// CHECK: cf.assert %{{.*}}, "fattn launch of @kern: v must have k's heads"
// CHECK: cf.assert %{{.*}}, "fattn launch of @kern: v must have k's sequence length"
// CHECK: cf.assert %{{.*}}, "fattn launch of @kern: q's heads must be a multiple of k's heads"
// CHECK: cf.assert %{{.*}}, "fattn launch of @kern: batch, heads and sequence lengths must be below 2^31"
// CHECK: cf.assert %{{.*}}, "fattn launch of @kern: tensor 'q' needs 16-byte aligned data and batch, heads and sequence strides, and an innermost stride of 1"
// CHECK: %[[GX:.*]] = arith.ceildivui %[[QS]]#2, %c128{{[_0-9]*}} :
// CHECK: %[[GY:.*]] = arith.ceildivui %[[QS]]#1, %c1{{[_0-9]*}} :
// CHECK: %[[GZ:.*]] = arith.ceildivui %[[QS]]#0, %c1{{[_0-9]*}} :
// CHECK: cf.assert %{{.*}}, "fattn launch of @kern: grid dim x = ceildiv(seq_q, 128) must be at most 2147483647"
// CHECK: cf.assert %{{.*}}, "fattn launch of @kern: grid dim y = ceildiv(heads_q, 1) must be at most 65535"
// CHECK: cf.assert %{{.*}}, "fattn launch of @kern: grid dim z = ceildiv(batch, 1) must be at most 65535"
// CHECK: scf.if %{{.*}} {
// CHECK:   cf.assert %{{.*}}, "fattn launch of @kern: k has no keys but q has queries"
// CHECK:   %[[QPTR:.*]] = llvm.inttoptr %[[QA64]] : i64 to !llvm.ptr
// CHECK:   %[[B32:.*]] = arith.index_cast %[[QS]]#0 : index to i32
// CHECK:   %[[QSTRIDE:.*]] = arith.index_cast %[[QST]]#0 : index to i64
// CHECK:   %[[SCALE:.*]] = arith.constant 1.250000e-01 : f32
// CHECK:   %[[MAP:.*]] = llvm.alloca %{{.*}} x !llvm.array<128 x i8> {alignment = 64 : i64}
// CHECK:   llvm.call @mgpuTensorMapEncodeTiled(%[[MAP]], %c9_i32{{[_0-9]*}}, %c4_i32{{[_0-9]*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c0_i32{{[_0-9]*}}, %c3_i32{{[_0-9]*}}, %c3_i32{{[_0-9]*}}, %c0_i32{{[_0-9]*}})
// CHECK:   %[[MAPV:.*]] = llvm.load %[[MAP]] : !llvm.ptr -> !llvm.array<128 x i8>
// CHECK:   gpu.launch_func @kernels::@kern blocks in (%[[GX]], %[[GY]], %[[GZ]]) threads in (%c384{{[_0-9]*}}, %[[ONE:c1[_0-9]*]], %[[ONE]]) dynamic_shared_memory_size %c164944_i32
// CHECK-SAME: args(%[[QPTR]] : !llvm.ptr, %{{.*}} : !llvm.ptr, %{{.*}} : !llvm.ptr, %{{.*}} : !llvm.ptr, %[[B32]] : i32, %[[QSTRIDE]] : i64, %[[SCALE]] : f32, %[[MAPV]] : !llvm.array<128 x i8>)
// CHECK: }
// CHECK-NEXT: return
module attributes {gpu.container_module} {
  func.func private @f_attention(memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>,
                                 memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>)
      attributes {fattn.kernel_ref = @kernels::@kern}
  func.func @f(%q: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>,
               %v: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>) {
    call @f_attention(%q, %k, %v, %o) {fattn.launch_tensors = ["q", "k", "v", "o"]}
        : (memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>,
           memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>) -> ()
    return
  }
  gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
    llvm.func @kern(%q: !llvm.ptr, %k: !llvm.ptr, %v: !llvm.ptr, %o: !llvm.ptr, %b: i32, %qs: i64, %scale: f32,
                    %kmap: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant})
        attributes {gpu.kernel, nvvm.kernel, fattn.kernel_description = "{\"version\": 1, \"arch\": \"sm_90a\", \"entry\": \"kern\", \"cubin\": \"kern.cubin\", \"dtype\": \"bf16\", \"head_dim_qk\": 128, \"head_dim_v\": 128, \"scale\": 0.125, \"causal\": false, \"window_left\": -1, \"window_right\": -1, \"softcap\": 0.0, \"has_lse\": false, \"block_m\": 128, \"block_n\": 128, \"threads\": 384, \"dynamic_smem_bytes\": 164944, \"grid\": [[\"seq_q\", 128], [\"heads_q\", 1], [\"batch\", 1]], \"params\": [{\"name\": \"q\", \"type\": \"ptr\"}, {\"name\": \"k\", \"type\": \"ptr\"}, {\"name\": \"v\", \"type\": \"ptr\"}, {\"name\": \"o\", \"type\": \"ptr\"}, {\"name\": \"batch\", \"type\": \"u32\"}, {\"name\": \"q_stride_b\", \"type\": \"u64\"}, {\"name\": \"scale\", \"type\": \"f32\"}, {\"name\": \"k_map\", \"type\": \"tensormap\", \"tensor\": \"k\", \"element_type\": \"bf16\", \"box\": [1, 1, 128, 64], \"element_strides\": [1, 1, 1, 1], \"swizzle\": \"128B\", \"l2_promotion\": \"256B\", \"oob_fill\": \"zero\"}]}"} {
      llvm.return
    }
  }
}

// -----

// An sm_80 kernel's `fattn.kernel` dictionary gives its description: global
// pointers, and the LSE's pointer and strides.
// CHECK-LABEL: func.func @g(
// CHECK: scf.if
// CHECK: gpu.launch_func @fattn_kernels::@g_attention blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in (%c128{{[_0-9]*}}, %[[ONE:c1[_0-9]*]], %[[ONE]]) dynamic_shared_memory_size %c55296_i32
// CHECK-SAME: args(%{{.*}} : !llvm.ptr<1>, %{{.*}} : !llvm.ptr<1>, %{{.*}} : !llvm.ptr<1>, %{{.*}} : !llvm.ptr<1>, %{{.*}} : !llvm.ptr<1>, %{{.*}} : i32, %{{.*}} : i32, %{{.*}} : i32, %{{.*}} : i32, %{{.*}} : i32,
// CHECK-SAME: %{{.*}} : i64, %{{.*}} : i64)
module attributes {gpu.container_module} {
  func.func private @g_attention(memref<1x2x100x64xf16>, memref<1x2x100x64xf16>, memref<1x2x100x64xf16>, memref<1x2x100x64xf16>, memref<1x2x100xf32>)
      attributes {fattn.kernel_ref = @fattn_kernels::@g_attention}
  func.func @g(%q: memref<1x2x100x64xf16>, %lse: memref<1x2x100xf32>) {
    call @g_attention(%q, %q, %q, %q, %lse) {fattn.launch_tensors = ["q", "k", "v", "o", "lse"]}
        : (memref<1x2x100x64xf16>, memref<1x2x100x64xf16>, memref<1x2x100x64xf16>, memref<1x2x100x64xf16>, memref<1x2x100xf32>) -> ()
    return
  }
  gpu.module @fattn_kernels [#nvvm.target<chip = "sm_80">] {
    llvm.func @g_attention(%a0: !llvm.ptr<1>, %a1: !llvm.ptr<1>, %a2: !llvm.ptr<1>, %a3: !llvm.ptr<1>, %a4: !llvm.ptr<1>,
                           %a5: i32, %a6: i32, %a7: i32, %a8: i32, %a9: i32,
                           %a10: i64, %a11: i64, %a12: i64, %a13: i64, %a14: i64, %a15: i64, %a16: i64, %a17: i64, %a18: i64,
                           %a19: i64, %a20: i64, %a21: i64, %a22: i64, %a23: i64)
        attributes {gpu.kernel, nvvm.kernel, fattn.kernel = {block_m = 128 : i64, block_n = 64 : i64, dtype = "f16", dynamic_smem_bytes = 55296 : i64, has_lse = true, head_dim = 64 : i64, scale = 0.125 : f64, softcap = 0.0 : f64, stages = 2 : i64, threads = 128 : i64, window_left = -1 : i64, window_right = 0 : i64}} {
      llvm.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  func.func private @p_attention(memref<1x2x100x64xf16>, memref<1x2x100x64xf16>, memref<1x2x100x64xf16>, memref<1x2x100x64xf16>)
      attributes {fattn.kernel_ref = @k::@p}
  func.func @p(%q: memref<1x2x100x64xf16>) {
    // expected-error @+1 {{cannot launch @p from the host: it needs the device's multiprocessor count (persistent kernels; fattn's runtime launches them)}}
    call @p_attention(%q, %q, %q, %q) {fattn.launch_tensors = ["q", "k", "v", "o"]}
        : (memref<1x2x100x64xf16>, memref<1x2x100x64xf16>, memref<1x2x100x64xf16>, memref<1x2x100x64xf16>) -> ()
    return
  }
  gpu.module @k [#nvvm.target<chip = "sm_90a">] {
    llvm.func @p(%q: !llvm.ptr) attributes {gpu.kernel, fattn.kernel_description = "{\"version\": 1, \"arch\": \"sm_90a\", \"entry\": \"p\", \"cubin\": \"p.cubin\", \"dtype\": \"f16\", \"head_dim_qk\": 64, \"head_dim_v\": 64, \"scale\": 0.125, \"causal\": false, \"window_left\": -1, \"window_right\": -1, \"softcap\": 0.0, \"has_lse\": false, \"block_m\": 128, \"block_n\": 128, \"threads\": 384, \"dynamic_smem_bytes\": 0, \"grid\": [[\"num_sms\", 1]], \"params\": [{\"name\": \"q\", \"type\": \"ptr\"}]}"} {
      llvm.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  func.func private @w_attention(memref<1x2x100x64xf16>, memref<1x2x100x64xf16>, memref<1x2x100x64xf16>, memref<1x2x100x64xf16>)
      attributes {fattn.kernel_ref = @k::@w}
  func.func @w(%q: memref<1x2x100x64xf16>) {
    // expected-error @+1 {{cannot launch @w from the host: it needs a runtime workspace (split-tail kernels; fattn's runtime launches them)}}
    call @w_attention(%q, %q, %q, %q) {fattn.launch_tensors = ["q", "k", "v", "o"]}
        : (memref<1x2x100x64xf16>, memref<1x2x100x64xf16>, memref<1x2x100x64xf16>, memref<1x2x100x64xf16>) -> ()
    return
  }
  gpu.module @k [#nvvm.target<chip = "sm_90a">] {
    llvm.func @w(%q: !llvm.ptr) attributes {gpu.kernel, fattn.kernel_description = "{\"version\": 1, \"arch\": \"sm_90a\", \"entry\": \"w\", \"cubin\": \"w.cubin\", \"dtype\": \"f16\", \"head_dim_qk\": 64, \"head_dim_v\": 64, \"scale\": 0.125, \"causal\": false, \"window_left\": -1, \"window_right\": -1, \"softcap\": 0.0, \"has_lse\": false, \"block_m\": 128, \"block_n\": 128, \"threads\": 384, \"dynamic_smem_bytes\": 0, \"grid\": [[\"seq_q\", 128]], \"params\": [{\"name\": \"workspace\", \"type\": \"ptr\"}], \"workspace_bytes_per_cta\": 64}"} {
      llvm.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  func.func private @n_attention(memref<1x2x100x64xf16>, memref<1x2x100x64xf16>, memref<1x2x100x64xf16>, memref<1x2x100x64xf16>)
  func.func @n(%q: memref<1x2x100x64xf16>) {
    // expected-error @+1 {{'func.call' op calls @n_attention, which no GPU conversion turned into a kernel (no fattn.kernel_ref)}}
    call @n_attention(%q, %q, %q, %q) {fattn.launch_tensors = ["q", "k", "v", "o"]}
        : (memref<1x2x100x64xf16>, memref<1x2x100x64xf16>, memref<1x2x100x64xf16>, memref<1x2x100x64xf16>) -> ()
    return
  }
}

// -----

module attributes {gpu.container_module} {
  func.func private @l_attention(memref<1x2x100x64xf16>, memref<1x2x100x64xf16>, memref<1x2x100x64xf16>, memref<1x2x100x64xf16>)
      attributes {fattn.kernel_ref = @k::@l}
  func.func @l(%q: memref<1x2x100x64xf16>) {
    // expected-error @+1 {{cannot launch @l from the host: the kernel writes an LSE, the call passes none}}
    call @l_attention(%q, %q, %q, %q) {fattn.launch_tensors = ["q", "k", "v", "o"]}
        : (memref<1x2x100x64xf16>, memref<1x2x100x64xf16>, memref<1x2x100x64xf16>, memref<1x2x100x64xf16>) -> ()
    return
  }
  gpu.module @k [#nvvm.target<chip = "sm_90a">] {
    llvm.func @l(%q: !llvm.ptr) attributes {gpu.kernel, fattn.kernel_description = "{\"version\": 1, \"arch\": \"sm_90a\", \"entry\": \"l\", \"cubin\": \"l.cubin\", \"dtype\": \"f16\", \"head_dim_qk\": 64, \"head_dim_v\": 64, \"scale\": 0.125, \"causal\": false, \"window_left\": -1, \"window_right\": -1, \"softcap\": 0.0, \"has_lse\": true, \"block_m\": 128, \"block_n\": 128, \"threads\": 384, \"dynamic_smem_bytes\": 0, \"grid\": [[\"seq_q\", 128]], \"params\": [{\"name\": \"q\", \"type\": \"ptr\"}]}"} {
      llvm.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  func.func private @d_attention(memref<1x2x100x128xf8E4M3FN>, memref<1x2x100x128xf8E4M3FN>, memref<1x2x100x128xf8E4M3FN>, memref<1x2x100x128xbf16>)
      attributes {fattn.kernel_ref = @k::@d}
  func.func @d(%q: memref<1x2x100x128xf8E4M3FN>, %o: memref<1x2x100x128xbf16>) {
    // expected-error @+1 {{cannot launch @d from the host: the kernel reads q's descale factors as a rank-3 tensor, the call passes none}}
    call @d_attention(%q, %q, %q, %o) {fattn.launch_tensors = ["q", "k", "v", "o"]}
        : (memref<1x2x100x128xf8E4M3FN>, memref<1x2x100x128xf8E4M3FN>, memref<1x2x100x128xf8E4M3FN>, memref<1x2x100x128xbf16>) -> ()
    return
  }
  gpu.module @k [#nvvm.target<chip = "sm_90a">] {
    llvm.func @d(%q: !llvm.ptr) attributes {gpu.kernel, fattn.kernel_description = "{\"version\": 1, \"arch\": \"sm_90a\", \"entry\": \"d\", \"cubin\": \"d.cubin\", \"dtype\": \"e4m3\", \"head_dim_qk\": 128, \"head_dim_v\": 128, \"scale\": 0.125, \"causal\": false, \"window_left\": -1, \"window_right\": -1, \"softcap\": 0.0, \"has_lse\": false, \"block_m\": 128, \"block_n\": 128, \"threads\": 384, \"dynamic_smem_bytes\": 0, \"descale\": {\"q\": {\"rank\": 3, \"block\": 128}, \"k\": {\"rank\": 2}, \"v\": {\"rank\": 0}}, \"grid\": [[\"seq_q\", 128]], \"params\": [{\"name\": \"q\", \"type\": \"ptr\"}, {\"name\": \"q_descale\", \"type\": \"ptr\"}, {\"name\": \"k_descale\", \"type\": \"ptr\"}, {\"name\": \"v_descale\", \"type\": \"ptr\"}], \"out_dtype\": \"bf16\"}"} {
      llvm.return
    }
  }
}

// -----

// The description is read by fattn's runtime's reader: what it would refuse
// to launch, the pass refuses to build a launch of.
module attributes {gpu.container_module} {
  func.func private @r_attention(memref<1x2x100x64xf16>, memref<1x2x100x64xf16>, memref<1x2x100x64xf16>, memref<1x2x100x64xf16>)
      attributes {fattn.kernel_ref = @k::@r}
  func.func @r(%q: memref<1x2x100x64xf16>) {
    call @r_attention(%q, %q, %q, %q) {fattn.launch_tensors = ["q", "k", "v", "o"]}
        : (memref<1x2x100x64xf16>, memref<1x2x100x64xf16>, memref<1x2x100x64xf16>, memref<1x2x100x64xf16>) -> ()
    return
  }
  gpu.module @k [#nvvm.target<chip = "sm_90a">] {
    // expected-error @+1 {{'llvm.func' op has a kernel description that fattn's runtime rejects: kernel description: params[0]: unknown parameter name "qq"}}
    llvm.func @r(%q: !llvm.ptr) attributes {gpu.kernel, fattn.kernel_description = "{\"version\": 1, \"arch\": \"sm_90a\", \"entry\": \"r\", \"cubin\": \"r.cubin\", \"dtype\": \"f16\", \"head_dim_qk\": 64, \"head_dim_v\": 64, \"scale\": 0.125, \"causal\": false, \"window_left\": -1, \"window_right\": -1, \"softcap\": 0.0, \"has_lse\": false, \"block_m\": 128, \"block_n\": 128, \"threads\": 384, \"dynamic_smem_bytes\": 0, \"grid\": [[\"seq_q\", 128]], \"params\": [{\"name\": \"qq\", \"type\": \"ptr\"}]}"} {
      llvm.return
    }
  }
}

// -----

// A runtime scale taken as scale·log2(e) and, with the rescale threshold of
// the description's meta, as the threshold over that (`rescale_margin`),
// both computed from the call's operand.
// CHECK-LABEL: func.func @m(
// CHECK-SAME: %{{.*}}: memref<1x2x100x64xf16>, %[[S:.*]]: f32)
// CHECK: scf.if
// CHECK: %[[LOG2E:.*]] = arith.constant 1.44269502 : f32
// CHECK: %[[SL2:.*]] = arith.mulf %[[S]], %[[LOG2E]] : f32
// CHECK: %[[LOG2E2:.*]] = arith.constant 1.44269502 : f32
// CHECK: %[[SL2B:.*]] = arith.mulf %[[S]], %[[LOG2E2]] : f32
// CHECK: %[[T:.*]] = arith.constant 8.000000e+00 : f32
// CHECK: %[[MARGIN:.*]] = arith.divf %[[T]], %[[SL2B]] : f32
// CHECK: gpu.launch_func @kernels::@m_kernel
// CHECK-SAME: %[[SL2]] : f32, %[[MARGIN]] : f32)
module attributes {gpu.container_module} {
  func.func private @m_attention(memref<1x2x100x64xf16>, memref<1x2x100x64xf16>, memref<1x2x100x64xf16>, memref<1x2x100x64xf16>, f32)
      attributes {fattn.kernel_ref = @kernels::@m_kernel}
  func.func @m(%q: memref<1x2x100x64xf16>, %s: f32) {
    call @m_attention(%q, %q, %q, %q, %s) {fattn.launch_tensors = ["q", "k", "v", "o", "scale"]}
        : (memref<1x2x100x64xf16>, memref<1x2x100x64xf16>, memref<1x2x100x64xf16>, memref<1x2x100x64xf16>, f32) -> ()
    return
  }
  gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
    llvm.func @m_kernel(%q: !llvm.ptr, %k: !llvm.ptr, %v: !llvm.ptr, %o: !llvm.ptr, %sl2: f32, %margin: f32)
        attributes {gpu.kernel, nvvm.kernel, fattn.kernel_description = "{\"version\": 1, \"arch\": \"sm_90a\", \"entry\": \"m_kernel\", \"cubin\": \"m.cubin\", \"dtype\": \"f16\", \"head_dim_qk\": 64, \"head_dim_v\": 64, \"scale\": 0.125, \"causal\": false, \"window_left\": -1, \"window_right\": -1, \"softcap\": 0.0, \"has_lse\": false, \"block_m\": 128, \"block_n\": 128, \"threads\": 384, \"dynamic_smem_bytes\": 0, \"grid\": [[\"seq_q\", 128]], \"runtime_scalars\": [\"scale\"], \"meta\": {\"rescale_threshold\": 8}, \"params\": [{\"name\": \"q\", \"type\": \"ptr\"}, {\"name\": \"k\", \"type\": \"ptr\"}, {\"name\": \"v\", \"type\": \"ptr\"}, {\"name\": \"o\", \"type\": \"ptr\"}, {\"name\": \"scale_log2\", \"type\": \"f32\"}, {\"name\": \"rescale_margin\", \"type\": \"f32\"}]}"} {
      llvm.return
    }
  }
}
