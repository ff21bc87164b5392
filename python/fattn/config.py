"""Kernel configurations: what one compiled kernel computes, and its cache key."""
from __future__ import annotations

import math
import os
import struct
from dataclasses import asdict, dataclass
from typing import Any, Dict, Mapping

DTYPES = ("f16", "bf16")

# Hopper pipeline kernels (sm_90a) are used by default on sm_90 devices
# (fattn-compile --arch sm_90a); FATTN_ARCH=sm_80 picks the Ampere kernels.
HOPPER_KERNELS_AVAILABLE = True


def to_f32(x: float) -> float:
    """Rounds to the nearest float32, so that keys and attributes are exact."""
    return struct.unpack("<f", struct.pack("<f", float(x)))[0]


def f32_bits(x: float) -> str:
    return struct.pack("<f", float(x))[::-1].hex()


@dataclass(frozen=True)
class KernelConfig:
    """One fattn.attention configuration, canonical (build with `make`).

    window_left/window_right: -1 is unbounded; `causal` implies window_right = 0
    (FlashAttention-2 semantics, aligned bottom-right). softcap 0 is no softcap.
    scale and softcap are float32 values.
    """

    arch: str
    dtype: str
    head_dim_qk: int
    head_dim_v: int
    causal: bool
    window_left: int
    window_right: int
    softcap: float
    scale: float
    has_lse: bool

    @staticmethod
    def make(arch: str, dtype: str, head_dim_qk: int, head_dim_v: int | None = None,
             causal: bool = False, window_left: int = -1, window_right: int = -1,
             softcap: float = 0.0, scale: float | None = None,
             has_lse: bool = False) -> "KernelConfig":
        if dtype not in DTYPES:
            raise ValueError(f"dtype must be one of {DTYPES}, got {dtype!r}")
        if not (isinstance(arch, str) and arch.startswith("sm_") and len(arch) >= 5):
            raise ValueError(f"arch must look like 'sm_80' or 'sm_90a', got {arch!r}")
        head_dim_v = head_dim_qk if head_dim_v is None else head_dim_v
        for name, d in (("head_dim_qk", head_dim_qk), ("head_dim_v", head_dim_v)):
            if not isinstance(d, int) or d < 1 or d > 1024:
                raise ValueError(f"{name} must be an integer in [1, 1024], got {d!r}")
        wl = -1 if window_left is None or window_left < 0 else int(window_left)
        wr = -1 if window_right is None or window_right < 0 else int(window_right)
        if causal:
            wr = 0
        elif wr == 0:
            causal = True  # the same mask: one kernel for both spellings
        if scale is None:
            scale = 1.0 / math.sqrt(head_dim_qk)
        if not (math.isfinite(scale) and scale > 0):
            raise ValueError(f"softmax_scale must be a positive finite number, got {scale!r}")
        if not (math.isfinite(softcap) and softcap >= 0):
            raise ValueError(f"softcap must be a finite number >= 0, got {softcap!r}")
        return KernelConfig(arch, dtype, int(head_dim_qk), int(head_dim_v), bool(causal), wl, wr,
                            to_f32(softcap), to_f32(scale), bool(has_lse))

    @property
    def key(self) -> str:
        """A file-name-safe, exact key: scale and softcap by their float32 bits."""
        mask = "causal" if self.causal else "full"
        return (f"{self.arch}-{self.dtype}-d{self.head_dim_qk}x{self.head_dim_v}-{mask}"
                f"-wl{self.window_left}-wr{self.window_right}-sc{f32_bits(self.softcap)}"
                f"-s{f32_bits(self.scale)}-{'lse' if self.has_lse else 'nolse'}")

    def to_json(self) -> Dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_json(d: Mapping[str, Any]) -> "KernelConfig":
        return KernelConfig.make(d["arch"], d["dtype"], d["head_dim_qk"], d["head_dim_v"],
                                 d["causal"], d["window_left"], d["window_right"], d["softcap"],
                                 d["scale"], d["has_lse"])

    @staticmethod
    def from_description(desc: Mapping[str, Any]) -> "KernelConfig":
        """The configuration a kernel description (KERNEL-ABI.md) says it computes."""
        return KernelConfig.make(desc["arch"], desc["dtype"], desc["head_dim_qk"],
                                 desc["head_dim_v"], desc["causal"], desc["window_left"],
                                 desc["window_right"], desc["softcap"], desc["scale"],
                                 desc["has_lse"])


def default_arch(capability: tuple) -> str:
    """The pipeline for a device of this compute capability (FATTN_ARCH overrides)."""
    env = os.environ.get("FATTN_ARCH")
    if env:
        return env
    hopper = HOPPER_KERNELS_AVAILABLE or os.environ.get("FATTN_ENABLE_SM90") == "1"
    if tuple(capability) == (9, 0) and hopper:
        return "sm_90a"
    return "sm_80"
