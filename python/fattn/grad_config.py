"""Backward kernel configurations: what one compiled fattn.attention_grad computes.

The backward kernels are the sm_80 ones (fattn-sm80-grad-pipeline, FlashAttention-2's
design; docs/KERNEL-ABI.md, "Backward"): they also run on sm_90 GPUs, whose driver
compiles their PTX. Their limits are the compiler's (lib/Conversion/FAttnGradToNVVM):
f16 or bf16, one head dim for Q, K and V, a multiple of 16 up to 128. They add dQ with
f32 atomics in no fixed order, or, with `deterministic` (fattn.attention_grad's
attribute), in increasing KV tile order, so that runs give bit-identical gradients.

The sm_90a backward kernels (fattn-sm90-grad-pipeline: the main kernel on wgmma, the same
parameters) take head dims 64 and 128; flash_attn_func runs them on sm_90 GPUs for the head
dims they take (1.3-1.8x the sm_80 kernels' throughput there, docs/PERF.md), unless
FATTN_GRAD_ARCH=sm_80 asks for the sm_80 ones (grad_arch_for).
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any, Dict, Mapping, Optional, Union

from .config import (KernelConfig, check_arch, check_flag, check_scale, check_softcap,
                     check_window, f32_bits)

GRAD_ARCH = "sm_80"
GRAD_DTYPES = ("f16", "bf16")
GRAD_HEAD_DIM_GRANULE = 16
GRAD_MAX_HEAD_DIM = 128
GRAD_KIND = "attention_grad"
# The head dims each arch's kernels take: multiples of these up to GRAD_MAX_HEAD_DIM.
GRAD_HEAD_DIM_GRANULES = {"sm_80": GRAD_HEAD_DIM_GRANULE, "sm_90a": 64}
# The environment variable that opts in to the sm_90a backward kernels.
GRAD_ARCH_ENV = "FATTN_GRAD_ARCH"


def _grad_head_dim_ok(arch: str, head_dim) -> bool:
    return (not isinstance(head_dim, bool) and isinstance(head_dim, int)
            and head_dim % GRAD_HEAD_DIM_GRANULES[arch] == 0
            and 0 < head_dim <= GRAD_MAX_HEAD_DIM)


def requested_grad_arch() -> Optional[str]:
    """The arch FATTN_GRAD_ARCH asks the backward to run (None when unset: the
    device's, grad_arch_for)."""
    value = os.environ.get(GRAD_ARCH_ENV, "")
    if not value:
        return None
    if value not in GRAD_HEAD_DIM_GRANULES:
        raise ValueError(f"{GRAD_ARCH_ENV} must be one of {', '.join(GRAD_HEAD_DIM_GRANULES)}, "
                         f"got {value!r}")
    return value


def grad_arch_for(capability, head_dim: int) -> str:
    """The arch of the backward kernels for a device of compute capability
    `capability` (major, minor): the sm_90a ones on sm_90 devices for the head dims
    they take (64 and 128), unless FATTN_GRAD_ARCH=sm_80 asks for the sm_80 ones,
    which run everywhere else."""
    if requested_grad_arch() != "sm_80" and tuple(capability) == (9, 0) and \
            _grad_head_dim_ok("sm_90a", head_dim):
        return "sm_90a"
    return GRAD_ARCH


@dataclass(frozen=True)
class GradKernelConfig:
    """One fattn.attention_grad configuration, canonical (build with `make`);
    the mask, scale and softcap follow KernelConfig's rules. `deterministic`:
    the kernels add dQ in a fixed order (bit-identical runs)."""

    arch: str
    dtype: str
    head_dim: int
    causal: bool
    window_left: int
    window_right: int
    softcap: float
    scale: float
    deterministic: bool = False

    @staticmethod
    def make(dtype: str, head_dim: int, causal: bool = False, window_left: int = -1,
             window_right: int = -1, softcap: float = 0.0, scale: float | None = None,
             arch: str = GRAD_ARCH, deterministic: bool = False) -> "GradKernelConfig":
        if not isinstance(dtype, str) or dtype not in GRAD_DTYPES:
            raise ValueError(f"the backward kernels take dtype {' or '.join(GRAD_DTYPES)}, "
                             f"got {dtype!r}")
        check_arch(arch)
        if arch not in GRAD_HEAD_DIM_GRANULES:
            raise ValueError(f"the backward kernels are compiled for "
                             f"{' or '.join(GRAD_HEAD_DIM_GRANULES)} (sm_80's run on sm_90 GPUs "
                             f"too), got arch {arch!r}")
        if not _grad_head_dim_ok(arch, head_dim):
            kernels = "the backward kernels" if arch == GRAD_ARCH else \
                f"the {arch} backward kernels"
            raise ValueError(f"{kernels} take head dims that are multiples of "
                             f"{GRAD_HEAD_DIM_GRANULES[arch]} up to {GRAD_MAX_HEAD_DIM}, got "
                             f"{head_dim!r}")
        causal = check_flag("causal", causal)
        deterministic = check_flag("deterministic", deterministic)
        wl = check_window("window_left", window_left)
        wr = check_window("window_right", window_right)
        if causal:
            wr = 0
        # The description's rule: causal is the window (-1, 0), one kernel for both spellings.
        causal = wl < 0 and wr == 0
        scale = check_scale(1.0 / math.sqrt(head_dim) if scale is None else scale)
        return GradKernelConfig(arch, dtype, int(head_dim), causal, wl, wr,
                                check_softcap(softcap), scale, deterministic)

    @staticmethod
    def for_forward(config: KernelConfig, arch: str = GRAD_ARCH,
                    deterministic: bool = False) -> "GradKernelConfig":
        """The backward of a forward configuration by `arch`'s kernels (with
        `deterministic`, those that add dQ in a fixed order); ValueError naming
        the limit where the backward kernels do not take it (check_grad_support,
        and `arch`'s head dims)."""
        check_grad_support(config)
        return GradKernelConfig.make(config.dtype, config.head_dim_qk, config.causal,
                                     config.window_left, config.window_right, config.softcap,
                                     config.scale, arch, deterministic)

    @property
    def key(self) -> str:
        """A file-name-safe, exact key (scale and softcap by their float32 bits;
        "-det" at the end for the deterministic kernels)."""
        mask = "causal" if self.causal else "full"
        return (f"grad-{self.arch}-{self.dtype}-d{self.head_dim}-{mask}"
                f"-wl{self.window_left}-wr{self.window_right}"
                f"-sc{f32_bits(self.softcap)}-s{f32_bits(self.scale)}"
                + ("-det" if self.deterministic else ""))

    # What the library, the compiler and the kernel cache ask of every configuration.
    tuned_for = None
    runtime_scalars = False

    def to_json(self) -> Dict[str, Any]:
        """The configuration's fields as a description writes them
        ("deterministic" only when true, as fattn-compile writes it)."""
        d = {"kind": GRAD_KIND, "arch": self.arch, "dtype": self.dtype,
             "head_dim": self.head_dim, "causal": self.causal,
             "window_left": self.window_left, "window_right": self.window_right,
             "softcap": self.softcap, "scale": self.scale}
        if self.deterministic:
            d["deterministic"] = True
        return d

    @staticmethod
    def from_json(d: Mapping[str, Any]) -> "GradKernelConfig":
        return GradKernelConfig.make(d["dtype"], d["head_dim"], d["causal"], d["window_left"],
                                     d["window_right"], d["softcap"], d["scale"], d["arch"],
                                     d.get("deterministic", False))

    @staticmethod
    def from_description(desc: Mapping[str, Any]) -> "GradKernelConfig":
        """The configuration a backward description (KERNEL-ABI.md) says it computes."""
        if not isinstance(desc, Mapping):
            raise TypeError(f"a kernel description is a JSON object, got {type(desc).__name__}")
        if desc.get("kind") != GRAD_KIND:
            raise ValueError(f"not a backward description (\"kind\" is {desc.get('kind')!r})")
        return GradKernelConfig.from_json(desc)


def check_grad_support(config: KernelConfig) -> None:
    """Raises ValueError naming the limit where the backward kernels cannot
    differentiate what the forward configuration `config` computes."""
    if config.dtype not in GRAD_DTYPES:
        raise ValueError(f"the backward pass takes float16 or bfloat16 inputs; "
                         f"{config.dtype} (FP8) attention has no backward")
    if config.head_dim_v != config.head_dim_qk:
        raise ValueError(f"the backward pass needs one head dim for q, k and v; v has "
                         f"{config.head_dim_v}, q and k {config.head_dim_qk}")
    d = config.head_dim_qk
    if d % GRAD_HEAD_DIM_GRANULE or d > GRAD_MAX_HEAD_DIM:
        raise ValueError(f"the backward pass takes head dims that are multiples of "
                         f"{GRAD_HEAD_DIM_GRANULE} up to {GRAD_MAX_HEAD_DIM}, got {d}")


def config_from_description(desc: Mapping[str, Any]):
    """The KernelConfig or GradKernelConfig a description says it computes."""
    if isinstance(desc, Mapping) and "kind" in desc:
        return GradKernelConfig.from_description(desc)
    return KernelConfig.from_description(desc)


def config_from_json(d: Mapping[str, Any]):
    """The KernelConfig or GradKernelConfig of an index entry's "config"."""
    if isinstance(d, Mapping) and d.get("kind") == GRAD_KIND:
        return GradKernelConfig.from_json(d)
    return KernelConfig.from_json(d)


# A forward or a backward configuration: what the library, the compiler and
# the kernel cache take.
AnyConfig = Union[KernelConfig, GradKernelConfig]
