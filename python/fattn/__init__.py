"""fattn: FlashAttention-class kernels compiled from MLIR, on torch tensors.

    import fattn
    out = fattn.flash_attn_func(q, k, v, causal=True)   # FlashAttention-2's signature

FP8 on sm_90a: fattn.quantize_fp8 for q, k, v; fattn.transpose_value_fp8 hands V
over pre-transposed (flash_attn_func(..., v_layout=fattn.VALUE_LAYOUT_SM90)).

Training: with q, k or v requiring grad, flash_attn_func's output is
differentiable (the sm_80 backward kernels; fattn.backward).

Kernels come from a kernel library (FATTN_KERNEL_DIR or fattn.set_kernel_dir) or
are compiled on first use by fattn-compile; see docs/GPU-TESTING.md.
"""
__version__ = "0.1.0"

from ._runtime import FAttnRuntimeError
from .compiler import CompileError
from .config import VALUE_LAYOUT_SM90, KernelConfig, default_arch
from .grad_config import GradKernelConfig
from .interface import flash_attn_func, flash_attn_kvpacked_func, flash_attn_qkvpacked_func
from .kernels import KernelNotFoundError, get_kernel, kernel_dir, set_kernel_dir
from .library import KernelLibrary, LibraryError
from .quantize import (dequantize_fp8, fa3_accuracy_inputs, hadamard_rotate, hadamard_signs,
                       outlier_normal, quantize_fp8, transpose_value_fp8)

try:  # torch is optional: library building and the CPU tests work without it
    import torch as _torch
except ImportError:
    _torch = None
if _torch is not None and hasattr(_torch.library, "custom_op"):
    from . import _torch_ops  # noqa: F401  (torch.ops.fattn.fwd and .bwd: autograd, compile)

__all__ = [
    "CompileError", "FAttnRuntimeError", "GradKernelConfig", "KernelConfig", "KernelLibrary",
    "KernelNotFoundError",
    "LibraryError", "VALUE_LAYOUT_SM90", "default_arch", "flash_attn_func",
    "flash_attn_kvpacked_func", "flash_attn_qkvpacked_func", "get_kernel", "kernel_dir",
    "set_kernel_dir",
    "dequantize_fp8", "fa3_accuracy_inputs", "hadamard_rotate", "hadamard_signs",
    "outlier_normal", "quantize_fp8", "transpose_value_fp8",
]
